"""Cheat (or accident): fill the folders the code may write, its working folder and its own
copy of the workspace, with files just under the size limit of one file. They are on the
machine's disk, and the limit on one file's size says nothing about how many there are:
the trusted side counts what they hold and stops the run past the disk limit."""
from pathlib import Path

chunk = b"x" * (1 << 20)
for number in range(40):
    for folder in (Path.cwd(), Path(__file__).parent):
        with open(folder / f"fill-{number}", "wb") as handle:
            for _ in range(16):
                handle.write(chunk)


def resolve_labels(entries):
    return {}
