"""Chapter 08 exercises: a session store behind a swappable backend.

``MemoryBackend()`` and ``FileBackend(path)`` both offer ``append(obj)`` and ``read_all()``
(append-only: nothing is updated or deleted). The file backend writes one JSON line per
object and must survive a torn last line. ``rebuild_extension_state(path_entries,
custom_type)`` folds the ``data`` of that extension's ``custom`` entries along a branch.

The first three classes grade the reference (``learn_pi_lab.store``) and a learner's
``workspace/ch08_design_your_own.py``. ``SessionStoreTests`` checks the reference only.
"""

from __future__ import annotations

import json
import os
import re
import random
import tempfile
import unittest
from datetime import datetime, timedelta, timezone
from pathlib import Path

from learn_pi_lab.i18n import explain, t
from learn_pi_lab.jsonl.reader import NotASessionFile, read_jsonl_tolerant
from learn_pi_lab.jsonl.writer import OldSessionVersion
from learn_pi_lab import store as store_reference
from learn_pi_lab.store import (NotABackend, NotAListOfObjects, PayloadSetsTreeKeys,
                                WrongAppendArgument)
from tests import drawn
from tests.targets import is_reference, load_target

impl = load_target("ch08_design_your_own", "learn_pi_lab.store")

HEADER = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-03-01T10:00:00.000Z",
          "cwd": "/w"}


def entry(entry_id: str, parent_id: str | None, kind: str = "message", **fields) -> dict:
    return {"type": kind, "id": entry_id, "parentId": parent_id,
            "timestamp": "2026-03-01T10:00:01.000Z", **fields}


def custom(entry_id: str, parent_id: str | None, custom_type: str, data) -> dict:
    return {"type": "custom", "customType": custom_type, "data": data, "id": entry_id,
            "parentId": parent_id, "timestamp": "2026-03-01T10:00:01.000Z"}


class MemoryBackendTests(unittest.TestCase):
    # (unittest runs these in name order: the two "test_a_" ones come first, so a list shared
    # by every instance is named for what it is before it spoils the tests after it)
    def test_a_new_backend_is_empty(self) -> None:
        got = impl.MemoryBackend().read_all()
        self.assertEqual(got, [], msg=t("exercise_tests.store.new_memory_backend_is_empty",
                                        got=got))

    def test_a_second_backend_does_not_share_the_first_ones_storage(self) -> None:
        first, second = impl.MemoryBackend(), impl.MemoryBackend()
        first.append(HEADER)
        got = second.read_all()
        self.assertEqual(got, [], msg=t("exercise_tests.store.own_storage", got=got))

    def test_read_all_returns_what_was_appended_in_order(self) -> None:
        backend = impl.MemoryBackend()
        objects = [HEADER, entry("a", None), entry("b", "a", message={"role": "user",
                                                                        "content": "你好"})]
        for obj in objects:
            self.assertIsNone(backend.append(obj),
                              msg=t("exercise_tests.store.append_returns_none"))
        got = backend.read_all()
        self.assertEqual(got, objects, msg=t("exercise_tests.store.read_all_in_order",
                                             want=objects, got=got))

    def test_changing_the_returned_list_does_not_change_history(self) -> None:
        backend = impl.MemoryBackend()
        backend.append(HEADER)
        returned = backend.read_all()
        returned.append(entry("x", None))
        returned.clear()
        got = backend.read_all()
        self.assertEqual(got, [HEADER], msg=t("exercise_tests.store.read_all_returns_a_copy",
                                              want=[HEADER], got=got))

    def test_changing_a_dict_after_append_does_not_change_history(self) -> None:
        backend = impl.MemoryBackend()
        obj = entry("a", None, message={"role": "user", "content": "first"})
        backend.append(obj)
        obj["parentId"] = "changed"
        obj["message"]["content"] = "changed"
        want = [entry("a", None, message={"role": "user", "content": "first"})]
        got = backend.read_all()
        self.assertEqual(got, want, msg=t("exercise_tests.store.store_a_deep_copy", want=want,
                                          got=got))

    def test_changing_a_returned_dict_does_not_change_history(self) -> None:
        backend = impl.MemoryBackend()
        backend.append(entry("a", None, message={"role": "user", "content": "first"}))
        backend.read_all()[0]["message"]["content"] = "changed"
        got = backend.read_all()[0]["message"]["content"]
        self.assertEqual(got, "first", msg=t("exercise_tests.store.read_all_returns_copies",
                                             got=got))


