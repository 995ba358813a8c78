"""Wrong on purpose (navigate-target): treats only user messages specially and forgets custom_message."""

def navigate_target(tree, target_id):
    entry = tree[target_id]
    message = entry.payload.get("message") or {}
    if entry.kind == "message" and message.get("role") == "user":
        return entry.parent_id
    return entry.id
