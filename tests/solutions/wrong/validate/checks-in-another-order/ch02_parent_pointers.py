"""Wrong on purpose (validate): looks for missing parents before self-parents, so the same file names a different problem."""

from learn_pi_lab.session_tree import (DuplicateEntryId, ParentCycle, SelfParent,
                                       UnknownTranscriptEntry)

def validate(entries):
    entries = list(entries)
    by_id = {}
    for entry in entries:
        if entry.id in by_id:
            raise DuplicateEntryId(entry.id)
        by_id[entry.id] = entry
    for entry in entries:
        if entry.parent_id is not None and entry.parent_id not in by_id:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
        if entry.parent_id == entry.id:
            raise SelfParent(entry.id)
    done = set()
    for entry in entries:
        walk, current = {}, entry.id
        while current is not None and current not in done:
            if current in walk:
                order = list(walk)
                raise ParentCycle(order[order.index(current):])
            walk[current] = True
            current = by_id[current].parent_id
        done.update(walk)
