"""A shortcut through other package code (tests/shortcut_submissions/expect.json says which)."""
from __future__ import annotations
from typing import Any, Iterable, Mapping
from learn_pi_lab.pi.context import state_at_end
from learn_pi_lab.pi.session import label_entries_in_force

def state_at(path_entries: Iterable[Mapping[str, Any]]) -> tuple[dict | None, str]:
    path = list(path_entries)
    return state_at_end(path, [entry.get('type') for entry in path])

def resolve_labels(entries: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    return {target: entry['label'] for target, entry in label_entries_in_force(entries).items()}
