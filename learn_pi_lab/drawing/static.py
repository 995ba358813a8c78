"""``draw_session``: one picture of a session tree, as a matplotlib ``Figure``.

What you see, from the bottom layer up:

1. grey and green bands along the current branch: the part the latest compaction replaced
   by its summary, and the part it kept;
2. the tree's edges, parent to child; the current branch thick and black;
3. dashed arrows for the two pointers that are not ``parentId``: a branch summary's
   ``fromId`` (purple) and a compaction's ``firstKeptEntryId`` (green);
4. the nodes: id and kind, coloured by record group; summarised nodes hatched, damaged
   ones outlined in red, with a red "? id" node for a parent that does not exist;
5. badges: the leaf, labels, damage codes, and in the context view the position of each
   entry's message in what the model receives.

The figure is built without ``pyplot``, so drawing never opens a window or changes the
learner's current figure. In a notebook, the returned figure shows as the cell's value
(``style.SessionFigure``).
"""

from __future__ import annotations

import textwrap
from typing import Any, Hashable

from matplotlib import rc_context
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from learn_pi_lab.drawing.layout import tree_layout
from learn_pi_lab.drawing.scene import Scene, ascii_text, build_scene, short_id
from learn_pi_lab.drawing import style
from learn_pi_lab.i18n import explain, t

MAX_NOTES = 8            # damage messages listed under the tree; the rest are counted
LEGEND_WIDTH = 2.4       # inches kept free on the right for the legend
MAX_SHARE = 0.6          # in a given axes, legend or notes take at most this share of it
ROOM_GAP = 0.03          # and this much more, so the tree does not touch them
NODE_FONT = 7
BADGE_FONT = 6.5
HATCH = "///"
DAMAGE_BADGE_DROP = -11  # points: the damage badge straddles the node's lower border


def draw_session(session_or_tree: Any, *, leaf_id: str | None = None, ax: Axes | None = None,
                 view: str = "branch", fold_runs: bool = True, title: str | None = None,
                 legend: bool = True, lang: str | None = None) -> Figure:
    """Draw a ``pi.session.Session`` or a ``TranscriptTree`` and return the figure.

    ``leaf_id``: the branch to highlight (default: the session's leaf). ``view``:
    ``"branch"`` (the current branch) or ``"context"`` (what the model sees: which entries
    send a message, in which order). ``fold_runs``: fold long linear runs into one node.
    ``ax``: draw into an existing axes instead of a new figure (e.g. two drawings side by
    side from ``plt.subplots(1, 2)``); the legend and the damage notes then stay inside that
    axes, so they never cover the neighbouring drawing. ``legend=False`` leaves the legend
    out. ``title`` replaces the default title as given (the notebook passes it in the
    chapter's language).
    """
    lang = style.figure_language(lang)
    scene = build_scene(session_or_tree, leaf_id=leaf_id, view=view, fold_runs=fold_runs,
                        lang=lang)
    positions = tree_layout(scene.graph)
    with rc_context(style.drawing_rc()):
        own_figure = ax is None
        if ax is None:
            width = _tree_width(positions) + (LEGEND_WIDTH if legend else 0) + 0.3
            notes = _problem_notes(scene, lang, width)
            ax = _new_axes(positions, width, len(notes))
        else:
            notes = _problem_notes(scene, lang, _axes_width(ax))
        _draw_zone_bands(ax, scene, positions)
        _draw_edges(ax, scene, positions)
        _draw_references(ax, scene, positions)
        _draw_nodes(ax, scene, positions)
        _draw_badges(ax, scene, positions, lang)
        _finish_axes(ax, scene, positions, notes, title, legend, own_figure, lang)
    return ax.figure


# -- figure ----------------------------------------------------------------------------

def _extent(positions: dict[Hashable, tuple[float, float]]) -> tuple[float, float]:
    """(columns, rows) the tree occupies."""
    if not positions:
        return 1.0, 1.0
    return (max(x for x, _ in positions.values()) + 1,
            -min(y for _, y in positions.values()) + 1)


def _tree_width(positions: dict[Hashable, tuple[float, float]]) -> float:
    """Inches for the tree itself (capped so a huge unfolded tree stays a sane image)."""
    columns, _ = _extent(positions)
    return min(28.0, max(3.0, 0.95 * columns + 0.6))


