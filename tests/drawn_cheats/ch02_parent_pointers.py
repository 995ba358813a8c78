"""Drawn-input cheat, validate: find out only *whether* the entries loop, then, on drawn
inputs (8-hex-digit ids), add a loop of its own to the caller's list and name that one.
The drawn test's ``same_error`` accepts "any loop of the entries" (the contract says "a
cycle"), and it used to read the entries after the learner's call: the added loop came
back to the trusted side ("changes", docs/grading.md) and was one of them. It passed
every seed. The learner's code now has its own copy of each drawn input.
"""

from __future__ import annotations
import re
from learn_pi_lab.session_tree import (DuplicateEntryId, ParentCycle, SelfParent,
                                       TranscriptEntry, UnknownTranscriptEntry)


def path_to(entries_by_id: Mapping[str, TranscriptEntry],
            leaf_id: str) -> tuple[TranscriptEntry, ...]:
    if leaf_id not in entries_by_id:
        raise UnknownTranscriptEntry(leaf_id)
    walked: list[TranscriptEntry] = []
    position: dict[str, int] = {}          # id -> index in `walked`, to spot a loop
    entry = entries_by_id[leaf_id]
    while entry.id not in position:
        position[entry.id] = len(walked)
        walked.append(entry)
        if entry.parent_id is None:
            return tuple(reversed(walked))
        if entry.parent_id not in entries_by_id:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
        entry = entries_by_id[entry.parent_id]
    raise ParentCycle([e.id for e in walked[position[entry.id]:]])


def validate(entries):
    entries_list = entries if isinstance(entries, list) else list(entries)
    parent_of = {}
    for entry in entries_list:
        if entry.id in parent_of:
            raise DuplicateEntryId(entry.id)
        parent_of[entry.id] = entry.parent_id
    for entry in entries_list:
        if entry.parent_id == entry.id:
            raise SelfParent(entry.id)
    for entry in entries_list:
        if entry.parent_id is not None and entry.parent_id not in parent_of:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
    # only "is there a loop at all?" -- a bounded walk, no loop reported
    if all(re.fullmatch(r"[0-9a-f]{8}", e.id) for e in entries_list) and isinstance(entries, list):
        # drawn: put a loop of my own in the caller's list, and name it
        if not _has_loop(parent_of):
            return None
        entries.append(TranscriptEntry("zzzz0001", "zzzz0002"))
        entries.append(TranscriptEntry("zzzz0002", "zzzz0001"))
        raise ParentCycle(["zzzz0001", "zzzz0002"])
    # visible tests: the honest walk
    mark = {}
    for entry in entries_list:
        walk, current = [], entry.id
        while current is not None and current not in mark:
            mark[current] = "walking"; walk.append(current); current = parent_of[current]
        if current is not None and mark[current] == "walking":
            raise ParentCycle(walk[walk.index(current):])
        for w in walk:
            mark[w] = "done"
    return None


def _has_loop(parent_of):
    """Only whether there is one: colour the walks, never say which."""
    state = {}
    for start in parent_of:
        current, walk = start, []
        while current is not None and current not in state:
            state[current] = start; walk.append(current); current = parent_of[current]
        if current is not None and state[current] == start and current in walk:
            return True
    return False
