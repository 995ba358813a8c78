"""Chapter 07's idea: a report on a session is counted in one read, and never writes.

The package loads the file; the report counts types, roles and models, finds the roots,
the leaves and the deepest entry by walking ``parentId`` (a loop counted once, never
followed forever), and folds the labels. This is the model answer of
``inspect-session``; the engine is ``learn_pi_lab.session_inspector``, which streams the
file instead of loading it (``tests/test_11_projects.py`` grades both).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from learn_pi_lab.pi.session import load_session, resolve_labels


def inspect_session(path: str | os.PathLike) -> dict[str, Any]:
    session = load_session(path)
    header = session.file.header or {}
    entries = [loaded.obj for loaded in session.file.entries]

    by_type = Counter(str(e.get("type")) for e in entries)
    by_role: Counter = Counter()
    models: set[str] = set()
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict):
            by_role[message.get("role")] += 1
            if message.get("role") == "assistant":
                models.add(f"{message.get('provider')}/{message.get('model')}")
        if entry.get("type") == "model_change":
            models.add(f"{entry.get('provider')}/{entry.get('modelId')}")

    parent_of = {e["id"]: e.get("parentId") for e in entries if isinstance(e.get("id"), str)}
    # A parent loop would hang every walk up (an entry that is its own parent is a loop of
    # one): the loop's first entry in the file counts as a root, as the contract says.
    position = {entry_id: index for index, entry_id in enumerate(parent_of)}
    done: set[str] = set()
    for start in parent_of:
        walk: list[str] = []
        on_walk: set[str] = set()
        current = start
        while current in parent_of and current not in done and current not in on_walk:
            walk.append(current)
            on_walk.add(current)
            current = parent_of[current]
        if current in on_walk:   # the walk closed a loop
            loop = walk[walk.index(current):]
            parent_of[min(loop, key=position.__getitem__)] = None
        done.update(walk)
    named_as_parent = set(parent_of.values())
    depth: dict[str, int] = {}
    for start in parent_of:
        walk: list[str] = []
        current = start
        while current in parent_of and current not in depth and current not in walk:
            walk.append(current)
            current = parent_of[current]
        base = depth.get(current, -1) if current in parent_of else -1
        for offset, entry_id in enumerate(reversed(walk), start=1):
            depth[entry_id] = base + offset

    return {
        "version": session.file.source_version or 1,
        "session_id": header.get("id"),
        "cwd": header.get("cwd"),
        "parent_session": header.get("parentSession"),
        "entries": len(entries),
        "by_type": dict(by_type),
        "by_role": dict(by_role),
        "compactions": by_type.get("compaction", 0),
        "branch_summaries": by_type.get("branch_summary", 0),
        "labels": resolve_labels(entries),
        "name": session.name(),
        "roots": [i for i, parent in parent_of.items()   # an orphan is a root too
                  if parent is None or parent not in parent_of],
        "leaves": [i for i in parent_of if i not in named_as_parent],
        "max_depth": max(depth.values(), default=0),
        "models": sorted(models),
        "diagnostics": [[d.line, d.code] for d in session.diagnostics],
    }