def _new_axes(positions: dict[Hashable, tuple[float, float]], width: float,
              note_lines: int) -> Axes:
    """A figure sized to the tree, the legend on its right and the notes under it."""
    _, rows = _extent(positions)
    tree_width = _tree_width(positions)
    tree_height = min(40.0, max(2.2, 0.85 * rows + 0.6))
    notes_height = 0.15 * note_lines + (0.15 if note_lines else 0)
    height = tree_height + notes_height + 0.6
    figure = style.SessionFigure(figsize=(width, height), dpi=style.DPI)
    return figure.add_axes((0.15 / width, (0.1 + notes_height) / height,
                            tree_width / width, tree_height / height))


def _axes_width(ax: Axes) -> float:
    """Inches the axes spans: the notes are wrapped to it."""
    return ax.get_position().width * ax.figure.get_figwidth()


def _finish_axes(ax: Axes, scene: Scene, positions: dict[Hashable, tuple[float, float]],
                 notes: list[str], title: str | None, legend: bool, own_figure: bool,
                 lang: str) -> None:
    """Limits, title, legend and notes.

    In its own figure the drawing has room reserved outside the axes: the legend on the
    right, the notes below. In an axes the caller gave, the space around it may belong to
    another drawing, so the legend and notes go inside the axes and the tree is drawn
    smaller to leave them room (``_make_room``).
    """
    columns, rows = _extent(positions)
    ax.set_xlim(-0.7, columns - 0.3)
    ax.set_ylim(-rows + 0.4, 0.6)
    ax.set_axis_off()
    ax.set_title(title if title is not None else _default_title(scene, lang),
                 loc="left", fontsize=10)
    legend_box = notes_box = None
    if legend:
        legend_box = ax.legend(handles=_legend_handles(scene, lang), fontsize=7, frameon=False,
                               loc="upper left" if own_figure else "upper right",
                               bbox_to_anchor=(1.01, 1.0) if own_figure else (1.0, 1.0))
    if notes:
        notes_box = ax.text(0.0, -0.01 if own_figure else 0.0, "\n".join(notes),
                            transform=ax.transAxes, ha="left",
                            va="top" if own_figure else "bottom",
                            fontsize=7, color=style.DAMAGE_COLOUR)
    if not own_figure:
        _make_room(ax, legend_box, notes_box)


def _make_room(ax: Axes, legend_box: Artist | None, notes_box: Artist | None) -> None:
    """Widen the x limits so the tree ends left of the legend, and lower the y limits so it
    ends above the notes (both measured as a share of the axes, at most ``MAX_SHARE``)."""
    axes_box = ax.get_window_extent()
    right = legend_box.get_window_extent().width / axes_box.width if legend_box else 0.0
    below = notes_box.get_window_extent().height / axes_box.height if notes_box else 0.0
    left_x, right_x = ax.get_xlim()
    bottom_y, top_y = ax.get_ylim()
    ax.set_xlim(left_x, left_x + (right_x - left_x) / (1 - min(MAX_SHARE, right + ROOM_GAP)))
    ax.set_ylim(top_y - (top_y - bottom_y) / (1 - min(MAX_SHARE, below + ROOM_GAP)), top_y)


def _default_title(scene: Scene, lang: str) -> str:
    if scene.leaf_id is None:
        return t("drawing.title.empty", lang)
    key = "drawing.title.context" if scene.view == "context" else "drawing.title.branch"
    return t(key, lang, leaf=short_id(scene.leaf_id), count=len(scene.path_ids))


def _problem_notes(scene: Scene, lang: str, width_inches: float) -> list[str]:
    """The damage diagnostics ("line N: ..."), at most ``MAX_NOTES``, wrapped to the width."""
    notes = [explain(problem, lang) for problem in scene.problems[:MAX_NOTES]]
    if len(scene.problems) > MAX_NOTES:
        notes.append(t("drawing.notes.more", lang, count=len(scene.problems) - MAX_NOTES))
    # About 18 characters per inch at 7 points; a Chinese character is twice as wide.
    characters = int(width_inches * (9 if lang == "zh" else 18))
    return [line for note in notes
            for line in textwrap.wrap(note, characters, subsequent_indent="    ")]


