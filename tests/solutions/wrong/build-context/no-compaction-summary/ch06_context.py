"""Wrong on purpose (build-context): cuts the history at firstKeptEntryId but forgets the compactionSummary message that stands in for it."""

from datetime import datetime


def _ms(timestamp):
    return round(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)


def _messages_of(entry):
    kind = entry.get("type")
    if kind == "message":
        message = dict(entry["message"])
        if message.get("content") is None:
            message["content"] = []
        message["entryId"] = entry["id"]
        return [message]
    if kind == "custom_message":
        return [{"role": "custom", "customType": entry.get("customType"),
                 "content": entry.get("content"), "display": entry.get("display"),
                 **({"details": entry["details"]} if "details" in entry else {}),
                 "timestamp": _ms(entry["timestamp"]), "entryId": entry["id"]}]
    if kind == "branch_summary" and entry.get("summary"):
        return [{"role": "branchSummary", "summary": entry["summary"], "fromId": entry.get("fromId"),
                 "timestamp": _ms(entry["timestamp"]), "entryId": entry["id"]}]
    if kind == "compaction":
        return [_summary(entry)]
    return []


def _summary(entry):
    return {"role": "compactionSummary", "summary": entry.get("summary"),
            "tokensBefore": entry.get("tokensBefore"), "timestamp": _ms(entry["timestamp"]),
            "entryId": entry["id"]}


def build_context_messages(path_entries):
    path = list(path_entries)
    last = None
    for index, entry in enumerate(path):
        if entry.get("type") == "compaction":
            last = index
    if last is None:
        return [m for entry in path for m in _messages_of(entry)]
    ids = [entry["id"] for entry in path[:last]]
    first_kept = path[last].get("firstKeptEntryId")
    kept = path[ids.index(first_kept):last] if first_kept in ids else []
    return [m for entry in kept + path[last + 1:] for m in _messages_of(entry)]
