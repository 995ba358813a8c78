"""Wrong on purpose (state-at): only model_change sets the model; an assistant message's provider/model is ignored."""

def state_at(path_entries):
    model, thinking = None, "off"
    for entry in path_entries:
        if entry.get("type") == "model_change":
            model = {"provider": entry["provider"], "modelId": entry["modelId"]}
        elif entry.get("type") == "thinking_level_change":
            thinking = entry["thinkingLevel"]
    return model, thinking
