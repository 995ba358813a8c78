"""Reference checks of learn_pi_lab.pi.session: Session, teaching mode and pi-compat mode.

Pi mode is checked against what Pi v0.84.2 did with damaged files
(pi-session-format.md section 12b); teaching mode against the course's promise that damage
is reported with a line number and never hidden. Every file under data/ is also loaded in
both modes and checked for the invariants a drawing relies on.
"""

from __future__ import annotations

import json
import threading
import unittest
from pathlib import Path

from learn_pi_lab.i18n import explain
from learn_pi_lab.jsonl.reader import NotASessionFile
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.session import (Session, load_session, resolve_labels, session_from_text,
                                     session_name)
from learn_pi_lab.session_tree import (ParentCycle, SelfParent, TranscriptError,
                                       TranscriptTree, UnknownTranscriptEntry)
from tests.targets import is_reference

ROOT = Path(__file__).resolve().parents[1]
HEADER = {"type": "session", "version": 3, "id": "s-1",
          "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/w"}


def line(kind: str, entry_id: str | None, parent_id: str | None, second: int,
         **fields) -> str:
    obj: dict = {"type": kind}
    if entry_id is not None:
        obj["id"] = entry_id
    obj.update(parentId=parent_id, timestamp=f"2026-03-01T10:00:{second:02d}.000Z", **fields)
    return json.dumps(obj, separators=(",", ":"))


def user(entry_id: str, parent_id: str | None, second: int, text: str = "hi") -> str:
    return line("message", entry_id, parent_id, second,
                message={"role": "user", "content": text, "timestamp": second})


def assistant(entry_id: str, parent_id: str | None, second: int, model: str = "alpha") -> str:
    return line("message", entry_id, parent_id, second,
                message={"role": "assistant", "content": [], "provider": "acme",
                         "model": model, "timestamp": second})


def model_change(entry_id: str, parent_id: str | None, second: int) -> str:
    return line("model_change", entry_id, parent_id, second, provider="acme", modelId="alpha")


def thinking(entry_id: str, parent_id: str | None, second: int, level: str) -> str:
    return line("thinking_level_change", entry_id, parent_id, second, thinkingLevel=level)


def text_of(*lines: str, final_newline: bool = True) -> str:
    return "\n".join([json.dumps(HEADER, separators=(",", ":")), *lines]) + \
        ("\n" if final_newline else "")


def ids(entries) -> list[str]:
    return [entry["id"] if isinstance(entry, dict) else entry.id for entry in entries]


def codes(session: Session) -> list[tuple]:
    return [(d.line, d.code) for d in session.diagnostics]


BRANCHED = text_of(
    model_change("m", None, 1), thinking("t", "m", 2, "high"),      # lines 2, 3
    user("u1", "t", 3), assistant("a1", "u1", 4),                  # lines 4, 5
    user("u2", "a1", 5), assistant("a2", "u2", 6),                 # lines 6, 7
    user("u2b", "a1", 7), assistant("a2b", "u2b", 8, model="beta"),   # lines 8, 9
    line("label", "l1", "a2b", 9, targetId="u1", label="start"),   # line 10: the leaf
)


