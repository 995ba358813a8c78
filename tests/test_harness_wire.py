"""What crosses from the learner's worker to the trusted side, and how strictly it is read.

The worker is untrusted: whatever it sends is parsed as data of a few agreed shapes and
rebuilt into the trusted side's own objects. These tests run both sides in one process
(two ``ObjectTable``s) and, at the end, start real workers that lie, die and stall.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import unittest
from pathlib import Path
from types import MappingProxyType

import pytest

from learn_pi_lab.harness import proxy, sandbox, wire
from learn_pi_lab.harness.wire import Decoder, Encoder, ObjectTable, WireError
from learn_pi_lab.session_tree import TranscriptEntry, TranscriptTree, UnknownTranscriptEntry


def cross(value, sender: Encoder, receiver: Decoder):
    return receiver.decode(json.loads(json.dumps(sender.encode(value))))


@pytest.fixture()
def sides():
    trusted, worker = ObjectTable(+1), ObjectTable(-1)
    return (Encoder(trusted), Decoder(trusted), Encoder(worker, unknown=lambda v: ["H", -999, "X"]),
            Decoder(worker))


def test_a_dict_subclass_arrives_as_a_plain_dict(sides) -> None:
    to_worker, from_worker, worker_out, worker_in = sides

    class Agreeable(dict):
        def __eq__(self, other):
            return True
    got = cross(Agreeable(a=1), worker_out, from_worker)
    assert type(got) is dict and got != {"a": 2} and got == {"a": 1}


def test_identity_survives_a_round_trip(sides) -> None:
    to_worker, from_worker, worker_out, worker_in = sides
    entries = [TranscriptEntry(f"e{i}", None if i == 0 else f"e{i-1}") for i in range(100)]
    by_id = {entry.id: entry for entry in entries}
    there = cross(by_id, to_worker, worker_in)
    back = cross(tuple(there.values())[:3], worker_out, from_worker)
    assert all(a is b for a, b in zip(back, entries))
    tree = TranscriptTree(entries[:5])
    assert cross(tree, to_worker, worker_in).path_to("e4")[-1].id == "e4"
    assert type(cross(MappingProxyType({"x": 1}), to_worker, worker_in)) is MappingProxyType


def test_a_tree_arrives_with_the_leaf_it_had(sides) -> None:
    """A leaf of None ("before the first entry") is not the constructor's default (the last
    entry), and pi mode's tree may hold an entry named "" (a helper's finding)."""
    to_worker, from_worker, worker_out, worker_in = sides
    entries = [TranscriptEntry("a", None), TranscriptEntry("b", "a")]
    for tree in (TranscriptTree(entries).move_leaf(None), TranscriptTree(entries, "a"),
                 TranscriptTree(entries), TranscriptTree()):
        for sender, receiver in ((to_worker, worker_in), (worker_out, from_worker)):
            got = cross(tree, sender, receiver)
            assert (got.leaf_id, got.entries) == (tree.leaf_id, tree.entries)
    named_empty = TranscriptTree([TranscriptEntry("a", None), TranscriptEntry("", "a")],
                                 empty_id=True)
    got = cross(named_empty, worker_out, from_worker)
    assert (got.leaf_id, [e.id for e in got.entries]) == ("", ["a", ""])


def test_changes_are_synced_both_ways(sides) -> None:
    to_worker, from_worker, worker_out, worker_in = sides
    mine = {"message": {"content": "first"}}
    theirs = cross([mine], to_worker, worker_in)
    theirs[0]["message"]["content"] = "changed by the worker"
    from_worker.apply(json.loads(json.dumps(worker_out.sync())))
    assert mine["message"]["content"] == "changed by the worker"
    mine["message"]["content"] = "changed by the test"
    worker_in.apply(json.loads(json.dumps(to_worker.sync())))
    assert theirs[0]["message"]["content"] == "changed by the test"


@pytest.mark.parametrize("data", [
    ["L", 5, []],                  # a handle of the trusted side's sign, from the worker
    ["R", -77],                    # a reference to nothing
    ["D", -1, [["L", -2, []], 1]],  # an unhashable key
    ["DC", -1, "os:system", []],   # a class outside the package
    ["Q", -1, 1],                  # an unknown tag
    {"a": 1},                      # a bare object
    ["E", -1, "a"],                # an entry without its fields
    ["TT", -1, [], "missing"],     # a tree whose leaf is not in it
    ["L", -1, {"entries": [[1]], "first": 1}],  # bulk columns of the wrong shape
])
def test_malformed_data_is_a_wire_error(data) -> None:
    with pytest.raises(WireError):
        Decoder(ObjectTable(+1)).decode(data)


def test_naming_a_module_never_makes_the_trusted_side_run_it() -> None:
    """A teacher's review: a learner's dataclass with ``__module__ = "learn_pi_lab.__main__"``
    made the trusted side import that module, which runs the command line and exits."""
    assert "learn_pi_lab.__main__" not in sys.modules
    with pytest.raises(WireError, match="no such class"):
        Decoder(ObjectTable(+1)).decode(["DC", -1, "learn_pi_lab.__main__:Boom", []])
    with pytest.raises(WireError, match="no such class"):
        Decoder(ObjectTable(+1)).decode(["DC", -1, "learn_pi_lab.course.big_sessions:X", []])
    assert "learn_pi_lab.__main__" not in sys.modules
    assert proxy.rebuildable("learn_pi_lab.__main__", "Boom") is None
    assert "learn_pi_lab.__main__" not in sys.modules
    assert wire.package_module("os") is None and "os" in sys.modules   # only the package's
    assert wire.package_module("learn_pi_lab.session_tree") is not None


def test_exceptions_are_rebuilt_only_from_known_classes() -> None:
    worker = proxy.Worker.__new__(proxy.Worker)
    worker.table = ObjectTable(+1)
    worker.decoder = Decoder(worker.table)
    error = worker.exception({"module": "learn_pi_lab.session_tree",
                              "name": "UnknownTranscriptEntry", "text": "t",
                              "args": ["unknown entry nope", "nope"],
                              "fields": ["entry_id", "nope", "referenced_by", None],
                              "where": "ch02_parent_pointers.py:7 in path_to"})
    assert isinstance(error, UnknownTranscriptEntry) and error.entry_id == "nope"
    assert error.learner_where == "ch02_parent_pointers.py:7 in path_to"
    skip = worker.exception({"module": "unittest.case", "name": "SkipTest", "text": "no",
                             "args": [], "fields": [], "where": None})
    assert not isinstance(skip, unittest.SkipTest), "a learner must not skip a test"
    exit_ = worker.exception({"module": "builtins", "name": "SystemExit", "text": "0",
                              "args": [0], "fields": [], "where": None})
    assert isinstance(exit_, Exception) and not isinstance(exit_, SystemExit)


def fake_worker(code: str, timeout: float = 20.0) -> proxy.Worker:
    """A 'worker' that is just ``code``: it can lie, die or stall."""
    return proxy.Worker([sys.executable, "-c", code], env={"PATH": "/usr/bin:/bin"},
                        cwd=Path.cwd(), deadline=time.monotonic() + timeout,
                        output_limit=10_000)


@pytest.mark.parametrize("code, reason", [
    ("import os; os.read(3, 100); os.write(4, b'not json\\n')", "protocol"),
    ("import os; os.read(3, 100); os.write(4, b'{\"ok\": [\"L\", 3, []]}\\n')", "protocol"),
    ("import os; os.read(3, 100); os._exit(0)", "crashed"),
    ("import time; time.sleep(60)", "timeout"),
    ("import os; os.read(3, 100); print('x' * 100000, flush=True); import time; "
     "time.sleep(60)", "output-limit"),
])
def test_a_worker_that_lies_dies_or_stalls_is_never_an_answer(code: str, reason: str) -> None:
    worker = fake_worker(code, timeout=3.0 if reason == "timeout" else 20.0)
    try:
        with pytest.raises(proxy.WorkerGone) as gone:
            worker.call(("m", "x", "f"), (1,), {})
        assert gone.value.reason == reason
    finally:
        worker.close()


@pytest.mark.skipif(sandbox.bwrap_path() is None, reason="needs bubblewrap")
def test_the_sandbox_hides_the_tests_and_what_is_inside_a_shown_folder(tmp_path: Path) -> None:
    """The worker needs the package, not the tests (which hold the reference solutions): they
    are not there at all. A hidden folder inside a folder that is shown (here a package
    folder) is hidden again."""
    repo = sandbox.REPO_ROOT
    probe = ("import json, os, sys; print(json.dumps([sorted(os.listdir(p)) "
             "if os.path.isdir(p) else None for p in sys.argv[1:]]))")
    args = sandbox.command([sys.executable, "-c", probe, str(repo / "learn_pi_lab"),
                            str(repo / "tests"), str(repo / "learn_pi_lab" / "drawing"),
                            str(tmp_path)],
                           writable=[tmp_path], workdir=tmp_path,
                           hidden=[repo.parent, repo / "learn_pi_lab" / "drawing"])
    (tmp_path / "mine.txt").write_text("x")
    sandbox.hand_over([tmp_path])   # (as root the worker is nobody: its folder is handed over)
    out = subprocess.run(args, capture_output=True, text=True, timeout=60)
    package, tests, drawing, own = json.loads(out.stdout)
    assert "session_tree.py" in package, out.stderr
    assert tests is None and drawing == []
    assert own == ["mine.txt"]


def test_the_trusted_side_imports_nothing_from_its_working_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn_pi_lab.harness import child
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), "", "/usr/lib/python3", str(tmp_path)])
    child.forget_the_working_folder()
    assert sys.path == ["/usr/lib/python3"]
