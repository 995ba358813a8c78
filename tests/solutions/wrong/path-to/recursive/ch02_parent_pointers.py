"""Wrong on purpose (path-to): recursion: elegant on a small tree, RecursionError on a 500,000-entry chain."""

from learn_pi_lab.session_tree import ParentCycle, UnknownTranscriptEntry

def path_to(entries_by_id, leaf_id, _seen=()):
    if leaf_id not in entries_by_id:
        raise UnknownTranscriptEntry(leaf_id)
    entry = entries_by_id[leaf_id]
    if entry.id in _seen:
        loop = list(_seen)
        raise ParentCycle(loop[loop.index(entry.id):])
    if entry.parent_id is None:
        return (entry,)
    if entry.parent_id not in entries_by_id:
        raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)
    return path_to(entries_by_id, entry.parent_id, _seen + (entry.id,)) + (entry,)
