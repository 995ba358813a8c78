"""A shortcut through other package code (tests/shortcut_submissions/expect.json says which)."""
from __future__ import annotations
from typing import Iterable, Mapping
from learn_pi_lab.session_tree import DuplicateEntryId, ParentCycle, SelfParent, TranscriptEntry, UnknownTranscriptEntry
from learn_pi_lab.pi.session import Session
from learn_pi_lab.session_tree import find_cycles, index_entries

def path_to(entries_by_id: Mapping[str, TranscriptEntry], leaf_id: str) -> tuple[TranscriptEntry, ...]:
    index = {key: {'id': entry.id, 'parentId': entry.parent_id} for key, entry in entries_by_id.items()}
    session = Session(file=None, leaf_id=None, mode='teaching', diagnostics=[], index=index)
    try:
        branch = session.branch(leaf_id)
    except SelfParent as error:
        raise ParentCycle([error.entry_id]) from None
    return tuple((entries_by_id[obj['id']] for obj in branch))

def validate(entries: Iterable[TranscriptEntry]) -> None:
    entries = list(entries)
    by_id = index_entries(entries)
    for entry in entries:
        if entry.parent_id == entry.id:
            raise SelfParent(entry.id)
    for entry in entries:
        if entry.parent_id is not None and entry.parent_id not in by_id:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
    loops = find_cycles({entry.id: entry.parent_id for entry in entries})
    if loops:
        raise ParentCycle(loops[0])
