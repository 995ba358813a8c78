"""An honest solution of chapter 05: the latest of each kind wins."""


def state_at(path_entries):
    latest_model = None
    latest_level = None
    for entry in path_entries:
        kind = entry.get("type")
        if kind == "thinking_level_change":
            latest_level = entry
        elif kind == "model_change" or (kind == "message" and
                                        (entry.get("message") or {}).get("role") == "assistant"):
            latest_model = entry
    if latest_model is None:
        model = None
    elif latest_model.get("type") == "model_change":
        model = {"provider": latest_model.get("provider"), "modelId": latest_model.get("modelId")}
    else:
        message = latest_model["message"]
        model = {"provider": message.get("provider"), "modelId": message.get("model")}
    level = "off" if latest_level is None else latest_level.get("thinkingLevel")
    return model, level


def resolve_labels(entries):
    labels = [entry for entry in entries if entry.get("type") == "label"]
    result = {}
    for entry in labels:
        if entry.get("label"):
            result.update({entry["targetId"]: entry["label"]})
        elif entry.get("targetId") in result:
            result.pop(entry.get("targetId"))
    return result
