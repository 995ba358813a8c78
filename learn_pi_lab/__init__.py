"""learn-pi-lab: the teaching models behind the workbook.

A Pi session is an append-only JSONL file whose entries form a tree through ``parentId``
alone. Read the package in the course's order: ``lessons/`` (each chapter's idea as plain
code), then the engines: ``session_tree`` (entries that know only their parent), ``jsonl``
(the file), ``pi`` (what Pi does with the entries), ``session_inspector`` and ``store``.
``docs/architecture.md`` maps the rest.

The chapters' names can be imported from here::

    from learn_pi_lab import load_session, path_to, build_session_context

Each is loaded on first use (``import learn_pi_lab`` itself imports nothing), so the command
line and the grading worker start as fast as before.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, tuple[str, ...]] = {
    "learn_pi_lab.session_tree": (
        "TranscriptEntry", "TranscriptTree", "path_to", "validate", "children_of",
        "TranscriptError", "UnknownTranscriptEntry", "DanglingParent", "DuplicateEntryId",
        "SelfParent", "ParentCycle"),
    "learn_pi_lab.jsonl.reader": ("read_jsonl_tolerant", "read_session", "read_session_text"),
    "learn_pi_lab.jsonl.writer": ("append_line", "to_json_line"),
    "learn_pi_lab.pi.session": ("load_session", "session_from_text", "load_diagnostics",
                                "resolve_labels", "session_name"),
    "learn_pi_lab.pi.context": ("build_session_context", "build_context_messages",
                                "apply_context_edits", "state_at", "convert_to_llm"),
    "learn_pi_lab.pi.navigation": ("navigate", "navigate_target", "branch_from", "fork_path",
                                   "fork_entries", "clone_entries", "write_fork"),
    "learn_pi_lab.session_inspector": ("inspect_session",),
    "learn_pi_lab.store": ("SessionStore", "MemoryBackend", "FileBackend",
                           "rebuild_extension_state"),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = ["__version__", *_HOME]


def __getattr__(name: str) -> Any:
    """``learn_pi_lab.path_to`` and the rest: the name from its module, imported now."""
    if name not in _HOME:
        raise AttributeError(f"module 'learn_pi_lab' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value   # the next look-up is an ordinary one
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
