"""A session as a tree of entries that know only their parent (认父不认子).

Pi never writes a list of children. Each line in a session file carries ``parentId`` and
nothing else about the tree, because a child list would have to be rewritten every time a
branch grows, and an append-only file never rewrites a line. So everything a reader wants
to know about children, roots, leaves or branches is *derived* here, at read time, from
parent pointers alone.

The model is immutable on purpose: ``append`` and ``move_leaf`` return a new tree and leave
the old one untouched, the same way the file never loses a line. Rewind is ``move_leaf``;
a branch is a rewind followed by an ``append``. There is no separate "branch" feature.

Every walk here is a loop, never recursion, so a 1,000,000-entry chain neither overflows
the stack nor takes more than linear time.

The module-level functions ``validate`` and ``path_to`` are also chapter 02's exercises:
the same tests grade this reference and the learner's version (``tests/test_04_session_tree.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Iterator, Mapping

from learn_pi_lab.i18n import t


# --------------------------------------------------------------------------------------
# Entries and errors
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TranscriptEntry:
    """One line of the file, reduced to what the tree needs.

    ``kind`` is the entry's ``type`` in the file (``message``, ``compaction``, ...); the tree
    itself does not care, but drawings and the context builder do. ``payload`` keeps the
    whole JSON object so nothing read from a file is thrown away.
    """

    id: str
    parent_id: str | None
    kind: str = "message"
    payload: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TranscriptEntry":
        """Build an entry from a parsed JSON line (``id``, ``parentId``, ``type``)."""
        return cls(id=obj["id"], parent_id=obj.get("parentId"), kind=obj.get("type", "?"),
                   payload=MappingProxyType(dict(obj)))


class TranscriptError(ValueError):
    """A structural error in a transcript. ``entry_ids`` names every id involved.

    The message is in the learner's language (``learn_pi_lab.i18n``); code that needs to
    tell errors apart uses the class and ``entry_ids``, never the text.
    """

    def __init__(self, message: str, *entry_ids: str) -> None:
        super().__init__(message)
        self.entry_ids: tuple[str, ...] = tuple(entry_ids)


class DuplicateEntryId(TranscriptError):
    """Two different entries claim the same id, so a parent pointer would be ambiguous."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(t("tree.duplicate-id", entry_id=entry_id), entry_id)
        self.entry_id = entry_id


class UnknownTranscriptEntry(TranscriptError, KeyError):
    """An id that is not in the transcript: an unknown leaf, or a parent that does not exist.

    A dangling parent is never dropped quietly. A branch that vanished without a word is the
    worst kind of data loss, because nobody knows to look for it.
    """

    def __init__(self, entry_id: str, referenced_by: str | None = None) -> None:
        if referenced_by is None:
            message = t("tree.unknown-entry", entry_id=entry_id)
            ids: tuple[str, ...] = (entry_id,)
        else:
            message = t("tree.unknown-parent", entry_id=entry_id, child=referenced_by)
            ids = (entry_id, referenced_by)
        super().__init__(message, *ids)
        self.entry_id = entry_id
        self.referenced_by = referenced_by

    def __str__(self) -> str:  # KeyError would otherwise print the message in quotes
        return self.args[0]


class SelfParent(TranscriptError):
    """An entry names itself as its parent: following parents would never reach a root."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(t("tree.self-parent", entry_id=entry_id), entry_id)
        self.entry_id = entry_id


class ParentCycle(TranscriptError):
    """Following parents comes back to where it started: there is no root on this walk."""

    def __init__(self, cycle: Iterable[str]) -> None:
        self.cycle = tuple(cycle)
        super().__init__(t("tree.cycle", loop=" -> ".join(self.cycle + self.cycle[:1])),
                         *self.cycle)


# --------------------------------------------------------------------------------------
# The functions every reader needs (chapter 02 exercises)
# --------------------------------------------------------------------------------------

def index_entries(entries: Iterable[TranscriptEntry]) -> dict[str, TranscriptEntry]:
    """Look entries up by id. An id seen twice is an error here; the file layer has already
    removed identical repeats, so a repeat that reaches the tree really does conflict."""
    by_id: dict[str, TranscriptEntry] = {}
    for entry in entries:
        if entry.id in by_id:
            raise DuplicateEntryId(entry.id)
        by_id[entry.id] = entry
    return by_id


def validate(entries: Iterable[TranscriptEntry]) -> None:
    """Reject the four structural errors; return None when the entries form a forest.

    Checks run in a fixed order so the same bad input always names the same problem:
    duplicate ids, then self-parents, then dangling parents (first in file order),
    then cycles. Everything is one pass or a colour-marking walk: linear time.
    """
    _validated_index(entries)


def _validated_index(entries: Iterable[TranscriptEntry]) -> dict[str, TranscriptEntry]:
    """``validate``'s work, returning the id index it had to build anyway."""
    entries = list(entries)
    by_id: dict[str, TranscriptEntry] = {}
    parents_written_first = True
    for entry in entries:
        if entry.id in by_id:
            raise DuplicateEntryId(entry.id)
        if entry.parent_id is not None and entry.parent_id not in by_id:
            parents_written_first = False
        by_id[entry.id] = entry
    # An append-only file writes a parent before its children. If every parent came
    # earlier, no parent is missing and no loop is possible (a loop needs at least one
    # entry that points forward), so the healthy case is settled in that single pass.
    if parents_written_first:
        return by_id

    for entry in entries:
        if entry.parent_id == entry.id:
            raise SelfParent(entry.id)
    for entry in entries:
        if entry.parent_id is not None and entry.parent_id not in by_id:
            raise UnknownTranscriptEntry(entry.parent_id, referenced_by=entry.id)

    cycles = find_cycles({entry.id: entry.parent_id for entry in entries})
    if cycles:
        raise ParentCycle(cycles[0])
    return by_id


