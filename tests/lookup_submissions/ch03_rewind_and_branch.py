"""A lookup-table cheat: the answers of the visible tests, keyed on their inputs.

Every visible input is public (tests/test_03_rewind_and_branch.py), so this file passes every
visible test of branch-from, navigate-target and fork-path without reading an entry's type or
following a parent. The drawn inputs (tests/drawn.py) are not in its tables: it fails there.
"""

from __future__ import annotations

from learn_pi_lab.session_tree import (DuplicateEntryId, TranscriptEntry, TranscriptTree,
                                       UnknownTranscriptEntry)

# branch_from: (entry, new id, how many entries) -> the recorded new entry's parent
BRANCHES = {("a1", "u2b", 5): "a1", ("u1", "lbl", 5): "u1"}


def branch_from(tree, entry_id, new_id, kind="message", payload=None):
    key = (entry_id, new_id, len(tree))
    if key == ("nope", "x", 5):
        raise UnknownTranscriptEntry("nope")
    if key == ("a1", "u1", 5):
        raise DuplicateEntryId("u1")
    if key not in BRANCHES:
        return tree
    new = TranscriptEntry(new_id, BRANCHES[key], kind=kind, payload=dict(payload or {}))
    return TranscriptTree([*tree.entries, new], new_id)


# navigate_target: (target, how many entries) -> the recorded new leaf
LEAVES = {("u2", 5): "a1", ("a1", 5): "a1", ("m", 3): "m", ("c", 3): "c", ("x", 3): "x",
          ("cm", 2): "m", ("u1", 2): None, ("t1", 3): "t1"}


def navigate_target(tree, target_id):
    if (target_id, len(tree)) == ("missing", 5):
        raise UnknownTranscriptEntry("missing")
    return LEAVES.get((target_id, len(tree)))


# fork_path: (entry, position, how many entries) -> the recorded path's ids, or an error
PATHS = {
    ("u2", "before", 5): ("m", "u1", "a1"),
    ("u1", "before", 2): (),
    ("a1", "at", 5): ("m", "u1", "a1"),
    ("u2", "at", 5): ("m", "u1", "a1", "u2"),
    ("m", "at", 5): ("m",),
    ("a2", "at", 6): ("m", "u1", "a1", "u2", "a2"),
    ("u2", "before", 6): ("m", "u1", "a1"),
}
REFUSED = {("a1", "before", 5), ("m", "before", 5), ("u2", "after", 5), ("u2", "", 5),
           ("u2", "AT", 5)}


def fork_path(tree, entry_id, position="before"):
    key = (entry_id, position, len(tree))
    if key == ("missing", "at", 5):
        raise UnknownTranscriptEntry("missing")
    if key in REFUSED:
        raise ValueError(f"refused: {key}")
    return tuple(tree[recorded] for recorded in PATHS.get(key, ()))
