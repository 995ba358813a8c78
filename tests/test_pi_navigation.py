"""Reference checks of the session-level navigation: /tree, /fork, /clone, write_fork.

The fork output follows Pi's createBranchedSession: labels dropped from the path, the rest
re-chained (the #5669 fix), labels re-created after the last path entry with their original
timestamps, a new v3 header with parentSession; with the session's pi_version 1.6.0, a
compaction kept from a dropped label is re-pointed. Writing never touches the source.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import unittest
from datetime import datetime, timezone
from pathlib import Path

from learn_pi_lab.jsonl.reader import read_session
from learn_pi_lab.pi.navigation import (clone_entries, fork_entries, navigate, uuid7_session_id,
                                        write_fork)
from learn_pi_lab.pi.session import load_session, session_from_text
from learn_pi_lab.session_tree import UnknownTranscriptEntry
from tests.targets import is_reference

HEADER = {"type": "session", "version": 3, "id": "src-session",
          "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/work/project"}
UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def line(kind: str, entry_id: str, parent_id: str | None, second: int, **fields) -> str:
    return json.dumps({"type": kind, "id": entry_id, "parentId": parent_id,
                       "timestamp": f"2026-03-01T10:00:{second:02d}.000Z", **fields},
                      separators=(",", ":"))


def user(entry_id: str, parent_id: str | None, second: int) -> str:
    return line("message", entry_id, parent_id, second,
                message={"role": "user", "content": f"text of {entry_id}", "timestamp": second})


def assistant(entry_id: str, parent_id: str | None, second: int) -> str:
    return line("message", entry_id, parent_id, second,
                message={"role": "assistant", "content": [], "provider": "acme",
                         "model": "alpha", "timestamp": second})


# The #5669 shape: u2's parent is a label entry (l1), as after Shift+L in Pi's /tree.
SOURCE = "\n".join([
    json.dumps(HEADER, separators=(",", ":")),
    line("model_change", "m", None, 1, provider="acme", modelId="alpha"),
    user("u1", "m", 2), assistant("a1", "u1", 3),
    line("label", "l1", "a1", 4, targetId="u1", label="start"),
    user("u2", "l1", 5), assistant("a2", "u2", 6),
    user("u2b", "a1", 7), assistant("a2b", "u2b", 8),
    line("label", "l2", "a2b", 9, targetId="a1", label="checkpoint"),
]) + "\n"


def fixed_clock() -> datetime:
    return datetime(2026, 4, 1, 12, 30, 0, 500000, tzinfo=timezone.utc)


def ids(entries) -> list[str]:
    return [entry["id"] for entry in entries]


@unittest.skipUnless(is_reference(), "checks the reference model only")
class NavigateTests(unittest.TestCase):
    def test_user_message_moves_the_leaf_to_its_parent(self) -> None:
        session = session_from_text(SOURCE)
        self.assertEqual(navigate(session, "u2b"), "a1")
        self.assertEqual((session.leaf_id, session.tree.leaf_id), ("a1", "a1"))
        self.assertEqual(ids(session.branch()), ["m", "u1", "a1"])

    def test_other_entries_become_the_leaf(self) -> None:
        session = session_from_text(SOURCE)
        self.assertEqual(navigate(session, "a2"), "a2")
        self.assertEqual(ids(session.branch()), ["m", "u1", "a1", "l1", "u2", "a2"])

    def test_root_user_message_resets_the_leaf(self) -> None:
        session = session_from_text("\n".join([json.dumps(HEADER), user("u1", None, 1),
                                               assistant("a1", "u1", 2)]) + "\n")
        self.assertIsNone(navigate(session, "u1"))
        self.assertEqual((session.leaf_id, session.branch()), (None, []))

    def test_current_leaf_does_nothing(self) -> None:
        session = session_from_text(SOURCE)
        self.assertEqual(navigate(session, "l2"), "l2")
        self.assertEqual(session.leaf_id, "l2")

    def test_leaf_move_is_not_persisted(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "s.jsonl"
            path.write_text(SOURCE, encoding="utf-8")
            session = load_session(path)
            navigate(session, "a2")
            self.assertEqual(path.read_text(encoding="utf-8"), SOURCE)
            self.assertEqual(load_session(path).leaf_id, "l2")

    def test_unknown_target(self) -> None:
        with self.assertRaises(UnknownTranscriptEntry):
            navigate(session_from_text(SOURCE), "nope")

    def test_teaching_mode_refuses_damaged_ancestry(self) -> None:
        session = session_from_text("\n".join([json.dumps(HEADER), user("x1", "ghost", 1),
                                               assistant("x2", "x1", 2)]) + "\n")
        with self.assertRaises(UnknownTranscriptEntry) as caught:
            navigate(session, "x2")
        self.assertEqual(caught.exception.entry_id, "ghost")
        self.assertEqual(session.leaf_id, "x2", "a refused navigation moves nothing")


@unittest.skipUnless(is_reference(), "checks the reference model only")
class ForkEntriesTests(unittest.TestCase):
    def fork(self, entry_id: str, position: str = "before", seed: int = 7):
        return fork_entries(session_from_text(SOURCE), entry_id, position,
                            clock=fixed_clock, rng=random.Random(seed))

    def test_at_drops_labels_and_rechains_the_path(self) -> None:
        _header, entries = self.fork("a2", "at")
        path = [entry for entry in entries if entry["type"] != "label"]
        self.assertEqual(ids(path), ["m", "u1", "a1", "u2", "a2"])
        self.assertEqual([entry["parentId"] for entry in path], [None, "m", "u1", "a1", "u2"],
                         "u2's parent was the label l1; after re-chaining it is a1 (#5669)")

    def test_labels_are_recreated_after_the_path(self) -> None:
        _header, entries = self.fork("a2", "at")
        labels = entries[5:]
        self.assertEqual([(e["targetId"], e["label"]) for e in labels],
                         [("u1", "start"), ("a1", "checkpoint")],
                         "one label per labelled path entry, in the order the labels were "
                         "set; a1's label was written on another branch, but labels are global")
        self.assertEqual([e["parentId"] for e in labels], ["a2", labels[0]["id"]])
        self.assertEqual([e["timestamp"] for e in labels],
                         ["2026-03-01T10:00:04.000Z", "2026-03-01T10:00:09.000Z"],
                         "re-created labels keep the original label's timestamp (>= v0.65)")
        self.assertEqual(list(labels[0]), ["type", "id", "parentId", "timestamp", "targetId",
                                           "label"])
        for label in labels:
            self.assertRegex(label["id"], r"^[0-9a-f]{8}$")
            self.assertNotIn(label["id"], {"m", "u1", "a1", "u2", "a2"})

    def test_fork_file_has_no_orphans(self) -> None:
        header, entries = self.fork("a2", "at")
        text = "\n".join(json.dumps(obj) for obj in [header, *entries]) + "\n"
        forked = session_from_text(text)
        self.assertEqual(forked.diagnostics, [])
        self.assertEqual(forked.labels(), {"u1": "start", "a1": "checkpoint"})
        self.assertEqual(ids(forked.branch()), ids(entries))

    def test_before_user_message_stops_at_its_parent(self) -> None:
        _header, entries = self.fork("u2b", "before")
        self.assertEqual(ids(e for e in entries if e["type"] != "label"), ["m", "u1", "a1"])

    def test_before_skips_a_label_parent(self) -> None:
        _header, entries = self.fork("u2", "before")
        self.assertEqual(ids(e for e in entries if e["type"] != "label"), ["m", "u1", "a1"],
                         "u2's parent is the label l1: the path ends there, minus the label")

    def test_before_a_root_user_message_is_an_empty_session(self) -> None:
        session = session_from_text("\n".join([json.dumps(HEADER), user("u1", None, 1)]) + "\n")
        header, entries = fork_entries(session, "u1", "before", clock=fixed_clock)
        self.assertEqual(entries, [])
        self.assertEqual(header["cwd"], "/work/project")

    def test_before_needs_a_user_message(self) -> None:
        from learn_pi_lab.i18n import explain
        from learn_pi_lab.pi.navigation import ForkBeforeNeedsUser
        with self.assertRaises(ForkBeforeNeedsUser) as caught:   # a ValueError too
            self.fork("a1", "before")
        self.assertIn("a1", str(caught.exception))             # English, whatever the locale
        self.assertEqual(caught.exception.entry_id, "a1")
        self.assertIn("只能选用户消息", explain(caught.exception, "zh"))

    def test_before_a_message_whose_parent_is_missing(self) -> None:
        from learn_pi_lab.i18n import explain
        from learn_pi_lab.pi.navigation import ForkParentMissing
        from learn_pi_lab.session_tree import TranscriptError
        text = "\n".join([json.dumps(HEADER), user("d", "gone", 1), assistant("d2", "d", 2)])
        for mode in ("teaching", "pi"):
            with self.assertRaises(ForkParentMissing) as caught:
                fork_entries(session_from_text(text + "\n", mode=mode), "d", "before")
            self.assertIsInstance(caught.exception, TranscriptError)
            self.assertEqual((caught.exception.entry_id, caught.exception.parent_id),
                             ("d", "gone"))
            self.assertIn("父节点 'gone' 不在文件里", explain(caught.exception, "zh"))

    def test_bad_position(self) -> None:
        with self.assertRaises(ValueError):
            self.fork("u2", "after")

    def test_a_tree_or_a_path_instead_of_a_session_is_named(self) -> None:
        from learn_pi_lab.i18n import explain
        from learn_pi_lab.pi.navigation import NotASession, write_fork

        session = session_from_text(SOURCE)
        calls = {"navigate": lambda wrong: navigate(wrong, "u2"),
                 "fork_entries": lambda wrong: fork_entries(wrong, "u2", "at"),
                 "clone_entries": lambda wrong: clone_entries(wrong),
                 "write_fork": lambda wrong: write_fork(wrong, "u2", "at", "never.jsonl")}
        for function, call in calls.items():
            for wrong in (session.tree, None, "session.jsonl"):
                with self.subTest(function=function, wrong=type(wrong).__name__):
                    with self.assertRaises(NotASession) as caught:
                        call(wrong)
                    self.assertEqual((caught.exception.function, caught.exception.got),
                                     (function if function != "write_fork" else "fork_entries",
                                      type(wrong).__name__))
                    self.assertIn("load_session(path)", explain(caught.exception))
        self.assertFalse(Path("never.jsonl").exists())

    def test_header(self) -> None:
        header, _entries = self.fork("a2", "at")
        self.assertEqual(list(header), ["type", "version", "id", "timestamp", "cwd"],
                         "a session read from text has no path, so no parentSession")
        self.assertEqual((header["type"], header["version"], header["cwd"]),
                         ("session", 3, "/work/project"))
        self.assertEqual(header["timestamp"], "2026-04-01T12:30:00.500Z")
        self.assertRegex(header["id"], UUID7)
        self.assertNotEqual(header["id"], HEADER["id"])

    def test_header_names_the_source_file(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "source.jsonl"
            path.write_text(SOURCE, encoding="utf-8")
            header, _entries = fork_entries(load_session(path), "a2", "at", clock=fixed_clock)
            self.assertEqual(list(header)[-1], "parentSession")
            self.assertEqual(header["parentSession"], str(path.resolve()))

    def test_deterministic_with_clock_and_rng(self) -> None:
        self.assertEqual(self.fork("a2", "at", seed=3), self.fork("a2", "at", seed=3))
        self.assertNotEqual(self.fork("a2", "at", seed=3)[0]["id"],
                            self.fork("a2", "at", seed=4)[0]["id"])

    def test_source_session_is_not_changed(self) -> None:
        session = session_from_text(SOURCE)
        before = json.dumps(session.entries)
        fork_entries(session, "a2", "at")
        self.assertEqual(json.dumps(session.entries), before)
        self.assertEqual(session.entry("u2")["parentId"], "l1")

    def test_uuid7_carries_the_clock(self) -> None:
        session_id = uuid7_session_id(fixed_clock, random.Random(1))
        self.assertRegex(session_id, UUID7)
        millis = int(session_id.replace("-", "")[:12], 16)
        self.assertEqual(millis, int(fixed_clock().timestamp() * 1000))


# A compaction that keeps from a label entry: the label is dropped from a fork (section 7.4).
KEPT_FROM_A_LABEL = "\n".join([
    json.dumps(HEADER), user("u1", None, 1), assistant("a1", "u1", 2),
    line("label", "L", "a1", 3, targetId="a1", label="mark"),
    user("u2", "L", 4), assistant("a2", "u2", 5),
    line("compaction", "C", "a2", 6, summary="SUM", firstKeptEntryId="L", tokensBefore=10),
    user("u3", "C", 7), assistant("a3", "u3", 8)]) + "\n"


@unittest.skipUnless(is_reference(), "checks the reference model only")
class ForkKeptFromALabelTests(unittest.TestCase):
    """Pi 1.6.0's createBranchedSession re-points ``firstKeptEntryId`` from a dropped label to
    the entry kept after it (``replacementByLabelId``); 0.84.2 keeps the id of a line the fork
    does not have, so the fork's context loses u2 and a2."""

    def fork(self, pi_version: str) -> tuple[dict, list[dict]]:
        session = session_from_text(KEPT_FROM_A_LABEL, pi_version=pi_version)
        return fork_entries(session, "a3", "at", clock=fixed_clock, rng=random.Random(1))

    @staticmethod
    def context_ids(header: dict, entries: list[dict], pi_version: str) -> list:
        text = "\n".join(json.dumps(obj) for obj in [header, *entries]) + "\n"
        return [message.get("entryId") for message in
                session_from_text(text, pi_version=pi_version).context().messages]

    def test_1_6_0_keeps_from_the_entry_after_the_label(self) -> None:
        header, entries = self.fork("1.6.0")
        compaction = next(entry for entry in entries if entry["type"] == "compaction")
        self.assertEqual(compaction["firstKeptEntryId"], "u2")
        self.assertEqual(list(compaction), ["type", "id", "parentId", "timestamp", "summary",
                                            "firstKeptEntryId", "tokensBefore"])
        source = session_from_text(KEPT_FROM_A_LABEL, pi_version="1.6.0")
        self.assertEqual(self.context_ids(header, entries, "1.6.0"),
                         [m.get("entryId") for m in source.context().messages])
        self.assertEqual(self.context_ids(header, entries, "1.6.0"),
                         ["C", "u2", "a2", "u3", "a3"])

    def test_0_84_2_keeps_the_dropped_labels_id(self) -> None:
        header, entries = self.fork("0.84.2")
        compaction = next(entry for entry in entries if entry["type"] == "compaction")
        self.assertEqual(compaction["firstKeptEntryId"], "L")
        self.assertEqual(self.context_ids(header, entries, "0.84.2"), ["C", "u3", "a3"])

    def test_the_source_is_not_changed(self) -> None:
        session = session_from_text(KEPT_FROM_A_LABEL, pi_version="1.6.0")
        fork_entries(session, "a3", "at")
        self.assertEqual(session.entry("C")["firstKeptEntryId"], "L")


