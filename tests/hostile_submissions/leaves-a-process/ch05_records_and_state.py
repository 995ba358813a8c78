"""Cheat (or accident): a process that detaches and keeps running after the run."""
import os

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "97.531"])
    os._exit(0)


def resolve_labels(entries):
    raise NotImplementedError("exercise resolve-labels is not implemented yet")
