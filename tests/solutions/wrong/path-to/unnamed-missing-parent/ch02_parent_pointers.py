"""Wrong on purpose (path-to): a missing parent raises UnknownTranscriptEntry but does not say which child points to it."""

from learn_pi_lab.session_tree import ParentCycle, UnknownTranscriptEntry

def path_to(entries_by_id, leaf_id):
    path, seen = [], set()
    current = leaf_id
    while current is not None:
        if current not in entries_by_id:
            raise UnknownTranscriptEntry(current)
        if current in seen:
            ids = [e.id for e in path]
            raise ParentCycle(ids[ids.index(current):])
        seen.add(current)
        entry = entries_by_id[current]
        path.append(entry)
        current = entry.parent_id
    return tuple(reversed(path))
