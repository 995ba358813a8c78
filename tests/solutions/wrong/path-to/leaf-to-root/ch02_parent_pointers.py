"""Wrong on purpose (path-to): walks the parents but forgets to reverse: the branch comes out leaf first."""

from learn_pi_lab.session_tree import ParentCycle, UnknownTranscriptEntry

def path_to(entries_by_id, leaf_id):
    if leaf_id not in entries_by_id:
        raise UnknownTranscriptEntry(leaf_id)
    path, seen = [], set()
    entry = entries_by_id[leaf_id]
    while True:
        if entry.id in seen:
            ids = [e.id for e in path]
            raise ParentCycle(ids[ids.index(entry.id):])
        seen.add(entry.id)
        path.append(entry)
        if entry.parent_id is None:
            return tuple(path)
        if entry.parent_id not in entries_by_id:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
        entry = entries_by_id[entry.parent_id]