class FileBackendTests(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.path = Path(self._tmp.name) / "session.jsonl"

    def test_each_append_writes_one_json_line(self) -> None:
        backend = impl.FileBackend(self.path)
        objects = [HEADER, entry("a", None), entry("b", "a", message={"content": "中文"})]
        for obj in objects:
            backend.append(obj)
        text = self.path.read_text(encoding="utf-8")
        self.assertTrue(text.endswith("\n"), msg=t("exercise_tests.store.lines_end_with_newline"))
        lines = text.split("\n")[:-1]
        self.assertEqual(len(lines), 3, msg=t("exercise_tests.store.three_lines", text=text))
        self.assertEqual([json.loads(line) for line in lines], objects,
                         msg=t("exercise_tests.store.line_is_the_json"))

    def test_read_all_reads_the_file_back(self) -> None:
        backend = impl.FileBackend(self.path)
        backend.append(HEADER)
        backend.append(entry("a", None))
        self.assertEqual(impl.FileBackend(self.path).read_all(), [HEADER, entry("a", None)],
                         msg=t("exercise_tests.store.second_file_backend_reads"))

    def test_append_never_rewrites_earlier_bytes(self) -> None:
        backend = impl.FileBackend(self.path)
        backend.append(HEADER)
        before = self.path.read_bytes()
        backend.append(entry("a", None))
        after = self.path.read_bytes()
        self.assertTrue(after.startswith(before) and len(after) > len(before),
                        msg=t("exercise_tests.store.old_bytes_stay"))

    def test_append_after_a_torn_last_line_starts_a_fresh_line(self) -> None:
        torn = json.dumps(HEADER) + "\n" + json.dumps(entry("a", None)) + "\n" + '{"type":"mess'
        self.path.write_text(torn, encoding="utf-8")
        backend = impl.FileBackend(self.path)
        backend.append(entry("b", "a"))
        text = self.path.read_text(encoding="utf-8")
        self.assertTrue(text.startswith(torn),
                        msg=t("exercise_tests.store.damaged_bytes_not_rewritten"))
        self.assertEqual(backend.read_all(), [HEADER, entry("a", None), entry("b", "a")],
                         msg=t("exercise_tests.store.fresh_line_after_torn_line", text=text))

    def test_a_missing_file_reads_as_empty(self) -> None:
        got = impl.FileBackend(self.path).read_all()
        self.assertEqual(got, [], msg=t("exercise_tests.store.missing_file_reads_empty", got=got))
        self.assertFalse(self.path.exists(), msg=t("exercise_tests.store.read_creates_nothing"))

    def test_a_corrupt_interior_line_costs_only_that_line(self) -> None:
        self.path.write_text(json.dumps(HEADER) + "\n" + "{not json\n"
                             + json.dumps(entry("a", None)) + "\n", encoding="utf-8")
        got = impl.FileBackend(self.path).read_all()
        self.assertEqual(got, [HEADER, entry("a", None)],
                         msg=t("exercise_tests.store.corrupt_line_skipped", got=got))


# Drawn inputs (tests/drawn.py): the branch to a random entry of a session whose custom
# entries belong to a few extensions, with data that is an object (sometimes nested), None,
# missing or not an object, beside custom_message entries of the same customType; the answer
# is compared as the visible tests compare it, with ``==``.
EXTENSION_KINDS = {"custom": 5, "message": 3, "custom_message": 1, "label": 0.5,
                   "model_change": 0.5}



def draw_extension_state(rng: random.Random, size: int) -> tuple:
    path = drawn.branch(rng, drawn.session(rng, size, EXTENSION_KINDS))
    # Often an object under a key another entry sets too: the state takes the later object
    # whole (dict.update), it does not merge the two (a review's wrong answer, merging them,
    # passed 96% of seeds before; now about 5%, and test_a_later_object_replaces_an_earlier_
    # one_whole fails it first), and, for that, often several entries of one extension on
    # the branch.
    favourite = rng.choice(drawn.CUSTOM_TYPES)
    for entry in path:
        data = entry.get("data")
        if entry["type"] == "custom" and rng.random() < 0.5:
            entry["customType"] = favourite
        if entry["type"] == "custom" and isinstance(data, dict) and rng.random() < 0.7:
            data[rng.choice(drawn.DATA_KEYS[:2])] = {
                rng.choice(drawn.DATA_KEYS): drawn.value(rng, 1)
                for _ in range(rng.randint(1, 2))}
    on_the_path = [entry["customType"] for entry in path if entry["type"] == "custom"]
    if on_the_path and rng.random() < 0.8:   # mostly an extension that wrote on this branch
        return path, rng.choice(on_the_path)
    return path, rng.choice(drawn.CUSTOM_TYPES)


EXTENSION_STATE_DRAWN = drawn.Drawn(
    "extension-state", reference=store_reference.rebuild_extension_state,
    draw=draw_extension_state)


class ExtensionStateTests(unittest.TestCase):
    def test_no_entries_of_that_type_gives_an_empty_dict(self) -> None:
        path = [entry("a", None), custom("c", "a", "other", {"x": 1})]
        self.assertEqual(impl.rebuild_extension_state(path, "todo"), {},
                         msg=t("exercise_tests.store.no_entries_of_the_type"))
        self.assertEqual(impl.rebuild_extension_state([], "todo"), {})

    def test_data_is_folded_in_path_order_with_update(self) -> None:
        path = [custom("c1", None, "todo", {"items": ["a"], "done": 0}),
                entry("m", "c1"),
                custom("c2", "m", "todo", {"done": 1}),
                custom("c3", "c2", "todo", {"items": ["a", "b"]})]
        self.assertEqual(impl.rebuild_extension_state(path, "todo"),
                         {"items": ["a", "b"], "done": 1},
                         msg=t("exercise_tests.store.data_folded_with_update"))

    def test_a_later_object_replaces_an_earlier_one_whole(self) -> None:
        # (a review's plausible mistake, a deep merge, passed the other visible tests)
        path = [custom("c1", None, "todo", {"plan": {"step": 1, "goal": "ship"}}),
                custom("c2", "c1", "todo", {"plan": {"step": 2}})]
        state = impl.rebuild_extension_state(path, "todo")
        self.assertEqual(state, {"plan": {"step": 2}},
                         msg=t("exercise_tests.store.object_replaced_whole", got=state))

    def test_only_custom_entries_of_that_custom_type_count(self) -> None:
        path = [custom("c1", None, "todo", {"n": 1}),
                custom("c2", "c1", "other", {"n": 99}),
                {"type": "custom_message", "customType": "todo", "content": "x",
                 "display": True, "details": {"n": 50}, "id": "cm", "parentId": "c2",
                 "timestamp": "2026-03-01T10:00:01.000Z"},
                entry("m", "cm", message={"role": "user", "content": "n=7"})]
        self.assertEqual(impl.rebuild_extension_state(path, "todo"), {"n": 1},
                         msg=t("exercise_tests.store.only_this_custom_type"))

    def test_entries_without_dict_data_are_skipped(self) -> None:
        path = [custom("c1", None, "todo", {"n": 1}),
                {"type": "custom", "customType": "todo", "id": "c2", "parentId": "c1",
                 "timestamp": "2026-03-01T10:00:01.000Z"},
                custom("c3", "c2", "todo", None)]
        self.assertEqual(impl.rebuild_extension_state(path, "todo"), {"n": 1},
                         msg=t("exercise_tests.store.data_not_a_dict"))

    def test_the_input_entries_are_not_changed(self) -> None:
        first = {"n": 1}
        path = [custom("c1", None, "todo", first), custom("c2", "c1", "todo", {"n": 2})]
        state = impl.rebuild_extension_state(path, "todo")
        self.assertEqual(first, {"n": 1},
                         msg=t("exercise_tests.store.input_unchanged"))
        self.assertEqual(state, {"n": 2})

    def test_two_branches_give_two_states(self) -> None:
        root = custom("c1", None, "todo", {"plan": "strategy", "step": 1})
        left = [root, custom("c2", "c1", "todo", {"step": 2})]
        right = [root, custom("c3", "c1", "todo", {"plan": "composition"})]
        self.assertEqual(impl.rebuild_extension_state(left, "todo"),
                         {"plan": "strategy", "step": 2})
        self.assertEqual(impl.rebuild_extension_state(right, "todo"),
                         {"plan": "composition", "step": 1},
                         msg=t("exercise_tests.store.state_per_branch"))

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        EXTENSION_STATE_DRAWN.check(self, impl.rebuild_extension_state)


class _FixedClock:
    """A clock that ticks one second per call, so two runs write identical lines."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        self.moment += timedelta(seconds=1)
        return self.moment


def user(text: str) -> dict:
    return {"message": {"role": "user", "content": text, "timestamp": 1}}


def play_fork_story(store) -> dict[str, str]:
    """Two turns, a todo state, then a rewind and a different second turn."""
    ids = {"u1": store.append("message", user("plan the refactor"))}
    ids["s1"] = store.append("custom", {"customType": "todo", "data": {"plan": "strategy"}})
    ids["u2"] = store.append("message", user("go on with strategies"))
    ids["s2"] = store.append("custom", {"customType": "todo", "data": {"step": 2}})
    store.move_leaf(ids["s1"])
    ids["u2b"] = store.append("message", user("switch to composition"))
    ids["s2b"] = store.append("custom", {"customType": "todo", "data": {"plan": "composition"}})
    return ids


@unittest.skipUnless(is_reference(), "checks learn_pi_lab.store.SessionStore itself")
class SessionStoreTests(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.path = Path(self._tmp.name) / "store.jsonl"

    def make(self, backend):
        return impl.SessionStore(backend, clock=_FixedClock(), rng=random.Random(8), cwd="/w")

    def test_swapping_the_backend_changes_nothing_else(self) -> None:
        memory, file = impl.MemoryBackend(), impl.FileBackend(self.path)
        in_memory, on_disk = self.make(memory), self.make(file)
        self.assertEqual(play_fork_story(in_memory), play_fork_story(on_disk))
        self.assertEqual(memory.read_all(), file.read_all())
        self.assertEqual(in_memory.branch(), on_disk.branch())
        self.assertEqual(len(file.read_all()), 1 + 6, msg="a header and six entries")

    def test_a_new_store_writes_a_v3_header_first(self) -> None:
        backend = impl.MemoryBackend()
        self.make(backend)
        (header,) = backend.read_all()
        self.assertEqual((header["type"], header["version"], header["cwd"]), ("session", 3, "/w"))

    def test_append_grows_the_branch_at_the_leaf(self) -> None:
        store = self.make(impl.MemoryBackend())
        ids = play_fork_story(store)
        self.assertEqual(store.leaf_id, ids["s2b"])
        self.assertEqual([e["id"] for e in store.branch()],
                         [ids["u1"], ids["s1"], ids["u2b"], ids["s2b"]])
        self.assertEqual([e["id"] for e in store.branch(ids["s2"])],
                         [ids["u1"], ids["s1"], ids["u2"], ids["s2"]],
                         msg="the abandoned branch is still there, nothing was deleted")
        self.assertEqual({child.id for child in store.tree.children(ids["s1"])},
                         {ids["u2"], ids["u2b"]})

    def test_extension_state_differs_per_branch_after_a_fork(self) -> None:
        store = self.make(impl.MemoryBackend())
        ids = play_fork_story(store)
        self.assertEqual(store.extension_state("todo"), {"plan": "composition"})
        self.assertEqual(store.extension_state("todo", ids["s2"]),
                         {"plan": "strategy", "step": 2})

    def test_context_holds_messages_but_not_custom_entries(self) -> None:
        store = self.make(impl.MemoryBackend())
        ids = play_fork_story(store)
        context = store.context()
        self.assertEqual([m["entryId"] for m in context.messages], [ids["u1"], ids["u2b"]],
                         msg="custom entries are archive only: never in the model's context")

    def test_a_path_instead_of_a_backend_is_named(self) -> None:
        for wrong in (self.path, str(self.path), None):
            with self.assertRaises(NotABackend) as caught:
                impl.SessionStore(wrong)
            self.assertEqual(caught.exception.got, type(wrong).__name__)
            self.assertIn("FileBackend(path)", explain(caught.exception))
        self.assertFalse(self.path.exists(), msg="nothing was written")

    def test_append_refuses_a_wrong_kind_or_payload_before_writing(self) -> None:
        backend = impl.MemoryBackend()
        store = self.make(backend)
        first = store.append("message", user("hi"))
        whole_entry = {"type": "message", "message": {"role": "user", "content": "x"}}
        for kind, payload, error in ((whole_entry, None, WrongAppendArgument),
                                     (None, None, WrongAppendArgument),
                                     ("message", "hi", WrongAppendArgument),
                                     ("message", {"id": "mine", **user("x")}, PayloadSetsTreeKeys),
                                     ("message", {"parentId": None, **user("x")},
                                      PayloadSetsTreeKeys),
                                     ("custom", {"type": "message"}, PayloadSetsTreeKeys)):
            with self.subTest(kind=kind, payload=payload):
                with self.assertRaises(error) as caught:
                    store.append(kind, payload)
                explain(caught.exception)
        self.assertEqual(len(backend.read_all()), 2, msg="the header and the one good entry")
        self.assertEqual(store.leaf_id, first)
        reopened = impl.SessionStore(backend)
        self.assertEqual(reopened.branch(), store.branch(),
                         msg="the backend and the tree in memory still agree")

    def test_reopening_a_file_store_rebuilds_the_tree_with_the_leaf_on_the_last_line(self) -> None:
        store = self.make(impl.FileBackend(self.path))
        ids = play_fork_story(store)
        store.move_leaf(ids["u1"])  # a leaf move alone is not saved (as in Pi)
        reopened = impl.SessionStore(impl.FileBackend(self.path))
        self.assertEqual(reopened.leaf_id, ids["s2b"])
        self.assertEqual(len(reopened.tree), 6)
        self.assertEqual(reopened.header, store.header)

    def test_a_backend_without_a_header_first_is_refused(self) -> None:
        backend = impl.MemoryBackend()
        backend.append(entry("a", None))
        with self.assertRaises(ValueError):
            impl.SessionStore(backend)

    def test_every_backend_is_read_through_read_all(self) -> None:
        """A learner's review: the store used to read a file itself, so a FileBackend's own
        read_all (a learner's, or chapter 08's CheckedFileBackend) was never called."""
        calls = []

        class Counted(impl.FileBackend):
            def read_all(self):
                calls.append(self.path)
                return super().read_all()
        self.make(Counted(self.path))
        impl.SessionStore(Counted(self.path))
        self.assertEqual(calls, [self.path, self.path])

    def test_a_read_all_that_answers_something_else_is_named(self) -> None:
        class Pair(impl.FileBackend):
            def read_all(self):
                return read_jsonl_tolerant(self.path.read_text(encoding="utf-8"))
        self.make(impl.FileBackend(self.path))
        with self.assertRaises(NotAListOfObjects) as caught:
            impl.SessionStore(Pair(self.path))
        self.assertEqual((caught.exception.backend, caught.exception.got), ("Pair", "tuple"))
        self.assertIn("Pair.read_all() should return a list of dicts", str(caught.exception))


@unittest.skipUnless(is_reference(), "checks learn_pi_lab.store.SessionStore itself")
class StoreSurvivesDamageTests(unittest.TestCase):
    """The store survives what the course teaches: torn lines, strangers' files, bad values."""

    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.path = Path(self._tmp.name) / "store.jsonl"

    def lines(self, *objects: dict) -> bytes:
        return "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in objects).encode()

    def test_a_character_torn_in_half_costs_one_line(self) -> None:
        whole = self.lines(HEADER, entry("a", None, message={"role": "user", "content": "中文"}))
        torn = json.dumps(entry("b", "a", message={"role": "user", "content": "中文内容"}),
                          ensure_ascii=False).encode("utf-8")
        cut = torn[:torn.index("内".encode()) + 1]          # kill -9 inside a character
        self.path.write_bytes(whole + cut)
        for _round in range(3):                            # every later open works too
            store = impl.SessionStore(impl.FileBackend(self.path))
            self.assertEqual(store.leaf_id is not None, True)
        new_id = store.append("message", {"message": {"role": "user", "content": "next"}})
        again = impl.SessionStore(impl.FileBackend(self.path))
        self.assertEqual([e["id"] for e in again.branch()], ["a", new_id])
        self.assertTrue(self.path.read_bytes().startswith(whole + cut),
                        msg="the damaged bytes stay as they were")

    def test_a_file_that_is_not_a_session_is_refused_untouched(self) -> None:
        for content in (b"Dear diary,\nno JSON here\n", b"[1, 2]\n", b"\n\n",
                        json.dumps(HEADER).encode()[:25]):        # the last: a torn header
            self.path.write_bytes(content)
            with self.assertRaises(NotASessionFile):
                impl.SessionStore(impl.FileBackend(self.path))
            self.assertEqual(self.path.read_bytes(), content,
                             msg="nothing may be written into a file that is not a session")

    def test_an_empty_file_gets_one_header(self) -> None:
        self.path.write_bytes(b"")
        impl.SessionStore(impl.FileBackend(self.path), cwd="/w")
        impl.SessionStore(impl.FileBackend(self.path), cwd="/w")
        headers = [line for line in self.path.read_text().splitlines() if '"session"' in line]
        self.assertEqual(len(headers), 1, msg="never a second header")

    def test_wrong_typed_parents_become_roots_not_type_errors(self) -> None:
        self.path.write_bytes(self.lines(HEADER, entry("a", None), entry("b", ["a"]),
                                         entry("c", {"id": "a"}), entry("d", 7)))
        store = impl.SessionStore(impl.FileBackend(self.path))
        self.assertEqual(store.leaf_id, "d")
        self.assertEqual([e["id"] for e in store.branch()], ["d"])
        self.assertEqual(len(store.tree.roots()), 4)

    def test_an_old_version_file_is_refused_untouched(self) -> None:
        content = self.lines({"type": "session", "id": "old", "timestamp": "t", "cwd": "/w"},
                             {"type": "message", "message": {"role": "user", "content": "x"}})
        self.path.write_bytes(content)
        with self.assertRaises(OldSessionVersion):
            impl.SessionStore(impl.FileBackend(self.path))
        self.assertEqual(self.path.read_bytes(), content)

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs FIFOs")
    def test_a_fifo_is_refused_without_blocking(self) -> None:
        fifo = Path(self._tmp.name) / "fifo.jsonl"
        os.mkfifo(fifo)
        with self.assertRaises(NotASessionFile) as caught:
            impl.SessionStore(impl.FileBackend(fifo))
        self.assertEqual(caught.exception.reason, "special-file")

    def test_store_ids_have_64_random_bits(self) -> None:
        store = impl.SessionStore(impl.MemoryBackend(), cwd="/w")
        ids = [store.append("message", {"message": {"role": "user", "content": str(n)}})
               for n in range(50)]
        self.assertTrue(all(re.fullmatch(r"[0-9a-f]{16}", entry_id) for entry_id in ids))
        self.assertEqual(len(set(ids)), 50)


if __name__ == "__main__":
    unittest.main()
