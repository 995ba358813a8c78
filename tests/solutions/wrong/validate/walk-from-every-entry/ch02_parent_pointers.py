"""Wrong on purpose (validate): walks to the root from every entry without remembering earlier walks: quadratic, so a 200,000-entry chain never finishes."""

from learn_pi_lab.session_tree import (DuplicateEntryId, ParentCycle, SelfParent,
                                       UnknownTranscriptEntry)

def validate(entries):
    entries = list(entries)
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
    for entry in entries:
        walk, current = [], entry.id
        while current is not None:
            if current in walk:
                raise ParentCycle(walk[walk.index(current):])
            walk.append(current)
            current = parent_of[current]
