"""Wrong on purpose (path-to): no seen-set, like Pi itself: a parent cycle makes the walk go round forever."""

from learn_pi_lab.session_tree import UnknownTranscriptEntry

def path_to(entries_by_id, leaf_id):
    if leaf_id not in entries_by_id:
        raise UnknownTranscriptEntry(leaf_id)
    path = []
    entry = entries_by_id[leaf_id]
    while True:
        path.append(entry)
        if entry.parent_id is None:
            break
        if entry.parent_id not in entries_by_id:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
        entry = entries_by_id[entry.parent_id]
    return tuple(reversed(path))
