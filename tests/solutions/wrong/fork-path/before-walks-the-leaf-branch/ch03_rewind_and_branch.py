"""Wrong on purpose (fork-path): 'before' cuts the current leaf's branch at the target, so a target on another branch is not found."""

def fork_path(tree, entry_id, position="before"):
    if position not in ("before", "at"):
        raise ValueError(f"position must be 'before' or 'at', not {position!r}")
    entry = tree[entry_id]
    if position == "at":
        return tree.path_to(entry_id)
    message = entry.payload.get("message") or {}
    if entry.kind != "message" or message.get("role") != "user":
        raise ValueError("fork before needs a user message")
    branch = tree.path_to()
    ids = [walked.id for walked in branch]
    return branch[:ids.index(entry_id)]
