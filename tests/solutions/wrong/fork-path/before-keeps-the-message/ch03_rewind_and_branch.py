"""Wrong on purpose (fork-path): fork 'before' copies the chosen user message too (that is what 'at' does)."""

def fork_path(tree, entry_id, position="before"):
    if position not in ("before", "at"):
        raise ValueError(position)
    entry = tree[entry_id]
    if position == "before":
        message = entry.payload.get("message") or {}
        if entry.kind != "message" or message.get("role") != "user":
            raise ValueError("fork before needs a user message")
    return tree.path_to(entry_id)
