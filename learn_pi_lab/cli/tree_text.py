"""The tree as lines of text, like Pi's ``/tree``: what ``python3 -m learn_pi_lab tree`` prints.

Branches are indented, the current branch is marked, long straight runs are folded to
their count so a session of thousands of entries fits on a screen. This is a view for
people (it speaks the learner's language), so it sits at the edge beside the command line,
not among the core models.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from itertools import chain
from typing import Any, Container, Iterator, Sequence

from learn_pi_lab.entry_text import short_text, value_text
from learn_pi_lab.i18n import t
from learn_pi_lab.jsonl.index import KIND_CODE, SessionIndex
from learn_pi_lab.pi.session import Session, as_pi_walks_it, resolve_labels, timestamp_key
from learn_pi_lab.session_tree import TranscriptEntry
from learn_pi_lab.cli.terminal_text import shown

FOLD_EDGE = 2         # entries shown at each end of a folded linear run
FOLD_MIN_HIDDEN = 3   # never fold fewer entries than this (the fold line would not save much)
INDENT_LEVELS = 24    # branch points that indent; deeper ones say their level instead, so a
                      # file of 200,000 nested branches prints lines of bounded width (each
                      # waiting branch would otherwise keep a prefix as wide as its depth)


def id_shown(entry_id: str) -> str:
    """An id as ``tree`` prints it: ``""`` for the empty id (pi mode shows such a line, as
    Pi's ``/tree`` does), any other id as it is, unprintable characters escaped."""
    return '""' if entry_id == "" else shown(entry_id)   # an id may hold a newline


def entry_line(entry: TranscriptEntry) -> str:
    """``id  text``, the text prefixed with the entry's type when it is not a message."""
    text = short_text(entry)
    if entry.kind != "message" and text != entry.kind:
        text = f"{entry.kind}: {text}"
    return f"{id_shown(entry.id)}  {text}"   # one line per entry


def render_tree(source: Session | SessionIndex, leaf: str | None, lang: str | None = None,
                hidden_kinds: tuple[str, ...] = ()) -> Iterator[str]:
    """Lines like Pi's ``/tree``: branches indented, the current branch marked.

    ``●`` marks the entries on the branch to ``leaf`` and ``← leaf`` the leaf itself;
    ``[label]`` shows a label; a damaged entry (shown as a root) says what is wrong. A
    linear run continues at the same indent; only a branch point indents its children
    (``├─``/``└─``): the one holding the leaf first, then the others oldest first, as Pi's
    ``/tree`` orders them; roots likewise, the one holding the leaf first, then the others
    in file order (Pi never sorts roots by time). Walked with a stack, no recursion.
    Entries of a type in ``hidden_kinds`` get no line (Pi 1.6.0's ``/tree`` hides ``usage``);
    a leaf of such a type marks its nearest ancestor that has one, as Pi selects it.
    Past ``INDENT_LEVELS`` nested branch points the indent stops growing and each branch
    line says its level instead.

    Pi mode may hold a line whose id is ``""`` (``id_shown``): it sits in the tree where
    Pi's ``/tree`` shows it, and can be the leaf, but ``●`` stops at it as Pi's active path
    does (Pi tests ids for truth there: a leaf ``""`` marks no branch at all).

    ``source`` is a loaded ``Session`` or, for a large plain file, its ``SessionIndex``
    (``IndexedTree``): the same lines either way, the index decoding only the entries it
    shows, the labels and the children of a branch point (their order is by timestamp).
    """
    tree = IndexedTree(source) if isinstance(source, SessionIndex) else LoadedTree(source)
    labels, detached = tree.labels(), tree.detached   # (keyed by the tree's handles)
    leaf_side, on_branch = tree.path(leaf) if leaf is not None else (set(), set())
    if not leaf:
        on_branch = set()   # a leaf "" marks no branch (pi mode; see above)
    shown_leaf = _nearest_shown(tree, leaf, hidden_kinds)
    keep = set(labels) | set(detached) | ({shown_leaf} if shown_leaf is not None else set())
    roots = _leaf_side_first(tree.roots(), leaf_side)
    # Stack items: (first entry of a linear run, connector, prefix of later lines, level)
    stack: list[tuple[Any, str, str, int]] = [(root, "", "", 0) for root in reversed(roots)]
    while stack:
        first, connector, prefix, level = stack.pop()
        run = tree.linear_run(first)
        with_lines = tree.with_lines(run, hidden_kinds) if hidden_kinds else run
        for position, item in enumerate(_visible(with_lines, keep)):
            lead = connector if position == 0 else prefix
            if isinstance(item, Folded):
                yield f"{lead}  {t('cli.tree.folded', lang, count=item.count)}"
                continue
            line = f"{lead}{'●' if item in on_branch else '○'} {entry_line(tree.entry(item))}"
            if item in labels:
                line += f"  [{shown(value_text(labels[item]))}]"
            if item in detached:
                line += "  " + t("cli.tree.detached", lang, code=detached[item])
            if item == shown_leaf:
                line += "  " + t("cli.tree.leaf", lang)
            yield line
        children = _leaf_side_first(tree.children(run[-1]), leaf_side)
        for index in reversed(range(len(children))):
            last = index == len(children) - 1
            stack.append(_branch(children[index], prefix, last, level + 1, lang))


class LoadedTree:
    """What ``render_tree`` asks of a tree, answered by a loaded ``Session``; an entry's
    handle is its id."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.detached = session.detached

    def labels(self) -> dict[str, str]:
        return self.session.labels()

    def roots(self) -> list[str]:
        return [entry["id"] for entry in self.session.children(None)]

    def children(self, entry_id: str) -> list[str]:
        """Oldest first, as Pi's ``getTree`` sorts them (``Session.children``)."""
        return [entry["id"] for entry in self.session.children(entry_id)]

    def linear_run(self, first: str) -> list[str]:
        """``first`` and the entries below it while each has exactly one child."""
        run, children = [first], self.session.tree.children
        while len(below := children(run[-1])) == 1:
            run.append(below[0].id)
        return run

    def with_lines(self, run: list[str], hidden_kinds: tuple[str, ...]) -> list[str]:
        """The entries of ``run`` whose type gets a line."""
        return [item for item in run if self.kind(item) not in hidden_kinds]

    def has(self, entry_id: str) -> bool:
        return entry_id in self.session.tree

    def kind(self, entry_id: str) -> str:
        return self.session.tree[entry_id].kind

    def entry(self, entry_id: str) -> TranscriptEntry:
        return self.session.tree[entry_id]

    def path(self, leaf: str) -> tuple[set[str], set[str]]:
        """The entries from the root to ``leaf``, and those of them on Pi's active path."""
        path = self.session.tree.path_to(leaf)
        return {entry.id for entry in path}, {entry.id for entry in as_pi_walks_it(path)}

    def up_from(self, leaf: str) -> Iterator[str]:
        """``leaf``, its parent, and so on to the root."""
        return (entry.id for entry in reversed(self.session.tree.path_to(leaf)))


class IndexedTree:
    """What ``render_tree`` asks of a tree, answered by a ``SessionIndex`` (a plain file:
    no damage, no empty id, every parent before its child); an entry's handle is its
    position in the file. An entry's first child, when it has one, is usually the line
    right after it; the index lists the few that are not (``elsewhere``), and only those
    are kept here. Entries are decoded only when a line shows them, for the labels, and for
    the order of the children of a branch point."""

    def __init__(self, index: SessionIndex) -> None:
        self.index = index
        self.detached: dict[int, str] = {}
        self._parents = parents = index.parents
        self._below: dict[int, list[int]] = {}   # parent -> its children not right after it
        self._present: dict[tuple[str, ...], bool] = {}   # hidden types: any in the file?
        for at in index.elsewhere:
            self._below.setdefault(parents[at], []).append(at)

    def labels(self) -> dict[int, str]:
        index = self.index   # (a plain file's labels all point at one of its entries)
        found = resolve_labels(index.entries(_positions_of(index.kinds, KIND_CODE["label"])))
        where = index.ids.find_all(set(found))
        return {where[target]: label for target, label in found.items()}

    def roots(self) -> list[int]:
        return self.index.roots

    def _in_file_order(self, at: int) -> list[int]:
        """The children of ``at`` in file order: the line after it, if that is one, first."""
        below = self._below.get(at, [])
        following = at + 1
        if following < len(self._parents) and self._parents[following] == at:
            return [following, *below]
        return below

    def children(self, at: int) -> list[int]:
        """Oldest first, as Pi's ``getTree`` sorts them: a branch point's children are
        decoded for their timestamps (a stable sort, as ``Session.children``)."""
        below = self._in_file_order(at)
        if len(below) < 2:
            return below
        decoded = self.index.entries(below)
        return [below[i] for i in sorted(range(len(below)),
                                         key=lambda i: timestamp_key(decoded[i]))]

    def linear_run(self, first: int) -> Stretches:
        """``first`` and the entries below it while each has exactly one child. Where the
        child is the next line (the usual step) the run goes on in the same stretch, so a
        chain of a million entries is one ``range``."""
        stretches: list[range] = []
        parents, below, last = self._parents, self._below, len(self._parents) - 1
        start = at = first
        while True:
            if at < last and parents[at + 1] == at:
                if at in below:
                    break
                at += 1
                continue
            elsewhere = below.get(at)
            if elsewhere is None or len(elsewhere) != 1:
                break
            stretches.append(range(start, at + 1))
            start = at = elsewhere[0]
        stretches.append(range(start, at + 1))
        return Stretches(stretches)

    def with_lines(self, run: Sequence[int], hidden_kinds: tuple[str, ...]) -> Sequence[int]:
        """The entries of ``run`` whose type gets a line (``run`` itself when the file has
        no entry of a hidden type, counted in C)."""
        kinds = self.index.kinds
        hidden = {KIND_CODE[kind] for kind in hidden_kinds if kind in KIND_CODE}
        present = self._present.get(hidden_kinds)
        if present is None:   # (counted once per tree, not once per run)
            present = self._present[hidden_kinds] = any(kinds.count(code) for code in hidden)
        if not present:
            return run
        return array("i", (at for at in run if kinds[at] not in hidden))

    def has(self, entry_id: str) -> bool:
        return self.index.find(entry_id) >= 0

    def kind(self, at: int) -> str:
        return self.index.kind(at)

    def entry(self, at: int) -> TranscriptEntry:
        return TranscriptEntry.from_json(self.index.entry(at))

    def path(self, leaf: str) -> tuple[Marks, Marks]:
        """The entries from the root to ``leaf`` as one byte per entry (a set of a million
        positions would take more memory than the index); a plain file has no empty id, so
        the whole path is Pi's active path."""
        marks = Marks(len(self._parents))
        for at in self.up_from(leaf):
            marks[at] = 1
        return marks, marks

    def up_from(self, leaf: str) -> Iterator[int]:
        at, parents = self.index.find(leaf), self._parents
        while at >= 0:
            yield at
            at = parents[at]


def _positions_of(codes: bytearray, code: int) -> list[int]:
    """Where ``code`` is in ``codes`` (found in C: a million bytes in a millisecond)."""
    found, at = [], codes.find(code)
    while at >= 0:
        found.append(at)
        at = codes.find(code, at + 1)
    return found


class Stretches(Sequence):
    """Positions kept as stretches of consecutive numbers (``range`` objects)."""

    def __init__(self, ranges: list[range]) -> None:
        self.ranges = ranges
        self._length = sum(map(len, ranges))

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[int]:
        return chain.from_iterable(self.ranges)

    def __getitem__(self, item: Any) -> Any:
        if not isinstance(item, int):
            return list(self)[item]
        at = item + self._length if item < 0 else item
        if not 0 <= at < self._length:
            raise IndexError(item)
        for stretch in self.ranges:
            if at < len(stretch):
                return stretch[at]
            at -= len(stretch)
        raise IndexError(item)


class Marks(bytearray):
    """A set of positions ``0..n-1`` as one byte each: ``at in marks``."""

    def __init__(self, count: int) -> None:
        super().__init__(count)

    def __contains__(self, at: object) -> bool:   # type: ignore[override]
        return type(at) is int and 0 <= at < len(self) and self[at] == 1


@dataclass(frozen=True)
class Folded:
    """A stretch of a linear run shown as its count."""

    count: int


def _leaf_side_first(ids: list[Any], leaf_side: Container[Any]) -> list[Any]:
    """``ids`` with the one holding the leaf first, the rest in their order (Pi's ``/tree``,
    both versions; a Pi user's review found the course's oldest-first order)."""
    return [*(item for item in ids if item in leaf_side),
            *(item for item in ids if item not in leaf_side)]


def _nearest_shown(tree: LoadedTree | IndexedTree, leaf: str | None,
                   hidden_kinds: tuple[str, ...]) -> Any:
    """The entry the leaf marker goes on (its handle): the leaf, or, when its type gets no
    line, its nearest ancestor that gets one (Pi 1.6.0's ``findNearestVisibleIndex``: a
    session ending in idle cache-warming ``usage`` entries had no leaf marked at all)."""
    if leaf is None or not tree.has(leaf):
        return None
    up = tree.up_from(leaf)
    if not hidden_kinds:
        return next(up)
    return next((item for item in up if tree.kind(item) not in hidden_kinds), None)


def _branch(first: str, prefix: str, last: bool, level: int, lang: str | None
            ) -> tuple[str, str, str, int]:
    """The stack item of a branch at nesting ``level``: ``├─``/``└─`` under ``prefix``, and
    the prefix of its later lines. Deeper than ``INDENT_LEVELS`` the prefix stays as it is
    and the connector names the level."""
    if level <= INDENT_LEVELS:
        return (first, prefix + ("└─ " if last else "├─ "),
                prefix + ("   " if last else "│  "), level)
    return (first, prefix + t("cli.tree.level", lang, level=level) + ("└─ " if last else "├─ "),
            prefix, level)


def _visible(run: Sequence[Any], keep: Container[Any]) -> list[Any]:
    """The run with long stretches of unremarkable entries replaced by their count.

    Always shown: ``FOLD_EDGE`` entries at each end and every entry in ``keep`` (the leaf,
    labelled and damaged entries). A stretch is folded only if it hides at least
    ``FOLD_MIN_HIDDEN`` entries. Deterministic: the same file prints the same lines. Holds
    only what it shows (a stretch is counted, not copied).
    """
    visible: list[Any] = []
    hidden: list[Any] = []   # the stretch not shown so far (at most FOLD_MIN_HIDDEN kept)
    hidden_count = 0
    last_edge = len(run) - FOLD_EDGE
    for i, item in enumerate(run):
        if i < FOLD_EDGE or i >= last_edge or item in keep:
            if hidden_count:
                visible.extend([Folded(hidden_count)] if hidden_count >= FOLD_MIN_HIDDEN
                               else hidden)
                hidden, hidden_count = [], 0
            visible.append(item)
        else:
            if hidden_count < FOLD_MIN_HIDDEN:
                hidden.append(item)
            hidden_count += 1
    return visible