# -- layers ----------------------------------------------------------------------------

def _draw_zone_bands(ax: Axes, scene: Scene,
                     positions: dict[Hashable, tuple[float, float]]) -> None:
    """Wide translucent bands behind the branch: summarised (grey) and kept (green)."""
    graph = scene.graph
    band_colour = {"summarised": style.SUMMARISED_BAND, "kept": style.KEPT_COLOUR}
    for zone, colour in band_colour.items():
        nodes = [node for node, data in graph.nodes(data=True) if data.get("zone") == zone]
        for parent, child in graph.edges:
            if parent in nodes and child in nodes:
                (x1, y1), (x2, y2) = positions[parent], positions[child]
                ax.plot([x1, x2], [y1, y2], color=colour, linewidth=16, alpha=0.45,
                        solid_capstyle="round", zorder=0)
        if nodes:
            ax.scatter([positions[node][0] for node in nodes],
                       [positions[node][1] for node in nodes],
                       s=700, color=colour, alpha=0.45, linewidths=0, zorder=0)


def _draw_edges(ax: Axes, scene: Scene, positions: dict[Hashable, tuple[float, float]]) -> None:
    graph = scene.graph
    for parent, child, data in graph.edges(data=True):
        (x1, y1), (x2, y2) = positions[parent], positions[child]
        if graph.nodes[parent]["kind"] == "missing":
            ax.plot([x1, x2], [y1, y2], color=style.DAMAGE_COLOUR, linewidth=1.4,
                    linestyle="--", zorder=1)
        elif data.get("on_path"):
            ax.plot([x1, x2], [y1, y2], color=style.PATH_COLOUR, linewidth=2.8, zorder=1)
        else:
            ax.plot([x1, x2], [y1, y2], color=style.OTHER_COLOUR, linewidth=1.0, zorder=1)


def _draw_references(ax: Axes, scene: Scene,
                     positions: dict[Hashable, tuple[float, float]]) -> None:
    colours = {"from": style.FROM_COLOUR, "first-kept": style.FIRST_KEPT_COLOUR}
    for reference in scene.references:
        if reference.source not in positions or reference.target not in positions:
            continue
        ax.annotate("", xy=positions[reference.target], xytext=positions[reference.source],
                    zorder=2, arrowprops=dict(
                        arrowstyle="-|>", color=colours[reference.kind], linestyle="--",
                        linewidth=1.2, shrinkA=13, shrinkB=13,
                        connectionstyle="arc3,rad=-0.45"))


def _node_style(data: dict[str, Any], view: str) -> dict[str, Any]:
    """Box and text properties of one node, from the scene's plain data."""
    kind = data["kind"]
    fill = {"entry": style.GROUP_COLOURS.get(data.get("group"), style.GROUP_COLOURS["unknown"]),
            "folded": style.FOLDED_COLOUR, "missing": style.MISSING_COLOUR}[kind]
    box: dict[str, Any] = {"boxstyle": "round,pad=0.35", "facecolor": fill,
                           "edgecolor": style.OTHER_COLOUR, "linewidth": 0.8}
    text_colour = "#000000"
    if data.get("zone") == "summarised":
        box.update(facecolor=style.SUMMARISED_COLOUR, hatch=HATCH)
        text_colour = "#444444"
    if kind != "entry":
        box["linestyle"] = "--"
    if kind == "missing" or data.get("damage"):
        box.update(edgecolor=style.DAMAGE_COLOUR, linewidth=2.4)
    elif view == "context" and data.get("position"):
        box.update(edgecolor=style.SENT_COLOUR, linewidth=2.4)
    elif data.get("on_path"):
        box.update(edgecolor=style.PATH_COLOUR, linewidth=2.0)
    return {"bbox": box, "color": text_colour,
            "fontstyle": "italic" if kind == "folded" else "normal"}


def _draw_nodes(ax: Axes, scene: Scene, positions: dict[Hashable, tuple[float, float]]) -> None:
    for node, data in scene.graph.nodes(data=True):
        x, y = positions[node]
        ax.text(x, y, data["text"], ha="center", va="center", fontsize=NODE_FONT,
                zorder=3, **_node_style(data, scene.view))


