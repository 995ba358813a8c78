"""The state behind the session explorer, with no widgets in it.

Everything the explorer can do is a plain method here: ``pick_leaf`` (rewind or switch
branch), ``append_message`` (one user message at the leaf), ``fork`` (``/fork`` before or
at an entry) and ``set_view`` (current branch vs what the model sees). The widgets in
``explorer.py`` only call these methods and show the result, so tests and notebooks can
drive the same model without a browser or a kernel.

Everything stays in memory. The explorer holds its own ``Session``; appending builds a new
one from the old file's lines plus one more (the same way the file itself grows) and the
learner's file is never opened for writing. Appended entries get counter-based ids
(``00000001``, ``00000002``, ...) and timestamps one second after the latest entry, so a
notebook's output is the same on every run.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime, timezone
from typing import Any, Mapping, NamedTuple

from matplotlib.figure import Figure

from learn_pi_lab.drawing.scene import VIEWS, kind_text
from learn_pi_lab.drawing.snapshot import SessionSnapshot
from learn_pi_lab.drawing.static import draw_session
from learn_pi_lab.drawing.style import figure_png
from learn_pi_lab.entry_text import entry_text, message_text, one_line
from learn_pi_lab.jsonl.reader import LoadedLine
from learn_pi_lab.jsonl.writer import iso_now, new_header, to_json_line
from learn_pi_lab.pi.context import build_session_context, iso_to_ms
from learn_pi_lab.pi.navigation import fork_entries
from learn_pi_lab.pi.session import Session, session_from_file, session_from_text
from learn_pi_lab.session_tree import TranscriptTree

PREVIEW_CHARS = 80
FORK_SEED = 3   # the ids of labels a fork re-creates come from this seed: stable output


class ListedMessage(NamedTuple):
    """One row of the explorer's list: an entry of the branch, or a message of the context."""

    entry_id: str | None
    kind: str        # the role of a message, else the entry type
    text: str        # a one-line preview


def message_row(message: Mapping[str, Any]) -> ListedMessage:
    """A context message (as ``pi.context`` returns it) as a list row."""
    return ListedMessage(message.get("entryId"), str(message.get("role")),
                         one_line(message_text(message), PREVIEW_CHARS))


def entry_row(entry: Mapping[str, Any]) -> ListedMessage:
    """A branch entry as a list row: messages by role, other entries by what they hold."""
    kind = str(entry.get("type"))
    if kind == "message" and isinstance(entry.get("message"), Mapping):
        return message_row({**entry["message"], "entryId": entry.get("id")})
    return ListedMessage(entry.get("id"), kind, one_line(entry_text(entry), PREVIEW_CHARS))


def session_of(source: Session | TranscriptTree) -> Session:
    """A ``Session`` to explore. A ``TranscriptTree`` is written out as the JSONL text of a
    file (header first) and read back, so both kinds of input behave exactly alike."""
    if isinstance(source, Session):
        return source
    header = new_header("", session_id="in-memory",
                        clock=lambda: datetime(1970, 1, 1, tzinfo=timezone.utc))
    lines = [to_json_line(header)]
    lines += [to_json_line(obj) for obj in SessionSnapshot.of(source).entries]
    return session_from_text("\n".join(lines) + "\n")


def with_appended_line(session: Session, obj: dict) -> Session:
    """The session as if ``obj`` had been appended as one more line of its file.

    Only memory changes: a new ``SessionFile`` with one more ``LoadedLine``, loaded again
    with the same rules. The new entry becomes the leaf, as it would in Pi.
    """
    lines = session.file.entries
    last_line = lines[-1].line if lines else (session.file.header_line.line
                                              if session.file.header_line else 0)
    grown = dataclasses.replace(session.file, entries=[
        *lines, LoadedLine(last_line + 1, to_json_line(obj), obj)])
    return session_from_file(grown, session.mode)


