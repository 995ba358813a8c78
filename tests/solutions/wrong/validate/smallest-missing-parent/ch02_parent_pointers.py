"""Wrong on purpose (validate): names the alphabetically first missing parent instead of the first one in file order."""

from __future__ import annotations

from typing import Iterable, Mapping

from learn_pi_lab.session_tree import (
    DuplicateEntryId,
    ParentCycle,
    SelfParent,
    TranscriptEntry,
    UnknownTranscriptEntry,
)


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
    child_of = {entry.parent_id: entry.id for entry in entries if entry.parent_id is not None}
    missing = sorted(set(child_of) - set(parent_of))   # the smallest id, not the first line
    if missing:
        raise UnknownTranscriptEntry(missing[0], referenced_by=child_of[missing[0]])
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
