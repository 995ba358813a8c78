"""The trusted side's turn: every process of the worker is stopped (``sandbox.freeze``).

Learner code can leave a thread or a child process running after its call returns. While the
trusted side writes a test's files and reads the answer, such a process could swap a file for
a symbolic link to any file the teacher can write. ``freeze`` stops the whole process tree
with ``SIGSTOP`` and returns only once every process in it is stopped; ``thaw`` lets it go on.
The end-to-end cheat is ``tests/hostile_submissions/races-a-link``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from learn_pi_lab.harness import sandbox

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux /proc only")

# A parent with a busy thread and a child process: both append a byte to their own file
# every millisecond, for as long as they are allowed to run.
BUSY = r"""
import os, sys, threading, time
folder = sys.argv[1]

def tick(name):
    with open(os.path.join(folder, name), "ab", buffering=0) as out:
        while True:
            out.write(b".")
            time.sleep(0.001)

if os.fork() == 0:
    tick("child")
threading.Thread(target=tick, args=("thread",), daemon=True).start()
tick("main")
"""


def sizes(folder: Path) -> dict[str, int]:
    return {name: (folder / name).stat().st_size if (folder / name).exists() else 0
            for name in ("main", "thread", "child")}


def wait_until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_freeze_stops_every_thread_and_child_until_thaw(tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", BUSY, str(tmp_path)],
                               start_new_session=True)
    try:
        assert wait_until(lambda: all(sizes(tmp_path).values())), "the busy processes started"
        assert len(sandbox.process_tree(process.pid)) == 2
        assert sandbox.count_processes(process.pid) == 3   # a thread counts, as RLIMIT_NPROC's

        assert sandbox.freeze(process.pid)
        frozen = sizes(tmp_path)
        time.sleep(0.3)
        assert sizes(tmp_path) == frozen, "nothing ran while frozen"

        sandbox.thaw(process.pid)
        assert wait_until(lambda: all(now > then for now, then in
                                      zip(sizes(tmp_path).values(), frozen.values()))), \
            "every process runs again after thaw"
    finally:
        sandbox.thaw(process.pid)
        process.kill()
        process.wait()
        subprocess.run(["pkill", "-KILL", "-f", str(tmp_path)], check=False)


def test_freeze_of_a_process_that_is_gone_is_harmless() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    assert sandbox.freeze(process.pid)
    sandbox.thaw(process.pid)
    assert sandbox.process_tree(process.pid) == []
