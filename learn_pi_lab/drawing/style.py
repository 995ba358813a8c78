"""Colours, fonts, sizes and PNG export: what makes a course figure readable and reproducible.

A notebook stores its outputs, and the course checks them. So a drawing must be
byte-for-byte reproducible: fixed fonts and sizes (``drawing_rc()``, applied only while
drawing, never to the learner's own plots unless a chapter asks for ``use_course_style()``),
no timestamp or version in the PNG metadata.

**Readable at the size shown.** JupyterLab shows a PNG at its own size up to the width of
the output area, and shrinks a wider one. Every text is at least ``MIN_TEXT_POINTS`` at the
size it is shown (``shown_points``), so figures stay at most ``MAX_SHOWN_WIDTH`` inches wide.

**One colour per concept.** ``CONCEPT_COLOURS`` names the colour of each idea the chapters
plot ("jsonl", "json-array", "teaching", "pi", ...): JSONL is the same blue in every chapter.

**Chinese text needs a Chinese font.** The Chinese edition draws its titles, legends and
notes in Chinese, with the first installed font of ``CJK_FONTS`` (on Debian and in CI:
``fonts-noto-cjk``, "Noto Sans CJK SC"). Without one, asking for a Chinese figure raises
``MissingCJKFont``, which says how to install it: a figure of empty boxes, or one silently
in English, would hide the problem.
"""

from __future__ import annotations

import io
import re
from functools import lru_cache
from pathlib import Path

from matplotlib import font_manager, rc_context, rcParams
from matplotlib.figure import Figure

from learn_pi_lab.errors import Explained
from learn_pi_lab.i18n import current_language

# One colour per record group (jsonl.records.RECORD_GROUPS), plus the drawing's own nodes.
GROUP_COLOURS = {
    "metadata": "#c6dbef",    # blue: header, session_info, label
    "content": "#c7e9c0",     # green: message, compaction, branch_summary, custom_message
    "operation": "#fdd0a2",   # orange: model_change, thinking_level_change, custom
    "unknown": "#d9d9d9",     # grey: a type the course does not know (kept verbatim)
}
GROUPS = tuple(GROUP_COLOURS)
FOLDED_COLOUR = "#ffffff"
MISSING_COLOUR = "#fde0dd"
SUMMARISED_COLOUR = "#eeeeee"
HATCH_COLOUR = "#b5b5b5"

PATH_COLOUR = "#111111"       # thick edges and outlines: the current branch
OTHER_COLOUR = "#9e9e9e"      # every other branch
DAMAGE_COLOUR = "#d62728"     # red: damaged entries, missing parents
SENT_COLOUR = "#1f4e9c"       # blue: entries whose message the model receives
KEPT_COLOUR = "#74c476"       # green band: kept after the compaction
SUMMARISED_BAND = "#bdbdbd"   # grey band: replaced by the compaction summary
FROM_COLOUR = "#7b3294"       # purple dashed arrow: branch summary -> fromId
FIRST_KEPT_COLOUR = "#238b45" # green dashed arrow: compaction -> firstKeptEntryId
LABEL_COLOUR = "#fff3b0"      # yellow badge: a label
HIGHLIGHT_COLOUR = "#ffd966"  # the roadmap's "you are here"

# The colour of each idea the chapters plot. Use ``concept_colour("jsonl")`` (or
# ``color=CONCEPT_COLOURS["jsonl"]``) rather than matplotlib's default cycle, whose colours
# depend on the order of the lines in each plot.
CONCEPT_COLOURS = {
    "jsonl": "#1f77b4",         # blue: JSONL, one line per record
    "json-array": "#ff7f0e",    # orange: the JSON array, rewritten whole
    "teaching": "#2ca02c",      # green: the course's teaching model
    "pi": "#9467bd",            # purple: what Pi itself does
    "damage": DAMAGE_COLOUR,    # red: damaged or lost data
    "context": SENT_COLOUR,     # dark blue: what the model receives
    "stored": "#7f7f7f",        # grey: what is stored but not sent
    "rewrite": "#8c564b",       # brown: a whole-file rewrite (temp file + rename)
}

# Fonts with Chinese glyphs that matplotlib may find on a learner's machine, best first.
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN",
             "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "Microsoft YaHei", "SimHei",
             "PingFang SC", "Hiragino Sans GB", "Noto Sans CJK JP", "Arial Unicode MS")
# File names of those fonts, to find one that matplotlib's font cache does not list yet
# (the cache is built once and does not notice a font installed later).
CJK_FONT_FILES = re.compile(r"(NotoSansCJK|NotoSans(SC|CJKsc)|SourceHanSans|wqy-|msyh|simhei"
                            r"|PingFang|Hiragino Sans GB)", re.IGNORECASE)
LATIN_FONT = "DejaVu Sans"   # ships with matplotlib: the same glyphs on every machine

