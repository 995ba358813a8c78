"""Wrong on purpose (validate): loops over `entries` once per check; an iterator is empty after the first loop, so later checks see nothing."""

from learn_pi_lab.session_tree import (DuplicateEntryId, ParentCycle, SelfParent,
                                       UnknownTranscriptEntry)

def validate(entries):
    parent_of = {}
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
    state = {}
    for start in parent_of:
        walk, current = [], start
        while current is not None and current not in state:
            state[current] = "walking"
            walk.append(current)
            current = parent_of[current]
        if current is not None and state[current] == "walking":
            raise ParentCycle(walk[walk.index(current):])
        for entry_id in walk:
            state[entry_id] = "done"
