"""Chapter 05's idea: state is not stored, it is the fold of the branch, read in order.

The model in force is the last ``model_change`` or assistant reply on the branch; the
thinking level the last ``thinking_level_change`` (``"off"`` before any). A label is set by
a ``label`` entry and removed by one without a label; the last one wins. These are the model
answers of ``state-at`` and ``resolve-labels``; the engines are ``learn_pi_lab.pi.context``
and ``learn_pi_lab.pi.session`` (which fold a label with JavaScript's truthiness, as Pi
does: ``[]`` is a label there), graded by ``tests/test_05_state.py``.
"""

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
