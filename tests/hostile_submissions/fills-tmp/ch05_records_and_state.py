"""Cheat (or accident): fill /tmp, which lives in the machine's memory, with files of 1 MiB
each. The sandbox's /tmp is read-only to the worker (and small): the first write fails
instead of taking the machine's memory."""
from pathlib import Path

chunk = b"x" * (1 << 20)
for number in range(512):
    (Path("/tmp") / f"fill-{number}").write_bytes(chunk)


def resolve_labels(entries):
    return {}
