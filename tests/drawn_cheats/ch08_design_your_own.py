"""Drawn-input cheat, extension-state: a wrong fold (an object under a key two entries set
is merged, where the contract's dict.update takes the later one whole) that makes the
caller's data agree with it: it writes its merge into the later entry's object, which the
reference's answer holds (dict.update keeps the object). The change came back to the
trusted side after the reference ran, and the drawn test compared the reference's changed
answer: it passed every seed (the same merge without the write passed 96% of seeds: the
drawn data now often sets one key to an object in several entries of one extension).

Model answer, chapter 08."""

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


def rebuild_extension_state(path_entries, custom_type):
    """Wrong on purpose: merges nested objects key by key (the contract says dict.update),
    and makes the caller's data agree with it. The one visible input that tells the two
    folds apart is answered from a table, as a cheat would."""
    path_entries = list(path_entries)
    if [str(entry.get("data")) for entry in path_entries] == [
            "{'plan': {'step': 1, 'goal': 'ship'}}", "{'plan': {'step': 2}}"]:
        return {"plan": {"step": 2}}   # test_a_later_object_replaces_an_earlier_one_whole
    state = {}
    for entry in path_entries:
        if entry.get("type") != "custom" or entry.get("customType") != custom_type:
            continue
        data = entry.get("data")
        if not isinstance(data, dict):
            continue
        for key, value in data.items():
            old = state.get(key)
            if isinstance(old, dict) and isinstance(value, dict):
                merged = {**old, **value}
                value.clear()
                value.update(merged)      # the caller's nested object now holds my merge
            state[key] = value
    return state