DPI = 100
MIN_TEXT_POINTS = 9          # no text smaller than this at the size shown
MAX_SHOWN_WIDTH = 10.0       # inches (1,000 px at DPI): wider PNGs are shrunk in JupyterLab
TEXT_POINTS = 9              # node, badge, legend and note text
TITLE_POINTS = 11


class MissingCJKFont(Explained, RuntimeError):
    """Chinese text was asked for, and no installed font can draw it."""

    message_key = "drawing.error.no_cjk_font"

    def __init__(self) -> None:
        super().__init__("no font with Chinese glyphs is installed (looked for "
                         f"{', '.join(CJK_FONTS[:3])}, ...); install Debian's fonts-noto-cjk "
                         "or use the English edition")
        self.fonts = ", ".join(CJK_FONTS[:3])


def concept_colour(concept: str) -> str:
    """The course's one colour for ``concept`` (a key of ``CONCEPT_COLOURS``)."""
    try:
        return CONCEPT_COLOURS[concept]
    except KeyError:
        raise KeyError(f"no course colour for {concept!r}; known: "
                       f"{', '.join(CONCEPT_COLOURS)}") from None


def _installed_font_names() -> set[str]:
    return {font.name for font in font_manager.fontManager.ttflist}


def _add_cjk_font_files() -> None:
    """Register CJK font files found on disk that the font cache does not list yet."""
    known = {Path(font.fname) for font in font_manager.fontManager.ttflist}
    for name in font_manager.findSystemFonts():
        path = Path(name)
        if path not in known and CJK_FONT_FILES.search(path.name):
            try:
                font_manager.fontManager.addfont(str(path))
            except (OSError, RuntimeError, ValueError):
                continue   # an unreadable font file is simply not a candidate


@lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The first installed font from ``CJK_FONTS``, or None."""
    installed = _installed_font_names()
    found = next((name for name in CJK_FONTS if name in installed), None)
    if found is None:
        _add_cjk_font_files()
        installed = _installed_font_names()
        found = next((name for name in CJK_FONTS if name in installed), None)
    return found


def figure_language(lang: str | None = None) -> str:
    """The language figures are drawn in: the course language. Chinese needs a CJK font;
    without one this raises ``MissingCJKFont`` instead of drawing empty boxes."""
    chosen = current_language(lang)
    if chosen == "zh" and cjk_font() is None:
        raise MissingCJKFont()
    return chosen


def font_families(lang: str | None = None) -> list[str]:
    """Latin text in DejaVu Sans; in Chinese, matplotlib falls back glyph by glyph to the
    CJK font for every character DejaVu Sans lacks."""
    if figure_language(lang) == "zh":
        return [LATIN_FONT, cjk_font()]
    return [LATIN_FONT]


def drawing_rc(lang: str | None = None) -> dict[str, object]:
    """matplotlib settings used while a course figure is drawn and saved (``rc_context``)."""
    return {
        "font.family": font_families(lang),
        "font.size": TEXT_POINTS,
        "axes.titlesize": TITLE_POINTS,
        "axes.labelsize": TEXT_POINTS,
        "xtick.labelsize": TEXT_POINTS,
        "ytick.labelsize": TEXT_POINTS,
        "legend.fontsize": TEXT_POINTS,
        "axes.unicode_minus": False,
        "hatch.linewidth": 0.8,
        "hatch.color": HATCH_COLOUR,   # light, so the hatched node's text stays readable
        "figure.dpi": DPI,
        "savefig.dpi": DPI,
        "svg.hashsalt": "learn-pi-lab",
    }


def use_course_style(lang: str | None = None) -> None:
    """Apply the course's fonts and sizes to every later plot of this notebook (chapters call
    it once at the top, so their own ``plt`` plots can carry Chinese text at >= 9 pt)."""
    rcParams.update(drawing_rc(lang))


def shown_points(fontsize: float, figure: Figure) -> float:
    """The size in points a text has where JupyterLab shows the figure: a PNG wider than
    ``MAX_SHOWN_WIDTH`` is shrunk to fit, and its text with it."""
    width = figure.get_figwidth()
    return fontsize * min(1.0, MAX_SHOWN_WIDTH / width)


class SessionFigure(Figure):
    """A matplotlib ``Figure`` that shows itself as a PNG when it is a notebook cell's value.

    ``draw_session`` builds its figure without ``pyplot`` (so it never opens a window or
    touches the learner's current figure); without this, Jupyter would print
    ``<Figure size ...>`` instead of the picture whenever pyplot was never imported.
    """

    def _repr_png_(self) -> bytes:
        return figure_png(self)


def figure_png(figure: Figure) -> bytes:
    """The figure as PNG bytes: same figure, same bytes (no software or date metadata)."""
    buffer = io.BytesIO()
    with rc_context({key: value for key, value in drawing_rc("en").items()
                     if not key.startswith("font.")}):
        figure.savefig(buffer, format="png", dpi=DPI, facecolor="white",
                       metadata={"Software": None})
    return buffer.getvalue()