def find_cycles(parent_of: Mapping[str, str | None]) -> list[list[str]]:
    """Every loop of parent pointers, each in parent order (an id, then its parent, ...).

    Walks go up from each id in turn (file order), and each id is walked at most once
    overall: ``walk_of`` remembers which walk reached it first. A walk that meets an id of
    an *earlier* walk can stop (that one already ended at a root or in a loop); meeting
    an id of *its own* walk means it went round a loop. Each entry has one parent, so loops
    never share an entry and one pass finds them all. No recursion, linear time.

    A parent that is not a key of ``parent_of`` ends the walk like a root. The loader,
    the inspector and the drawing cut the loops this finds; ``validate`` raises the first.
    """
    walk_of: dict[str, int] = {}
    cycles: list[list[str]] = []
    for walk_number, start in enumerate(parent_of):
        walk: list[str] = []
        current: str | None = start
        while current is not None and current not in walk_of:
            walk_of[current] = walk_number
            walk.append(current)
            current = parent_of.get(current)
        if current is not None and walk_of[current] == walk_number:
            cycles.append(walk[walk.index(current):])
    return cycles


def path_to(entries_by_id: Mapping[str, TranscriptEntry],
            leaf_id: str) -> tuple[TranscriptEntry, ...]:
    """The branch from the root down to ``leaf_id``: walk parent pointers, then reverse.

    This is the whole trick of a parent-pointer tree: a child finds its way home without
    any entry ever knowing its children. The walk keeps a ``seen`` set so a damaged file
    with a loop raises ``ParentCycle`` instead of spinning forever (Pi itself has no such
    guard; see pi-session-format.md section 6).
    """
    if leaf_id not in entries_by_id:
        raise UnknownTranscriptEntry(leaf_id)
    branch: list[TranscriptEntry] = []
    seen: set[str] = set()
    current = entries_by_id[leaf_id]
    while True:
        if current.id in seen:
            loop = [entry.id for entry in branch]
            raise ParentCycle(loop[loop.index(current.id):])
        seen.add(current.id)
        branch.append(current)
        if current.parent_id is None:
            break
        parent = entries_by_id.get(current.parent_id)
        if parent is None:
            raise UnknownTranscriptEntry(current.parent_id, referenced_by=current.id)
        current = parent
    branch.reverse()  # we walked leaf -> root; a branch is read root -> leaf
    return tuple(branch)


def children_of(entries: Iterable[TranscriptEntry]) -> dict[str | None, tuple[TranscriptEntry, ...]]:
    """Children per parent id, in file order, computed now because no entry stores them.

    The key ``None`` holds the roots.
    """
    children: dict[str | None, list[TranscriptEntry]] = {}
    for entry in entries:
        children.setdefault(entry.parent_id, []).append(entry)
    return {parent: tuple(kids) for parent, kids in children.items()}


# --------------------------------------------------------------------------------------
# The tree
# --------------------------------------------------------------------------------------

