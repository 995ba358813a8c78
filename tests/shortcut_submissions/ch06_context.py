"""A shortcut through other package code (tests/shortcut_submissions/expect.json says which)."""
from __future__ import annotations
from typing import Any, Iterable, Mapping
from learn_pi_lab.pi.context import apply_context_edit, build_session_context, latest_edits

def build_context_messages(path_entries: Iterable[Mapping[str, Any]]) -> list[dict]:
    return build_session_context(path_entries).messages

def apply_context_edits(path_entries: Iterable[Mapping[str, Any]], messages: Iterable[Mapping[str, Any]]) -> list[dict]:
    edits = latest_edits(path_entries)
    result = []
    for message in messages:
        edit = edits.get(message.get('entryId'))
        result.extend([message] if edit is None else apply_context_edit([message], edit))
    return result
