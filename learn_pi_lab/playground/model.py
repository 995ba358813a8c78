"""The tree playground's state and commands, in plain Python (no widget in sight).

A ``Playground`` owns one real session file on disk and a leaf pointer in memory, exactly
as Pi does. Every command goes through the package's own operations, so what the learner
sees is what the course's reference code does:

=====================  =====================================================================
``tree_to(id)``        ``/tree``: ``pi.navigation.navigate`` moves the leaf (a user message ->
                       its parent, and its text goes to the editor). Nothing is written...
``tree_to(id, summary=)``  ...unless a branch summary is asked for: then one
                       ``branch_summary`` line is appended (``fromId`` = the new leaf, or
                       ``"root"``) and becomes the leaf
``append_user(text)``  one ``message`` line (role ``user``) at the leaf (``SessionWriter``)
``append_assistant``   one ``message`` line (role ``assistant``): the playground plays the model
``set_label(id, l)``   one ``label`` line (``clear_label``: a label line without ``label``)
``name(text)``         one ``session_info`` line: Pi's ``/name``
``fork(id)``           ``/fork``: ``pi.navigation.write_fork`` writes a NEW file (``before`` a
                       user message by default); the source file gets no byte
``clone()``            ``/clone``: a fork ``at`` the current leaf, into a new file
=====================  =====================================================================

After ``/fork`` and ``/clone`` Pi goes on in the new file; the playground stays on the source
and shows the new file beside it, so the two can be compared line by line.

After each command ``last_change`` says what happened to the file: the exact text appended,
the size before and after, and whether every byte before the end is still the same
(it always is: that is the point of append-only).

``undo()`` puts the previous bytes back. **Pi cannot do that** to its own file: Pi only ever
appends, so its "undo" is to move the leaf away (``/tree``) and leave the line in place. The
playground rewrites its file on undo because it is a sandbox, and says so every time.

New ids and timestamps are deterministic (a seeded generator and a clock that advances one
minute per entry), so a notebook prints the same thing on every run.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Mapping, Sequence

from learn_pi_lab.entry_text import entry_text, one_line
from learn_pi_lab.jsonl.writer import SessionWriter, new_header, write_new_file
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.navigation import clone_entries, fork_entries, is_user_message, navigate
from learn_pi_lab.pi.session import load_session
from learn_pi_lab.playground.levels import LevelRun, get_level
from learn_pi_lab.playground.start import (START_TIME, PlaygroundError, StartSpec, message_entry,
                                          sandbox_start)
from learn_pi_lab.session_tree import TranscriptEntry

MAIN_FILE = "session.jsonl"
COMMANDS = ("tree", "user", "assistant", "label", "name", "fork", "clone")
VIEWS = ("branch", "context")
PLAYGROUND_CWD = "/home/learner/payments"


@dataclass(frozen=True)
class FileChange:
    """What one command did to one file, measured on the bytes."""

    path: Path
    size_before: int           # 0 for a new file
    size_after: int
    added: str                 # the exact text added at the end (the whole file, if new)
    prefix_unchanged: bool     # every byte that was there before is still there, in place
    new_file: bool             # fork / clone: a file that did not exist

    @property
    def added_lines(self) -> list[str]:
        return [line for line in self.added.split("\n") if line]


@dataclass(frozen=True)
class Action:
    """One entry of the playground's own log: the command, where the leaf went, the file."""

    command: str
    args: Mapping[str, Any]
    leaf_before: str | None
    leaf_after: str | None
    new_ids: tuple[str, ...] = ()
    change: FileChange | None = None      # None: nothing written (a plain /tree)


@dataclass
class _Saved:
    """What undo restores: the main file's bytes, the leaf, the editor, the files made."""

    file_bytes: bytes
    leaf_id: str | None
    editor: str
    created: tuple[Path, ...]


