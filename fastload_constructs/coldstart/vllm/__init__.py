"""vLLM's start-up logs -> a `ColdStartReport`.

patterns   the log lines, as regular expressions, with the release each came from
records    what the scanner keeps: `LogEvent`s, `Problem`s, the `Timeline`
scanner    one bounded pass over the lines
phases/    one module per start-up phase
assemble   the phases put together (`parse_lines`), and `LOG`: how coldstart/parser.py recognises a vLLM log
"""
