"""Chapter 03 exercises: branch_from, navigate_target, fork_path.

The same tests grade the reference (``learn_pi_lab.pi.navigation``) and a learner's
``workspace/ch03_rewind_and_branch.py`` (``LEARN_PI_LAB_TARGET``, see tests/targets.py).
"""

from __future__ import annotations

import unittest

from learn_pi_lab.i18n import t
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
                         msg=t("exercise_tests.rewind_and_branch.new_entry_parent",
                               got=tree["u2b"].parent_id))

    def test_new_entry_becomes_the_leaf(self) -> None:
        tree = impl.branch_from(conversation(), "a1", "u2b")
        self.assertEqual(tree.leaf_id, "u2b",
                         msg=t("exercise_tests.rewind_and_branch.new_entry_leaf",
                               got=tree.leaf_id))

    def test_nothing_is_deleted(self) -> None:
        before = conversation()
        tree = impl.branch_from(before, "a1", "u2b")
        self.assertEqual(ids(tree.entries), ids(before.entries) + ["u2b"],
                         msg=t("exercise_tests.rewind_and_branch.adds_one_entry",
                               want=ids(before.entries) + ["u2b"], got=ids(tree.entries)))
        self.assertEqual(ids(tree.children("a1")), ["u2", "u2b"],
                         msg=t("exercise_tests.rewind_and_branch.two_children",
                               got=ids(tree.children("a1"))))

    def test_old_tree_is_unchanged(self) -> None:
        before = conversation()
        impl.branch_from(before, "a1", "u2b")
        self.assertEqual((len(before), before.leaf_id), (5, "a2"),
                         msg=t("exercise_tests.rewind_and_branch.old_tree_unchanged",
                               count=len(before), leaf=before.leaf_id))

    def test_new_branch_path(self) -> None:
        tree = impl.branch_from(conversation(), "a1", "u2b")
        self.assertEqual(ids(tree.path_to()), ["m", "u1", "a1", "u2b"],
                         msg=t("exercise_tests.rewind_and_branch.new_branch_path",
                               got=ids(tree.path_to())))

    def test_kind_and_payload_are_kept(self) -> None:
        tree = impl.branch_from(conversation(), "u1", "lbl", kind="label",
                                payload={"targetId": "u1", "label": "start"})
        entry = tree["lbl"]
        self.assertEqual((entry.kind, dict(entry.payload).get("label")), ("label", "start"),
                         msg=t("exercise_tests.rewind_and_branch.kind_and_payload",
                               kind=entry.kind, payload=dict(entry.payload)))

    def test_unknown_entry_raises(self) -> None:
        with self.assertRaises(UnknownTranscriptEntry,
                               msg=t("exercise_tests.rewind_and_branch.branch_unknown_entry")):
            impl.branch_from(conversation(), "nope", "x")

    def test_new_id_must_be_new(self) -> None:
        with self.assertRaises(ValueError,
                               msg=t("exercise_tests.rewind_and_branch.new_id_must_be_new")):
            impl.branch_from(conversation(), "a1", "u1")


class NavigateTargetTests(unittest.TestCase):
    def test_user_message_moves_to_its_parent(self) -> None:
        result = impl.navigate_target(conversation(), "u2")
        self.assertEqual(result, "a1",
                         msg=t("exercise_tests.rewind_and_branch.user_message_parent",
                               got=result))

    def test_assistant_message_is_the_target_itself(self) -> None:
        result = impl.navigate_target(conversation(), "a1")
        self.assertEqual(result, "a1",
                         msg=t("exercise_tests.rewind_and_branch.assistant_message_itself",
                               got=result))

    def test_other_entry_types_are_the_target(self) -> None:
        tree = TranscriptTree([other("m", None, "model_change"),
                               other("c", "m", "compaction"), other("x", "c", "custom")])
        for target in ("m", "c", "x"):
            result = impl.navigate_target(tree, target)
            self.assertEqual(result, target,
                             msg=t("exercise_tests.rewind_and_branch.other_entry_itself",
                                   kind=tree[target].kind, want=target, got=result))

    def test_custom_message_moves_to_its_parent(self) -> None:
        tree = TranscriptTree([other("m", None, "model_change"),
                               other("cm", "m", "custom_message")])
        result = impl.navigate_target(tree, "cm")
        self.assertEqual(result, "m",
                         msg=t("exercise_tests.rewind_and_branch.custom_message_parent",
                               got=result))

    def test_root_user_message_gives_none(self) -> None:
        tree = TranscriptTree([user("u1", None), assistant("a1", "u1")])
        result = impl.navigate_target(tree, "u1")
        self.assertIsNone(result,
                          msg=t("exercise_tests.rewind_and_branch.root_user_message",
                                got=result))

    def test_kind_is_read_from_payload_role(self) -> None:
        tree = TranscriptTree([user("u1", None), assistant("a1", "u1"),
                               TranscriptEntry("t1", "a1", kind="message",
                                               payload={"message": {"role": "toolResult"}})])
        result = impl.navigate_target(tree, "t1")
        self.assertEqual(result, "t1",
                         msg=t("exercise_tests.rewind_and_branch.only_user_role",
                               got=result))

    def test_unknown_target_raises(self) -> None:
        with self.assertRaises(UnknownTranscriptEntry,
                               msg=t("exercise_tests.rewind_and_branch.navigate_unknown_target")):
            impl.navigate_target(conversation(), "missing")


