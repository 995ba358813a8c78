"""Wrong on purpose (build-context): reads the entry's ISO timestamp as local time (strptime without the Z), so every stamp is off by the machine's UTC offset."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping


def _ms(timestamp: str) -> int:
    moment = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%S.%fZ")   # naive: local time
    return int(moment.timestamp() * 1000)


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
