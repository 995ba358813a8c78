"""Model answer, chapter 05."""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def state_at(path_entries: Iterable[Mapping[str, Any]]) -> tuple[dict | None, str]:
    model: dict | None = None
    thinking_level = "off"
    for entry in path_entries:
        kind = entry.get("type")
        if kind == "model_change":
            model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        elif kind == "thinking_level_change":
            thinking_level = entry.get("thinkingLevel")
        elif kind == "message":
            message = entry.get("message") or {}
            if message.get("role") == "assistant":
                model = {"provider": message.get("provider"), "modelId": message.get("model")}
    return model, thinking_level


def resolve_labels(entries: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for entry in entries:
        if entry.get("type") != "label":
            continue
        if entry.get("label"):
            labels[entry["targetId"]] = entry["label"]
        else:
            labels.pop(entry.get("targetId"), None)
    return labels