@unittest.skipUnless(is_reference(), "checks the reference model only")
class ForkLabelOrderTests(unittest.TestCase):
    """Re-created labels come in the order Pi's labelsById map holds them: the order the
    labels were first set, not path order."""

    def labels(self, *label_lines: str) -> list[tuple[str, str]]:
        text = "\n".join([json.dumps(HEADER), user("u1", None, 1), assistant("a1", "u1", 2),
                          user("u2", "a1", 3), assistant("a2", "u2", 4), *label_lines]) + "\n"
        _header, entries = fork_entries(session_from_text(text), "a2", "at",
                                        rng=random.Random(1))
        return [(entry["targetId"], entry["label"]) for entry in entries
                if entry["type"] == "label"]

    def test_in_the_order_the_labels_were_set(self) -> None:
        self.assertEqual(self.labels(line("label", "L1", "a2", 6, targetId="a2", label="on-a2"),
                                     line("label", "L2", "L1", 7, targetId="u1", label="on-u1")),
                         [("a2", "on-a2"), ("u1", "on-u1")])

    def test_a_changed_label_keeps_its_place(self) -> None:
        self.assertEqual(self.labels(line("label", "L1", "a2", 6, targetId="a2", label="x"),
                                     line("label", "L2", "L1", 7, targetId="u1", label="on-u1"),
                                     line("label", "L3", "L2", 8, targetId="a2", label="y")),
                         [("a2", "y"), ("u1", "on-u1")])

    def test_a_cleared_label_set_again_goes_last(self) -> None:
        self.assertEqual(self.labels(line("label", "L1", "a2", 6, targetId="u1", label="x"),
                                     line("label", "L2", "L1", 7, targetId="a2", label="on-a2"),
                                     line("label", "L3", "L2", 8, targetId="u1", label=""),
                                     line("label", "L4", "L3", 9, targetId="u1", label="y")),
                         [("a2", "on-a2"), ("u1", "y")])


