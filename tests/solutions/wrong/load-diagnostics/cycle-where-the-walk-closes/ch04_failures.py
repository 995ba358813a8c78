"""Wrong on purpose (load-diagnostics): reports a cycle on the line where the walk closed it, not on the loop's earliest line"""

from __future__ import annotations

from typing import Any

from learn_pi_lab.jsonl.reader import read_session_text


def load_diagnostics(text: str) -> list[tuple[int | None, str]]:
    session_file = read_session_text(text)
    found = [(d.line, d.code) for d in session_file.diagnostics]

    parent_of: dict[str, Any] = {}
    line_of: dict[str, int] = {}
    for loaded in session_file.entries:
        entry_id = loaded.obj.get("id")
        if isinstance(entry_id, str):
            parent_of[entry_id] = loaded.obj.get("parentId")
            line_of[entry_id] = loaded.line

    for entry_id, parent in list(parent_of.items()):
        if parent is None:
            continue
        if parent == entry_id:
            found.append((line_of[entry_id], "self-parent"))
            parent_of[entry_id] = None          # reported: no longer part of any walk
        elif not isinstance(parent, str) or parent not in parent_of:
            found.append((line_of[entry_id], "dangling-parent"))
            parent_of[entry_id] = None

    state: dict[str, str] = {}                  # "walking" / "done"
    for start in parent_of:
        walk: list[str] = []
        current = start
        while current is not None and current not in state:
            state[current] = "walking"
            walk.append(current)
            current = parent_of[current]
        if current is not None and state[current] == "walking":
            found.append((line_of[walk[-1]], "cycle"))   # where the walk closed the loop
        for entry_id in walk:
            state[entry_id] = "done"

    return sorted(found, key=lambda item: (item[0] is not None, item[0] or 0))
