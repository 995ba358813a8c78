"""An honest solution of chapter 02."""
from learn_pi_lab.session_tree import (DuplicateEntryId, ParentCycle, SelfParent,
                                       UnknownTranscriptEntry)


def path_to(entries_by_id, leaf_id):
    if leaf_id not in entries_by_id:
        raise UnknownTranscriptEntry(leaf_id)
    branch = []
    walked = []          # ids, leaf first
    seen = set()
    current = entries_by_id[leaf_id]
    while True:
        if current.id in seen:
            raise ParentCycle(walked[walked.index(current.id):])
        seen.add(current.id)
        walked.append(current.id)
        branch.append(current)
        parent = current.parent_id
        if parent is None:
            break
        if parent not in entries_by_id:
            raise UnknownTranscriptEntry(parent, referenced_by=current.id)
        current = entries_by_id[parent]
    return tuple(branch[::-1])


def validate(entries):
    entries = list(entries)
    known = set()
    for entry in entries:
        if entry.id in known:
            raise DuplicateEntryId(entry.id)
        known.add(entry.id)
    for entry in entries:
        if entry.parent_id == entry.id:
            raise SelfParent(entry.id)
    for entry in entries:
        if entry.parent_id is not None and entry.parent_id not in known:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
    parents = {entry.id: entry.parent_id for entry in entries}
    safe = set()
    for entry in entries:
        trail = {}
        node = entry.id
        while node is not None and node not in safe:
            if node in trail:
                raise ParentCycle(list(trail)[trail[node]:])
            trail[node] = len(trail)
            node = parents[node]
        safe.update(trail)
