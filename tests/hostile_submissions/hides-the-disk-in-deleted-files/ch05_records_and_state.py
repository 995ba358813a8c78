"""Cheat (or accident): fill the disk with files nobody can see. Each file is written in the
folders the code may write, then removed while it is still open: its blocks stay taken on
the machine's disk until the process ends, but no walk of the folders finds them (each one
under the size limit of one file, as many as the open-file limit allows). A file made with
``memfd_create`` is the same in memory. The trusted side counts the files the worker's
processes hold open as well as the files in its folders, and stops the run past the disk
limit."""
import os
import time
from pathlib import Path

held = []
chunk = b"x" * (1 << 20)
for number in range(24):
    folder = Path.cwd() if number % 2 else Path(__file__).parent
    handle = open(folder / f"hidden-{number}", "wb")
    os.unlink(folder / f"hidden-{number}")
    for _ in range(16):
        handle.write(chunk)
    handle.flush()
    held.append(handle)
if hasattr(os, "memfd_create"):
    memory = os.fdopen(os.memfd_create("hidden"), "wb")
    for _ in range(16):
        memory.write(chunk)
    memory.flush()
    held.append(memory)
time.sleep(3)   # held while the run goes on


def resolve_labels(entries):
    return {}
