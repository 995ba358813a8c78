"""Wrong on purpose (branch-from): appends at the current leaf without moving it first: no branch, just a longer line."""

def branch_from(tree, entry_id, new_id, kind="message", payload=None):
    tree[entry_id]  # make sure it exists
    return tree.append(new_id, kind, payload)