class TranscriptTree:
    """An immutable, validated forest of entries plus one pointer: the current leaf.

    The leaf is the only mutable-looking thing in a session. Moving it is a rewind; appending
    at it grows the branch it points to; appending after moving it grows a new branch.
    """

    def __init__(self, entries: Iterable[TranscriptEntry] = (),
                 leaf_id: str | None = None) -> None:
        self._entries = tuple(entries)
        self._by_id = _validated_index(self._entries)  # raises on any structural error
        self._children: dict[str | None, tuple[TranscriptEntry, ...]] | None = None
        if leaf_id is None and self._entries:
            leaf_id = self._entries[-1].id  # like Pi: the last line written is the leaf
        if leaf_id is not None and leaf_id not in self._by_id:
            raise UnknownTranscriptEntry(leaf_id)
        self._leaf_id = leaf_id

    # -- reading -------------------------------------------------------------------------

    @property
    def entries(self) -> tuple[TranscriptEntry, ...]:
        """All entries in the order they were written, every branch included."""
        return self._entries

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._by_id

    def __iter__(self) -> Iterator[TranscriptEntry]:
        return iter(self._entries)

    def __getitem__(self, entry_id: str) -> TranscriptEntry:
        try:
            return self._by_id[entry_id]
        except KeyError:
            raise UnknownTranscriptEntry(entry_id) from None

    def __repr__(self) -> str:
        return f"TranscriptTree({len(self)} entries, leaf={self._leaf_id!r})"

    def path_to(self, leaf_id: str | None = None) -> tuple[TranscriptEntry, ...]:
        """Root-first branch to ``leaf_id`` (default: the current leaf)."""
        if leaf_id is None:
            if self._leaf_id is None:
                return ()
            leaf_id = self._leaf_id
        return path_to(self._by_id, leaf_id)

    def _children_map(self) -> dict[str | None, tuple[TranscriptEntry, ...]]:
        if self._children is None:  # derived once, on first use
            self._children = children_of(self._entries)
        return self._children

    def children(self, entry_id: str | None) -> tuple[TranscriptEntry, ...]:
        """Entries whose parent is ``entry_id`` (``None``: the roots), in file order."""
        if entry_id is not None and entry_id not in self._by_id:
            raise UnknownTranscriptEntry(entry_id)
        return self._children_map().get(entry_id, ())

    def roots(self) -> tuple[TranscriptEntry, ...]:
        return self.children(None)

    def leaves(self) -> tuple[TranscriptEntry, ...]:
        """Entries nobody names as parent: each one ends a branch."""
        parents = self._children_map()
        return tuple(entry for entry in self._entries if entry.id not in parents)

    def depth(self, entry_id: str) -> int:
        """Number of ancestors: a root has depth 0."""
        return len(self.path_to(entry_id)) - 1

    def common_ancestor(self, a: str, b: str) -> str | None:
        """The deepest entry on both branches (``None`` when they share no root).

        ``/tree`` uses this to know which entries a jump abandons: everything on the old
        branch below the common ancestor.
        """
        on_a = {entry.id for entry in self.path_to(a)}
        deepest = None
        for entry in self.path_to(b):
            if entry.id in on_a:
                deepest = entry.id
        return deepest

    # -- changing (each returns a new tree) ----------------------------------------------

    def move_leaf(self, entry_id: str | None) -> "TranscriptTree":
        """Rewind: point the leaf at an earlier entry. Nothing is deleted.

        ``None`` means "before the first entry": the next append starts a new root.
        """
        if entry_id is not None and entry_id not in self._by_id:
            raise UnknownTranscriptEntry(entry_id)
        moved = TranscriptTree.__new__(TranscriptTree)
        moved._entries, moved._by_id = self._entries, self._by_id
        moved._children, moved._leaf_id = self._children, entry_id
        return moved

    def append(self, entry_id: str, kind: str = "message",
               payload: Mapping[str, Any] | None = None) -> "TranscriptTree":
        """Add one entry whose parent is the current leaf; it becomes the new leaf.

        The old entries are not touched, exactly like appending one line to the file.
        """
        if entry_id in self._by_id:
            raise DuplicateEntryId(entry_id)
        entry = TranscriptEntry(entry_id, self._leaf_id, kind, dict(payload or {}))
        grown = TranscriptTree.__new__(TranscriptTree)
        grown._entries = self._entries + (entry,)
        grown._by_id = {**self._by_id, entry_id: entry}
        grown._children = None
        grown._leaf_id = entry_id
        return grown

    def branch_from(self, entry_id: str, new_id: str, kind: str = "message",
                    payload: Mapping[str, Any] | None = None) -> "TranscriptTree":
        """A branch is nothing more than a rewind followed by an append."""
        return self.move_leaf(entry_id).append(new_id, kind, payload)
