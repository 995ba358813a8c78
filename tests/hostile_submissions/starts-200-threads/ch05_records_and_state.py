"""Cheat (or accident): start hundreds of threads in one process. Each thread takes one of
the machine's process ids, as a process does, and the trusted side counted only processes:
with small stacks, one process under the address-space limit can hold tens of thousands of
threads, enough to use up the machine's ids (``kernel.pid_max``), and then no program on it,
the grading of the other learners included, can start a process. ``RLIMIT_NPROC`` counts
threads too, but root is not held by it: the trusted side counts every thread of the
worker's processes against the process limit."""
import threading
import time

threading.stack_size(32 * 1024)
stop = threading.Event()
for _ in range(200):
    threading.Thread(target=stop.wait, daemon=True).start()
time.sleep(2)   # held while the run goes on


def resolve_labels(entries):
    return {}