@unittest.skipUnless(is_reference(), "checks the reference model only")
class SessionBasicsTests(unittest.TestCase):
    def test_header_entries_and_lookup(self) -> None:
        session = session_from_text(BRANCHED)
        self.assertEqual(session.header["id"], "s-1")
        self.assertEqual(ids(session.entries),
                         ["m", "t", "u1", "a1", "u2", "a2", "u2b", "a2b", "l1"])
        self.assertEqual(session.entry("a1")["message"]["role"], "assistant")
        self.assertIn("u2", session)
        with self.assertRaises(UnknownTranscriptEntry):
            session.entry("nope")
        self.assertEqual((session.mode, codes(session), session.detached), ("teaching", [], {}))

    def test_a_list_or_a_dict_is_no_id_and_no_type_error(self) -> None:
        session = session_from_text(BRANCHED)
        for asked in (["u1"], {"id": "u1"}):
            with self.subTest(asked=asked):
                self.assertNotIn(asked, session)
                with self.assertRaises(UnknownTranscriptEntry):
                    session.tree[asked]

    def test_context_of_an_id_no_entry_could_have_raises(self) -> None:
        session = session_from_text(BRANCHED)
        for asked in (0, False, [], "", ["u1"]):
            with self.subTest(asked=asked), self.assertRaises(UnknownTranscriptEntry):
                session.context(asked)
        self.assertEqual(session.context(None).messages, session.context().messages)

    def test_leaf_is_the_last_line_whatever_its_type(self) -> None:
        session = session_from_text(BRANCHED)
        self.assertEqual(session.leaf_id, "l1")
        self.assertEqual(session.tree.leaf_id, "l1")
        self.assertEqual(ids(session.branch()), ["m", "t", "u1", "a1", "u2b", "a2b", "l1"])

    def test_branch_to_any_entry(self) -> None:
        session = session_from_text(BRANCHED)
        self.assertEqual(ids(session.branch("a2")), ["m", "t", "u1", "a1", "u2", "a2"])
        self.assertEqual(ids(session.branch("m")), ["m"])
        with self.assertRaises(UnknownTranscriptEntry):
            session.branch("nope")

    def test_tree_is_a_validated_transcript_tree(self) -> None:
        session = session_from_text(BRANCHED)
        self.assertIsInstance(session.tree, TranscriptTree)
        self.assertEqual(ids(session.tree.children("a1")), ["u2", "u2b"])
        self.assertEqual(ids(session.tree.leaves()), ["a2", "l1"])
        self.assertEqual(session.tree["u1"].payload["message"]["content"], "hi")

    def test_children_sorted_by_timestamp_not_file_order(self) -> None:
        session = session_from_text(text_of(
            model_change("m", None, 1), user("late", "m", 9), user("early", "m", 3),
            user("same-a", "m", 5), user("same-b", "m", 5)))
        self.assertEqual(ids(session.children("m")), ["early", "same-a", "same-b", "late"])
        self.assertEqual(ids(session.children(None)), ["m"])

    def test_roots_stay_in_file_order_whatever_their_timestamps(self) -> None:
        # (a Pi user's review: Pi's getTree sorts every node's children, never the roots)
        session = session_from_text(text_of(
            user("r-late", None, 9), user("r-early", None, 2), user("r-mid", None, 5)))
        self.assertEqual(ids(session.children(None)), ["r-late", "r-early", "r-mid"])

    def test_children_sorted_by_time_in_the_forms_javascript_reads(self) -> None:
        # (a Pi user's review: Pi sorts with new Date(timestamp).getTime(), which reads a
        # number of milliseconds, an RFC 2822 date and null as well as ISO text)
        def child(entry_id: str, stamp) -> str:
            return json.dumps({"type": "message", "id": entry_id, "parentId": "m",
                               "timestamp": stamp, "message": {"role": "user"}})
        session = session_from_text(text_of(
            model_change("m", None, 1),
            child("rfc", "Sun, 01 Mar 2026 10:00:30 GMT"),   # header day: 2026-03-01 10:00
            child("iso", "2026-03-01T10:00:20.000Z"),
            child("number", 1772359225000),                  # 10:00:25
            child("zone", "01 Mar 2026 11:00:10 +0100"),     # 10:00:10
            child("null", None)))                            # JavaScript: 0, the epoch
        self.assertEqual(ids(session.children("m")), ["null", "zone", "iso", "number", "rfc"])

    def test_unreadable_timestamp_sorts_last(self) -> None:
        broken = json.dumps({"type": "message", "id": "odd", "parentId": "m",
                             "timestamp": "yesterday", "message": {"role": "user"}})
        session = session_from_text(text_of(model_change("m", None, 1), broken,
                                            user("u", "m", 4)))
        self.assertEqual(ids(session.children("m")), ["u", "odd"])

    def test_header_only_session(self) -> None:
        session = session_from_text(text_of())
        self.assertEqual((session.leaf_id, session.branch(), session.entries), (None, [], []))
        self.assertEqual(len(session.tree), 0)

    def test_load_session_from_a_file_reads_only(self) -> None:
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "s.jsonl"
            path.write_text(BRANCHED, encoding="utf-8")
            before = path.read_bytes()
            session = load_session(path)
            self.assertEqual(session.file.path, str(path))
            self.assertEqual(session.leaf_id, "l1")
            self.assertEqual(path.read_bytes(), before)

    def test_bad_mode_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            session_from_text(BRANCHED, mode="strict")

    def test_context_of_the_loaded_branch(self) -> None:
        session = session_from_text(BRANCHED)
        context = build_session_context(session.branch())
        self.assertEqual([m["entryId"] for m in context.messages], ["u1", "a1", "u2b", "a2b"])
        self.assertEqual((context.model, context.thinking_level),
                         ({"provider": "acme", "modelId": "beta"}, "high"))


