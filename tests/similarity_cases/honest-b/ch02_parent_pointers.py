"""An honest solution of chapter 02, with the walk up the tree as a generator."""
from collections import Counter

from learn_pi_lab.session_tree import (DuplicateEntryId, ParentCycle, SelfParent,
                                       UnknownTranscriptEntry)


def walk_up(entries_by_id, start):
    order = {}
    entry = start
    while True:
        if entry.id in order:
            looped = list(order)[order[entry.id]:]
            raise ParentCycle(looped)
        order[entry.id] = len(order)
        yield entry
        if entry.parent_id is None:
            return
        try:
            entry = entries_by_id[entry.parent_id]
        except KeyError:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id) from None


def path_to(entries_by_id, leaf_id):
    try:
        leaf = entries_by_id[leaf_id]
    except KeyError:
        raise UnknownTranscriptEntry(leaf_id) from None
    upwards = list(walk_up(entries_by_id, leaf))
    upwards.reverse()
    return tuple(upwards)


def validate(entries):
    entries = list(entries)
    counts = Counter()
    for entry in entries:
        counts[entry.id] += 1
        if counts[entry.id] == 2:
            raise DuplicateEntryId(entry.id)
    selves = [entry for entry in entries if entry.parent_id == entry.id]
    if selves:
        raise SelfParent(selves[0].id)
    by_id = {entry.id: entry for entry in entries}
    orphans = [entry for entry in entries
               if entry.parent_id is not None and entry.parent_id not in by_id]
    if orphans:
        raise UnknownTranscriptEntry(orphans[0].parent_id, referenced_by=orphans[0].id)
    reaches_a_root = set()
    for entry in entries:
        climbed = []
        for step in walk_up(by_id, entry):
            if step.id in reaches_a_root:
                break
            climbed.append(step.id)
        reaches_a_root.update(climbed)
