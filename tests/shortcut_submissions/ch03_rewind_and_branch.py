"""A shortcut through other package code (tests/shortcut_submissions/expect.json says which)."""
from __future__ import annotations
from typing import Any, Mapping
from learn_pi_lab.session_tree import TranscriptEntry, TranscriptTree, UnknownTranscriptEntry
from learn_pi_lab.pi.navigation import fork_leaf, is_user_message

def branch_from(tree: TranscriptTree, entry_id: str, new_id: str, kind: str='message', payload: Mapping[str, Any] | None=None) -> TranscriptTree:
    return tree.move_leaf(entry_id).append(new_id, kind, payload)

def navigate_target(tree: TranscriptTree, target_id: str) -> str | None:
    entry = tree[target_id]
    return entry.parent_id if is_user_message(entry) or entry.kind == 'custom_message' else entry.id

def fork_path(tree: TranscriptTree, entry_id: str, position: str='before') -> tuple[TranscriptEntry, ...]:
    entry = tree[entry_id]
    try:
        leaf = fork_leaf(entry, position)
    except ValueError as error:
        raise ValueError(str(error)) from None
    return () if leaf is None else tree.path_to(leaf)
