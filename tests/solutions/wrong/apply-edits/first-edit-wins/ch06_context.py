"""Wrong on purpose (apply-edits): the first edit of a target wins instead of the latest."""


def apply_context_edits(path_entries, messages):
    first = {}
    for entry in path_entries:
        if entry.get("type") == "context_edit":
            first.setdefault(entry.get("targetId"), entry)
    result = []
    for message in messages:
        edit = first.get(message.get("entryId"))
        if edit is None:
            result.append(dict(message))
            continue
        replacement = edit.get("replacement")
        if replacement is None:
            continue
        changed = dict(message)
        if changed.get("role") in ("user", "assistant", "toolResult", "custom"):
            content = replacement.get("content")
            if changed["role"] in ("assistant", "toolResult") and isinstance(content, str):
                content = [{"type": "text", "text": content}]
            changed["content"] = content
        result.append(changed)
    return result