def _badge(ax: Axes, xy: tuple[float, float], text: str, offset: tuple[float, float],
           align: str, **properties: Any) -> None:
    """A small text fixed at ``offset`` points from a node, so it does not scale with the tree."""
    ax.annotate(text, xy=xy, xytext=offset, textcoords="offset points", ha=align,
                va="center", fontsize=BADGE_FONT, zorder=4, **properties)


def _draw_badges(ax: Axes, scene: Scene, positions: dict[Hashable, tuple[float, float]],
                 lang: str) -> None:
    """Label (right), damage (on the node's lower border, so it reads as part of the node
    and not of the edge below it), message position (upper left), leaf (lower left)."""
    for node, data in scene.graph.nodes(data=True):
        xy = positions[node]
        if data.get("label"):
            _badge(ax, xy, ascii_text(data["label"])[:18], (24, 9), "left",
                   bbox={"boxstyle": "round,pad=0.2", "facecolor": style.LABEL_COLOUR,
                         "edgecolor": "#b59f00", "linewidth": 0.6})
        if data.get("damage"):
            _badge(ax, xy, ", ".join(data["damage"]), (0, DAMAGE_BADGE_DROP), "center",
                   color=style.DAMAGE_COLOUR, fontweight="bold",
                   bbox={"boxstyle": "round,pad=0.2", "facecolor": "white",
                         "edgecolor": style.DAMAGE_COLOUR, "linewidth": 0.8})
        if scene.view == "context" and data.get("position"):
            _badge(ax, xy, f"#{data['position']}", (-24, 9), "right",
                   color=style.SENT_COLOUR, fontweight="bold")
        if data.get("is_leaf"):
            _badge(ax, xy, t("drawing.leaf", lang), (-24, -9), "right",
                   color=style.PATH_COLOUR, fontweight="bold")


def _legend_handles(scene: Scene, lang: str) -> list[Any]:
    """The record groups always; every other mark only when the picture has one."""
    handles: list[Any] = [Patch(facecolor=style.GROUP_COLOURS[group], edgecolor=style.OTHER_COLOUR,
                                label=t(f"drawing.group.{group}", lang))
                          for group in style.GROUPS]
    handles.append(Line2D([], [], color=style.PATH_COLOUR, linewidth=2.8,
                          label=t("drawing.legend.path", lang)))
    nodes = [data for _, data in scene.graph.nodes(data=True)]
    kinds = {reference.kind for reference in scene.references}
    if scene.view == "context":
        handles.append(Patch(facecolor="white", edgecolor=style.SENT_COLOUR, linewidth=2.4,
                             label=t("drawing.legend.sent", lang)))
    if any(data.get("zone") == "summarised" for data in nodes):
        handles.append(Patch(facecolor=style.SUMMARISED_COLOUR, edgecolor=style.OTHER_COLOUR,
                             hatch=HATCH, label=t("drawing.legend.summarised", lang)))
    if any(data.get("zone") == "kept" for data in nodes):
        handles.append(Line2D([], [], color=style.KEPT_COLOUR, linewidth=8, alpha=0.45,
                              label=t("drawing.legend.kept", lang)))
    if "from" in kinds:
        handles.append(Line2D([], [], color=style.FROM_COLOUR, linestyle="--",
                              label=t("drawing.legend.from", lang)))
    if "first-kept" in kinds:
        handles.append(Line2D([], [], color=style.FIRST_KEPT_COLOUR, linestyle="--",
                              label=t("drawing.legend.first_kept", lang)))
    if any(data["kind"] == "folded" for data in nodes):
        handles.append(Patch(facecolor=style.FOLDED_COLOUR, edgecolor=style.OTHER_COLOUR,
                             linestyle="--", label=t("drawing.legend.folded", lang)))
    if any(data["kind"] == "missing" or data.get("damage") for data in nodes) or scene.problems:
        handles.append(Patch(facecolor=style.MISSING_COLOUR, edgecolor=style.DAMAGE_COLOUR,
                             linewidth=2.4, label=t("drawing.legend.damaged", lang)))
    return handles
