"""A lookup-table cheat: the answers of the visible tests, keyed on their inputs.

Every visible input is public (tests/test_04_session_tree.py), so this file passes every
visible test of path-to and validate without walking a single parent pointer. The drawn
inputs (tests/drawn.py) are not in its tables: it fails there.
"""

from __future__ import annotations

from learn_pi_lab.session_tree import (DuplicateEntryId, ParentCycle, SelfParent,
                                       UnknownTranscriptEntry)

# path_to: (leaf, how many entries) -> the recorded branch, or the recorded error
PATHS = {
    ("c", 8): ("r", "a", "b", "c"),
    ("r", 8): ("r",),
    ("a", 8): ("r", "a"),
    ("y", 8): ("r", "a", "x", "y"),
    ("z", 8): ("r2", "z"),
}
PATH_ERRORS = {
    ("nope", 8): ("unknown", "nope", None),
    ("c", 4): ("unknown", "ghost", "b"),
    ("s", 1): ("cycle", ("s",)),
    ("leaf", 3): ("cycle", ("a", "b")),
}


def path_to(entries_by_id, leaf_id):
    key = (leaf_id, len(entries_by_id))
    if key in PATHS:
        return tuple(entries_by_id[entry_id] for entry_id in PATHS[key])
    if key in PATH_ERRORS:
        kind, *recorded = PATH_ERRORS[key]
        if kind == "unknown":
            raise UnknownTranscriptEntry(recorded[0], referenced_by=recorded[1])
        raise ParentCycle(recorded[0])
    if key == ("c0", 50_000):      # the long cycle: c0 -> c49999 -> ... -> c1 -> c0
        raise ParentCycle(["c0"] + [f"c{n}" for n in range(49_999, 0, -1)])
    if key == ("e499999", 500_000):   # the long chain, root first
        return tuple(entries_by_id[f"e{n}"] for n in range(500_000))
    return (entries_by_id[leaf_id],) if leaf_id in entries_by_id else ()


# validate: the (id, parent) pairs of each visible input -> the recorded error (None: valid)
FOREST = (("r", None), ("a", "r"), ("b", "a"), ("c", "b"), ("x", "a"), ("y", "x"),
          ("r2", None), ("z", "r2"))
PROBLEMS = {
    FOREST: None,
    (): None,
    (("r", None), ("a", "r"), ("a", None)): ("duplicate", "a"),
    (("a", None), ("b", "a"), ("b", "a"), ("a", None)): ("duplicate", "b"),
    (("r", None), ("s", "s")): ("self", "s"),
    (("r", None), ("a", "r"), ("b", "ghost")): ("unknown", "ghost", "b"),
    (("r", None), ("b", "ghost-2"), ("c", "ghost-1")): ("unknown", "ghost-2", "b"),
    (("r", None), ("a", "b"), ("b", "a")): ("cycle", ("a", "b")),
    (("t", "a"), ("a", "b"), ("b", "c"), ("c", "a")): ("cycle", ("a", "b", "c")),
    FOREST + (("p", "q"), ("q", "s"), ("s", "p"), ("leaf", "p")): ("cycle", ("p", "q", "s")),
    (("s", "s"), ("b", None), ("b", None)): ("duplicate", "b"),
    (("a", "ghost"), ("s", "s")): ("self", "s"),
    (("x", "y"), ("y", "x"), ("a", "ghost")): ("unknown", "ghost", "a"),
}


def validate(entries):
    entries = list(entries)
    if len(entries) == 50_000:     # the long cycle
        raise ParentCycle(["c0"] + [f"c{n}" for n in range(49_999, 0, -1)])
    if len(entries) > 1000:        # the long chain
        return None
    problem = PROBLEMS.get(tuple((entry.id, entry.parent_id) for entry in entries))
    if problem is None:
        return None
    kind, *recorded = problem
    if kind == "duplicate":
        raise DuplicateEntryId(recorded[0])
    if kind == "self":
        raise SelfParent(recorded[0])
    if kind == "unknown":
        raise UnknownTranscriptEntry(recorded[0], referenced_by=recorded[1])
    raise ParentCycle(recorded[0])