class ExplorerModel:
    """One session being explored: which leaf, which view, what was appended or forked."""

    def __init__(self, session: Session | TranscriptTree, *, lang: str | None = None,
                 fold_runs: bool = True) -> None:
        self.session = session_of(session)
        self.leaf_id: str | None = session.leaf_id  # a tree's own leaf, or the file's last line
        self.view = "branch"
        self.lang = lang
        self.fold_runs = fold_runs
        self.appended_ids: list[str] = []
        self.fork_lines: list[dict] | None = None   # the entries of the last fork, if any
        self.fork_error: str | None = None

    # -- what the widgets show -----------------------------------------------------------

    @property
    def leaf_options(self) -> list[tuple[str, str]]:
        """(text, id) for every leaf of the tree, in file order: one option per branch.

        The list grows only when a branch does, never when the leaf moves. After a rewind
        to an inner entry no option is selected; the rewind picker shows where the leaf is.
        """
        return [(self.describe(entry.id), entry.id) for entry in self.session.tree.leaves()]

    @property
    def entry_options(self) -> list[tuple[str, str]]:
        """(text, id) for every entry in file order: anything can become the leaf."""
        return [(self.describe(entry.id), entry.id) for entry in self.session.tree.entries]

    def describe(self, entry_id: str) -> str:
        """``a05  asst  Here is the plan...``: how an entry is named in a picker."""
        row = entry_row(self.session.entry(entry_id))
        return f"{entry_id}  {kind_text(self.session.entry(entry_id), self.lang)}  {row.text}"[:60]

    @property
    def path_entries(self) -> list[Mapping[str, Any]]:
        """The current branch, root first. Where the file is damaged the walk stops, like
        Pi's ``getBranch`` at an orphan, so the explorer still shows what can be shown."""
        if self.leaf_id is None:
            return []
        return SessionSnapshot.of(self.session).path_entries(self.leaf_id)

    @property
    def path_ids(self) -> tuple[str, ...]:
        return tuple(entry["id"] for entry in self.path_entries)

    @property
    def listed_messages(self) -> list[ListedMessage]:
        """Branch view: every entry of the branch. Context view: what the model receives."""
        if self.view == "context":
            return [message_row(message)
                    for message in build_session_context(self.path_entries).messages]
        return [entry_row(entry) for entry in self.path_entries]

    def figure(self) -> Figure:
        return draw_session(self.session, leaf_id=self.leaf_id, view=self.view,
                            fold_runs=self.fold_runs, lang=self.lang)

    @property
    def image_png(self) -> bytes:
        return figure_png(self.figure())

    # -- what the learner can do ---------------------------------------------------------

    def pick_leaf(self, entry_id: str) -> None:
        """Move the leaf to any entry (a rewind, or a switch to another branch)."""
        self.session.entry(entry_id)  # UnknownTranscriptEntry for an id not in the session
        self.leaf_id = entry_id
        self.fork_lines = self.fork_error = None

    def append_message(self, text: str) -> str:
        """Append a user message whose parent is the current leaf; return its id.

        If the leaf already has children, the new entry is their sibling: a new branch.
        """
        entry_id = self._next_id()
        moment_ms = self._next_timestamp_ms()
        moment = datetime.fromtimestamp(moment_ms / 1000, tz=timezone.utc)
        obj = {"type": "message", "id": entry_id, "parentId": self.leaf_id,
               "timestamp": iso_now(lambda: moment),
               "message": {"role": "user", "content": [{"type": "text", "text": text}],
                           "timestamp": moment_ms}}
        self.session = with_appended_line(self.session, obj)
        self.appended_ids.append(entry_id)
        self.pick_leaf(entry_id)
        return entry_id

    def fork(self, position: str, entry_id: str) -> list[dict]:
        """``/fork`` ``before`` or ``at`` ``entry_id``: the new file's entries, in memory.

        The leaf moves to the last entry the fork copies, so the drawing highlights exactly
        what the new file would hold. A refused fork (``before`` a non-user entry, a damaged
        branch) keeps the leaf and records the reason in ``fork_error``.
        """
        self.fork_lines = self.fork_error = None
        try:
            _header, lines = fork_entries(self.session, entry_id, position,
                                          rng=random.Random(FORK_SEED))
        except ValueError as error:   # a bad position, or a damaged branch (TranscriptError)
            self.fork_error = str(error)
            return []
        copied = [line["id"] for line in lines if line.get("type") != "label"]
        if copied:  # labels are re-created at the end with new ids; the path ends before
            self.leaf_id = copied[-1]
        self.fork_lines = lines
        return lines

    def set_view(self, view: str) -> None:
        if view not in VIEWS:
            raise ValueError(f"view must be one of {VIEWS}, not {view!r}")
        self.view = view

    # -- deterministic new entries -------------------------------------------------------

    def _next_id(self) -> str:
        number = len(self.appended_ids) + 1
        while f"{number:08x}" in self.session:
            number += 1
        return f"{number:08x}"

    def _next_timestamp_ms(self) -> int:
        """One second after the latest entry timestamp in the session (0 if none)."""
        stamps = [iso_to_ms(entry.get("timestamp")) for entry in self.session.entries]
        return max((stamp for stamp in stamps if stamp is not None), default=0) + 1000