@unittest.skipUnless(is_reference(), "checks the reference model only")
class CloneTests(unittest.TestCase):
    def test_clone_copies_the_active_branch(self) -> None:
        header, entries = clone_entries(session_from_text(SOURCE), clock=fixed_clock,
                                        rng=random.Random(1))
        self.assertEqual(ids(e for e in entries if e["type"] != "label"),
                         ["m", "u1", "a1", "u2b", "a2b"])
        self.assertEqual([(e["targetId"], e["label"]) for e in entries if e["type"] == "label"],
                         [("u1", "start"), ("a1", "checkpoint")])
        self.assertRegex(header["id"], UUID7)

    def test_clone_follows_a_moved_leaf(self) -> None:
        session = session_from_text(SOURCE)
        navigate(session, "a2")
        _header, entries = clone_entries(session)
        self.assertEqual(ids(e for e in entries if e["type"] != "label"),
                         ["m", "u1", "a1", "u2", "a2"])

    def test_nothing_to_clone(self) -> None:
        session = session_from_text(json.dumps(HEADER) + "\n")
        with self.assertRaises(ValueError):
            clone_entries(session)


@unittest.skipUnless(is_reference(), "checks the reference model only")
class WriteForkTests(unittest.TestCase):
    def setUp(self) -> None:
        self._folder = tempfile.TemporaryDirectory()
        self.folder = Path(self._folder.name)
        self.source = self.folder / "source.jsonl"
        self.source.write_text(SOURCE, encoding="utf-8")
        self.source_bytes = self.source.read_bytes()

    def tearDown(self) -> None:
        self._folder.cleanup()

    def test_writes_a_new_file(self) -> None:
        out = write_fork(load_session(self.source), "u2", "before", self.folder / "fork.jsonl",
                         clock=fixed_clock, rng=random.Random(2))
        self.assertEqual(out, self.folder / "fork.jsonl")
        written = read_session(out)
        self.assertEqual(written.diagnostics, [])
        self.assertEqual(written.header["parentSession"], str(self.source.resolve()))
        self.assertEqual([e for e in written.objects() if e["type"] != "label"][-1]["id"], "a1")
        self.assertTrue(out.read_text(encoding="utf-8").endswith("\n"))
        self.assertEqual(self.source.read_bytes(), self.source_bytes)

    def test_refuses_to_overwrite(self) -> None:
        out = self.folder / "taken.jsonl"
        out.write_text("keep me\n", encoding="utf-8")
        with self.assertRaises(FileExistsError):
            write_fork(load_session(self.source), "a2", "at", out)
        self.assertEqual(out.read_text(encoding="utf-8"), "keep me\n")

    def test_refuses_to_write_over_the_source(self) -> None:
        with self.assertRaises(FileExistsError):
            write_fork(load_session(self.source), "a2", "at", self.source)
        self.assertEqual(self.source.read_bytes(), self.source_bytes)

    def test_bad_fork_writes_nothing(self) -> None:
        out = self.folder / "never.jsonl"
        with self.assertRaises(ValueError):
            write_fork(load_session(self.source), "a1", "before", out)
        self.assertFalse(out.exists())


if __name__ == "__main__":
    unittest.main()
