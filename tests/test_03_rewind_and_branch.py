"""Chapter 03 exercises: branch_from, navigate_target, fork_path.

The same tests grade the reference (``learn_pi_lab.pi.navigation``) and a learner's
``workspace/ch03_rewind_and_branch.py`` (``LEARN_PI_LAB_TARGET``, see tests/targets.py).
"""

from __future__ import annotations

import random
import unittest
from typing import Any, Mapping

from learn_pi_lab.i18n import t
from learn_pi_lab.pi import navigation as navigation_reference
from learn_pi_lab.session_tree import TranscriptEntry, TranscriptTree, UnknownTranscriptEntry
from tests import drawn
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


# --------------------------------------------------------------------------------------
# Drawn inputs (tests/drawn.py): random small trees of Pi entries
# --------------------------------------------------------------------------------------
# A drawn tree: a session of messages (user, assistant, toolResult), custom_message entries
# and entries of other types, branching now and then, with a new root now and then (what an
# append does after /tree picked a root user message), read with ``TranscriptEntry.from_json``
# (kind = the entry's type, payload = its object); its leaf is the last entry or, sometimes,
# another one. The target is any entry, often a user message or a custom_message, now and
# then an id nobody has.
#
# Compared (only what the docstrings and the visible tests fix):
# * branch-from: the returned tree's leaf, and its entries in file order: id, parent, kind
#   and the payload's keys other than "type", "id", "parentId" and "timestamp" (the contract
#   keeps the given payload; a copy of the entry's own fields in it is left free); or the
#   error: UnknownTranscriptEntry for an unknown entry, any ValueError for a new id already
#   in the tree. Both at once is not drawn: the contract does not say which comes first.
# * navigate-target: the returned id (or None); or UnknownTranscriptEntry.
# * fork-path: the ids of the path's entries, root first; or UnknownTranscriptEntry
#   for an unknown entry, any ValueError for "before" a non-user entry or an unknown
#   position. An unknown position is only drawn with an entry that exists (which is checked
#   first is left free).
# Not drawn: a non-message entry whose payload holds a user "message" (Pi never writes
# one), a "message" entry without a role, empty or non-string ids, a leaf of None.

NAVIGATION_KINDS = {"message": 6, "custom_message": 1.5, "model_change": 1,
                    "thinking_level_change": 0.5, "compaction": 0.5, "label": 0.5,
                    "custom": 0.5, "branch_summary": 0.5, "session_info": 0.3}
NEW_ROOTS = 0.1          # how often an entry after the first starts a new root
BAD_POSITIONS = ("after", "", "AT", "Before", "at ", "fork")
NOT_PAYLOAD = ("type", "id", "parentId", "timestamp")   # the entry's own fields


def is_user(entry: TranscriptEntry) -> bool:
    message = entry.payload.get("message")
    return entry.kind == "message" and isinstance(message, Mapping) and \
        message.get("role") == "user"


def drawn_tree(rng: random.Random, size: int) -> TranscriptTree:
    entries = drawn.session(rng, size, NAVIGATION_KINDS)
    for entry in entries[1:]:
        if rng.random() < NEW_ROOTS:
            entry["parentId"] = None
    tree = TranscriptTree([TranscriptEntry.from_json(entry) for entry in entries])
    if rng.random() < 0.4:
        tree = tree.move_leaf(rng.choice(entries)["id"])
    return tree


def drawn_target(rng: random.Random, tree: TranscriptTree, *, unknown: float = 0.1) -> str:
    """An entry of ``tree``, often a user message or a custom_message; now and then (with
    probability ``unknown``) an id nobody has."""
    all_ids = [entry.id for entry in tree.entries]
    if rng.random() < unknown:
        return drawn.hex_id(rng, all_ids)
    picked_back = [entry.id for entry in tree.entries
                   if is_user(entry) or entry.kind == "custom_message"]
    return rng.choice(picked_back if picked_back and rng.random() < 0.5 else all_ids)


