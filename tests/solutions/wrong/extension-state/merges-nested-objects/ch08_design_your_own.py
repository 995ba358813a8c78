"""Wrong on purpose (extension-state): merges an object under a key that an earlier entry also set, where dict.update takes the later object whole."""

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
            for key, value in entry["data"].items():   # wrong: merges an object under a key
                earlier = state.get(key)
                if isinstance(earlier, dict) and isinstance(value, dict):
                    value = {**earlier, **value}
                state[key] = value
    return state
