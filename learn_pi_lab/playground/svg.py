"""The session tree as SVG: the static figure's layout and colours, made clickable.

The picture is decided by the same code as ``drawing.draw_session``: ``drawing.scene``
(what each node is: its record group, on the branch or not, label, damage, its place in
what the model sees) and ``drawing.layout.tree_layout`` (where it goes), coloured from
``drawing.style``. Only the last step differs: SVG text instead of matplotlib, so a browser
can click a node (each is a ``<g class="lpl-node" data-id="...">``) and a saved notebook
can show the same picture without a kernel.

Nothing is folded: a playground tree is small, and every node must stay clickable.

Every coloured mark carries a class (``lpl-edge``, ``lpl-box``, ``lpl-leaf-mark``, ...) as well
as its colour: inside JupyterLab, ``playground.css`` recolours the marks from the theme's
palette (light, dark, high contrast); a saved notebook read elsewhere keeps the colours written
here, which are the static figure's.
"""

from __future__ import annotations

from html import escape
from typing import Any, Iterable, Mapping

from learn_pi_lab.drawing import style
from learn_pi_lab.drawing.layout import tree_layout
from learn_pi_lab.drawing.scene import build_scene
from learn_pi_lab.i18n import current_language, t
from learn_pi_lab.jsonl.writer import to_json_line
from learn_pi_lab.pi.session import Session, session_from_text

NODE_W, NODE_H = 70, 34          # node box, in SVG units (pixels at 100 %)
STEP_X, STEP_Y = 84, 58          # distance between columns and between rows
MARGIN = 22
LEAF_MARK_W = 44                 # room for the '◀ leaf' mark right of the last column (clear of a ring)
NEW_COLOUR = "#ff7f0e"           # orange ring: what the last command appended
SELECTED_COLOUR = "#17becf"      # teal ring: the node you clicked
NODE_TEXT_COLOUR = "#111111"     # the words in a node, on its light fill, in every theme


def session_of_objects(objects: Iterable[Mapping[str, Any]]) -> Session:
    """A ``Session`` read from entry objects, as if they were the lines of a file."""
    header = {"type": "session", "version": 3, "id": "picture",
              "timestamp": "2026-03-01T10:00:00.000Z", "cwd": ""}
    text = "\n".join(to_json_line(obj) for obj in (header, *objects)) + "\n"
    return session_from_text(text)


def tree_svg(session: Session, *, leaf_id: str | None, view: str = "branch",
             new_ids: Iterable[str] = (), selected: str | None = None,
             rename: Mapping[str, str] | None = None, css_class: str = "lpl-pg-svg",
             titles: Mapping[str, str] | None = None, lang: str | None = None) -> str:
    """The tree of ``session`` with the branch to ``leaf_id`` drawn thick.

    ``new_ids`` get an orange ring (the last command's lines), ``selected`` a teal one.
    ``rename`` shows some ids differently (a target's ``+u`` as ``new``). ``titles`` become
    each node's ``<title>``: the browser's own tooltip, which works without JavaScript too.
    """
    rename = rename or {}
    titles = titles or {}
    lang = current_language(lang)
    if not session.entries:
        return (f'<svg class="{css_class}" xmlns="http://www.w3.org/2000/svg" width="120" '
                f'height="40"><text class="lpl-svg-text" x="8" y="24" font-size="12">'
                f'{escape(t("playground.svg.empty", lang))}</text></svg>')
    scene = build_scene(session, leaf_id=leaf_id, view=view, fold_runs=False, lang=lang)
    graph = scene.graph
    positions = tree_layout(graph)
    new_ids = set(new_ids)
    xs = [x for x, _ in positions.values()]
    depth = max(-y for _, y in positions.values())
    width = int((max(xs) - min(xs)) * STEP_X + NODE_W + 2 * MARGIN + LEAF_MARK_W)
    height = int(depth * STEP_Y + NODE_H + 2 * MARGIN + 12)

    def centre(node: Any) -> tuple[float, float]:
        x, y = positions[node]
        return MARGIN + NODE_W / 2 + (x - min(xs)) * STEP_X, MARGIN + 6 + NODE_H / 2 - y * STEP_Y

    parts = [f'<svg class="{css_class}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" '
             f'font-family="DejaVu Sans, sans-serif" font-size="11">']
    for parent, child in graph.edges:
        (x1, y1), (x2, y2) = centre(parent), centre(child)
        on_path = graph.edges[parent, child].get("on_path")
        colour = style.PATH_COLOUR if on_path else style.OTHER_COLOUR
        stroke = 2.6 if on_path else 1.2
        kind = "lpl-edge lpl-edge-path" if on_path else "lpl-edge"
        parts.append(f'<line class="{kind}" x1="{x1:.1f}" y1="{y1 + NODE_H / 2:.1f}" '
                     f'x2="{x2:.1f}" y2="{y2 - NODE_H / 2:.1f}" stroke="{colour}" '
                     f'stroke-width="{stroke}"/>')
    for reference in scene.references:
        if reference.source in positions and reference.target in positions:
            (x1, y1), (x2, y2) = centre(reference.source), centre(reference.target)
            colour = style.FROM_COLOUR if reference.kind == "from" else style.FIRST_KEPT_COLOUR
            kind = "lpl-ref-from" if reference.kind == "from" else "lpl-ref-kept"
            parts.append(f'<path class="lpl-ref {kind}" d="M{x1 - NODE_W / 2:.1f},{y1:.1f} C{x1 - NODE_W:.1f},{y1:.1f} '
                         f'{x2 - NODE_W:.1f},{y2:.1f} {x2 - NODE_W / 2:.1f},{y2:.1f}" fill="none" '
                         f'stroke="{colour}" stroke-width="1.3" stroke-dasharray="4 3"/>')
    for node, data in graph.nodes(data=True):
        parts.append(_node_svg(node, data, centre(node), new=node in new_ids,
                               selected=node == selected, shown_id=rename.get(node),
                               title=titles.get(node), lang=lang))
    parts.append("</svg>")
    return "".join(parts)