@unittest.skipUnless(is_reference(), "checks the reference model only")
class LabelsAndNameTests(unittest.TestCase):
    def test_labels_are_global_latest_wins(self) -> None:
        session = session_from_text(text_of(
            model_change("m", None, 1), user("u1", "m", 2),
            line("label", "l1", "u1", 3, targetId="u1", label="one"),
            line("label", "l2", "m", 4, targetId="m", label="root"),   # another branch
            line("label", "l3", "l1", 5, targetId="u1", label="two"),
            line("label", "l4", "l3", 6, targetId="m")))                  # clears m
        self.assertEqual(session.labels(), {"u1": "two"})
        self.assertEqual(resolve_labels(session.entries), session.labels())

    def test_name_latest_session_info_trimmed(self) -> None:
        # Pi's getSessionName only trims (0.84.2 and 1.6.0): line breaks are cleaned when a
        # name is *written* (appendSessionInfo), so a hand-written one keeps its inner breaks.
        session = session_from_text(text_of(
            model_change("m", None, 1),
            line("session_info", "n1", "m", 2, name="first"),
            line("session_info", "n2", "n1", 3, name="  fix\r\n\r\nthe   bug \n")))
        self.assertEqual(session.name(), "fix\r\n\r\nthe   bug")

    def test_empty_name_clears(self) -> None:
        entries = [{"type": "session_info", "name": "kept?"}, {"type": "session_info",
                                                                 "name": "  "}]
        self.assertIsNone(session_name(entries))
        self.assertIsNone(session_name([{"type": "session_info", "name": "x"},
                                        {"type": "session_info"}]))

    def test_no_name(self) -> None:
        self.assertIsNone(session_name([]))
        self.assertIsNone(session_name([{"type": "session_info", "name": 7}]))
        self.assertEqual(session_name([{"type": "session_info", "name": "a\nb"}]), "a\nb")
        # JavaScript's trim, not Python's strip: U+FEFF goes, U+001C stays
        self.assertEqual(session_name([{"type": "session_info", "name": "\ufeffa\x1c"}]),
                         "a\x1c")


@unittest.skipUnless(is_reference(), "checks the reference model only")
class TeachingModeDamageTests(unittest.TestCase):
    def test_dangling_parent_loads_and_is_marked(self) -> None:
        session = session_from_text(text_of(
            model_change("m", None, 1), user("u1", "m", 2),
            user("x1", "ghost", 3), assistant("x2", "x1", 4)))
        self.assertEqual(codes(session), [(4, "dangling-parent")])
        self.assertEqual(session.diagnostics[0].entry_id, "x1")
        self.assertEqual(session.detached, {"x1": "dangling-parent"})
        self.assertEqual(ids(session.tree.roots()), ["m", "x1"])
        self.assertEqual(session.leaf_id, "x2")
        self.assertEqual(len(session.tree), 4, "every entry stays visible in the tree")

    def test_branch_through_dangling_parent_names_the_missing_id(self) -> None:
        session = session_from_text(text_of(
            model_change("m", None, 1), user("x1", "ghost", 3), assistant("x2", "x1", 4)))
        for leaf in (None, "x2", "x1"):
            with self.assertRaises(UnknownTranscriptEntry) as caught:
                session.branch(leaf)
            self.assertEqual((caught.exception.entry_id, caught.exception.referenced_by),
                             ("ghost", "x1"))
            self.assertIn("ghost", str(caught.exception))
        self.assertEqual(ids(session.branch("m")), ["m"])

    def test_self_parent(self) -> None:
        session = session_from_text(text_of(model_change("m", None, 1), user("me", "me", 2)))
        self.assertEqual(codes(session), [(3, "self-parent")])
        self.assertEqual(session.detached, {"me": "self-parent"})
        self.assertIsNone(session.tree["me"].parent_id)
        with self.assertRaises(SelfParent):
            session.branch()

    def test_cycle_is_cut_at_its_first_entry_in_the_file(self) -> None:
        session = session_from_text(text_of(
            model_change("m", None, 1), user("p", "q", 2), assistant("q", "p", 3),
            user("r", "q", 4)))
        self.assertEqual(codes(session), [(3, "cycle")])
        self.assertEqual(session.detached, {"p": "cycle"})
        self.assertEqual(ids(session.tree.path_to("r")), ["p", "q", "r"])
        self.assertIn("p -> q -> p", session.diagnostics[0].detail)
        with self.assertRaises(ParentCycle) as caught:
            session.branch("r")
        self.assertEqual(set(caught.exception.cycle), {"p", "q"})

    def test_missing_id_line_is_dropped_and_not_the_leaf(self) -> None:
        session = session_from_text(text_of(model_change("m", None, 1),
                                            line("custom", None, "m", 2, customType="k")))
        self.assertEqual(codes(session), [(3, "missing-id")])
        self.assertEqual(session.leaf_id, "m")

    def test_messages_are_readable(self) -> None:
        session = session_from_text(text_of(user("x1", "ghost", 3)))
        for lang in ("en", "zh"):
            text = explain(session.diagnostics[0], lang)
            self.assertTrue(text.startswith(("line 2", "第 2")), text)
            self.assertIn("x1", text)


