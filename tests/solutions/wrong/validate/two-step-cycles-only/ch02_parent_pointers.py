"""Wrong on purpose (validate): looks for a cycle only one step away (my parent's parent is me): a three-entry loop slips through."""

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
        parent = entry.parent_id
        if parent is not None and parent_of[parent] == entry.id:
            raise ParentCycle([entry.id, parent])
