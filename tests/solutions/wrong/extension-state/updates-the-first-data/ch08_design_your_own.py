"""Wrong on purpose (extension-state): starts from the first entry's data dict itself, so folding changes the stored entry."""

def rebuild_extension_state(path_entries, custom_type):
    state = None
    for entry in path_entries:
        if entry.get("type") == "custom" and entry.get("customType") == custom_type \
                and isinstance(entry.get("data"), dict):
            if state is None:
                state = entry["data"]
            else:
                state.update(entry["data"])
    return state if state is not None else {}