@unittest.skipUnless(is_reference(), "checks the reference model only")
class PiModeTests(unittest.TestCase):
    """Pi v0.84.2 on damaged files (section 12b), never hanging."""

    def test_corrupt_interior_line_makes_an_extra_root(self) -> None:
        text = text_of(model_change("m", None, 1), thinking("t", "m", 2, "high"),
                       user("u1", "t", 3), assistant("a1", "u1", 4)[:-5] + "%%%",
                       user("u2", "a1", 5), assistant("a2", "u2", 6))
        session = session_from_text(text, mode="pi")
        self.assertEqual(ids(session.branch()), ["u2", "a2"])
        self.assertEqual(ids(session.tree.roots()), ["m", "u2"])
        context = build_session_context(session.branch())
        self.assertEqual(context.thinking_level, "off",
                         "the thinking_level_change is above the lost line: back to 'off'")
        self.assertEqual([m["entryId"] for m in context.messages], ["u2", "a2"])

    def test_teaching_mode_refuses_the_same_walk(self) -> None:
        text = text_of(model_change("m", None, 1), user("u1", "m", 3),
                       assistant("a1", "u1", 4)[:-5] + "%%%", user("u2", "a1", 5))
        session = session_from_text(text)
        self.assertEqual(codes(session), [(4, "corrupt-line"), (5, "dangling-parent")])
        with self.assertRaises(UnknownTranscriptEntry):
            session.branch()

    def test_glued_line_loses_both_objects(self) -> None:
        text = text_of(model_change("m", None, 1),
                       user("u1", "m", 2) + assistant("a1", "u1", 3), user("u2", "a1", 4))
        pi = session_from_text(text, mode="pi")
        self.assertNotIn("u1", pi)
        self.assertNotIn("a1", pi)
        self.assertEqual(ids(pi.branch()), ["u2"])
        teaching = session_from_text(text)
        self.assertEqual(ids(teaching.branch()), ["m", "u1", "a1", "u2"])

    def test_orphan_is_a_root_and_the_walk_stops(self) -> None:
        session = session_from_text(text_of(model_change("m", None, 1),
                                            user("x1", "ghost", 2), assistant("x2", "x1", 3)),
                                    mode="pi")
        self.assertEqual(ids(session.branch()), ["x1", "x2"])
        self.assertEqual(ids(session.tree.roots()), ["m", "x1"])
        self.assertEqual(session.detached, {"x1": "dangling-parent"})

    def test_later_duplicate_wins(self) -> None:
        session = session_from_text(text_of(model_change("m", None, 1), user("u1", "m", 2, "old"),
                                            user("u1", "m", 3, "new")), mode="pi")
        self.assertEqual(session.entry("u1")["message"]["content"], "new")
        teaching = session_from_text(text_of(model_change("m", None, 1),
                                             user("u1", "m", 2, "old"),
                                             user("u1", "m", 3, "new")))
        self.assertEqual(teaching.entry("u1")["message"]["content"], "old")

    def test_line_without_id_is_the_leaf_and_the_branch_is_empty(self) -> None:
        session = session_from_text(text_of(model_change("m", None, 1), user("u1", "m", 2),
                                            line("custom", None, "u1", 3, customType="k")),
                                    mode="pi")
        self.assertIsNone(session.leaf_id)
        self.assertEqual(session.branch(), [])
        self.assertEqual(build_session_context(session.branch()).messages, [])
        self.assertEqual(ids(session.branch("u1")), ["m", "u1"])
        # but Pi's buildSessionContext, finding no entry for the leaf, starts from the last
        # line and walks up from it: the context is not empty (docs/pi-session-format.md)
        self.assertEqual([m.get("entryId") for m in session.context().messages], ["u1"])

    def test_an_empty_id_is_in_the_tree_where_pi_files_it_and_no_walk_passes_it(self) -> None:
        # Pi's index files the line under "" and getTree hangs b (parentId "") under it, so
        # /tree shows it; getBranch and the context test ids for truth and stop at b.
        text = text_of(user("a", None, 1), user("", "a", 2, "no id"), user("b", "", 3),
                       user("c", "a", 4), user("d", "b", 5))
        session = session_from_text(text, mode="pi")
        self.assertEqual(ids(session.tree.children("a")), ["", "c"])
        self.assertEqual(ids(session.children("")), ["b"])
        self.assertEqual(session.children("a")[0]["message"]["content"], "no id")
        self.assertEqual(session.detached, {})
        self.assertNotIn("", session)   # the index behind branch, context and fork
        self.assertEqual(ids(session.branch()), ["b", "d"])
        self.assertEqual([m["entryId"] for m in session.context().messages], ["b", "d"])
        teaching = session_from_text(text)   # the teaching model keeps refusing the name
        self.assertNotIn("", teaching.tree)
        self.assertEqual(teaching.detached, {"b": "dangling-parent"})
        self.assertIn((3, "missing-id"), codes(teaching))
        from learn_pi_lab.session_tree import EmptyEntryId, TranscriptEntry
        with self.assertRaises(EmptyEntryId):
            TranscriptTree([TranscriptEntry("a", None), TranscriptEntry("", "a")])
        with self.assertRaises(EmptyEntryId):
            session.tree.append("")

    def test_an_empty_id_as_the_last_line_is_the_leaf_of_the_tree(self) -> None:
        session = session_from_text(text_of(user("a", None, 1), user("", "a", 2)), mode="pi")
        self.assertEqual(session.leaf_id, "")
        self.assertEqual(session.tree.leaf_id, "")
        self.assertEqual(ids(session.tree.path_to()), ["a", ""])
        self.assertEqual(session.branch(), [])
        self.assertEqual([m["entryId"] for m in session.context().messages], ["a", ""])

    def test_navigating_to_a_user_message_under_an_empty_id(self) -> None:
        # Pi's navigateTree puts the leaf on the message's parent, "" (branch("") finds the
        # line); getBranch() is then empty and the context falls back to the last line's
        # walk: both versions gave leaf "", branch [] and the context of b, d (Pi's own
        # SessionManager, asked by hand: sm.branch(""); sm.buildSessionContext()).
        from learn_pi_lab.pi.navigation import navigate
        text = text_of(user("a", None, 1), user("", "a", 2), user("b", "", 3),
                       user("c", "a", 4), user("d", "b", 5))
        for version in ("0.84.2", "1.6.0"):
            session = session_from_text(text, mode="pi", pi_version=version)
            self.assertEqual(navigate(session, "b"), "")
            self.assertEqual((session.leaf_id, session.tree.leaf_id), ("", ""))
            self.assertEqual(session.branch(), [])
            self.assertEqual([m["entryId"] for m in session.context().messages], ["b", "d"])

    def test_self_parent_is_a_root_and_a_walk_into_it_stops_with_an_error(self) -> None:
        session = session_from_text(text_of(model_change("m", None, 1), user("me", "me", 2),
                                            assistant("a", "me", 3)), mode="pi")
        self.assertEqual(ids(session.tree.roots()), ["m", "me"])
        for leaf in ("me", "a"):
            with self.assertRaises(ParentCycle) as caught:  # Pi itself would never return
                session.branch(leaf)
            self.assertEqual(caught.exception.cycle, ("me",))

    def test_two_node_cycle_vanishes_from_the_tree_and_raises(self) -> None:
        session = session_from_text(text_of(
            model_change("m", None, 1), user("p", "q", 2), assistant("q", "p", 3),
            user("r", "q", 4), user("s", "m", 5), user("r2", "r", 6)), mode="pi")
        self.assertEqual(ids(session.tree.entries), ["m", "s"],
                         "like Pi's getTree: the cycle and everything below it vanish")
        self.assertEqual(session.leaf_id, "r2")
        self.assertIsNone(session.tree.leaf_id)
        self.assertEqual(codes(session), [(3, "cycle")])
        for leaf in (None, "p", "q", "r"):
            with self.assertRaises(ParentCycle) as caught:
                session.branch(leaf)
            self.assertEqual(set(caught.exception.cycle), {"p", "q"})

    def test_bom_is_rejected_like_pi(self) -> None:
        text = "\ufeff" + text_of(model_change("m", None, 1))
        with self.assertRaises(NotASessionFile):
            session_from_text(text, mode="pi")
        self.assertEqual(session_from_text(text).leaf_id, "m")


