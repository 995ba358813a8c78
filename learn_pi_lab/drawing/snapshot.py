"""What a drawing reads from a session: plain JSON objects, parent pointers and one leaf.

A drawing accepts two kinds of input: a ``TranscriptTree`` (chapter 02's model) and a loaded
``pi.session.Session`` (a real file, possibly damaged). ``SessionSnapshot`` reads either one
into the same plain shape, so the rest of ``drawing`` has a single thing to understand.

The snapshot is deliberately *tolerant*: a picture of a damaged file must still show the
damage. The entries keep their ``parentId`` as written (so a missing parent can be drawn),
while the current branch is walked in the session's own tree, where the loader has already
made each damaged entry a root: the branch simply starts where the file is broken, exactly
where the drawing cuts it. The diagnostics say why.

A snapshot is read-only: nothing here changes the session or writes to a file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from learn_pi_lab.errors import Explained
from learn_pi_lab.pi.session import Session, as_pi_walks_it, resolve_labels
from learn_pi_lab.session_tree import TranscriptTree


class NotDrawable(Explained, TypeError):
    """A drawing was asked for something that is not a session: a path, a list of entries,
    ``None``. ``got`` is its type."""

    message_key = "drawing.not-drawable"

    def __init__(self, source: Any) -> None:
        self.got = type(source).__name__
        super().__init__(f"cannot draw a {self.got}: pass a Session (load_session(path) or "
                         f"session_from_text(text)) or a TranscriptTree")


@dataclass(frozen=True)
class SessionSnapshot:
    """Entries in file order (each the JSON object of one line), the leaf, labels, problems.

    ``diagnostics`` are ``jsonl.reader.Diagnostic`` objects from the loaded file: a drawing
    marks the entries they name and lists the rest (a torn last line has no entry to mark).
    A diagnostic about a whole line (``glued-objects``) names no entry; ``line_ids`` maps
    each physical line number to the ids loaded from it, so the drawing can mark the
    entries recovered from that line.
    """

    entries: tuple[Mapping[str, Any], ...]
    leaf_id: str | None
    labels: Mapping[str, str] = field(default_factory=dict)
    diagnostics: tuple[Any, ...] = ()
    line_ids: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    tree: TranscriptTree = field(default_factory=TranscriptTree)   # for the branch walk

    def __post_init__(self) -> None:
        by_id: dict[str, Mapping[str, Any]] = {}
        for obj in self.entries:
            by_id.setdefault(obj["id"], obj)
        object.__setattr__(self, "_by_id", by_id)

    @classmethod
    def of(cls, source: "Session | TranscriptTree | SessionSnapshot") -> "SessionSnapshot":
        """Read a loaded session, a transcript tree, or (unchanged) a snapshot."""
        if isinstance(source, SessionSnapshot):
            return source
        if isinstance(source, TranscriptTree):
            entries = tuple(_entry_object(entry) for entry in source.entries)
            return cls(entries, source.leaf_id, resolve_labels(entries), tree=source)
        if isinstance(source, Session):
            # The session's tree already applied the file's rules (which duplicate wins,
            # what pi mode leaves out); its payloads keep the parentId as written.
            # Pi's leaf is the last line; in pi mode it may sit on a loop the tree leaves
            # out (Pi itself would walk that loop forever): then nothing is the leaf.
            entries = tuple(dict(entry.payload) for entry in source.tree.entries)
            leaf = source.leaf_id if source.leaf_id in source.tree else None
            return cls(entries, leaf, source.labels(), tuple(source.diagnostics),
                       ids_by_line(source), source.tree)
        raise NotDrawable(source)

    def __contains__(self, entry_id: object) -> bool:
        return isinstance(entry_id, str) and entry_id in self._by_id   # ([...] is no id)

    def entry(self, entry_id: str) -> Mapping[str, Any]:
        return self._by_id[entry_id]

    @property
    def ids(self) -> tuple[str, ...]:
        """Every entry id once, in file order."""
        return tuple(self._by_id)

    def parent_id(self, entry_id: str) -> str | None:
        """The parent id as written; a damaged non-string value is shown as its JSON text."""
        parent = self._by_id[entry_id].get("parentId")
        return parent if parent is None or isinstance(parent, str) else json.dumps(parent)

    def path_ids(self, leaf_id: str | None = None) -> tuple[str, ...]:
        """Root-first ids from the root down to ``leaf_id`` (default: the current leaf).

        Starts at a damaged entry when the branch runs into one (a missing parent, a
        self-parent, the cut of a loop): the loader made it a root, and the diagnostics
        name the problem. Pi's ``getBranch`` stops at an orphan too, and at a parentId
        ``""`` (pi mode's tree holds the line ``""`` above it, but Pi's walks test ids for
        truth): the branch then starts below it, as ``Session.branch``'s does.
        """
        leaf = self.leaf_id if leaf_id is None else leaf_id
        if not leaf:   # none, or "" (pi mode): getBranch is empty
            return ()
        return tuple(entry.id for entry in as_pi_walks_it(self.tree.path_to(leaf)))

    def path_entries(self, leaf_id: str | None = None) -> list[Mapping[str, Any]]:
        return [self._by_id[entry_id] for entry_id in self.path_ids(leaf_id)]


def ids_by_line(session: Session) -> dict[int, tuple[str, ...]]:
    """``{line number: ids of the entries kept from that line}`` (several on a glued line)."""
    by_line: dict[int, list[str]] = {}
    for loaded in session.file.entries:
        entry_id = loaded.obj.get("id")
        if isinstance(entry_id, str) and entry_id in session.tree:
            by_line.setdefault(loaded.line, []).append(entry_id)
    return {line: tuple(ids) for line, ids in by_line.items()}


def _entry_object(entry: Any) -> Mapping[str, Any]:
    """The JSON object of a ``TranscriptEntry``; the tree's own fields win over the payload
    (hand-made example entries often have an empty payload)."""
    return {**entry.payload, "type": entry.kind, "id": entry.id, "parentId": entry.parent_id}
