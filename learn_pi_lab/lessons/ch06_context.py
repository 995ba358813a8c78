"""Chapter 06's idea: what the model sees is computed from the branch, not stored.

Each entry on the branch gives zero or one message; after a ``compaction`` the model sees
its summary, then the entries kept from ``firstKeptEntryId``, then everything after it.
``apply_context_edits`` replaces or drops messages by the latest edit aimed at them. These
are the model answers of ``build-context`` and ``apply-edits``; the engine is
``learn_pi_lab.pi.context`` (Pi 0.84 and 1.x exactly, JavaScript's conversions included),
graded by ``tests/test_06_context.py`` and ``tests/test_pi_context_edits.py``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping


def _ms(timestamp: str) -> int:
    moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    return round(moment.timestamp() * 1000)


def _messages_of(entry: Mapping[str, Any]) -> list[dict]:
    kind = entry.get("type")
    if kind == "message":
        message = dict(entry["message"])
        if message.get("content") is None:
            message["content"] = []
        return [{**message, "entryId": entry["id"]}]
    if kind == "custom_message":
        message = {"role": "custom", "customType": entry.get("customType"),
                   "content": entry.get("content") if entry.get("content") is not None else [],
                   "display": entry.get("display")}
        if "details" in entry:
            message["details"] = entry["details"]
        return [{**message, "timestamp": _ms(entry["timestamp"]), "entryId": entry["id"]}]
    if kind == "branch_summary" and entry.get("summary"):
        return [{"role": "branchSummary", "summary": entry["summary"],
                 "fromId": entry.get("fromId"), "timestamp": _ms(entry["timestamp"]),
                 "entryId": entry["id"]}]
    if kind == "compaction":
        return [_summary(entry)]
    return []


def _summary(compaction: Mapping[str, Any]) -> dict:
    return {"role": "compactionSummary", "summary": compaction.get("summary"),
            "tokensBefore": compaction.get("tokensBefore"),
            "timestamp": _ms(compaction["timestamp"]), "entryId": compaction["id"]}


def build_context_messages(path_entries: Iterable[Mapping[str, Any]]) -> list[dict]:
    path = list(path_entries)
    last = max((i for i, e in enumerate(path) if e.get("type") == "compaction"), default=None)
    if last is None:
        return [message for entry in path for message in _messages_of(entry)]
    messages = [_summary(path[last])]
    before = path[:last]
    kept_ids = [entry.get("id") for entry in before]
    first_kept = path[last].get("firstKeptEntryId")
    if first_kept in kept_ids:
        for entry in before[kept_ids.index(first_kept):]:
            messages += _messages_of(entry)
    for entry in path[last + 1:]:
        messages += _messages_of(entry)
    return messages


def apply_context_edits(path_entries, messages):
    latest = {}
    for entry in path_entries:
        if entry.get("type") == "context_edit":
            latest[entry.get("targetId")] = entry
    result = []
    for message in messages:
        edit = latest.get(message.get("entryId"))
        if edit is None:
            result.append(dict(message))
            continue
        replacement = edit.get("replacement")
        if replacement is None:
            continue                      # omitted from the context
        changed = dict(message)
        if changed.get("role") in ("user", "assistant", "toolResult", "custom"):
            content = replacement.get("content")
            if changed["role"] in ("assistant", "toolResult") and isinstance(content, str):
                content = [{"type": "text", "text": content}]
            changed["content"] = content
        result.append(changed)
    return result
