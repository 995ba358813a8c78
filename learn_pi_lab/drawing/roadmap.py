"""``draw_roadmap``: where a chapter sits on the course's road, drawn at its start.

The whole course follows one session through three forms::

    file bytes  --read lines, follow parentId-->  tree  --walk the branch, compact-->  model context

Chapters 01, 04 and 07 are about the bytes on disk, 02, 03 and 05 about the tree built from
them, 06 about what the model is sent; 00 and 08 span the whole road. The roadmap draws the
three forms as boxes with the chapters under each, and highlights the part (and chapter)
the reader is in.
"""

from __future__ import annotations

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from learn_pi_lab.drawing import style
from learn_pi_lab.i18n import t

PARTS = ("bytes", "tree", "context")
CHAPTERS_OF_PART = {"bytes": ("01", "04", "07"), "tree": ("02", "03", "05"), "context": ("06",)}
WHOLE_ROAD = ("00", "08")   # chapters about all three parts
WIDTH, HEIGHT = 9.6, 3.2    # inches: shown at full size (<= style.MAX_SHOWN_WIDTH)
BOX_WIDTH, BOX_HEIGHT = 0.22, 0.36   # figure fractions
BOX_LEFTS = (0.02, 0.39, 0.76)
BOX_BOTTOM = 0.42


def parts_of(part_or_chapter: str) -> tuple[tuple[str, ...], str | None]:
    """(highlighted parts, highlighted chapter) for a part name or a chapter number."""
    if part_or_chapter in PARTS:
        return (part_or_chapter,), None
    chapter = str(part_or_chapter).zfill(2)
    if chapter in WHOLE_ROAD:
        return PARTS, chapter
    for part, chapters in CHAPTERS_OF_PART.items():
        if chapter in chapters:
            return (part,), chapter
    raise ValueError(f"draw_roadmap needs one of {PARTS} or a chapter number 00-08, "
                     f"not {part_or_chapter!r}")


def draw_roadmap(part: str, lang: str | None = None) -> Figure:
    """The course roadmap with ``part`` highlighted: ``"bytes"``, ``"tree"``, ``"context"``
    or a chapter number such as ``"04"`` (its part and its line are highlighted)."""
    lang = style.figure_language(lang)
    highlighted, chapter = parts_of(part)
    figure = style.SessionFigure(figsize=(WIDTH, HEIGHT), dpi=style.DPI)
    with rc_context(style.drawing_rc(lang)):
        for left, name in zip(BOX_LEFTS, PARTS):
            _draw_part(figure, left, name, name in highlighted, chapter, lang)
        for (left, _), arrow in zip(zip(BOX_LEFTS, BOX_LEFTS[1:]), ("read", "walk")):
            _draw_arrow(figure, left + BOX_WIDTH, left + 0.37, t(f"drawing.roadmap.{arrow}", lang))
        whole = "   ".join(f"{number}  {t(f'drawing.roadmap.chapter.{number}', lang)}"
                           for number in WHOLE_ROAD)
        figure.text(0.02, 0.03, t("drawing.roadmap.whole_road", lang, chapters=whole),
                    fontsize=style.TEXT_POINTS, va="bottom",
                    fontweight="bold" if chapter in WHOLE_ROAD else "normal",
                    color=style.PATH_COLOUR if chapter in WHOLE_ROAD else "#555555")
        heading = (t("drawing.roadmap.title_chapter", lang, chapter=chapter) if chapter
                   else t("drawing.roadmap.title", lang))
        figure.text(0.02, 0.95, heading, fontsize=style.TITLE_POINTS, va="top",
                    fontweight="bold")
    return figure


def _draw_part(figure: Figure, left: float, name: str, here: bool, chapter: str | None,
               lang: str) -> None:
    """One box (what the session is in this form) and the chapters about it underneath."""
    box = FancyBboxPatch((left, BOX_BOTTOM), BOX_WIDTH, BOX_HEIGHT,
                         boxstyle="round,pad=0.01", transform=figure.transFigure,
                         facecolor=style.HIGHLIGHT_COLOUR if here else "#f4f4f4",
                         edgecolor=style.PATH_COLOUR if here else style.OTHER_COLOUR,
                         linewidth=2.4 if here else 1.0)
    figure.patches.append(box)
    centre = left + BOX_WIDTH / 2
    figure.text(centre, BOX_BOTTOM + BOX_HEIGHT - 0.05, t(f"drawing.roadmap.{name}", lang),
                ha="center", va="top", fontsize=style.TITLE_POINTS, fontweight="bold")
    figure.text(centre, BOX_BOTTOM + 0.05, t(f"drawing.roadmap.{name}.what", lang),
                ha="center", va="bottom", fontsize=style.TEXT_POINTS, linespacing=1.3)
    if here:
        figure.text(centre, BOX_BOTTOM + BOX_HEIGHT + 0.03, t("drawing.roadmap.here", lang),
                    ha="center", va="bottom", fontsize=style.TEXT_POINTS,
                    color=style.PATH_COLOUR, fontweight="bold")
    for row, number in enumerate(CHAPTERS_OF_PART[name]):
        figure.text(left + 0.005, BOX_BOTTOM - 0.05 - row * 0.1,
                    f"{number}  {t(f'drawing.roadmap.chapter.{number}', lang)}",
                    ha="left", va="top", fontsize=style.TEXT_POINTS,
                    fontweight="bold" if number == chapter else "normal",
                    color=style.PATH_COLOUR if number == chapter else "#555555")


def _draw_arrow(figure: Figure, start: float, end: float, label: str) -> None:
    middle = BOX_BOTTOM + BOX_HEIGHT / 2
    figure.add_artist(_arrow(figure, start + 0.005, end - 0.005, middle))
    figure.text((start + end) / 2, middle + 0.03, label, ha="center", va="bottom",
                fontsize=style.TEXT_POINTS, linespacing=1.2)


def _arrow(figure: Figure, start: float, end: float, y: float) -> FancyArrowPatch:
    return FancyArrowPatch((start, y), (end, y), transform=figure.transFigure,
                           arrowstyle="-|>", mutation_scale=14, linewidth=1.6,
                           color=style.PATH_COLOUR)
