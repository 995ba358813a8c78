"""Chapter 03 exercises: branch_from, navigate_target, fork_path.

The same tests grade the reference (``learn_pi_lab.pi.navigation``) and a learner's
``workspace/ch03_rewind_and_branch.py`` (``LEARN_PI_LAB_TARGET``, see tests/targets.py).
"""

from __future__ import annotations

import unittest

from learn_pi_lab.session_tree import TranscriptEntry, TranscriptTree, UnknownTranscriptEntry
from tests.targets import load_target

impl = load_target("ch03_rewind_and_branch", "learn_pi_lab.pi.navigation")


def user(entry_id: str, parent_id: str | None, text: str = "hi") -> TranscriptEntry:
    payload = {"type": "message", "id": entry_id, "parentId": parent_id,
               "message": {"role": "user", "content": text}}
    return TranscriptEntry(entry_id, parent_id, kind="message", payload=payload)


def assistant(entry_id: str, parent_id: str | None) -> TranscriptEntry:
    payload = {"type": "message", "id": entry_id, "parentId": parent_id,
               "message": {"role": "assistant", "content": []}}
    return TranscriptEntry(entry_id, parent_id, kind="message", payload=payload)


def other(entry_id: str, parent_id: str | None, kind: str) -> TranscriptEntry:
    return TranscriptEntry(entry_id, parent_id, kind=kind,
                           payload={"type": kind, "id": entry_id, "parentId": parent_id})


def conversation() -> TranscriptTree:
    """m (model_change) -> u1 -> a1 -> u2 -> a2, leaf a2."""
    return TranscriptTree([other("m", None, "model_change"), user("u1", "m"),
                           assistant("a1", "u1"), user("u2", "a1"), assistant("a2", "u2")])


def ids(entries) -> list[str]:
    return [entry.id for entry in entries]


class BranchFromTests(unittest.TestCase):
    def test_new_entry_hangs_under_the_chosen_entry(self) -> None:
        tree = impl.branch_from(conversation(), "a1", "u2b")
        self.assertEqual(tree["u2b"].parent_id, "a1",
                         msg=f"the new entry's parent should be 'a1' (the entry you branched "
                             f"from); got {tree['u2b'].parent_id!r}")

    def test_new_entry_becomes_the_leaf(self) -> None:
        tree = impl.branch_from(conversation(), "a1", "u2b")
        self.assertEqual(tree.leaf_id, "u2b",
                         msg=f"after branching, the leaf should be the new entry 'u2b'; "
                             f"got {tree.leaf_id!r}")

    def test_nothing_is_deleted(self) -> None:
        before = conversation()
        tree = impl.branch_from(before, "a1", "u2b")
        self.assertEqual(ids(tree.entries), ids(before.entries) + ["u2b"],
                         msg=f"a branch only adds one entry; expected "
                             f"{ids(before.entries) + ['u2b']}, got {ids(tree.entries)}")
        self.assertEqual(ids(tree.children("a1")), ["u2", "u2b"],
                         msg=f"'a1' should now have two children ['u2', 'u2b']; got "
                             f"{ids(tree.children('a1'))}")

    def test_old_tree_is_unchanged(self) -> None:
        before = conversation()
        impl.branch_from(before, "a1", "u2b")
        self.assertEqual((len(before), before.leaf_id), (5, "a2"),
                         msg=f"branch_from must return a new tree and leave the old one alone; "
                             f"the old tree now has {len(before)} entries and leaf "
                             f"{before.leaf_id!r} (expected 5 and 'a2')")

    def test_new_branch_path(self) -> None:
        tree = impl.branch_from(conversation(), "a1", "u2b")
        self.assertEqual(ids(tree.path_to()), ["m", "u1", "a1", "u2b"],
                         msg=f"the current branch should be m, u1, a1, u2b; got "
                             f"{ids(tree.path_to())}")

    def test_kind_and_payload_are_kept(self) -> None:
        tree = impl.branch_from(conversation(), "u1", "lbl", kind="label",
                                payload={"targetId": "u1", "label": "start"})
        entry = tree["lbl"]
        self.assertEqual((entry.kind, dict(entry.payload).get("label")), ("label", "start"),
                         msg=f"kind and payload should be stored on the new entry; got kind "
                             f"{entry.kind!r} and payload {dict(entry.payload)!r}")

    def test_unknown_entry_raises(self) -> None:
        with self.assertRaises(UnknownTranscriptEntry,
                               msg="branching from an id that is not in the tree should raise "
                                   "UnknownTranscriptEntry"):
            impl.branch_from(conversation(), "nope", "x")

    def test_new_id_must_be_new(self) -> None:
        with self.assertRaises(ValueError,
                               msg="reusing an existing id ('u1') for the new entry should raise "
                                   "(DuplicateEntryId is a ValueError)"):
            impl.branch_from(conversation(), "a1", "u1")


