"""Chapter 08's idea: the same log behind any store, and extension state rebuilt from it.

A backend only appends objects and reads them back in order: in memory (a copy each way,
so no caller can change the log) or in a JSONL file (chapter 04's ``append_line``, chapter
01's tolerant read). An extension's state is the fold of its own ``custom`` entries. These
are the model answers of ``memory-backend``, ``file-backend`` and ``extension-state``; the
engine is ``learn_pi_lab.store`` (``tests/test_08_store.py`` grades both).
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from learn_pi_lab.jsonl.reader import read_jsonl_tolerant
from learn_pi_lab.jsonl.writer import append_line


class MemoryBackend:
    def __init__(self) -> None:
        self._objects: list[dict] = []

    def append(self, obj: dict) -> None:
        self._objects.append(copy.deepcopy(obj))

    def read_all(self) -> list[dict]:
        return copy.deepcopy(self._objects)


class FileBackend:
    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def append(self, obj: dict) -> None:
        append_line(self.path, obj)

    def read_all(self) -> list[dict]:
        if not self.path.exists():
            return []
        objects, _problems = read_jsonl_tolerant(self.path.read_text(encoding="utf-8"))
        return objects


def rebuild_extension_state(path_entries: Iterable[Mapping[str, Any]],
                            custom_type: str) -> dict:
    state: dict = {}
    for entry in path_entries:
        if entry.get("type") == "custom" and entry.get("customType") == custom_type \
                and isinstance(entry.get("data"), dict):
            state.update(entry["data"])
    return state
