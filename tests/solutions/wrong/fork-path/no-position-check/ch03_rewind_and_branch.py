"""Wrong on purpose (fork-path): anything that is not 'at' is treated as 'before', so a typo such as 'after' goes unnoticed."""

def fork_path(tree, entry_id, position="before"):
    entry = tree[entry_id]
    if position == "at":
        return tree.path_to(entry_id)
    message = entry.payload.get("message") or {}
    if entry.kind != "message" or message.get("role") != "user":
        raise ValueError("fork before needs a user message")
    return () if entry.parent_id is None else tree.path_to(entry.parent_id)
