"""Wrong on purpose (inspect-session): reports Pi's current leaf (the last line) as the only leaf, and the path length as the depth: a branched file has more leaves."""

import os
from collections import Counter

from learn_pi_lab.pi.session import load_session, resolve_labels


def inspect_session(path):
    session = load_session(path)
    header = session.file.header or {}
    entries = [loaded.obj for loaded in session.file.entries]
    by_type = Counter(e.get("type") for e in entries)
    by_role, models = Counter(), set()
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict):
            by_role[message.get("role")] += 1
            if message.get("role") == "assistant":
                models.add(f"{message.get('provider')}/{message.get('model')}")
        if entry.get("type") == "model_change":
            models.add(f"{entry.get('provider')}/{entry.get('modelId')}")
    parent_of = {e["id"]: e.get("parentId") for e in entries if isinstance(e.get("id"), str)}
    return {
        "version": session.file.source_version or 1,
        "session_id": header.get("id"), "cwd": header.get("cwd"),
        "parent_session": header.get("parentSession"),
        "entries": len(entries), "by_type": dict(by_type), "by_role": dict(by_role),
        "compactions": by_type.get("compaction", 0),
        "branch_summaries": by_type.get("branch_summary", 0),
        "labels": resolve_labels(entries), "name": session.name(),
        "roots": [i for i, p in parent_of.items() if p is None],
        "leaves": [entries[-1]["id"]] if entries else [], "max_depth": len(session.branch()) - 1 if entries else 0,
        "models": sorted(models),
        "diagnostics": [[d.line, d.code] for d in session.diagnostics],
    }
