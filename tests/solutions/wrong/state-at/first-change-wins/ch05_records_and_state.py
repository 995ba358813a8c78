"""Wrong on purpose (state-at): keeps the first setting it finds instead of the latest."""

def state_at(path_entries):
    model, thinking = None, None
    for entry in path_entries:
        if entry.get("type") == "model_change" and model is None:
            model = {"provider": entry["provider"], "modelId": entry["modelId"]}
        elif entry.get("type") == "thinking_level_change" and thinking is None:
            thinking = entry["thinkingLevel"]
        elif entry.get("type") == "message" and model is None:
            message = entry.get("message") or {}
            if message.get("role") == "assistant":
                model = {"provider": message["provider"], "modelId": message["model"]}
    return model, thinking or "off"
