"""Wrong on purpose (extension-state): folds every custom entry, whatever its customType."""

def rebuild_extension_state(path_entries, custom_type):
    state = {}
    for entry in path_entries:
        if entry.get("type") == "custom" and isinstance(entry.get("data"), dict):
            state.update(entry["data"])
    return state
