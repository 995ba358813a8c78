"""An honest solution of chapter 05."""


def state_at(path_entries):
    provider = model_id = None
    has_model = False
    level = "off"
    for entry in path_entries:
        if entry.get("type") == "thinking_level_change":
            level = entry.get("thinkingLevel")
            continue
        if entry.get("type") == "model_change":
            provider, model_id, has_model = entry.get("provider"), entry.get("modelId"), True
            continue
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            provider, model_id, has_model = message.get("provider"), message.get("model"), True
    model = {"provider": provider, "modelId": model_id} if has_model else None
    return model, level


def resolve_labels(entries):
    current = {}
    for entry in (e for e in entries if e.get("type") == "label"):
        target = entry.get("targetId")
        text = entry.get("label")
        current[target] = text
        if not text:
            del current[target]
    return current
