"""Chapter 03's idea: rewinding moves one pointer, and a branch is a rewind plus an append.

Nothing is deleted: ``branch_from`` moves the leaf back and appends there. Pi's ``/tree``
on a user message puts the leaf on its parent (the message goes back to the editor), and
``/fork`` copies a branch into a new file, ending before or at an entry. These are the model
answers of ``branch-from``, ``navigate-target`` and ``fork-path``; the engine is
``learn_pi_lab.pi.navigation`` (``tests/test_03_rewind_and_branch.py`` grades both).
"""

from __future__ import annotations

from typing import Any, Mapping

from learn_pi_lab.session_tree import TranscriptEntry, TranscriptTree


def branch_from(tree: TranscriptTree, entry_id: str, new_id: str, kind: str = "message",
                payload: Mapping[str, Any] | None = None) -> TranscriptTree:
    return tree.move_leaf(entry_id).append(new_id, kind, payload)


def _is_user_message(entry: TranscriptEntry) -> bool:
    message = entry.payload.get("message")
    return entry.kind == "message" and isinstance(message, Mapping) \
        and message.get("role") == "user"


def navigate_target(tree: TranscriptTree, target_id: str) -> str | None:
    entry = tree[target_id]
    if _is_user_message(entry) or entry.kind == "custom_message":
        return entry.parent_id
    return entry.id


def fork_path(tree: TranscriptTree, entry_id: str,
              position: str = "before") -> tuple[TranscriptEntry, ...]:
    if position not in ("before", "at"):
        raise ValueError(f"position must be 'before' or 'at', not {position!r}")
    entry = tree[entry_id]
    if position == "at":
        return tree.path_to(entry.id)
    if not _is_user_message(entry):
        raise ValueError(f"fork 'before' needs a user message; {entry_id!r} is not one")
    return () if entry.parent_id is None else tree.path_to(entry.parent_id)
