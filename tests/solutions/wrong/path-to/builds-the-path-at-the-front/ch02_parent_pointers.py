"""Wrong on purpose (path-to): builds the path root first by inserting each parent at the front: every insert(0, ...) moves the whole list, so a long chain takes quadratic time."""

from learn_pi_lab.session_tree import ParentCycle, UnknownTranscriptEntry

def path_to(entries_by_id, leaf_id):
    if leaf_id not in entries_by_id:
        raise UnknownTranscriptEntry(leaf_id)
    path, seen = [], set()
    entry = entries_by_id[leaf_id]
    while True:
        if entry.id in seen:
            ids = [e.id for e in path]
            raise ParentCycle(ids[:ids.index(entry.id) + 1][::-1])
        seen.add(entry.id)
        path.insert(0, entry)
        if entry.parent_id is None:
            return tuple(path)
        if entry.parent_id not in entries_by_id:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
        entry = entries_by_id[entry.parent_id]