def _node_svg(node: Any, data: Mapping[str, Any], at: tuple[float, float], *, new: bool,
              selected: bool, shown_id: str | None, title: str | None = None,
              lang: str | None = None) -> str:
    x, y = at
    left, top = x - NODE_W / 2, y - NODE_H / 2
    if data.get("kind") == "missing":
        fill, group = style.MISSING_COLOUR, "missing"
    else:
        group = data.get("group", "unknown")
        fill = style.GROUP_COLOURS.get(group, style.GROUP_COLOURS["unknown"])
    damaged = bool(data.get("damage"))
    outline = style.DAMAGE_COLOUR if damaged else (
        style.PATH_COLOUR if data.get("on_path") else style.OTHER_COLOUR)
    stroke = 2.6 if data.get("on_path") or damaged else 1.0
    first, _, second = str(data.get("text", node)).partition("\n")
    if shown_id is not None:
        first = shown_id
    classes = ["lpl-node"] + [name for name, on in (
        ("lpl-on-path", data.get("on_path")), ("lpl-leaf", data.get("is_leaf")),
        ("lpl-new", new), ("lpl-selected", selected), ("lpl-damaged", damaged)) if on]
    name = " ".join(part for part in (first, second) if part)
    if data.get("is_leaf"):
        name += ", " + t("playground.svg.leaf_name", lang)
    out = [f'<g class="{" ".join(classes)}" data-id="{escape(str(node))}" role="button" '
           f'tabindex="-1" aria-label="{escape(name)}" style="cursor:pointer">']
    if title:
        out.append(f"<title>{escape(title)}</title>")
    if new or selected:
        ring = SELECTED_COLOUR if selected else NEW_COLOUR
        kind = "lpl-ring-selected" if selected else "lpl-ring-new"
        out.append(f'<rect class="lpl-ring {kind}" x="{left - 4:.1f}" y="{top - 4:.1f}" '
                   f'width="{NODE_W + 8}" height="{NODE_H + 8}" rx="8" fill="none" '
                   f'stroke="{ring}" stroke-width="3"/>')
    out.append(f'<rect class="lpl-box" x="{left:.1f}" y="{top:.1f}" width="{NODE_W}" '
               f'height="{NODE_H}" rx="5" fill="{fill}" stroke="{outline}" '
               f'stroke-width="{stroke}"/>')
    out.append(f'<text class="lpl-node-text" x="{x:.1f}" y="{y - 3:.1f}" text-anchor="middle" '
               f'font-weight="bold" fill="{NODE_TEXT_COLOUR}">{escape(first)}</text>')
    out.append(f'<text class="lpl-node-text" x="{x:.1f}" y="{y + 10:.1f}" text-anchor="middle" '
               f'fill="{NODE_TEXT_COLOUR}">{escape(second)}</text>')
    if data.get("is_leaf"):
        out.append(f'<text class="lpl-leaf-mark" x="{x + NODE_W / 2 + 7:.1f}" y="{y + 4:.1f}" '
                   f'font-size="10" fill="{style.PATH_COLOUR}">'
                   f'{escape(t("playground.svg.leaf_mark", lang))}</text>')
    if data.get("label"):
        out.append(f'<rect class="lpl-label" x="{left:.1f}" y="{top - 13:.1f}" width="{NODE_W}" '
                   f'height="12" rx="3" fill="{style.LABEL_COLOUR}" stroke="#c9a800" '
                   f'stroke-width="0.6"/><text class="lpl-node-text" x="{x:.1f}" '
                   f'y="{top - 4:.1f}" text-anchor="middle" font-size="9" '
                   f'fill="{NODE_TEXT_COLOUR}">{escape(str(data["label"])[:12])}</text>')
    if data.get("position"):
        out.append(f'<circle class="lpl-sent" cx="{left + NODE_W:.1f}" cy="{top:.1f}" r="8" '
                   f'fill="{style.SENT_COLOUR}"/><text x="{left + NODE_W:.1f}" y="{top + 3.5:.1f}" '
                   f'text-anchor="middle" font-size="9" fill="#fff">{data["position"]}</text>')
    out.append("</g>")
    return "".join(out)
