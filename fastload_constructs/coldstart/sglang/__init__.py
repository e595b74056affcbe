"""SGLang's start-up logs -> a `ColdStartReport`, decomposed as vLLM's are.

patterns   the log lines, as regular expressions, with the release each came from
scanner    one bounded pass over the lines: `Event`s, the strongest failure, the streamer's summaries
phases/    one module per start-up phase
assemble   the phases put together (`parse_lines`), and `LOG`: how coldstart/parser.py recognises an SGLang log
"""
