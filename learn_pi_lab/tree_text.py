"""The tree as lines of text, like Pi's ``/tree``: what ``python3 -m learn_pi_lab tree`` prints.

Branches are indented, the current branch is marked, long straight runs are folded to
their count so a session of thousands of entries fits on a screen. This is a view for
people (it speaks the learner's language), so it sits at the edge beside the command line,
not among the core models.
"""

from __future__ import annotations

from learn_pi_lab.entry_text import short_text
from learn_pi_lab.i18n import t
from learn_pi_lab.pi.session import Session, as_pi_walks_it
from learn_pi_lab.session_tree import TranscriptEntry
from learn_pi_lab.terminal_text import shown

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


def render_tree(session: Session, leaf: str | None, lang: str | None = None,
                hidden_kinds: tuple[str, ...] = ()) -> list[str]:
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
    """
    labels = session.labels()
    path = session.tree.path_to(leaf) if leaf is not None else ()
    leaf_side = {entry.id for entry in path}   # the root and branches holding the leaf
    on_branch = {entry.id for entry in as_pi_walks_it(path)} if leaf else set()
    leaf = _nearest_shown(session, leaf, hidden_kinds)
    keep = set(labels) | set(session.detached) | ({leaf} if leaf is not None else set())
    lines: list[str] = []
    roots = _leaf_side_first([entry["id"] for entry in session.children(None)], leaf_side)
    # Stack items: (first entry of a linear run, connector, prefix of later lines, level)
    stack: list[tuple[str, str, str, int]] = [
        (root, "", "", 0) for root in reversed(roots)]
    while stack:
        first, connector, prefix, level = stack.pop()
        run = _linear_run(session, first)
        with_lines = [item for item in run if session.tree[item].kind not in hidden_kinds]
        for position, item in enumerate(_visible(with_lines, keep)):   # (folds count lines)
            lead = connector if position == 0 else prefix
            if isinstance(item, int):
                lines.append(f"{lead}  {t('cli.tree.folded', lang, count=item)}")
                continue
            entry = session.tree[item]
            line = f"{lead}{'●' if item in on_branch else '○'} {entry_line(entry)}"
            if item in labels:
                line += f"  [{labels[item]}]"
            if item in session.detached:
                line += "  " + t("cli.tree.detached", lang, code=session.detached[item])
            if item == leaf:
                line += "  " + t("cli.tree.leaf", lang)
            lines.append(line)
        children = _leaf_side_first([entry["id"] for entry in session.children(run[-1])],
                                    leaf_side)
        for index in reversed(range(len(children))):
            last = index == len(children) - 1
            stack.append(_branch(children[index], prefix, last, level + 1, lang))
    return lines


def _leaf_side_first(ids: list[str], leaf_side: set[str]) -> list[str]:
    """``ids`` with the one holding the leaf first, the rest in their order (Pi's ``/tree``,
    both versions; a Pi user's review found the course's oldest-first order)."""
    return [*(item for item in ids if item in leaf_side),
            *(item for item in ids if item not in leaf_side)]


def _nearest_shown(session: Session, leaf: str | None, hidden_kinds: tuple[str, ...]
                   ) -> str | None:
    """The entry the leaf marker goes on: the leaf, or, when its type gets no line, its
    nearest ancestor that gets one (Pi 1.6.0's ``findNearestVisibleIndex``: a session
    ending in idle cache-warming ``usage`` entries had no leaf marked at all)."""
    if not hidden_kinds or leaf is None or leaf not in session.tree \
            or session.tree[leaf].kind not in hidden_kinds:
        return leaf
    return next((entry.id for entry in reversed(session.tree.path_to(leaf))
                 if entry.kind not in hidden_kinds), None)


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


def _linear_run(session: Session, first: str) -> list[str]:
    """``first`` and the entries below it while each has exactly one child."""
    run = [first]
    while True:
        children = session.tree.children(run[-1])
        if len(children) != 1:
            return run
        run.append(children[0].id)


def _visible(run: list[str], keep: set[str]) -> list[str | int]:
    """The run with long stretches of unremarkable entries replaced by their count.

    Always shown: ``FOLD_EDGE`` entries at each end and every entry in ``keep`` (the leaf,
    labelled and damaged entries). A stretch is folded only if it hides at least
    ``FOLD_MIN_HIDDEN`` entries. Deterministic: the same file prints the same lines.
    """
    shown = [i < FOLD_EDGE or i >= len(run) - FOLD_EDGE or entry_id in keep
             for i, entry_id in enumerate(run)]
    visible: list[str | int] = []
    i = 0
    while i < len(run):
        if shown[i]:
            visible.append(run[i])
            i += 1
            continue
        j = i
        while j < len(run) and not shown[j]:
            j += 1
        visible.extend([j - i] if j - i >= FOLD_MIN_HIDDEN else run[i:j])
        i = j
    return visible