def data_files() -> list[Path]:
    found = sorted((ROOT / "data").rglob("*.jsonl")) + sorted((ROOT / "data").rglob("*.jsonl.xz"))
    return [path for path in found if path.is_file()]


@unittest.skipUnless(is_reference(), "checks the reference model only")
class DataFilesTests(unittest.TestCase):
    """Every session file the project ships loads in both modes with a consistent tree."""

    def test_there_are_data_files(self) -> None:
        self.assertTrue(data_files(), "data/ should hold session files")

    def test_every_file_loads_and_every_entry_is_drawable(self) -> None:
        for path in data_files():
            with self.subTest(file=str(path.relative_to(ROOT))):
                try:
                    session = load_session(path)
                except NotASessionFile:
                    continue  # a deliberately broken example: the reader's tests cover it
                self.assertEqual(ids(session.tree.entries), ids(session.entries),
                                 "teaching mode keeps every entry in the tree")
                for entry in session.tree.entries:
                    original_parent = session.entry(entry.id).get("parentId")
                    if entry.id in session.detached:
                        self.assertIsNone(entry.parent_id)
                    else:
                        self.assertEqual(entry.parent_id, original_parent)
                for leaf in session.tree.leaves():
                    try:
                        branch = session.branch(leaf.id)
                    except TranscriptError:
                        on_path = {e.id for e in session.tree.path_to(leaf.id)}
                        self.assertTrue(on_path & set(session.detached),
                                        f"branch({leaf.id!r}) failed with no damage above it")
                    else:
                        self.assertEqual(ids(branch), ids(session.tree.path_to(leaf.id)))
                        build_session_context(branch)

    def test_every_file_loads_in_pi_mode_without_hanging(self) -> None:
        """Pi itself walks a parent cycle forever; pi mode must not. Every branch of every
        data file is walked on a worker thread that gets a generous minute: each walk ends
        at its own entry and starts at a root, or stops with ``ParentCycle``."""
        walked: list[str] = []
        wrong: list[str] = []

        def walk_everything() -> None:
            for path in data_files():
                try:
                    session = load_session(path, mode="pi")
                except NotASessionFile:
                    continue
                for entry in session.tree.entries:
                    try:
                        branch = ids(session.branch(entry.id))
                    except ParentCycle:
                        continue
                    walked.append(entry.id)
                    first = session.tree[branch[0]]
                    if branch[-1] != entry.id or first.parent_id is not None:
                        wrong.append(f"{path.name}: {entry.id} -> {branch}")

        worker = threading.Thread(target=walk_everything, daemon=True)
        worker.start()
        worker.join(timeout=60)
        self.assertFalse(worker.is_alive(), "walking every branch in pi mode did not finish")
        self.assertEqual(wrong, [], "a branch must run from a root to its own entry")
        self.assertGreater(len(walked), 100, "the data files have well over 100 entries")

if __name__ == "__main__":
    unittest.main()
