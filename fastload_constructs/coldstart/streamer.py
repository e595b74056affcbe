"""The Run:ai model streamer's summary line: both engines load through it, and it prints its own rate.

Searched anywhere in a line: it is printed bare (print(), runai-model-streamer 0.11.0-0.14.0
file_streamer.py; "[RunAI Distributed Streamer]" in 0.15+ distributed_streamer.py) or logged inside
whatever envelope the streamer's logger has (0.17.1 safetensors_streamer.py `logger.info`).
  "[RunAI Streamer] Overall time to stream {size} of all files to {device}: {s}s, {rate}/s"
  0.11.0, 0.14.0: the same without " to {device}".
Sizes come from humanize.naturalsize(binary=True): "15.0 GiB", "812.3 MiB", "512 Bytes".
"""

from __future__ import annotations

import re

UNIT_BYTES = {"Byte": 1, "Bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}

STREAMER_SUMMARY = re.compile(
    r"\[RunAI (?:Distributed )?Streamer\] Overall time to stream (?P<size>\d+(?:\.\d+)?) "
    r"(?P<size_unit>Bytes?|KiB|MiB|GiB|TiB)"
    r"(?: of all files)?(?: to \S+)?: (?P<seconds>\d+(?:\.\d+)?)s"
    r"(?:, (?P<rate>\d+(?:\.\d+)?) (?P<rate_unit>Bytes?|KiB|MiB|GiB|TiB)/s)?"
)


def streamed_bytes(size: str, unit: str) -> float:
    """The bytes a summary's "{size} {unit}" stands for."""
    return float(size) * UNIT_BYTES[unit]