class Playground:
    """A session file you act on like Pi, with undo, reset and levels.

    ``folder`` holds the files (created if missing; the main file is ``session.jsonl``).
    ``start`` is the file to begin with (default: ``sandbox_start()``). ``progress`` is the
    JSON file where solved levels are kept (``None``: keep nothing).
    """

    def __init__(self, folder: str | Path, *, start: StartSpec | None = None,
                 lang: str | None = None, progress: str | Path | None = None,
                 seed: int = 0) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / MAIN_FILE
        if self.path.exists() and not _made_by_a_playground(self.path):
            # never overwrite somebody's own session.jsonl: the playground rewrites its file
            raise PlaygroundError("not-a-playground-file", path=str(self.path))
        self.lang = lang
        self.seed = seed
        self.progress_path = Path(progress) if progress is not None else None
        self.view = "branch"
        self.selected: str | None = None
        self.level_run: Any = None            # a levels.LevelRun while a level is active
        self._start = start or sandbox_start()
        self._load_start()

    # ------------------------------------------------------------------ the file and state

    def _load_start(self) -> None:
        for made in getattr(self, "created", ()):
            made.unlink(missing_ok=True)
        self.path.unlink(missing_ok=True)
        header = new_header(PLAYGROUND_CWD, session_id=f"playground-{self.seed}",
                            clock=lambda: START_TIME)
        write_new_file(self.path, header, self._start.entries)
        if self._start.torn:
            with open(self.path, "ab") as handle:   # the level's damage, not an action
                handle.write(self._start.torn.encode("utf-8"))
        self.start_bytes = self.path.read_bytes()
        self.expected_bytes = self.start_bytes   # what the file must hold if only we wrote
        self.edited_outside = False
        self.log: list[Action] = []
        self._undo: list[_Saved] = []
        self.created: list[Path] = []
        self.editor = ""
        self.last_change: FileChange | None = None
        self.message: tuple[str, dict] | None = None   # (catalog key, fields) of the last note
        self.session = load_session(self.path)
        self.leaf_id = self._start.leaf if self._start.leaf is not None else self.session.leaf_id
        self.session.leaf_id = self.leaf_id
        if self.leaf_id is not None:
            self.session.tree = self.session.tree.move_leaf(self.leaf_id)
        self.selected = None

    def _reload(self, leaf_id: str | None) -> None:
        self.session = load_session(self.path)
        self.leaf_id = leaf_id
        self.session.leaf_id = leaf_id
        if leaf_id is not None:
            self.session.tree = self.session.tree.move_leaf(leaf_id)

    def _check_untouched(self) -> None:
        """Notice an edit made outside the playground (it can never count for a level)."""
        if self.path.read_bytes() != self.expected_bytes:
            self.edited_outside = True

    def _begin(self) -> tuple[_Saved, bytes]:
        self._check_untouched()
        before = self.path.read_bytes()
        return _Saved(before, self.leaf_id, self.editor, tuple(self.created)), before

    def _finish(self, saved: _Saved, action: Action) -> Action:
        self._undo.append(saved)
        self.log.append(action)
        self.expected_bytes = self.path.read_bytes()
        self.last_change = action.change
        if action.new_ids:
            self.selected = None
        return action

    def _clock(self) -> datetime:
        """One minute after the start per entry already in the file: repeatable timestamps."""
        return START_TIME + timedelta(minutes=len(self.session.entries) + len(self.log))

    def _rng(self) -> random.Random:
        return random.Random(f"playground:{self.seed}:{len(self.log)}")

    def _appended(self, before: bytes, path: Path | None = None) -> FileChange:
        path = path or self.path
        after = path.read_bytes()
        return FileChange(path, len(before), len(after), after[len(before):].decode("utf-8", "replace"),
                          after[:len(before)] == before, False)

    def _append(self, obj: dict, parent: str | None) -> dict:
        writer = SessionWriter(self.path, clock=self._clock, rng=self._rng())
        writer.leaf_id = parent
        return writer.append(obj)

    # ------------------------------------------------------------------ reading

    @property
    def entries(self) -> list[dict]:
        return self.session.entries

    def entry(self, entry_id: str) -> dict:
        return self.session.entry(entry_id)

    def line_of(self, entry_id: str) -> tuple[int, str]:
        """The physical line number and exact text of an entry's line in the file."""
        for loaded in self.session.file.entries:
            if loaded.obj.get("id") == entry_id:
                return loaded.line, loaded.text
        raise PlaygroundError("unknown-entry", entry_id=entry_id)

    @property
    def path_ids(self) -> tuple[str, ...]:
        if self.leaf_id is None:
            return ()
        return tuple(entry["id"] for entry in self.session.branch(self.leaf_id))

    def context_messages(self) -> list[dict]:
        """What the model would receive at the current leaf (``pi.context``)."""
        if self.leaf_id is None:
            return []
        return build_session_context(self.session.branch(self.leaf_id)).messages

    def file_lines(self, path: Path | None = None) -> list[str]:
        """The file's physical lines as stored (a torn last line included)."""
        text = (path or self.path).read_bytes().decode("utf-8", "replace")
        lines = text.split("\n")
        return lines[:-1] if lines and lines[-1] == "" else lines

    def describe(self, entry_id: str) -> dict:
        """What hovering a node shows: kind, text, and its JSONL line."""
        obj = self.entry(entry_id)
        line, text = self.line_of(entry_id)
        message = obj.get("message")
        role = message.get("role") if isinstance(message, Mapping) else None
        kind = f"message/{role}" if obj.get("type") == "message" and role else str(obj.get("type"))
        return {"id": entry_id, "kind": kind, "text": one_line(entry_text(obj), 160),
                "line": line, "json": text}

    @property
    def new_ids(self) -> tuple[str, ...]:
        """The entries the last command appended (highlighted in the drawing)."""
        return self.log[-1].new_ids if self.log else ()

    @property
    def moved_leaf(self) -> bool:
        return bool(self.log) and self.log[-1].leaf_before != self.log[-1].leaf_after

    # ------------------------------------------------------------------ Pi's commands

    def select(self, entry_id: str | None) -> None:
        """Click a node: only the selection changes (nothing in Pi, nothing in the file)."""
        if entry_id is not None:
            self.entry(entry_id)
        self.selected = entry_id

    def tree_to(self, entry_id: str, *, summary: str | None = None) -> Action:
        """``/tree`` to ``entry_id``; with ``summary``, also append a ``branch_summary``."""
        target = TranscriptEntry.from_json(self.entry(entry_id))
        saved, before = self._begin()
        old_leaf = self.leaf_id
        new_leaf = navigate(self.session, entry_id)
        self.leaf_id = new_leaf
        if (is_user_message(target) or target.kind == "custom_message") and new_leaf != entry_id:
            self.editor = _message_text(self.entry(entry_id))   # Pi hands the text back
        change, new_ids = None, ()
        if summary is not None and summary.strip():
            # Pi summarises the entries between the old leaf and the common ancestor: there
            # are none when the old leaf is on the way to the new one (or is the new one)
            abandoned = old_leaf is not None and (
                new_leaf is None or old_leaf not in self._ancestors(new_leaf))
            if not abandoned:
                self.leaf_id = old_leaf
                self._reload(old_leaf)
                self.editor = saved.editor
                raise PlaygroundError("nothing-to-summarise", entry_id=entry_id)
            written = self._append({"type": "branch_summary",
                                    "fromId": new_leaf if new_leaf is not None else "root",
                                    "summary": summary.strip()}, new_leaf)
            change = self._appended(before)
            new_ids = (written["id"],)
            self._reload(written["id"])
        else:
            self._reload(new_leaf)
        self.message = ("playground.note.tree", {"target": entry_id, "leaf": str(self.leaf_id)})
        return self._finish(saved, Action("tree", {"entry_id": entry_id, "summary": summary},
                                          old_leaf, self.leaf_id, new_ids, change))

    def _ancestors(self, entry_id: str) -> set[str]:
        return {entry["id"] for entry in self.session.branch(entry_id)}

    def _append_message(self, role: str, text: str | None) -> Action:
        if text is None and role == "user":
            text = self.editor
        if text is None or not text.strip():
            raise PlaygroundError("empty-message", role=role)
        saved, before = self._begin()
        old_leaf = self.leaf_id
        moment = self._clock()
        obj = message_entry("", None, role, text.strip(), moment)
        del obj["id"], obj["parentId"], obj["timestamp"]   # the writer fills these in
        written = self._append(obj, old_leaf)
        if role == "user":
            self.editor = ""
        self._reload(written["id"])
        self.message = ("playground.note.appended", {"id": written["id"], "parent": str(old_leaf)})
        return self._finish(saved, Action(role, {"text": text.strip()}, old_leaf,
                                          written["id"], (written["id"],),
                                          self._appended(before)))

    def append_user(self, text: str | None = None) -> Action:
        """Send a user message at the leaf (``None``: send what is in the editor)."""
        return self._append_message("user", text)

    def append_assistant(self, text: str) -> Action:
        """Append the model's answer at the leaf (the playground plays the model)."""
        return self._append_message("assistant", text)

    def set_label(self, entry_id: str, label: str | None) -> Action:
        """Label an entry (Pi: ``Shift+L`` in ``/tree``); ``None`` or ``""`` clears it.
        The label line is a child of the leaf and becomes the leaf, as in Pi."""
        self.entry(entry_id)
        saved, before = self._begin()
        old_leaf = self.leaf_id
        obj: dict[str, Any] = {"type": "label", "targetId": entry_id}
        if label and label.strip():
            obj["label"] = label.strip()
        written = self._append(obj, old_leaf)
        self._reload(written["id"])
        self.message = ("playground.note.label", {"target": entry_id})
        return self._finish(saved, Action("label", {"entry_id": entry_id, "label": obj.get("label")},
                                          old_leaf, written["id"], (written["id"],),
                                          self._appended(before)))

    def clear_label(self, entry_id: str) -> Action:
        return self.set_label(entry_id, None)

    def name(self, text: str) -> Action:
        """``/name``: one ``session_info`` line; the latest one names the session."""
        saved, before = self._begin()
        old_leaf = self.leaf_id
        written = self._append({"type": "session_info", "name": text.strip()}, old_leaf)
        self._reload(written["id"])
        self.message = ("playground.note.name", {"name": text.strip()})
        return self._finish(saved, Action("name", {"name": text.strip()}, old_leaf,
                                          written["id"], (written["id"],), self._appended(before)))

    def _new_file(self, stem: str) -> Path:
        number = 1
        while (self.folder / f"{stem}-{number}.jsonl").exists():
            number += 1
        return self.folder / f"{stem}-{number}.jsonl"

    def _write_copy(self, command: str, header: dict, lines: list[dict],
                    args: dict) -> Action:
        saved, before = self._begin()
        out = self._new_file(command)
        write_new_file(out, header, lines)
        self.created.append(out)
        text = out.read_text(encoding="utf-8")
        change = FileChange(out, 0, len(out.read_bytes()), text, True, True)
        unchanged = self.path.read_bytes() == before
        if not unchanged:   # never happens: a fork writes no byte to its source
            raise AssertionError("a fork changed its source file")
        self.message = ("playground.note." + command, {"file": out.name, "count": len(lines)})
        return self._finish(saved, Action(command, {**args, "file": out.name},
                                          self.leaf_id, self.leaf_id, (), change))

    def fork(self, entry_id: str, position: str = "before") -> Action:
        """``/fork``: copy the path into a new file (``before`` a user message: up to its
        parent, and the message goes to the editor; ``at``: up to the entry itself)."""
        self.entry(entry_id)
        header, lines = fork_entries(self.session, entry_id, position, clock=self._clock,
                                     rng=self._rng())
        action = self._write_copy("fork", header, lines,
                                  {"entry_id": entry_id, "position": position})
        if position == "before":
            self.editor = _message_text(self.entry(entry_id))
        return action

    def clone(self) -> Action:
        """``/clone``: the whole current branch into a new file."""
        header, lines = clone_entries(self.session, clock=self._clock, rng=self._rng())
        return self._write_copy("clone", header, lines, {})

    def set_view(self, view: str) -> None:
        if view not in VIEWS:
            raise PlaygroundError("bad-view", view=view)
        self.view = view

    # ------------------------------------------------------------------ undo and reset

    def undo(self) -> Action | None:
        """Put back the bytes from before the last command (Pi cannot do this; see the module)."""
        if not self.log:
            self.message = ("playground.note.nothing_to_undo", {})
            return None
        saved = self._undo.pop()
        action = self.log.pop()
        self._check_untouched()
        self.path.write_bytes(saved.file_bytes)   # the sandbox rewrites; Pi never would
        for made in self.created[len(saved.created):]:
            made.unlink(missing_ok=True)
        self.created = list(saved.created)
        self.editor = saved.editor
        self.expected_bytes = saved.file_bytes
        self._reload(saved.leaf_id)
        self.last_change = None
        self.message = ("playground.note.undo", {"command": action.command})
        return action

    def reset(self) -> None:
        """Back to the start file (of the level, if one is active); the log is emptied."""
        self._load_start()
        self.message = ("playground.note.reset", {})

    def restart_from(self, start: StartSpec) -> None:
        self._start = start
        self._load_start()

    # ------------------------------------------------------------------ levels

    def level(self, number_or_id: int | str) -> Any:
        """Start a level (unless it is already the active one) and return its ``LevelRun``."""
        level = get_level(number_or_id)
        if self.level_run is None or self.level_run.level.id != level.id:
            self.level_run = LevelRun(self, level)
            self.restart_from(level.start_spec(self.lang))
            self.message = ("playground.note.level", {"number": level.number})
        return self.level_run

    def leave_level(self) -> None:
        self.level_run = None
        self.restart_from(sandbox_start())


def _made_by_a_playground(path: Path) -> bool:
    """Whether ``path`` starts with a header a playground wrote (id ``playground-...``)."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(4096)
        header = json.loads(first)
    except (OSError, ValueError):
        return False
    return isinstance(header, dict) and str(header.get("id", "")).startswith("playground-")


def _message_text(obj: Mapping[str, Any]) -> str:
    """The text of a message entry, as Pi puts it back in the editor."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(block.get("text", "") for block in content
                       if isinstance(block, Mapping) and block.get("type") == "text")
    return ""
