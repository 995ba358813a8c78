"""Load a session the way Pi does: leaf, labels, name, tree, and every branch.

Chapters 04 and 05's exercises, written as a learner would, are in
``learn_pi_lab/lessons/ch04_failures.py`` and ``ch05_records_and_state.py``; this module is
their engine.

The file layer (``learn_pi_lab.jsonl``) turns lines into objects. This module decides what
those objects *mean*, following Pi v0.84.2's ``SessionManager`` (pi-session-format.md
sections 6 and 7):

* the **leaf** after loading is the last entry line in file order, whatever its type and
  wherever it sits in the tree. Pi does not save leaf moves; it re-derives the leaf;
* **labels** and the session **name** are entries too, resolved by reading the file in
  order: the latest word wins, and an empty word clears;
* a **branch** is the walk from an entry up through ``parentId`` to a root, reversed.

Two modes, because the course shows both side by side:

``mode="teaching"`` (the default) never hides damage. A parent id that is not in the file
(``dangling-parent``), an entry that is its own parent (``self-parent``) and a loop of parent
pointers (``cycle``) are diagnostics with the child's line number. The session still loads
and every entry stays visible: ``tree`` holds a damaged entry as an extra root and
``detached`` says why (id -> code), so a drawing can mark it. For a cycle, the cut is made
at the cycle's first entry in file order: it names a parent written *after* it, which a
correctly appended file cannot do. Asking for a branch through the damage raises:
``UnknownTranscriptEntry`` naming the missing id, ``SelfParent`` or ``ParentCycle``.

``mode="pi"`` reproduces Pi: an orphan or a self-parent is an extra root, the walk stops at
an orphan, a later duplicate wins, and the leaf may be a line with no id (then the branch is
empty). A line whose id is ``""`` is in the tree, with the lines whose parentId is ``""``
under it, as Pi's ``/tree`` shows it; the walks stop at a parentId ``""`` as Pi's do. Where Pi would loop forever (a walk into a self-parent or a cycle), this mode raises
``ParentCycle`` naming the loop instead. Like Pi's ``getTree``, the tree leaves out the
entries of a cycle and everything below them.

``resolve_labels``, ``session_name`` and ``load_diagnostics`` are also exercises (chapters
04 and 05).
"""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from learn_pi_lab.collector import collector_paused
from learn_pi_lab.errors import Explained, UnknownChoice, check_dicts
from learn_pi_lab.jsonl.reader import (Diagnostic, SessionFile, diagnostic, read_session,
                                      read_session_text)
from learn_pi_lab.jsonl.records import entry_id_of
from learn_pi_lab.pi.context import (BASELINE_PI_VERSION, SessionContext, build_session_context,
                                    check_pi_version, js_time, js_truthy)
from learn_pi_lab.session_tree import (ParentCycle, SelfParent, TranscriptEntry, TranscriptTree,
                                       UnknownTranscriptEntry, find_cycles, loop_text)

MODES = ("teaching", "pi")

TREE_PROBLEM_CODES = frozenset({"dangling-parent", "self-parent", "cycle"})
"""The diagnostics only building the tree finds (``_build_tree``), never the reader."""


class FieldsLeftOut(Explained, ValueError):
    """A session loaded with ``fields=`` was asked for something those fields leave out
    (its labels, name, context, or its children, which are sorted by timestamp)."""

    message_key = "pi.fields-left-out"

    def __init__(self, fields: tuple[str, ...], what: str) -> None:
        self.fields = ", ".join(fields)
        self.what = what
        super().__init__(f"this session was loaded with only the fields {self.fields}: "
                         f"load it without fields= for its {what}")


# --------------------------------------------------------------------------------------
# Labels and the session name (chapter 05 exercises)
# --------------------------------------------------------------------------------------

