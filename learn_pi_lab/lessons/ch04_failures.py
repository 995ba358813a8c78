"""Chapter 04's idea: every failure is named and placed, and an append never makes one.

``load_diagnostics`` takes the file-level problems from the reader (chapter 01's rule) and
finds the tree-level ones from ``parentId`` alone: an entry its own parent, a parent that
is not there, a loop (reported at its first line). ``append_line`` adds one line at the end
and first ends a torn last line, so a crash can cost a line but never join two. These are
the model answers of ``load-diagnostics`` and ``safe-append``; the engines are
``learn_pi_lab.pi.session`` and ``learn_pi_lab.jsonl.writer``
(``tests/test_04_failures.py`` and ``tests/test_jsonl_writer.py`` grade both).
"""

from __future__ import annotations

import json
import os
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
        elif not isinstance(parent, str) or parent not in parent_of:   # ([1] is no id)
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
            loop = walk[walk.index(current):]
            found.append((min(line_of[entry_id] for entry_id in loop), "cycle"))
        for entry_id in walk:
            state[entry_id] = "done"

    return sorted(found, key=lambda item: (item[0] is not None, item[0] or 0))


def append_line(path: str | os.PathLike, obj: dict[str, Any]) -> None:
    line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"
    with open(path, "ab+") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                line = "\n" + line
        handle.write(line.encode("utf-8"))
