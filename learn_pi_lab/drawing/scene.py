"""What a session picture shows, decided before anything is drawn.

``build_scene`` turns a snapshot into a ``networkx.DiGraph`` whose nodes carry everything the
renderer needs: the node text, the record group (its colour), whether it lies on the current
branch, whether a compaction replaced it, its label, its damage. Keeping these decisions out
of the matplotlib code means they can be tested as plain data, and read as plain rules:

* **The tree comes from parent pointers alone.** Each entry gets one edge from its parent.
  An entry whose parent is missing hangs under a red "missing" node, so a dangling parent is
  visible instead of silently becoming a root. A self-parent or a parent loop is cut at one
  edge (marked red) so the rest can still be drawn as a tree.
* **The current branch** is the walk from the leaf up the parent pointers.
* **Compaction.** On that branch, the *latest* compaction decides what the model sees: the
  entries before its ``firstKeptEntryId`` are "summarised" (replaced by the summary), those
  from ``firstKeptEntryId`` up to the compaction are "kept".
* **Context view** numbers each entry by the position of its message in ``pi.context``'s
  ``build_session_context``: the compaction's summary comes first even though its node is
  further down the tree, which is exactly the surprise chapter 06 is about.
* **Folding.** A long chain of entries where nothing happens (no branch, label, compaction,
  damage, leaf...) becomes one "... N entries ..." node, so a real 1,000-entry session fits.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Mapping

import networkx as nx

from learn_pi_lab.drawing.snapshot import SessionSnapshot
from learn_pi_lab.i18n import t
from learn_pi_lab.jsonl.records import record_group
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.session import TREE_PROBLEM_CODES
from learn_pi_lab.session_tree import UnknownTranscriptEntry, find_cycles

VIEWS = ("branch", "context")

# A chain shorter than this is drawn in full: folding three entries would hide more than
# it saves. Longer chains of unremarkable entries become a single node.
MIN_FOLDED_RUN = 8

# Diagnostics that mean something is wrong with the data (drawn in red). The purely
# informational ones (a blank line, CRLF endings, a migrated file...) are not damage.
DAMAGE_CODES = frozenset({
    "torn-last-line", "corrupt-line", "glued-objects", "duplicate-entry",
    "conflicting-duplicate", "not-an-object", "missing-id", "extra-header",
}) | TREE_PROBLEM_CODES

# The second line of a node: what kind of entry it is, in a few words of the figure's
# language (``drawing.kind.*`` in the message catalog: English keeps its short ASCII
# abbreviations, Chinese says it in Chinese). Message roles first, then entry types.
ROLE_KINDS = frozenset({"user", "assistant", "toolResult", "bashExecution", "custom",
                        "branchSummary", "compactionSummary"})
TYPE_KINDS = frozenset({"compaction", "branch_summary", "custom_message", "custom",
                        "model_change", "label", "session_info"})
ID_CHARS = 8  # Pi's ids are 8 hex digits; longer ids (UUIDs) are cut to this


@dataclass(frozen=True)
class Reference:
    """A pointer other than ``parentId``: drawn as a dashed arrow from ``source`` to ``target``.

    ``kind`` is ``"from"`` (a branch summary's ``fromId``) or ``"first-kept"`` (a
    compaction's ``firstKeptEntryId``).
    """

    source: str
    target: str
    kind: str


@dataclass
class Scene:
    """Everything one picture shows. ``graph`` holds the visible nodes (entries, folded runs,
    missing parents) with edges parent -> child in file order."""

    graph: nx.DiGraph
    leaf_id: str | None
    view: str
    path_ids: tuple[str, ...]
    references: list[Reference] = field(default_factory=list)
    problems: list[Any] = field(default_factory=list)   # damage diagnostics, file order


def ascii_text(text: str) -> str:
    """Ids, model ids, labels and names stay ASCII: every font has those glyphs, so the image
    is the same anywhere. (The kind line is in the figure's language; a Chinese figure is
    drawn with a CJK font.)"""
    return text.encode("ascii", "replace").decode("ascii")


def short_id(entry_id: str) -> str:
    return ascii_text(entry_id if len(entry_id) <= ID_CHARS else entry_id[:ID_CHARS] + "~")


def kind_text(obj: Mapping[str, Any], lang: str | None = None) -> str:
    """``user``, ``asst``, ``COMPACT``, ``think:high``... (Chinese: ``用户``, ``助手``, ``压缩``,
    ``思考级别 high``...): the second line of a node. A role or type the course does not
    know is shown as it is, cut to 10 ASCII characters."""
    kind = obj.get("type")
    if kind == "message":
        message = obj.get("message")
        role = message.get("role") if isinstance(message, Mapping) else None
        if isinstance(role, str) and role in ROLE_KINDS:   # (a list would not hash)
            return t(f"drawing.kind.{role}", lang)
        return ascii_text(str(role))[:10]
    if kind == "thinking_level_change":
        level = ascii_text(str(obj.get("thinkingLevel")))[:THINKING_LEVEL_CHARS]
        return t("drawing.kind.thinking_level_change", lang, level=level)
    if isinstance(kind, str) and kind in TYPE_KINDS:
        return t(f"drawing.kind.{kind}", lang)
    return ascii_text(str(kind))[:10]


THINKING_LEVEL_CHARS = 8  # "minimal" and "medium" fit; an odd value is cut
DETAIL_CHARS = 13  # a label's text or a session name (in quotes) is cut to this many characters
MODEL_CHARS = 17   # a model id is cut to this many: "claude-sonnet-4-5" fits, as wide as a label node


def _cut(text: str, limit: int = DETAIL_CHARS) -> str:
    text = ascii_text(text)
    return text if len(text) <= limit else text[:limit - 1] + "~"


def detail_text(obj: Mapping[str, Any], lang: str | None = None) -> str | None:
    """The third line of a node whose kind alone says little: what a label entry points at
    and says, which model a model_change picks, which name a session_info gives."""
    kind = obj.get("type")
    if kind == "label":
        value = obj.get("label")
        return f'"{_cut(value)}"' if isinstance(value, str) and value \
            else t("drawing.cleared", lang)
    if kind == "model_change":
        return _cut(str(obj.get("modelId")), MODEL_CHARS)
    if kind == "session_info":
        name = obj.get("name")
        return f'"{_cut(name)}"' if isinstance(name, str) and name.strip() \
            else t("drawing.cleared", lang)
    return None


def node_text(obj: Mapping[str, Any], lang: str | None = None) -> str:
    """``id`` / ``kind`` (a label adds ``-> target``), then the detail line if any."""
    kind = kind_text(obj, lang)
    if obj.get("type") == "label":
        kind = f"{kind} -> {short_id(str(obj.get('targetId')))}"
    detail = detail_text(obj, lang)
    return f"{short_id(obj['id'])}\n{kind}" + (f"\n{detail}" if detail else "")


def compaction_zones(snapshot: SessionSnapshot, path: tuple[str, ...]) -> dict[str, str]:
    """``{entry id: "summarised" | "kept"}`` for the latest compaction on ``path``.

    Pi's rule (section 8): if ``firstKeptEntryId`` is missing or not on the path, nothing
    before the compaction is kept.
    """
    compaction_at = None
    for index, entry_id in enumerate(path):
        if snapshot.entry(entry_id).get("type") == "compaction":
            compaction_at = index
    if compaction_at is None:
        return {}
    before = path[:compaction_at]
    first_kept = snapshot.entry(path[compaction_at]).get("firstKeptEntryId")
    kept_from = before.index(first_kept) if first_kept in before else len(before)
    zones = {entry_id: "summarised" for entry_id in before[:kept_from]}
    zones.update({entry_id: "kept" for entry_id in before[kept_from:]})
    return zones


def context_positions(snapshot: SessionSnapshot, path: tuple[str, ...]) -> dict[str, int]:
    """``{entry id: 1-based position}`` of each entry's message in what the model sees."""
    messages = build_session_context(snapshot.entry(entry_id) for entry_id in path).messages
    positions: dict[str, int] = {}
    for number, message in enumerate(messages, start=1):
        positions.setdefault(message.get("entryId"), number)
    return positions


def damage_codes(snapshot: SessionSnapshot) -> tuple[dict[str, list[str]], list[Any]]:
    """Damage per entry id (codes, file order) and every damage diagnostic in order.

    A diagnostic names its entry, or else (a glued line) marks every entry read from its line.
    """
    per_entry: dict[str, list[str]] = defaultdict(list)
    problems = []
    for diagnostic in snapshot.diagnostics:
        if diagnostic.code not in DAMAGE_CODES:
            continue
        problems.append(diagnostic)
        if diagnostic.entry_id is not None:
            marked: tuple[str, ...] = (diagnostic.entry_id,)
        else:
            marked = snapshot.line_ids.get(diagnostic.line, ())
        for entry_id in marked:
            if entry_id in snapshot and diagnostic.code not in per_entry[entry_id]:
                per_entry[entry_id].append(diagnostic.code)
    return per_entry, problems


def entry_graph(snapshot: SessionSnapshot) -> tuple[nx.DiGraph, dict[str, list[str]]]:
    """Every entry as a node, one edge from its parent, plus red nodes for missing parents.

    Returns the graph and the structural damage found while building it. Nodes and edges
    are inserted in file order, so a node's successors are its children in file order.
    """
    graph = nx.DiGraph()
    damage: dict[str, list[str]] = defaultdict(list)
    for entry_id in snapshot.ids:
        parent = snapshot.parent_id(entry_id)
        if parent is not None and parent not in snapshot:
            missing = f"missing:{parent}"
            if missing not in graph:
                graph.add_node(missing, kind="missing", text=f"? {short_id(parent)}")
            damage[entry_id].append("dangling-parent")
        graph.add_node(entry_id, kind="entry")
        if parent == entry_id:
            damage[entry_id].append("self-parent")  # drawn as a root, like Pi's getTree
        elif parent is not None:
            graph.add_edge(parent if parent in snapshot else f"missing:{parent}", entry_id)
    _cut_loops(graph, snapshot, damage)
    return graph, damage


def _cut_loops(graph: nx.DiGraph, snapshot: SessionSnapshot,
               damage: dict[str, list[str]]) -> None:
    """Cut every loop of parent pointers where the loader cuts it, at the member written
    first in the file (it names a parent written after it), so the rest is still a tree."""
    order = {entry_id: number for number, entry_id in enumerate(snapshot.ids)}
    parent_of: dict[str, str | None] = {}
    for entry_id in snapshot.ids:
        parent = snapshot.parent_id(entry_id)
        parent_of[entry_id] = None if parent == entry_id else parent  # a self-parent: no edge
    for loop in find_cycles(parent_of):
        for member in loop:
            if "cycle" not in damage[member]:
                damage[member].append("cycle")
        cut = min(loop, key=order.__getitem__)
        graph.remove_edge(parent_of[cut], cut)


def build_scene(source: Any, *, leaf_id: str | None = None, view: str = "branch",
                fold_runs: bool = True, lang: str | None = None) -> Scene:
    """Decide every node, edge and mark of the picture of ``source`` at ``leaf_id``."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {VIEWS}, not {view!r}")
    snapshot = SessionSnapshot.of(source)
    leaf = snapshot.leaf_id if leaf_id is None else leaf_id
    if leaf is not None and leaf not in snapshot:
        raise UnknownTranscriptEntry(leaf)
    path = snapshot.path_ids(leaf) if leaf is not None else ()
    on_path = set(path)
    zones = compaction_zones(snapshot, path)
    positions = context_positions(snapshot, path) if view == "context" else {}
    damage, problems = damage_codes(snapshot)

    graph, structural = entry_graph(snapshot)
    for entry_id, codes in structural.items():
        damage[entry_id].extend(code for code in codes if code not in damage[entry_id])
    for entry_id in snapshot.ids:
        obj = snapshot.entry(entry_id)
        graph.nodes[entry_id].update(
            text=node_text(obj, lang), group=record_group(obj.get("type")),
            on_path=entry_id in on_path, zone=zones.get(entry_id),
            position=positions.get(entry_id), label=snapshot.labels.get(entry_id),
            damage=tuple(damage.get(entry_id, ())), is_leaf=entry_id == leaf)
    for parent, child in graph.edges:
        graph.edges[parent, child]["on_path"] = parent in on_path and child in on_path
    references = _references(snapshot)
    if fold_runs:
        graph = fold_linear_runs(graph, _must_show(snapshot, graph, references, leaf), lang)
    return Scene(graph, leaf, view, path, references, problems)


def _references(snapshot: SessionSnapshot) -> list[Reference]:
    """Dashed arrows: branch summary -> ``fromId``, compaction -> ``firstKeptEntryId``."""
    references = []
    for entry_id in snapshot.ids:
        obj = snapshot.entry(entry_id)
        if obj.get("type") == "branch_summary" and obj.get("fromId") in snapshot:
            references.append(Reference(entry_id, obj["fromId"], "from"))
        if obj.get("type") == "compaction" and obj.get("firstKeptEntryId") in snapshot:
            references.append(Reference(entry_id, obj["firstKeptEntryId"], "first-kept"))
    return references


def _must_show(snapshot: SessionSnapshot, graph: nx.DiGraph, references: list[Reference],
               leaf: str | None) -> set[str]:
    """Nodes a fold may never hide: roots, leaves, branch points, the current leaf, both ends
    of every reference, compactions, branch summaries, labelled and damaged entries."""
    keep = {node for node in graph
            if graph.in_degree(node) != 1 or graph.out_degree(node) != 1
            or graph.nodes[node]["kind"] != "entry"}
    keep |= {reference.source for reference in references}
    keep |= {reference.target for reference in references}
    keep |= {node for node, data in graph.nodes(data=True)
             if data.get("label") or data.get("damage")}
    keep |= {entry_id for entry_id in snapshot.ids
             if snapshot.entry(entry_id).get("type") in ("compaction", "branch_summary")}
    if leaf is not None:
        keep.add(leaf)
    return keep


def _fold_style(data: Mapping[str, Any]) -> tuple[Any, ...]:
    """Entries fold together only when they look the same on the branch and for compaction."""
    return data.get("on_path"), data.get("zone")


def _same_run(graph: nx.DiGraph, keep: set[str], node: str, neighbour: str) -> bool:
    """Whether ``neighbour`` (the parent or child of ``node``) folds together with it."""
    return neighbour not in keep and _fold_style(graph.nodes[neighbour]) == _fold_style(
        graph.nodes[node])


def _folded_node(graph: nx.DiGraph, members: list[str], lang: str | None) -> dict[str, Any]:
    """The attributes of the one node that stands for ``members``. In the context view it
    also says how many of them send a message to the model."""
    first = graph.nodes[members[0]]
    text = t("drawing.folded", lang, count=len(members))
    sent = sum(1 for member in members if graph.nodes[member].get("position"))
    if sent:
        text += "\n" + t("drawing.folded_sent", lang, count=sent)
    return {"kind": "folded", "members": tuple(members), "text": text,
            "on_path": first.get("on_path"), "zone": first.get("zone")}


def fold_linear_runs(graph: nx.DiGraph, keep: set[str], lang: str | None = None) -> nx.DiGraph:
    """A copy of ``graph`` where each chain of at least ``MIN_FOLDED_RUN`` foldable nodes
    (same style, one parent, one child) is replaced by one ``folded`` node.

    The new graph is built in the old node order, so file order (and the layout) survives.
    """
    run_of: dict[str, str] = {}           # member -> id of its folded node
    runs: dict[str, list[str]] = {}
    for node in graph:
        if node in keep or node in run_of:
            continue
        if _same_run(graph, keep, node, next(iter(graph.predecessors(node)))):
            continue  # not the start of a run; its run's start will collect it
        run = [node]
        child = next(iter(graph.successors(node)))
        while _same_run(graph, keep, node, child):
            run.append(child)
            child = next(iter(graph.successors(child)))
        if len(run) >= MIN_FOLDED_RUN:
            runs[f"fold:{node}"] = run
            run_of.update((member, f"fold:{node}") for member in run)

    folded = nx.DiGraph()
    for node, data in graph.nodes(data=True):
        visible = run_of.get(node, node)
        if visible not in folded:
            if visible in runs:
                folded.add_node(visible, **_folded_node(graph, runs[visible], lang))
            else:
                folded.add_node(node, **data)
        for parent in graph.predecessors(node):
            visible_parent = run_of.get(parent, parent)
            if visible_parent != visible:
                folded.add_edge(visible_parent, visible, **graph.edges[parent, node])
    return folded
