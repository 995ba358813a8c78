"""``draw_session``: one picture of a session tree, as a matplotlib ``Figure``.

What you see, from the bottom layer up:

1. grey and green bands along the current branch: the part the latest compaction replaced
   by its summary, and the part it kept;
2. the tree's edges, parent to child; the current branch thick and black;
3. dashed arrows for the two pointers that are not ``parentId``: a branch summary's
   ``fromId`` (purple) and a compaction's ``firstKeptEntryId`` (green);
4. the nodes: id and kind (a label also names its target and text, a model change its
   model), coloured by record group; summarised nodes hatched, damaged ones outlined in
   red, with a red "? id" node for a parent that does not exist;
5. badges pinned around each node's box, never over its text: the leaf, labels, damage
   codes, and in the context view the position of each entry's message in what the model
   receives.

A tall tree (a long session) is cut into bands set side by side, like newspaper columns
(``layout.fold_into_bands``); an edge that continues in the next band is drawn as two short
stubs marked with the parent's id. Text is 9 pt and figures stay within the notebook's width,
so it is 9 pt where it is shown (``style.shown_points``).

The figure is built without ``pyplot``, so drawing never opens a window or changes the
learner's current figure. In a notebook, the returned figure shows as the cell's value
(``style.SessionFigure``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable

from matplotlib import rc_context
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from learn_pi_lab.drawing.layout import (band_count, crosses_band, extent, fold_into_bands,
                                         tree_layout)
from learn_pi_lab.drawing.scene import Scene, ascii_text, build_scene, short_id
from learn_pi_lab.drawing import style
from learn_pi_lab.i18n import display_width, explain, t

MAX_NOTES = 8            # damage messages listed under the tree; the rest are counted
MAX_SHARE = 0.6          # in a given axes, legend or notes take at most this share of it
ROOM_GAP = 0.03          # and this much more, so the tree does not touch them
COLUMN_INCHES = 1.35     # horizontal room per tree column (a node is ~1 inch wide at 9 pt)
ROW_INCHES = 0.8         # vertical room per tree row (a node has up to three lines)
MARGIN = 0.15            # inches around the tree
LEGEND_ESTIMATE = 2.6    # inches a legend may take, before it is measured
NOTE_LINE = 0.19         # inches per line of damage notes (9 pt)
HATCH = "///"
BADGE_GAP = 3            # points between a node's box and its badges
COLUMNS_PER_INCH = 13    # display columns of 9 pt text per inch (a Chinese character: 2)
NO_LINE_START = "，。、：；）」』,.;:)"  # never the first character of a wrapped line
NOTES_EXTRA = 1.8        # inches the notes may use beyond the tree (under the legend)
STUB_ROWS = 0.42         # length of the stubs of an edge continued in the next band


def draw_session(session_or_tree: Any, *, leaf_id: str | None = None, ax: Axes | None = None,
                 view: str = "branch", fold_runs: bool = True, title: str | None = None,
                 legend: bool = True, lang: str | None = None) -> Figure:
    """Draw a ``pi.session.Session`` or a ``TranscriptTree`` and return the figure.

    ``leaf_id``: the branch to highlight (default: the session's leaf). ``view``:
    ``"branch"`` (the current branch) or ``"context"`` (what the model sees: which entries
    send a message, in which order). ``fold_runs``: fold long linear runs into one node.
    ``ax``: draw into an existing axes instead of a new figure (``draw_side_by_side`` does
    this for two drawings); the legend and the damage notes then stay inside that axes, so
    they never cover the neighbouring drawing. ``legend=False`` leaves the legend out.
    ``title`` replaces the default title as given (the notebook passes it in the chapter's
    language). A tall tree is cut into bands set side by side (``layout.fold_into_bands``).
    """
    lang = style.figure_language(lang)
    scene = build_scene(session_or_tree, leaf_id=leaf_id, view=view, fold_runs=fold_runs,
                        lang=lang)
    with rc_context(style.drawing_rc(lang)):
        own_figure = ax is None
        budget = (style.MAX_SHOWN_WIDTH - 2 * MARGIN - (LEGEND_ESTIMATE if legend else 0)
                  if own_figure else _axes_width(ax))
        positions = _banded_layout(scene, budget)
        if own_figure:
            notes = _problem_notes(scene, lang, _tree_width(positions) + NOTES_EXTRA)
            ax = _new_axes(positions, len(notes))
        else:
            notes = _problem_notes(scene, lang, _axes_width(ax))
        _draw_zone_bands(ax, scene, positions)
        _draw_edges(ax, scene, positions)
        _draw_references(ax, scene, positions)
        artists = _draw_nodes(ax, scene, positions)
        _draw_badges(ax, scene, artists, lang)
        _finish_axes(ax, scene, positions, notes, title, legend, own_figure, lang)
    return ax.figure


@dataclass(frozen=True)
class Panel:
    """One drawing of ``draw_side_by_side``: a session or tree and how to draw it."""

    source: Any
    title: str | None = None
    leaf_id: str | None = None
    view: str = "branch"
    fold_runs: bool = True


def draw_side_by_side(left: Any, right: Any, *, lang: str | None = None) -> Figure:
    """Two drawings in one figure, left and right, with one legend under both: for text
    that says "on the left ... on the right". ``left`` and ``right`` are sessions, trees or
    ``Panel(source, title=..., leaf_id=..., view=..., fold_runs=...)``."""
    lang = style.figure_language(lang)
    panels = [panel if isinstance(panel, Panel) else Panel(panel) for panel in (left, right)]
    scenes = [build_scene(panel.source, leaf_id=panel.leaf_id, view=panel.view,
                          fold_runs=panel.fold_runs, lang=lang) for panel in panels]
    half = style.MAX_SHOWN_WIDTH / 2 - 2 * MARGIN
    widths = [_tree_width(_banded_layout(scene, half)) for scene in scenes]
    rows = max(extent(_banded_layout(scene, half))[1] for scene in scenes)
    notes = max(len(_problem_notes(scene, lang, width)) for scene, width in zip(scenes, widths))
    handles = _merged_handles([_legend_handles(scene, lang) for scene in scenes])
    legend_rows = -(-len(handles) // 2)
    legend_height = legend_rows * NOTE_LINE * 1.25 + 0.2
    tree_height = _tree_height(rows) + notes * NOTE_LINE
    width = min(style.MAX_SHOWN_WIDTH, sum(widths) + 4 * MARGIN + 0.3)
    height = tree_height + legend_height + 0.7
    figure = style.SessionFigure(figsize=(width, height), dpi=style.DPI)
    left_share = widths[0] / sum(widths)
    inner = width - 4 * MARGIN - 0.3
    with rc_context(style.drawing_rc(lang)):
        x = MARGIN
        for panel, share in zip(panels, (left_share, 1 - left_share)):
            ax = figure.add_axes((x / width, legend_height / height,
                                  inner * share / width, tree_height / height))
            draw_session(panel.source, ax=ax, leaf_id=panel.leaf_id, view=panel.view,
                         fold_runs=panel.fold_runs, title=panel.title, legend=False, lang=lang)
            x += inner * share + 2 * MARGIN + 0.3
        figure.legend(handles=handles, loc="lower left", bbox_to_anchor=(MARGIN / width, 0.02),
                      ncol=2, frameon=False, fontsize=style.TEXT_POINTS)
    return figure


# -- figure ----------------------------------------------------------------------------

def _banded_layout(scene: Scene, width_inches: float) -> dict[Hashable, tuple[float, float]]:
    """The tidy tree layout, cut into side-by-side bands when it is tall (as many as fit
    into ``width_inches``)."""
    positions = tree_layout(scene.graph)
    columns, rows = extent(positions)
    bands = band_count(columns, rows, max_columns=width_inches / COLUMN_INCHES)
    if bands > 1:
        positions, _ = fold_into_bands(positions, bands)
    return positions


def _tree_width(positions: dict[Hashable, tuple[float, float]]) -> float:
    """Inches for the tree itself (capped so a huge unfolded tree stays a sane image)."""
    columns, _ = extent(positions)
    return min(28.0, max(COLUMN_INCHES, COLUMN_INCHES * columns))


def _tree_height(rows: float) -> float:
    return min(40.0, max(1.8, ROW_INCHES * rows + 0.5))


def _new_axes(positions: dict[Hashable, tuple[float, float]], note_lines: int) -> Axes:
    """A figure sized to the tree, with room for the notes under it; the legend's room on
    the right is fitted once the legend exists (``_fit_legend``)."""
    _, rows = extent(positions)
    tree_width = _tree_width(positions)
    tree_height = _tree_height(rows)
    notes_height = NOTE_LINE * note_lines + (0.1 if note_lines else 0)
    width = tree_width + 2 * MARGIN + LEGEND_ESTIMATE
    height = tree_height + notes_height + 0.45
    figure = style.SessionFigure(figsize=(width, height), dpi=style.DPI)
    return figure.add_axes((MARGIN / width, (0.1 + notes_height) / height,
                            tree_width / width, tree_height / height))


def _axes_width(ax: Axes) -> float:
    """Inches the axes spans: the notes are wrapped to it."""
    return ax.get_position().width * ax.figure.get_figwidth()


def _fit_legend(ax: Axes, legend_box: Legend, texts: list[Text]) -> None:
    """Make the figure exactly wide enough for the tree and the legend beside it, and tall
    enough for the legend: it sits next to the tree, never far off to the right, and never
    outside the image. A title or notes wider than both widen the image instead."""
    figure = ax.figure
    old_width, old_height = figure.get_size_inches()
    box = ax.get_position()
    left, bottom = box.x0 * old_width, box.y0 * old_height
    tree_width, tree_height = box.width * old_width, box.height * old_height
    extent_px = legend_box.get_window_extent()
    legend_width = extent_px.width / figure.dpi
    legend_height = extent_px.height / figure.dpi
    top_room = old_height - bottom - tree_height
    height = max(old_height, bottom + legend_height + top_room)
    text_width = max(text.get_window_extent().width for text in texts) / figure.dpi
    width = left + max(tree_width + 0.1 + legend_width, text_width) + MARGIN
    figure.set_size_inches(width, height)
    ax.set_position((left / width, bottom / height, tree_width / width,
                     (height - bottom - top_room) / height))


def _finish_axes(ax: Axes, scene: Scene, positions: dict[Hashable, tuple[float, float]],
                 notes: list[str], title: str | None, legend: bool, own_figure: bool,
                 lang: str) -> None:
    """Limits, title, legend and notes.

    In its own figure the drawing has room outside the axes: the legend right beside the
    tree (the figure is then fitted to it), the notes below. In an axes the caller gave, the
    space around it may belong to another drawing, so the legend (two columns) and the notes
    go inside the axes, at its bottom, and the tree is drawn above them (``_make_room``).
    """
    columns, rows = extent(positions)
    ax.set_xlim(-0.6, columns - 0.4)
    ax.set_ylim(-rows + 0.45, 0.55)
    ax.set_axis_off()
    # The axes (and its title text) may have been made outside the course's fonts, by
    # plt.subplots in a chapter: name the fonts, so a Chinese title does not become boxes.
    title_text = ax.set_title(title if title is not None else _default_title(scene, lang),
                              loc="left", fontsize=style.TITLE_POINTS,
                              fontfamily=style.font_families(lang))
    legend_box = notes_box = None
    if legend:
        legend_box = ax.legend(
            handles=_legend_handles(scene, lang), fontsize=style.TEXT_POINTS, frameon=False,
            borderaxespad=0.0, ncol=1 if own_figure else 2,
            loc="upper left" if own_figure else "lower left",
            bbox_to_anchor=(1.0, 1.0) if own_figure else (0.0, 0.0))
    if notes:
        above_legend = 0.0
        if legend_box is not None and not own_figure:
            above_legend = (legend_box.get_window_extent().height
                            / ax.get_window_extent().height)
        notes_box = ax.text(0.0, -0.01 if own_figure else above_legend, "\n".join(notes),
                            transform=ax.transAxes, ha="left",
                            va="top" if own_figure else "bottom",
                            fontsize=style.TEXT_POINTS, color=style.DAMAGE_COLOUR)
    if own_figure:
        if legend_box is not None:
            _fit_legend(ax, legend_box, [title_text] + ([notes_box] if notes_box else []))
        else:
            width, height = ax.figure.get_size_inches()
            box = ax.get_position()
            title_width = title_text.get_window_extent().width / ax.figure.dpi
            new_width = max(width - LEGEND_ESTIMATE, box.x0 * width + title_width + MARGIN)
            ax.figure.set_size_inches(new_width, height)
            ax.set_position((box.x0 * width / new_width, box.y0, box.width * width / new_width,
                             box.height))
    else:
        _make_room(ax, [box for box in (legend_box, notes_box) if box is not None])


def _make_room(ax: Axes, below: list[Artist]) -> None:
    """Lower the y limits so the tree ends above the legend and the notes at the bottom of
    the axes (measured as a share of the axes, at most ``MAX_SHARE``)."""
    axes_box = ax.get_window_extent()
    share = sum(artist.get_window_extent().height for artist in below) / axes_box.height
    bottom_y, top_y = ax.get_ylim()
    ax.set_ylim(top_y - (top_y - bottom_y) / (1 - min(MAX_SHARE, share + ROOM_GAP)), top_y)


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
    columns = max(24, int(width_inches * COLUMNS_PER_INCH))
    return [line for note in notes for line in wrap_columns(note, columns)]


def wrap_columns(text: str, columns: int, indent: str = "    ") -> list[str]:
    """``text`` in lines of at most ``columns`` display columns (a Chinese character takes
    two, ``i18n.display_width``), broken at a space when there is one, else anywhere but
    before closing punctuation."""
    lines: list[str] = []
    line = ""
    for char in text:
        if display_width(line + char) > columns and char not in NO_LINE_START:
            cut = line.rfind(" ")
            head, rest = (line[:cut], line[cut + 1:]) if cut > len(indent) else (line, "")
            lines.append(head.rstrip())
            line = indent + rest
        line += char
    lines.append(line.rstrip())
    return [item for item in lines if item.strip()]


# -- layers ----------------------------------------------------------------------------

def _draw_zone_bands(ax: Axes, scene: Scene,
                     positions: dict[Hashable, tuple[float, float]]) -> None:
    """Wide translucent bands behind the branch: summarised (grey) and kept (green)."""
    graph = scene.graph
    band_colour = {"summarised": style.SUMMARISED_BAND, "kept": style.KEPT_COLOUR}
    for zone, colour in band_colour.items():
        nodes = [node for node, data in graph.nodes(data=True) if data.get("zone") == zone]
        for parent, child in graph.edges:
            if (parent in nodes and child in nodes
                    and not crosses_band(positions[parent], positions[child])):
                (x1, y1), (x2, y2) = positions[parent], positions[child]
                ax.plot([x1, x2], [y1, y2], color=colour, linewidth=16, alpha=0.45,
                        solid_capstyle="round", zorder=0)
        if nodes:
            ax.scatter([positions[node][0] for node in nodes],
                       [positions[node][1] for node in nodes],
                       s=700, color=colour, alpha=0.45, linewidths=0, zorder=0)


def _edge_style(scene: Scene, parent: Hashable, data: dict[str, Any]) -> dict[str, Any]:
    if scene.graph.nodes[parent]["kind"] == "missing":
        return {"color": style.DAMAGE_COLOUR, "linewidth": 1.4, "linestyle": "--"}
    if data.get("on_path"):
        return {"color": style.PATH_COLOUR, "linewidth": 2.8}
    return {"color": style.OTHER_COLOUR, "linewidth": 1.0}


def _draw_edges(ax: Axes, scene: Scene, positions: dict[Hashable, tuple[float, float]]) -> None:
    """Parent -> child lines. An edge that continues in the next band is drawn as two short
    stubs: one leaving the parent downwards, one entering the child from above, marked
    with the parent's id on its left, so no long line crosses the picture."""
    for parent, child, data in scene.graph.edges(data=True):
        (x1, y1), (x2, y2) = positions[parent], positions[child]
        line = _edge_style(scene, parent, data)
        if not crosses_band(positions[parent], positions[child]):
            ax.plot([x1, x2], [y1, y2], zorder=1, **line)
            continue
        stub = {**line, "linestyle": ":"}
        ax.plot([x1, x1], [y1, y1 - STUB_ROWS], zorder=1, **stub)
        ax.plot([x2, x2], [y2 + STUB_ROWS, y2], zorder=1, **stub)
        ax.text(x2 - 0.06, y2 + STUB_ROWS, f"{scene.graph.nodes[parent]['text'].split()[0]} \u2192",
                ha="right", va="center", fontsize=style.TEXT_POINTS, color=line["color"],
                zorder=2)


def _draw_references(ax: Axes, scene: Scene,
                     positions: dict[Hashable, tuple[float, float]]) -> None:
    colours = {"from": style.FROM_COLOUR, "first-kept": style.FIRST_KEPT_COLOUR}
    for reference in scene.references:
        if reference.source not in positions or reference.target not in positions:
            continue
        ax.annotate("", xy=positions[reference.target], xytext=positions[reference.source],
                    zorder=2, arrowprops=dict(
                        arrowstyle="-|>", color=colours[reference.kind], linestyle="--",
                        linewidth=1.2, shrinkA=16, shrinkB=16,
                        connectionstyle="arc3,rad=-0.45"))


NODE_PAD = 0.35   # the node box's padding, as a share of the font size


def _node_style(data: dict[str, Any], view: str) -> dict[str, Any]:
    """Box and text properties of one node, from the scene's plain data."""
    kind = data["kind"]
    fill = {"entry": style.GROUP_COLOURS.get(data.get("group"), style.GROUP_COLOURS["unknown"]),
            "folded": style.FOLDED_COLOUR, "missing": style.MISSING_COLOUR}[kind]
    box: dict[str, Any] = {"boxstyle": f"round,pad={NODE_PAD}", "facecolor": fill,
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


def _draw_nodes(ax: Axes, scene: Scene,
                positions: dict[Hashable, tuple[float, float]]) -> dict[Hashable, Text]:
    """One boxed text per node; returns them, so badges can be placed around each box."""
    artists = {}
    for node, data in scene.graph.nodes(data=True):
        x, y = positions[node]
        artists[node] = ax.text(x, y, data["text"], ha="center", va="center",
                                fontsize=style.TEXT_POINTS, zorder=3,
                                **_node_style(data, scene.view))
    return artists


def _badge(ax: Axes, node: Text, corner: tuple[float, float], text: str,
           offset: tuple[float, float], ha: str, va: str, **properties: Any) -> None:
    """A text pinned ``offset`` points from a ``corner`` of a node's text ((0, 0) lower
    left, (1, 1) upper right): it moves with the node and cannot cover its text."""
    ax.annotate(text, xy=corner, xycoords=node, xytext=offset, textcoords="offset points",
                ha=ha, va=va, fontsize=style.TEXT_POINTS, zorder=4, **properties)


def _draw_badges(ax: Axes, scene: Scene, artists: dict[Hashable, Text], lang: str) -> None:
    """Around each node's box: its label above; the message position (upper left) and the
    leaf (lower left) on its left; the damage codes across its lower border, so they read
    as part of the node and not of the edge below it."""
    outside = NODE_PAD * style.TEXT_POINTS + BADGE_GAP     # points from the text to clear the box
    border = NODE_PAD * style.TEXT_POINTS                  # points from the text to the border
    for node, data in scene.graph.nodes(data=True):
        artist = artists[node]
        if data.get("label"):
            _badge(ax, artist, (0.5, 1), ascii_text(data["label"])[:12], (0, outside + 2),
                   "center", "bottom",
                   bbox={"boxstyle": "round,pad=0.2", "facecolor": style.LABEL_COLOUR,
                         "edgecolor": "#b59f00", "linewidth": 0.6})
        if data.get("damage"):
            _badge(ax, artist, (0.5, 0), ", ".join(data["damage"]), (0, -border + 0.4),
                   "center", "top", color=style.DAMAGE_COLOUR, fontweight="bold",
                   bbox={"boxstyle": "round,pad=0.2", "facecolor": "white",
                         "edgecolor": style.DAMAGE_COLOUR, "linewidth": 0.8})
        if scene.view == "context" and data.get("position"):
            _badge(ax, artist, (0, 1), f"#{data['position']}", (-outside, 0), "right", "top",
                   color=style.SENT_COLOUR, fontweight="bold")
        if data.get("is_leaf"):
            _badge(ax, artist, (0, 0), t("drawing.leaf", lang), (-outside, 0), "right",
                   "bottom", color=style.PATH_COLOUR, fontweight="bold")


def _merged_handles(handle_lists: list[list[Any]]) -> list[Any]:
    """The legend entries of several drawings, each label once, in first-seen order."""
    seen, merged = set(), []
    for handles in handle_lists:
        for handle in handles:
            if handle.get_label() not in seen:
                seen.add(handle.get_label())
                merged.append(handle)
    return merged


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
