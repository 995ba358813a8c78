"""Cheat (or accident): fifty child processes that stay."""
import os
import time

for _ in range(50):
    if os.fork() == 0:
        time.sleep(120)
        os._exit(0)
time.sleep(5)


def resolve_labels(entries):
    return {}