def label_entries_in_force(entries: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """For each labelled target, the ``label`` entry that set its current label.

    The one label fold of the course: read ``label`` entries in file order, the latest wins,
    and one with an empty or missing ``label`` *clears* its target (JavaScript truthiness,
    as Pi tests it).
    """
    in_force: dict[str, Mapping[str, Any]] = {}
    for entry in check_dicts(entries, "entries"):
        change = label_change(entry)
        if change is None:
            continue
        target, sets = change
        if sets:
            in_force[target] = entry
        else:
            in_force.pop(target, None)
    return in_force


def label_change(entry: Mapping[str, Any]) -> tuple[str, bool] | None:
    """What one entry does to the labels, the rule written once: ``(target, True)`` when it
    sets its target's label, ``(target, False)`` when it clears it (a ``label`` that is
    empty, missing, ``0``, ``false`` or ``null``: JavaScript's falsy values, as Pi tests them;
    ``[]`` and ``{}`` set), ``None`` when it is not a label entry with a string target."""
    target = entry.get("targetId")
    if entry.get("type") != "label" or not isinstance(target, str):
        return None
    return target, js_truthy(entry.get("label"))


def resolve_labels(entries: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The label of each entry now: read ``label`` entries in file order, the latest wins.

    A label entry with an empty or missing ``label`` *clears* the label of its target, so a
    label can be removed without rewriting anything. Labels are global: a label written on
    one branch holds for every branch, because only file order counts.
    """
    return {target: entry["label"] for target, entry in label_entries_in_force(entries).items()}


# JavaScript's String.prototype.trim removes these (Python's str.strip differs at the edges).
_JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                  "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


def session_name(entries: Iterable[Mapping[str, Any]]) -> str | None:
    """The session's name: the **latest** ``session_info`` in file order (Pi >= v0.59).

    The name is trimmed, and an empty name clears it, so the latest entry decides even when
    it says "no name" (v0.58.3 skipped empty names, so a name could never be removed, #2304).
    Pi turns line breaks into spaces when it *writes* a name (``appendSessionInfo``); reading
    only trims, in 0.84.2 and 1.6.0 alike. A name that is not a string makes Pi's
    ``getSessionName`` throw; we read it as no name.
    """
    latest: Mapping[str, Any] | None = None
    for entry in check_dicts(entries, "entries"):
        if entry.get("type") == "session_info":
            latest = entry
    if latest is None or not isinstance(latest.get("name"), str):
        return None
    return latest["name"].strip(_JS_WHITESPACE) or None


# --------------------------------------------------------------------------------------
# The tree, with damage found and marked
# --------------------------------------------------------------------------------------

def _below(roots: Iterable[str], parent_of: Mapping[str, str | None]) -> set[str]:
    """``roots`` and every entry whose parent chain leads into them."""
    children: dict[str, list[str]] = {}
    for entry_id, parent in parent_of.items():
        if parent is not None:
            children.setdefault(parent, []).append(entry_id)
    found = set(roots)
    stack = list(found)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _build_tree(by_id: Mapping[str, dict], line_of: Mapping[str, int], mode: str
                ) -> tuple[list[TranscriptEntry], dict[str, str], list[Diagnostic]]:
    """Tree entries, the detached ids (id -> code) and one diagnostic per damage found."""
    detached: dict[str, str] = {}
    diagnostics: list[Diagnostic] = []
    parent_of: dict[str, str | None] = {}
    for entry_id, obj in by_id.items():
        parent = obj.get("parentId")
        if parent is not None and parent == entry_id:
            detached[entry_id] = "self-parent"
            diagnostics.append(diagnostic(line_of.get(entry_id), "self-parent", entry_id))
        elif parent is not None and (not isinstance(parent, str) or parent not in by_id):
            detached[entry_id] = "dangling-parent"
            diagnostics.append(diagnostic(line_of.get(entry_id), "dangling-parent", entry_id,
                                          repr(parent)))
        parent_of[entry_id] = None if entry_id in detached else parent

    left_out: set[str] = set()
    for cycle in find_cycles(parent_of):
        cut = min(cycle, key=lambda entry_id: line_of.get(entry_id, 0))
        diagnostics.append(diagnostic(line_of.get(cut), "cycle", cut, loop_text(cycle)))
        if mode == "teaching":
            detached[cut] = "cycle"
            parent_of[cut] = None
        else:
            left_out.update(cycle)
    if left_out:  # Pi's getTree: a cycle and everything below it vanish
        left_out = _below(left_out, parent_of)

    # The payload is the entry's own dict (no read-only view per entry: on a large file
    # that is one more object for each of hundreds of thousands of entries).
    entries = [TranscriptEntry(entry_id, parent_of[entry_id], kind=str(obj.get("type", "?")),
                               payload=obj)
               for entry_id, obj in by_id.items() if entry_id not in left_out]
    return entries, detached, diagnostics


# --------------------------------------------------------------------------------------
# The session
# --------------------------------------------------------------------------------------

def as_pi_walks_it(path: Sequence[TranscriptEntry]) -> Sequence[TranscriptEntry]:
    """The tree's root-first ``path`` to a leaf as Pi's walks see it: they test a parentId
    for truth, so a walk up stops below a parentId ``""`` (pi mode's tree holds the line
    whose id is ``""``, as Pi's ``/tree`` does; ``getBranch`` and the active path do not go
    through it). Without an empty id, the whole path."""
    start = max((index for index, entry in enumerate(path) if entry.parent_id == ""),
                default=0)
    return path[start:]


def _sorted_by_line(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Line order, file-level problems (no line) first; ties keep their order."""
    return sorted(diagnostics, key=lambda d: (d.line is not None, d.line or 0))


@dataclass
class Session:
    """A loaded session file plus what Pi derives from it.

    ``leaf_id`` is the only thing that changes (``pi.navigation.navigate`` moves it, in
    memory, exactly like Pi). ``detached`` maps each damaged entry to its diagnostic code;
    those entries are roots in ``tree`` (teaching mode keeps them all visible).
    ``index`` (optional) is the id -> entry map when the caller has already built it.
    ``tree_source`` is the tree, or a function that builds it: then it is built the first
    time ``tree`` is asked for (``path`` and ``context`` never need it, only ``branch``).
    ``one_chain`` (with ``index``): the session never branched (``SessionFile.one_chain``), so
    the branch to its last entry is the whole index, in order, with no walk.

    ``entry``, ``branch``, ``children`` and the tree's payloads hand out the session's own
    dicts, not copies (a copy per entry would double the memory of a large file): changing
    one changes the session (``branch``, ``context``, drawings), never the file. Experiment
    on ``copy.deepcopy(session.branch())``.
    """

    file: SessionFile
    leaf_id: str | None
    mode: str
    diagnostics: list[Diagnostic]
    detached: dict[str, str] = field(default_factory=dict)
    pi_version: str = BASELINE_PI_VERSION
    index: InitVar[dict[str, dict] | None] = None
    tree_source: InitVar[TranscriptTree | Callable[[], TranscriptTree] | None] = None
    one_chain: InitVar[bool] = False

    def __post_init__(self, index: dict[str, dict] | None,
                      tree_source: TranscriptTree | Callable[[], TranscriptTree] | None,
                      one_chain: bool) -> None:
        self._tree = tree_source if isinstance(tree_source, TranscriptTree) else None
        self._build_tree = None if self._tree is not None else tree_source
        self._one_chain = one_chain and index is not None   # SessionFile.one_chain
        if index is not None:   # session_from_file built it already: one index, not two
            self._by_id = index
            return
        self._by_id = {}
        for obj in self.file.objects():
            entry_id = entry_id_of(obj)
            if entry_id is not None:
                self._by_id[entry_id] = obj  # a later duplicate wins, as in Pi's index

    @property
    def tree(self) -> TranscriptTree:
        """Every entry as a ``TranscriptTree`` (teaching mode: damaged entries are roots)."""
        if self._tree is None:
            if self._build_tree is None:
                raise AttributeError("this Session was made without a tree")
            self._tree = self._build_tree()
            self._build_tree = None
        return self._tree

    @tree.setter
    def tree(self, tree: TranscriptTree) -> None:
        self._tree, self._build_tree = tree, None

    @property
    def header(self) -> dict:
        return self.file.header or {}

    @property
    def entries(self) -> list[dict]:
        """Every entry after the header, file order, every branch (Pi's ``getEntries``)."""
        return self.file.objects()

    def entry(self, entry_id: str) -> dict:
        try:
            return self._by_id[entry_id]
        except (KeyError, TypeError):   # TypeError: a list or object where an id should be
            raise UnknownTranscriptEntry(entry_id) from None

    def __contains__(self, entry_id: object) -> bool:
        return isinstance(entry_id, str) and entry_id in self._by_id   # ([...] is no id)

    def labels(self) -> dict[str, str]:
        self._require_whole_entries("labels")
        return resolve_labels(self.entries)

    def name(self) -> str | None:
        self._require_whole_entries("name")
        return session_name(self.entries)

    def _require_whole_entries(self, what: str, key: str | None = None) -> None:
        """Labels, the name and the context read keys that ``fields=`` leaves out (``key``:
        the one key needed, when it is one)."""
        fields = self.file.fields
        if fields is not None and (key is None or key not in fields):
            raise FieldsLeftOut(fields, what)

    def branch(self, leaf_id: str | None = None) -> list[dict]:
        """Root-first entries from a root down to ``leaf_id`` (default: the current leaf).

        Pi's ``getBranch``. With no leaf at all the branch is empty. The walk keeps a
        ``seen`` set, so a loop raises ``ParentCycle`` instead of spinning. Teaching mode
        raises on a missing parent or a self-parent; pi mode stops at a missing parent.
        """
        if leaf_id is None:
            if not self.leaf_id:   # none, or "" (pi mode: a last line with an empty id)
                return []
            leaf_id = self.leaf_id
        if self._one_chain and self._by_id and leaf_id == next(reversed(self._by_id)):
            return list(self._by_id.values())   # never branched: every entry, in order
        current = self.entry(leaf_id)
        walked: list[dict] = []
        seen: set[str] = set()
        teaching, by_id = self.mode == "teaching", self._by_id   # (looked up once: a long walk)
        while True:
            entry_id = current["id"]
            if entry_id in seen:
                loop = [entry["id"] for entry in walked]
                raise ParentCycle(loop[loop.index(entry_id):])
            seen.add(entry_id)
            walked.append(current)
            parent = current.get("parentId")
            if parent is None:
                break
            if parent == entry_id and teaching:
                raise SelfParent(entry_id)
            following = by_id.get(parent) if isinstance(parent, str) else None
            if following is None:
                if teaching:
                    raise UnknownTranscriptEntry(parent, referenced_by=entry_id)
                break  # Pi: an orphan ends the walk; it is a root of its own
            current = following
        walked.reverse()  # walked leaf -> root; a branch reads root -> leaf
        return walked

    def context_path(self, leaf_id: str | None = None) -> list[dict]:
        """The branch Pi builds the context from (``buildSessionPath``), root first.

        Usually ``branch(leaf_id)``. One difference, in pi mode: when the last line has no
        id (or ``""``: Pi tests the leaf for truth), Pi's leaf is ``undefined``, so
        ``getBranch()`` is empty but the context walks up from that last line anyway (its
        fallback to "the last entry"). The same fallback serves a leaf ``""`` that
        ``navigate`` set (a user message under the ``""`` line): the walk starts at the last
        line, whatever its id. Only no leaf at all (``None``, Pi's ``null``) has no context.
        A ``leaf_id`` given that no entry could have (``0``, ``[]``; ``""`` in teaching mode)
        raises ``UnknownTranscriptEntry``, as ``branch`` does.
        """
        if leaf_id is not None and (not isinstance(leaf_id, str)
                                    or (leaf_id == "" and self.mode == "teaching")):
            return self.branch(leaf_id)   # raises: no entry has that id
        leaf = self.leaf_id if leaf_id is None else leaf_id
        if leaf:   # Pi tests the leaf for truth
            return self.branch(leaf)
        last = self.file.entries[-1].obj if self.file.entries else None
        if last is None:
            return []
        if entry_id_of(last) is not None:
            return [] if leaf is None else self.branch(entry_id_of(last))
        parent = last.get("parentId")
        above = self.branch(parent) if isinstance(parent, str) and parent in self else []
        return [*above, last]

    def context(self, leaf_id: str | None = None, *, pi_version: str | None = None
                ) -> SessionContext:
        """What the model sees from ``leaf_id`` (default: the leaf), as ``pi_version`` builds it
        (default: the version the session was loaded for)."""
        self._require_whole_entries("context")
        return build_session_context(self.context_path(leaf_id),
                                     pi_version=self.pi_version if pi_version is None
                                     else pi_version)

    def children(self, entry_id: str | None) -> list[dict]:
        """The entries hanging under ``entry_id`` oldest first, or (``None``) the roots in
        file order.

        Like Pi's ``getTree``: it sorts every node's children by entry timestamp (a stable
        sort, so equal times keep file order; an unreadable timestamp sorts last here) but
        never the roots, which stay in the order their lines come in the file (a damaged
        entry shown as a root included). ``/tree`` then moves the root holding the leaf
        first (``tree_text``).
        """
        self._require_whole_entries("children", "timestamp")   # the order is by timestamp
        kids = [self._by_id[entry.id] if entry.id else entry.payload   # "": pi mode's tree
                for entry in self.tree.children(entry_id)]
        return kids if entry_id is None else sorted(kids, key=timestamp_key)


def timestamp_key(entry: Mapping[str, Any]) -> tuple[bool, int | float]:
    """Pi's sort key, ``new Date(entry.timestamp).getTime()`` (``js_time``): an ISO or RFC
    2822 text, a number of milliseconds, ``null`` (0). What JavaScript cannot read (``NaN``)
    makes Pi's comparison meaningless; here it sorts last, in file order."""
    ms = js_time(entry.get("timestamp"), present="timestamp" in entry)
    return ms is None, ms or 0


def session_from_file(file: SessionFile, mode: str = "teaching",
                      pi_version: str = BASELINE_PI_VERSION) -> Session:
    """Build the session from an already-read file: index, tree, leaf and diagnostics."""
    check_pi_version(pi_version)
    if not isinstance(mode, str) or mode not in MODES:
        raise UnknownChoice("mode", mode, MODES)
    # The reader built the index on its way (SessionFile.index); a copy made in memory has none
    by_id, in_order = ((file.index, file.parents_first) if file.index is not None
                       else _index_by_id(file))
    # Pi mode: Pi's index files a line whose id is "" under "", and its getTree hangs a line
    # whose parentId is "" under it, so /tree shows it. The tree gets it too; the index
    # (branch, context, fork) does not: Pi's walks test ids for truth and stop there.
    empty_id = mode == "pi" and _has_missing_ids(file)
    tree_index, in_order = _index_by_id(file, empty_id=True) if empty_id else (by_id, in_order)
    if in_order:   # the usual file: nothing to find, and the tree can wait until asked for
        detached: dict[str, str] = {}
        tree_diagnostics: list[Diagnostic] = []

        def entries() -> list[TranscriptEntry]:
            return [TranscriptEntry(entry_id, obj.get("parentId"),
                                    kind=str(obj.get("type", "?")), payload=obj)
                    for entry_id, obj in tree_index.items()]
    else:
        line_of = {loaded.obj["id"]: loaded.line for loaded in file.entries
                   if _tree_id_of(loaded.obj, empty_id) is not None}   # later wins, as the index
        found, detached, tree_diagnostics = _build_tree(tree_index, line_of, mode)

        def entries() -> list[TranscriptEntry]:
            return found

    last_id = file.entries[-1].obj.get("id") if file.entries else None
    leaf_id = last_id if isinstance(last_id, str) else None  # Pi: the last line, always

    def tree() -> TranscriptTree:
        built = TranscriptTree(entries(), empty_id=empty_id)
        return built.move_leaf(leaf_id if leaf_id in built else None)

    # A damaged file gets its tree at once, so any error it raises is raised by the load.
    return Session(file=file, leaf_id=leaf_id, mode=mode,
                   diagnostics=_sorted_by_line([*file.diagnostics, *tree_diagnostics]),
                   detached=detached, pi_version=pi_version, index=by_id,
                   tree_source=tree if in_order else tree(),
                   one_chain=file.index is not None and file.one_chain)


def _has_missing_ids(file: SessionFile) -> bool:
    """Whether the reader found a line without a usable id (one may be ``""``)."""
    return bool(file.diagnostic_counts.get("missing-id")
                or any(d.code == "missing-id" for d in file.diagnostics))


def _tree_id_of(obj: Mapping[str, Any], empty_id: bool = False) -> str | None:
    """``entry_id_of``, or (``empty_id``: pi mode's tree) ``""`` as an id like any other."""
    return "" if empty_id and obj.get("id") == "" else entry_id_of(obj)


def _index_by_id(file: SessionFile, empty_id: bool = False) -> tuple[dict[str, dict], bool]:
    """The id -> entry index, and whether every parent came before its child (one pass).

    Teaching mode: the reader already dropped repeats. Pi mode: a later line with the same
    id wins, and sits where that later line sits. "In order" (a new, non-empty id whose
    parent, if any, is an id written before it) is what an append-only file gives: then
    there is no dangling parent, no self-parent and no loop, so ``_build_tree``'s search
    for damage has nothing to find. ``empty_id``: ``""`` counts as an id too (the index of
    pi mode's tree, as Pi's own index files such a line).
    """
    by_id: dict[str, dict] = {}
    in_order = True
    for loaded in file.entries:
        obj = loaded.obj
        entry_id = _tree_id_of(obj, empty_id)
        if entry_id is None:
            continue   # pi mode keeps a line without an id; it has no place in the tree
        if entry_id in by_id:
            in_order = False
            by_id.pop(entry_id)
        if in_order:
            parent = obj.get("parentId")
            if parent is not None and (type(parent) is not str or parent not in by_id):
                in_order = False
        by_id[entry_id] = obj
    return by_id, in_order


def load_session(path: str | Path, *, mode: str = "teaching",
                 pi_version: str = BASELINE_PI_VERSION, decoder: str | None = None,
                 fields: tuple[str, ...] | None = None) -> Session:
    """Read a session file (``.jsonl`` or ``.jsonl.xz``) and derive its session. Read-only.

    ``pi_version`` ("0.84.2" or "1.6.0") chooses whose rules ``Session.context`` follows.
    The garbage collector's cycle search waits until the session is built (``collector_paused``).
    ``decoder`` chooses the JSON decoder, with identical results (``learn_pi_lab.jsonl.
    fast_decoder``; default: ``$LEARN_PI_LAB_DECODER`` or ``auto``, msgspec when installed).
    ``fields=TREE_FIELDS`` keeps only what places each entry in the tree (``read_session``):
    enough for ``branch`` and ``tree``; ``context``, ``labels`` and ``name`` then refuse.
    """
    with collector_paused():
        return session_from_file(read_session(path, mode=mode, decoder=decoder, fields=fields),
                                 mode, pi_version)


def session_from_text(text: str, *, mode: str = "teaching",
                      pi_version: str = BASELINE_PI_VERSION, decoder: str | None = None
                      ) -> Session:
    """The same, from the text of a file (handy for small examples in notebooks and tests)."""
    with collector_paused():
        return session_from_file(read_session_text(text, mode=mode, decoder=decoder), mode,
                                 pi_version)


def load_diagnostics(text: str) -> list[tuple[int | None, str]]:
    """Every problem a teaching-mode load finds, as ``(line, code)`` in line order.

    Chapter 04's exercise: the file-level problems (torn or corrupt lines, duplicates, ...)
    and the tree-level ones (``dangling-parent``, ``self-parent``, ``cycle``) in one list,
    problems without a line number first. Text that is not a session at all raises
    ``NotASessionFile``.
    """
    return [(d.line, d.code) for d in session_from_text(text).diagnostics]
