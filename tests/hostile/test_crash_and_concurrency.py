"""kill -9 in the middle of appends, and four writers on one file at once.

* **kill -9**: a child process appends entries (long Chinese text, so a kill can land in
  the middle of a character) through ``SessionStore(FileBackend(path))`` and reports each
  id once ``append`` has returned. The test kills it 20 times with SIGKILL at random
  moments. After every kill: every reported entry is in the file (at most the entry being
  written is lost), a new store opens the file and its next append is read back.
* **four writers**: four processes append 10,000 entries each to the same file, through
  their own ``SessionStore``. No entry is lost, no line is torn or glued, and no two
  entries share an id (the store's ids have 64 random bits; see ``docs/limits.md``).

Both run real processes on the real file system; together they take well under a minute
on two cores.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from learn_pi_lab.jsonl.reader import read_session
from learn_pi_lab.store import FileBackend, SessionStore

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")]

APPENDER = """
import sys
from learn_pi_lab.store import FileBackend, SessionStore
store = SessionStore(FileBackend(sys.argv[1]), cwd="/w")
text = "会话树的每一行都是一个完整的 JSON 对象。" * int(sys.argv[2])
count = int(sys.argv[3])
n = 0
while count < 0 or n < count:
    n += 1
    entry_id = store.append("message", {"message": {"role": "user", "content": text}})
    print(entry_id, flush=True)
"""


def appender(path: Path, repeat: int, count: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", APPENDER, str(path), str(repeat), str(count)],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_kill_9_in_the_middle_of_appends_loses_at_most_the_entry_in_flight(tmp_path: Path
                                                                          ) -> None:
    path = tmp_path / "crash.jsonl"
    SessionStore(FileBackend(path), cwd="/w")          # the header
    rng = random.Random(14)
    acknowledged: list[str] = []
    for kill in range(20):
        child = appender(path, repeat=3000, count=-1)  # ~150 KB per line, forever
        assert child.stdout is not None
        for _ in range(rng.randint(1, 3)):             # let a few appends complete
            line = child.stdout.readline()
            assert line, "the appender died on its own"
            acknowledged.append(line.strip())
        time.sleep(rng.uniform(0, 0.02))               # then kill it, mid-append or not
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate(timeout=60)
        acknowledged.extend(rest.split())              # reported before the kill landed

        on_disk = {loaded.obj["id"] for loaded in read_session(path).entries}
        missing = [entry_id for entry_id in acknowledged if entry_id not in on_disk]
        assert missing == [], f"kill {kill}: acknowledged entries lost: {missing}"

        survivor = SessionStore(FileBackend(path), cwd="/w")   # opens despite the damage
        after = survivor.append("message", {"message": {"role": "user", "content": "after"}})
        reread = read_session(path)
        assert reread.entries[-1].obj["id"] == after, f"kill {kill}: the next append is readable"
        acknowledged.append(after)

    final = read_session(path)
    damaged = [found for found in final.diagnostics if found.severity != "info"]
    assert len(damaged) <= 20, "at most one damaged line per kill"
    assert all(found.code in ("corrupt-line", "torn-last-line") for found in damaged), damaged


def test_four_writers_lose_nothing_and_never_collide(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    SessionStore(FileBackend(path), cwd="/w")
    writers = [appender(path, repeat=1, count=10_000) for _ in range(4)]
    reported: list[str] = []
    for writer in writers:
        out, _ = writer.communicate(timeout=300)
        assert writer.returncode == 0
        reported.extend(out.split())
    assert len(reported) == 40_000 and len(set(reported)) == 40_000, "ids collide"

    file = read_session(path)
    assert file.diagnostics == [], [(d.line, d.code) for d in file.diagnostics[:5]]
    on_disk = [loaded.obj["id"] for loaded in file.entries]
    assert len(on_disk) == 40_000 and set(on_disk) == set(reported), "an entry was lost"
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])
