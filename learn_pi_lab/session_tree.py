"""Chapter 02's engine: a session is a tree of entries that know only their parent (认父不认子).

Pi never writes a list of children: a child list would have to be rewritten as a branch
grows, and an append-only file never rewrites a line. So children, roots, leaves and
branches are derived at read time from ``parent_id`` alone. The idea in 60 lines is
``learn_pi_lab/lessons/ch02_parent_pointers.py`` (the exercises' model answer); this module
holds the same rules, graded by the same tests (``tests/test_04_session_tree.py``), in the
lesson's order: an entry, ``path_to`` (walk up, then reverse), ``validate`` (the four checks),
``TranscriptTree`` (validated entries and one movable leaf: a rewind is ``move_leaf``, a
branch a rewind plus an ``append``). Then the errors, whose ids are fields, and the fast
paths a real file needs. Every walk is a loop: a 1,000,000-entry chain is linear time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Iterator, Mapping

from learn_pi_lab.errors import Explained


# --------------------------------------------------------------------------------------
# 1. An entry
# --------------------------------------------------------------------------------------

NO_PAYLOAD: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class TranscriptEntry:
    """One line of the file, reduced to what the tree needs: ``(id, parent_id, text)``.

    ``parent_id`` is ``None`` for a root. ``text`` is what the entry says, for small
    examples written by hand (``TranscriptEntry("root", None, "Hello")``). An entry read
    from a real Pi file also has a ``kind`` (its ``type``: ``message``, ``compaction``, ...)
    and its whole JSON object as ``payload``, so nothing read from a file is thrown away;
    give those two by keyword. The tree itself looks only at ``id`` and ``parent_id``.
    """

    id: str
    parent_id: str | None
    text: str = ""
    kind: str = "message"
    payload: Mapping[str, Any] = field(default_factory=lambda: NO_PAYLOAD,
                                       compare=False, repr=False)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "TranscriptEntry":
        """Build an entry from a parsed JSON line (``id``, ``parentId``, ``type``).

        A line without an ``id`` gives an entry whose id is None, which a tree refuses
        (``NonStringId``), as it refuses any id that is not a str."""
        return cls(obj.get("id"), obj.get("parentId"), kind=obj.get("type", "?"),
                   payload=MappingProxyType(dict(obj)))


# --------------------------------------------------------------------------------------
# 2. A branch: walk up, then read it root first
# --------------------------------------------------------------------------------------

def path_to(entries_by_id: Mapping[str, TranscriptEntry],
            leaf_id: str) -> tuple[TranscriptEntry, ...]:
    """The branch from the root down to ``leaf_id``: walk parent pointers, then reverse.

    This is the whole trick of a parent-pointer tree: a child finds its way home without
    any entry ever knowing its children. The walk keeps a ``seen`` set so a damaged file
    with a loop raises ``ParentCycle`` instead of spinning forever (Pi itself has no such
    guard; see pi-session-format.md section 6).
    """
    if not isinstance(leaf_id, str) or leaf_id not in entries_by_id:   # ids are strings
        raise UnknownTranscriptEntry(leaf_id)
    branch: list[TranscriptEntry] = []
    seen: set[str] = set()
    current = entries_by_id[leaf_id]
    while True:
        if current.id in seen:
            raise ParentCycle(loop_ending_at(branch, current.id))
        seen.add(current.id)
        branch.append(current)
        if current.parent_id is None:
            break
        parent = entries_by_id.get(current.parent_id)
        if parent is None:
            raise DanglingParent(current.parent_id, referenced_by=current.id)
        current = parent
    branch.reverse()  # we walked leaf -> root; a branch is read root -> leaf
    return tuple(branch)


def children_of(entries: Iterable[TranscriptEntry]
                ) -> dict[str | None, tuple[TranscriptEntry, ...]]:
    """Children per parent id, in file order, computed now because no entry stores them.

    The key ``None`` holds the roots.
    """
    children: dict[str | None, list[TranscriptEntry]] = {}
    for entry in entries:
        children.setdefault(entry.parent_id, []).append(entry)
    return {parent: tuple(kids) for parent, kids in children.items()}


# --------------------------------------------------------------------------------------
# 3. When is a list of entries a tree? Four checks
# --------------------------------------------------------------------------------------

def validate(entries: Iterable[TranscriptEntry], *, empty_id: bool = False) -> None:
    """Return None when ``entries`` form a forest; otherwise raise the first problem.

    The checks run in this order, so the same bad input always names the same problem:

    1. every entry has an id of its own (``DuplicateEntryId``; also an empty id, an id that
       is not a str, or something that is not a ``TranscriptEntry``);
    2. no entry is its own parent (``SelfParent``);
    3. every parent id names an entry (``DanglingParent``, the first in file order);
    4. following parents always ends at a root: there is no loop (``ParentCycle``).

    Several roots are fine, so is no entry at all, and so is a child listed before its
    parent. Each check is one pass over the entries: linear time. (``empty_id=True`` lets
    ``""`` be an id like any other: only pi mode's tree asks for that, ``pi.session``.)
    """
    entries = list(entries)  # an iterator can be read only once; we read it four times

    by_id = index_entries(entries, empty_id=empty_id)                     # check 1

    for entry in entries:                                                 # check 2
        if entry.parent_id == entry.id:
            raise SelfParent(entry.id)

    for entry in entries:                                                 # check 3
        if entry.parent_id is not None and (not isinstance(entry.parent_id, str)
                                            or entry.parent_id not in by_id):
            raise DanglingParent(entry.parent_id, referenced_by=entry.id)

    loops = find_cycles({entry.id: entry.parent_id for entry in entries})  # check 4
    if loops:
        raise ParentCycle(loops[0])


def index_entries(entries: Iterable[TranscriptEntry], *, empty_id: bool = False
                  ) -> dict[str, TranscriptEntry]:
    """Check 1: look entries up by id; an id seen twice (or empty) is an error.

    The file layer has already removed identical repeats, so a repeat that reaches the
    tree really does conflict: a parent pointer to that id would be ambiguous. An empty id
    is refused unless ``empty_id`` is true (pi mode's tree, where ``""`` is a name like any
    other, as in Pi's own index).
    """
    by_id: dict[str, TranscriptEntry] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, TranscriptEntry):
            raise NotAnEntry(index, type(entry).__name__)
        if not isinstance(entry.id, str):   # 5 or ["a"]: no parentId could name it
            raise NonStringId(index, type(entry.id).__name__)
        if entry.id == "" and not empty_id:
            raise EmptyEntryId(index)
        if entry.id in by_id:
            raise DuplicateEntryId(entry.id)
        by_id[entry.id] = entry
    return by_id


# --------------------------------------------------------------------------------------
# 4. The tree: validated entries plus the current leaf
# --------------------------------------------------------------------------------------

class TranscriptTree:
    """An immutable, validated forest of entries plus one pointer: the current leaf.

    ``TranscriptTree(entries)`` takes a snapshot of ``entries`` (changing the list later
    changes nothing here) and validates it. The leaf is the only thing that moves in a
    session: moving it is a rewind; appending at it grows the branch it points to;
    appending after moving it grows a new branch. Each change returns a new tree.

    ``empty_id=True`` is for pi mode only (``pi.session``): Pi's index files a line whose id
    is ``""`` under ``""``, and its ``/tree`` shows it, so that tree may hold one entry
    named ``""`` (``append`` still refuses the name).
    """

    def __init__(self, entries: Iterable[TranscriptEntry] = (),
                 leaf_id: str | None = None, *, empty_id: bool = False) -> None:
        snapshot = list(entries)
        by_id = index_if_appended_in_order(snapshot)  # the usual case: one quick pass
        if by_id is None:
            validate(snapshot, empty_id=empty_id)  # raises on any structural error
            by_id = {entry.id: entry for entry in snapshot}
        if leaf_id is None and snapshot:
            leaf_id = snapshot[-1].id  # like Pi: the last line written is the leaf
        self._log = _SharedLog(snapshot, by_id)
        self._length = len(snapshot)
        self._leaf_id = leaf_id
        self._entries: tuple[TranscriptEntry, ...] | None = None
        self._children: dict[str | None, tuple[TranscriptEntry, ...]] | None = None
        if leaf_id is not None and leaf_id not in self:
            raise UnknownTranscriptEntry(leaf_id)

    # -- reading -------------------------------------------------------------------------

    @property
    def entries(self) -> tuple[TranscriptEntry, ...]:
        """All entries in the order they were written, every branch included."""
        if self._entries is None:
            self._entries = tuple(self._log.entries[:self._length])
        return self._entries

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    def branch_ids(self) -> tuple[str, ...]:
        """Every id in the order written (the original course's name for the id list)."""
        return tuple(entry.id for entry in self.entries)

    def __len__(self) -> int:
        return self._length

    def __contains__(self, entry_id: object) -> bool:
        return isinstance(entry_id, str) and entry_id in self._by_id()   # ([...] is no id)

    def __iter__(self) -> Iterator[TranscriptEntry]:
        return iter(self.entries)

    def __getitem__(self, entry_id: str) -> TranscriptEntry:
        try:
            return self._by_id()[entry_id]
        except (KeyError, TypeError):   # TypeError: a list or a dict where an id should be
            raise UnknownTranscriptEntry(entry_id) from None

    def __repr__(self) -> str:
        return f"TranscriptTree({len(self)} entries, leaf={self._leaf_id!r})"

    def path_to(self, leaf_id: str | None = None) -> tuple[TranscriptEntry, ...]:
        """Root-first branch to ``leaf_id`` (default: the current leaf)."""
        if leaf_id is None:
            if self._leaf_id is None:
                return ()
            leaf_id = self._leaf_id
        return path_to(self._by_id(), leaf_id)

    def children(self, entry_id: str | None) -> tuple[TranscriptEntry, ...]:
        """Entries whose parent is ``entry_id`` (``None``: the roots), in file order."""
        if entry_id is not None and entry_id not in self:
            raise UnknownTranscriptEntry(entry_id)
        if self._children is None:  # derived once, on first use
            self._children = children_of(self.entries)
        return self._children.get(entry_id, ())

    def roots(self) -> tuple[TranscriptEntry, ...]:
        return self.children(None)

    def leaves(self) -> tuple[TranscriptEntry, ...]:
        """Entries nobody names as parent: each one ends a branch."""
        self.roots()  # derives the children map
        parents = self._children or {}
        return tuple(entry for entry in self.entries if entry.id not in parents)

    def depth(self, entry_id: str) -> int:
        """Number of ancestors: a root has depth 0."""
        return len(self.path_to(entry_id)) - 1

    # -- changing (each returns a new tree; this one stays as it was) --------------------

    def move_leaf(self, entry_id: str | None) -> "TranscriptTree":
        """Rewind: point the leaf at an earlier entry. Nothing is deleted.

        ``None`` means "before the first entry": the next append starts a new root.
        """
        if entry_id is not None and entry_id not in self:
            raise UnknownTranscriptEntry(entry_id)
        return self._sharing(self._length, entry_id)

    def append(self, entry_id: str, kind: str = "message",
               payload: Mapping[str, Any] | None = None, *, text: str = ""
               ) -> "TranscriptTree":
        """Add one entry whose parent is the current leaf; it becomes the new leaf.

        The old entries are not touched, exactly like appending one line to the file, and
        the old tree still has its old length: ``len(old)`` does not change.
        """
        if not isinstance(entry_id, str):
            raise NonStringId(self._length, type(entry_id).__name__)
        if entry_id == "":
            raise EmptyEntryId(self._length)
        if entry_id in self:
            raise DuplicateEntryId(entry_id)
        entry = TranscriptEntry(entry_id, self._leaf_id, text, kind=kind,
                                payload=MappingProxyType(dict(payload or {})))
        self._log.append(entry)
        return self._sharing(self._length + 1, entry_id)

    def branch_from(self, entry_id: str, new_id: str, kind: str = "message",
                    payload: Mapping[str, Any] | None = None) -> "TranscriptTree":
        """A branch is nothing more than a rewind followed by an append."""
        return self.move_leaf(entry_id).append(new_id, kind, payload)

    # -- how trees share their entries (an optimisation; the behaviour is as above) ------

    def _by_id(self) -> dict[str, TranscriptEntry]:
        """This tree's id index, taking its own copy of the log if a newer tree grew it."""
        if self._length != len(self._log.entries):
            self._log = self._log.first(self._length)
        return self._log.by_id

    def _sharing(self, length: int, leaf_id: str | None) -> "TranscriptTree":
        """A tree on the same log, with its own length and leaf; no entry copied."""
        if length != len(self._log.entries):  # the log grew past this tree: own a copy
            self._by_id()
        tree = TranscriptTree.__new__(TranscriptTree)
        tree._log, tree._length, tree._leaf_id = self._log, length, leaf_id
        same_entries = length == self._length
        tree._entries = self._entries if same_entries else None
        tree._children = self._children if same_entries else None
        return tree


# --------------------------------------------------------------------------------------
# The original course's example: two branches from one root
# --------------------------------------------------------------------------------------

SESSION_TREE_FIXTURE: tuple[TranscriptEntry, ...] = (
    TranscriptEntry("root", None, "Root"),
    TranscriptEntry("child", "root", "Child"),
    TranscriptEntry("leaf", "child", "Leaf"),
    TranscriptEntry("sibling", "root", "Sibling"),
)


# --------------------------------------------------------------------------------------
# The errors: a stable English message, the ids as fields (translated by i18n.explain)
# --------------------------------------------------------------------------------------

class TranscriptError(Explained, ValueError):
    """Anything wrong with a transcript or with an id asked for. ``entry_ids`` names every
    id involved; code tells errors apart by class and fields, never by the text."""

    def __init__(self, message: str, *entry_ids: str) -> None:
        super().__init__(message)
        self.entry_ids: tuple[str, ...] = tuple(entry_ids)

    def __str__(self) -> str:  # KeyError (a subclass below) would print the message quoted
        return str(self.args[0]) if self.args else ""

    def __reduce__(self) -> tuple[Any, ...]:  # pickle the message and the fields as they are
        return _rebuild, (type(self), self.args, self.__dict__)


def _rebuild(cls: type, args: tuple[Any, ...], fields: dict[str, Any]) -> TranscriptError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(fields)
    return error


class MalformedTranscript(TranscriptError):
    """The entries do not form a forest: one of the four checks of ``validate`` failed."""


class NotAnEntry(MalformedTranscript):
    """Something in the list that is not a ``TranscriptEntry``."""

    message_key = "tree.not-an-entry"

    def __init__(self, index: int, type_name: str) -> None:
        super().__init__(f"entries must be TranscriptEntry values "
                         f"(entries[{index}] is a {type_name})")
        self.index, self.type_name = index, type_name


class EmptyEntryId(MalformedTranscript):
    """An entry whose id is the empty string: nothing could name it as a parent."""

    message_key = "tree.empty-id"

    def __init__(self, index: int) -> None:
        super().__init__(f"empty id is not allowed (entries[{index}])", "")
        self.index = index


class NonStringId(MalformedTranscript):
    """An entry whose id is not a str (``5``, ``["a"]``): ids in a session file are strings,
    and a ``parentId`` can only name a string."""

    message_key = "tree.non-string-id"

    def __init__(self, index: int, type_name: str) -> None:
        super().__init__(f"an entry id must be a str (entries[{index}] has an id of type "
                         f"{type_name})")
        self.index, self.type_name = index, type_name


class DuplicateEntryId(MalformedTranscript):
    """Two different entries claim the same id, so a parent pointer would be ambiguous."""

    message_key = "tree.duplicate-id"

    def __init__(self, entry_id: str) -> None:
        super().__init__(f"duplicate id: {entry_id!r}", entry_id)
        self.entry_id = entry_id


class SelfParent(MalformedTranscript):
    """An entry names itself as its parent: following parents would never reach a root."""

    message_key = "tree.self-parent"

    def __init__(self, entry_id: str) -> None:
        super().__init__(f"self parent is not allowed: {entry_id!r}", entry_id)
        self.entry_id = entry_id


class UnknownTranscriptEntry(TranscriptError, KeyError):
    """An id that is not in the transcript. ``entry_id`` is that id.

    Asked for directly (an unknown leaf), ``referenced_by`` is None. Named as the parent
    of another entry, ``referenced_by`` is that child, and the transcript is broken:
    ``UnknownTranscriptEntry(parent, referenced_by=child)`` then makes a
    ``DanglingParent``, which is this error *and* a ``MalformedTranscript``, so
    ``except`` either one catches it, whoever raised it.
    """

    def __new__(cls, entry_id: str | None = None, referenced_by: str | None = None,
                *args: Any) -> "UnknownTranscriptEntry":
        if cls is UnknownTranscriptEntry and referenced_by is not None:
            cls = DanglingParent
        return super().__new__(cls, entry_id, referenced_by, *args)

    def __init__(self, entry_id: str, referenced_by: str | None = None) -> None:
        if referenced_by is None:
            super().__init__(f"unknown transcript entry: {entry_id!r}", entry_id)
        else:
            super().__init__(f"dangling parent for {referenced_by!r}: {entry_id!r}",
                             entry_id, referenced_by)
        self.entry_id = entry_id
        self.referenced_by = referenced_by

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return "tree.unknown-entry" if self.referenced_by is None else "tree.dangling-parent"


class DanglingParent(UnknownTranscriptEntry, MalformedTranscript):
    """A parent id that names no entry: a branch that can never reach its root.

    A dangling parent is never dropped quietly. A branch that vanished without a word is
    the worst kind of data loss, because nobody knows to look for it.
    """

    def __init__(self, entry_id: str, referenced_by: str) -> None:
        super().__init__(entry_id, referenced_by)


class ParentCycle(MalformedTranscript):
    """Following parents comes back to where it started: there is no root on this walk.

    ``cycle`` lists the loop in parent order (each id, then its parent, ...).
    """

    message_key = "tree.cycle"

    def __init__(self, cycle: Iterable[str]) -> None:
        self.cycle = tuple(cycle)
        first = self.cycle[0] if self.cycle else ""
        super().__init__(f"cycle detected involving entry {first!r}: {self.loop}",
                         *self.cycle)
        self.entry_id = first

    LOOP_SHOWN = 10   # ids shown at each end of a long loop (all of them are in ``cycle``)

    @property
    def loop(self) -> str:
        """The loop written out (``loop_text``); ``cycle`` keeps every id."""
        return loop_text(self.cycle, self.LOOP_SHOWN)

    def message_fields(self) -> dict[str, Any]:
        return {**super().message_fields(), "loop": self.loop}


# --------------------------------------------------------------------------------------
# Helpers: finding loops, and the shortcuts that keep big files fast
# --------------------------------------------------------------------------------------

def loop_text(cycle: list[str], shown: int = ParentCycle.LOOP_SHOWN) -> str:
    """``a -> b -> a``: a loop of ids written out, back to where it starts. A loop of a
    million entries shows its first and last ``shown`` ids and how many are between, so an
    error or a diagnostic about it stays one readable line."""
    ids = [*cycle, *cycle[:1]]
    if len(cycle) <= 2 * shown:
        return " -> ".join(ids)
    hidden = len(ids) - 2 * shown
    return " -> ".join([*ids[:shown], f"… ({hidden}) …", *ids[-shown:]])


def index_if_appended_in_order(entries: Iterable[TranscriptEntry]
                               ) -> dict[str, TranscriptEntry] | None:
    """The id index, if the entries look like an append-only file; otherwise None.

    "Looks like an append-only file": every item is a ``TranscriptEntry`` with a new,
    non-empty str id whose parent (if any) was written before it. Then all four checks of
    ``validate`` hold at once (no repeat, no self-parent, no missing parent, and no loop,
    since no entry points forward), so one pass settles the healthy case. On None, the
    caller runs ``validate``, which names the problem.
    """
    by_id: dict[str, TranscriptEntry] = {}
    for entry in entries:
        if not isinstance(entry, TranscriptEntry) or type(entry.id) is not str or not entry.id \
                or entry.id in by_id:
            return None
        parent = entry.parent_id
        if parent is not None and (type(parent) is not str or parent not in by_id):
            return None
        by_id[entry.id] = entry
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
    if parents_written_first(parent_of):  # what an append-only file gives: no loop possible
        return []
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


def parents_written_first(parent_of: Mapping[str, str | None]) -> bool:
    """True when every parent comes before its children in ``parent_of``'s order.

    A loop needs at least one entry whose parent is written after it, so then there is
    none: one quick pass instead of the walks. An append-only file is always like this.
    """
    written: set[str] = set()
    for entry_id, parent in parent_of.items():
        if parent is not None and parent not in written:
            return False
        written.add(entry_id)
    return True


def loop_ending_at(branch: list[TranscriptEntry], entry_id: str) -> list[str]:
    """The ids of a walk from ``entry_id`` onwards: the loop a walk has just closed."""
    walked = [entry.id for entry in branch]
    return walked[walked.index(entry_id):]


class _SharedLog:
    """The entries of a family of trees, in one list that only ever grows at the end.

    ``append`` on the newest tree adds one entry here and hands the new tree the same log
    with a length one longer: no copy, O(1). Each tree remembers its own length, so an
    older tree still sees exactly its own entries. If an older tree is used after the log
    grew past it (rare: appending twice to the same old tree), it takes a copy of its part
    first (``first``), so the id index it reads never contains a later entry.
    """

    __slots__ = ("entries", "by_id")

    def __init__(self, entries: list[TranscriptEntry],
                 by_id: dict[str, TranscriptEntry] | None = None) -> None:
        self.entries = entries
        self.by_id = by_id if by_id is not None else {entry.id: entry for entry in entries}

    def append(self, entry: TranscriptEntry) -> None:
        self.entries.append(entry)
        self.by_id[entry.id] = entry

    def first(self, length: int) -> "_SharedLog":
        return _SharedLog(self.entries[:length])
