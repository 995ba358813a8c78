"""Cheat (or accident): hold memory in many processes at once. The address-space limit is
per process, and up to 32 processes may run: 32 GiB in all, more than many a teacher's
machine has (without swap, the kernel then kills processes of its own choosing, another
learner's run or the grading itself). The trusted side adds up what the worker's processes
hold (their proportional share: memory two of them share counts once) and stops the run
past the memory of one process."""
import os
import time

children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        held = bytearray(400 * 1024 * 1024)   # zero pages are not memory: touch them
        for start in range(0, len(held), 4096):
            held[start] = 1
        time.sleep(5)
        os._exit(0)
    children.append(pid)
time.sleep(3)   # held while the run goes on


def resolve_labels(entries):
    return {}
