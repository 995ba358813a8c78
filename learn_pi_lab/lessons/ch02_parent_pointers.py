"""Chapter 02's idea: entries know only their parent, and a branch is a walk up.

``path_to`` follows ``parent_id`` from a leaf to a root, in a loop (a million-entry chain
would overflow recursion), remembers what it has seen (a loop in a damaged file raises
instead of spinning) and reverses the walk so the branch reads root first. ``validate`` is
the four checks that make a list of entries a forest: unique ids, no entry its own parent,
every parent present, no loop. Both are the model answers of the exercises ``path-to`` and
``validate``. The engine is ``learn_pi_lab.session_tree``: the same rules plus the tree
that moves its leaf, one quick pass for a file written in order, and appends that copy
nothing (``tests/test_04_session_tree.py`` grades both).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from learn_pi_lab.session_tree import (
    DuplicateEntryId,
    ParentCycle,
    SelfParent,
    TranscriptEntry,
    UnknownTranscriptEntry,
)


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


def validate(entries: Iterable[TranscriptEntry]) -> None:
    entries = list(entries)
    parent_of: dict[str, str | None] = {}
    for entry in entries:
        if entry.id in parent_of:
            raise DuplicateEntryId(entry.id)
        parent_of[entry.id] = entry.parent_id
    for entry in entries:
        if entry.parent_id == entry.id:
            raise SelfParent(entry.id)
    for entry in entries:
        if entry.parent_id is not None and entry.parent_id not in parent_of:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
    # Walk up from every entry, marking each id once: "walking" while this walk is on it,
    # "done" once it is known to reach a root. A "walking" id met again closes a loop.
    mark: dict[str, str] = {}
    for entry in entries:
        walk: list[str] = []
        current = entry.id
        while current is not None and current not in mark:
            mark[current] = "walking"
            walk.append(current)
            current = parent_of[current]
        if current is not None and mark[current] == "walking":
            raise ParentCycle(walk[walk.index(current):])
        for walked in walk:
            mark[walked] = "done"