def draw_branch_from(rng: random.Random, size: int) -> tuple:
    tree = drawn_tree(rng, size)
    entry_id = drawn_target(rng, tree)
    taken = [entry.id for entry in tree.entries]
    known = entry_id in tree
    new_id = rng.choice(taken) if known and rng.random() < 0.1 else drawn.hex_id(rng, taken)
    how = rng.random()
    if how < 0.4:
        return tree, entry_id, new_id
    kind = rng.choice(("message", "label", "custom", "model_change", "custom_message"))
    if how < 0.6:
        return tree, entry_id, new_id, kind
    payload = drawn.ENTRY_FIELDS[kind](rng, taken)
    return tree, entry_id, new_id, kind, payload


def draw_navigate_target(rng: random.Random, size: int) -> tuple:
    tree = drawn_tree(rng, size)
    return tree, drawn_target(rng, tree)


def draw_fork_path(rng: random.Random, size: int) -> tuple:
    tree = drawn_tree(rng, size)
    how = rng.random()
    if how < 0.15:      # the default position, "before"
        return tree, drawn_target(rng, tree)
    if how < 0.85:
        return tree, drawn_target(rng, tree), rng.choice(("before", "at"))
    return tree, drawn_target(rng, tree, unknown=0), rng.choice(BAD_POSITIONS)


def tree_view(tree: TranscriptTree) -> dict:
    """What branch-from's contract fixes of a tree: the leaf, and each entry in file order,
    shown last first (the new entry is the one a message should show)."""
    return {"leaf_id": tree.leaf_id, "entries[::-1]": [
        (entry.id, entry.parent_id, entry.kind,
         {key: value for key, value in dict(entry.payload or {}).items()
          if key not in NOT_PAYLOAD})
        for entry in tree.entries][::-1]}


def path_ids(path: Any) -> list:
    """The ids of a path, root first (anything but entries cannot be read: a difference)."""
    return [entry.id for entry in path]


def same_navigation_error(want: BaseException, got: BaseException, args: tuple) -> bool:
    """An unknown id: UnknownTranscriptEntry, as the visible tests; any other refusal the
    docstrings name is "a ValueError" (the reference's subclass is not required)."""
    if isinstance(want, UnknownTranscriptEntry):
        return isinstance(got, UnknownTranscriptEntry)
    if isinstance(want, ValueError):
        return isinstance(got, ValueError)
    return isinstance(got, type(want))


def entry_text(entry: TranscriptEntry) -> str:
    message = entry.payload.get("message")
    role = message.get("role") if isinstance(message, Mapping) else None
    what = role if entry.kind == "message" and isinstance(role, str) else entry.kind
    where = "(root)" if entry.parent_id is None else f"->{entry.parent_id}"
    return f"{entry.id} {what}{where}"


def shown_navigation(args: tuple) -> str:
    """``tree, 'id', ...; tree = TranscriptTree([id kind->parent, ...], leaf='id')``: the
    short arguments first, so a long tree cut short never hides them."""
    tree, rest = args[0], args[1:]
    return (", ".join(["tree", *map(repr, rest)]) + "; tree = TranscriptTree(["
            + ", ".join(map(entry_text, tree.entries)) + f"], leaf={tree.leaf_id!r})")


BRANCH_FROM_DRAWN = drawn.Drawn(
    "branch-from", draw=draw_branch_from, reference=navigation_reference.branch_from,
    answer=tree_view, same_error=same_navigation_error, shown=shown_navigation)

NAVIGATE_TARGET_DRAWN = drawn.Drawn(
    "navigate-target", draw=draw_navigate_target,
    reference=navigation_reference.navigate_target,
    same_error=same_navigation_error, shown=shown_navigation)

FORK_PATH_DRAWN = drawn.Drawn(
    "fork-path", draw=draw_fork_path, reference=navigation_reference.fork_path,
    answer=path_ids, same_error=same_navigation_error, shown=shown_navigation)


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

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        BRANCH_FROM_DRAWN.check(self, impl.branch_from)


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

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        NAVIGATE_TARGET_DRAWN.check(self, impl.navigate_target)


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

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        FORK_PATH_DRAWN.check(self, impl.fork_path)


if __name__ == "__main__":
    unittest.main()