class ForkPathTests(unittest.TestCase):
    def test_before_user_message_copies_up_to_its_parent(self) -> None:
        result = ids(impl.fork_path(conversation(), "u2", "before"))
        self.assertEqual(result, ["m", "u1", "a1"],
                         msg=t("exercise_tests.rewind_and_branch.fork_before_user",
                               got=result))

    def test_before_is_the_default(self) -> None:
        result = ids(impl.fork_path(conversation(), "u2"))
        self.assertEqual(result, ["m", "u1", "a1"],
                         msg=t("exercise_tests.rewind_and_branch.fork_before_default",
                               got=result))

    def test_before_root_user_message_is_empty(self) -> None:
        tree = TranscriptTree([user("u1", None), assistant("a1", "u1")])
        result = impl.fork_path(tree, "u1", "before")
        self.assertEqual(tuple(result), (),
                         msg=t("exercise_tests.rewind_and_branch.fork_before_root",
                               got=result))

    def test_before_non_user_message_is_refused(self) -> None:
        for target in ("a1", "m"):
            with self.assertRaises(ValueError,
                                   msg=t("exercise_tests.rewind_and_branch.fork_before_not_user",
                                         target=target)):
                impl.fork_path(conversation(), target, "before")

    def test_at_copies_up_to_the_entry(self) -> None:
        for target, expected in (("a1", ["m", "u1", "a1"]), ("u2", ["m", "u1", "a1", "u2"]),
                                 ("m", ["m"])):
            result = ids(impl.fork_path(conversation(), target, "at"))
            self.assertEqual(result, expected,
                             msg=t("exercise_tests.rewind_and_branch.fork_at",
                                   target=target, want=expected, got=result))

    def test_at_follows_the_entry_branch_not_the_leaf(self) -> None:
        tree = conversation().move_leaf("a1").append("u2b")
        result = ids(impl.fork_path(tree, "a2", "at"))
        self.assertEqual(result, ["m", "u1", "a1", "u2", "a2"],
                         msg=t("exercise_tests.rewind_and_branch.fork_at_other_branch",
                               got=result))

    def test_before_follows_the_entry_branch_not_the_leaf(self) -> None:
        tree = conversation().move_leaf("a1").append("u2b")   # u2 is now off the leaf's branch
        result = ids(impl.fork_path(tree, "u2", "before"))
        self.assertEqual(result, ["m", "u1", "a1"],
                         msg=t("exercise_tests.rewind_and_branch.fork_before_other_branch",
                               got=result))

    def test_entries_are_the_tree_entries(self) -> None:
        tree = conversation()
        result = impl.fork_path(tree, "a1", "at")
        self.assertTrue(all(isinstance(entry, TranscriptEntry) for entry in result),
                        msg=t("exercise_tests.rewind_and_branch.fork_entry_objects",
                              got=[type(entry).__name__ for entry in result]))

    def test_unknown_position_is_refused(self) -> None:
        for position in ("after", "", "AT"):
            with self.assertRaises(ValueError,
                                   msg=t("exercise_tests.rewind_and_branch.fork_unknown_position",
                                         position=position)):
                impl.fork_path(conversation(), "u2", position)

    def test_unknown_entry_raises(self) -> None:
        with self.assertRaises(UnknownTranscriptEntry,
                               msg=t("exercise_tests.rewind_and_branch.fork_unknown_entry")):
            impl.fork_path(conversation(), "missing", "at")


if __name__ == "__main__":
    unittest.main()