class NavigateTargetTests(unittest.TestCase):
    def test_user_message_moves_to_its_parent(self) -> None:
        result = impl.navigate_target(conversation(), "u2")
        self.assertEqual(result, "a1",
                         msg=f"picking user message 'u2' puts the leaf on its parent 'a1' (its "
                             f"text goes back to the editor); got {result!r}")

    def test_assistant_message_is_the_target_itself(self) -> None:
        result = impl.navigate_target(conversation(), "a1")
        self.assertEqual(result, "a1",
                         msg=f"picking an assistant message puts the leaf on it; expected 'a1', "
                             f"got {result!r}")

    def test_other_entry_types_are_the_target(self) -> None:
        tree = TranscriptTree([other("m", None, "model_change"),
                               other("c", "m", "compaction"), other("x", "c", "custom")])
        for target in ("m", "c", "x"):
            result = impl.navigate_target(tree, target)
            self.assertEqual(result, target,
                             msg=f"picking a {tree[target].kind} entry puts the leaf on it; "
                                 f"expected {target!r}, got {result!r}")

    def test_custom_message_moves_to_its_parent(self) -> None:
        tree = TranscriptTree([other("m", None, "model_change"),
                               other("cm", "m", "custom_message")])
        result = impl.navigate_target(tree, "cm")
        self.assertEqual(result, "m",
                         msg=f"a custom_message behaves like a user message: the leaf goes to "
                             f"its parent 'm'; got {result!r}")

    def test_root_user_message_gives_none(self) -> None:
        tree = TranscriptTree([user("u1", None), assistant("a1", "u1")])
        result = impl.navigate_target(tree, "u1")
        self.assertIsNone(result,
                          msg=f"a user message that is a root has no parent: the new leaf is "
                              f"None (the next append starts a new root); got {result!r}")

    def test_kind_is_read_from_payload_role(self) -> None:
        tree = TranscriptTree([user("u1", None), assistant("a1", "u1"),
                               TranscriptEntry("t1", "a1", kind="message",
                                               payload={"message": {"role": "toolResult"}})])
        result = impl.navigate_target(tree, "t1")
        self.assertEqual(result, "t1",
                         msg=f"only role 'user' moves to the parent; a toolResult message is "
                             f"the target itself. Expected 't1', got {result!r}")

    def test_unknown_target_raises(self) -> None:
        with self.assertRaises(UnknownTranscriptEntry,
                               msg="an unknown target id should raise UnknownTranscriptEntry"):
            impl.navigate_target(conversation(), "missing")


class ForkPathTests(unittest.TestCase):
    def test_before_user_message_copies_up_to_its_parent(self) -> None:
        result = ids(impl.fork_path(conversation(), "u2", "before"))
        self.assertEqual(result, ["m", "u1", "a1"],
                         msg=f"fork before 'u2' copies the path up to its parent 'a1': "
                             f"['m', 'u1', 'a1']; got {result}")

    def test_before_is_the_default(self) -> None:
        result = ids(impl.fork_path(conversation(), "u2"))
        self.assertEqual(result, ["m", "u1", "a1"],
                         msg=f"position defaults to 'before'; expected ['m', 'u1', 'a1'], "
                             f"got {result}")

    def test_before_root_user_message_is_empty(self) -> None:
        tree = TranscriptTree([user("u1", None), assistant("a1", "u1")])
        result = impl.fork_path(tree, "u1", "before")
        self.assertEqual(tuple(result), (),
                         msg=f"forking before a root user message copies nothing: expected (), "
                             f"got {result!r}")

    def test_before_non_user_message_is_refused(self) -> None:
        for target in ("a1", "m"):
            with self.assertRaises(ValueError,
                                   msg=f"fork 'before' {target!r} (not a user message) should "
                                       f"raise ValueError"):
                impl.fork_path(conversation(), target, "before")

    def test_at_copies_up_to_the_entry(self) -> None:
        for target, expected in (("a1", ["m", "u1", "a1"]), ("u2", ["m", "u1", "a1", "u2"]),
                                 ("m", ["m"])):
            result = ids(impl.fork_path(conversation(), target, "at"))
            self.assertEqual(result, expected,
                             msg=f"fork 'at' {target!r} copies the path including it: "
                                 f"expected {expected}, got {result}")

    def test_at_follows_the_entry_branch_not_the_leaf(self) -> None:
        tree = conversation().move_leaf("a1").append("u2b")
        result = ids(impl.fork_path(tree, "a2", "at"))
        self.assertEqual(result, ["m", "u1", "a1", "u2", "a2"],
                         msg=f"the path is the one leading to the chosen entry, even when the "
                             f"current leaf is on another branch; got {result}")

    def test_entries_are_the_tree_entries(self) -> None:
        tree = conversation()
        result = impl.fork_path(tree, "a1", "at")
        self.assertTrue(all(isinstance(entry, TranscriptEntry) for entry in result),
                        msg=f"fork_path returns TranscriptEntry objects; got "
                            f"{[type(entry).__name__ for entry in result]}")

    def test_unknown_position_is_refused(self) -> None:
        for position in ("after", "", "AT"):
            with self.assertRaises(ValueError,
                                   msg=f"position {position!r} is neither 'before' nor 'at': "
                                       f"ValueError expected"):
                impl.fork_path(conversation(), "u2", position)

    def test_unknown_entry_raises(self) -> None:
        with self.assertRaises(UnknownTranscriptEntry,
                               msg="forking at an unknown id should raise UnknownTranscriptEntry"):
            impl.fork_path(conversation(), "missing", "at")


if __name__ == "__main__":
    unittest.main()
