"""Cheat: a thread that outlives the learner's calls watches the tests' temporary folder. The
moment a test creates a folder there, and before the test writes its file, the thread puts a
symbolic link where that file will be, aimed at another learner's submission: the trusted side
would write through it. The trusted side stops every process of the worker whenever it is its
turn, so the thread only runs during the learner's own calls, and what it leaves then is found
before the trusted side reads anything. (Without the freeze this race is won only now and then
in a class run; ``tests/test_harness_freeze.py`` is what proves the freeze deterministically.)"""
import os
import threading
import time

VICTIM = "{{SUBMISSIONS}}/honest-full/ch08_design_your_own.py"


def _race():
    shared = os.path.join(os.getcwd(), "shared")
    seen = set()
    while True:
        try:
            names = os.listdir(shared)
        except OSError:
            continue
        for name in names:
            if name in seen:
                continue
            seen.add(name)
            for target in ("session.jsonl", "store.jsonl"):
                try:
                    os.symlink(VICTIM, os.path.join(shared, name, target))
                except OSError:
                    pass


threading.Thread(target=_race, daemon=True).start()


class FileBackend:
    def __init__(self, path):
        time.sleep(0.5)   # the thread's chance, during a call of the learner's own
        raise NotImplementedError

    def append(self, obj):
        raise NotImplementedError

    def read_all(self):
        raise NotImplementedError
