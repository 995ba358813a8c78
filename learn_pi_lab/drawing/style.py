"""Colours, fonts and PNG export: what makes the same session give the same image.

A notebook stores its outputs, and the course checks them. So a drawing must be
byte-for-byte reproducible: fixed fonts and sizes (``DRAWING_RC``, applied only while
drawing, never to the learner's own plots), no timestamp or version in the PNG metadata.

Node text is ASCII, which every font has. Legends and notes follow the course language, but
Chinese needs a font with CJK glyphs; when none is installed they are drawn in English
rather than as empty boxes (``figure_language``).
"""

from __future__ import annotations

import io
from functools import lru_cache

from matplotlib import font_manager, rc_context
from matplotlib.figure import Figure

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

# Fonts with Chinese glyphs that matplotlib may find on a learner's machine.
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei",
             "WenQuanYi Micro Hei", "Microsoft YaHei", "SimHei", "PingFang SC",
             "Hiragino Sans GB", "Arial Unicode MS")

DPI = 100


@lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The first installed font from ``CJK_FONTS``, or None."""
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in installed), None)


def figure_language(lang: str | None = None) -> str:
    """The course language, unless it is Chinese and no installed font can draw it."""
    chosen = current_language(lang)
    return "en" if chosen == "zh" and cjk_font() is None else chosen


def drawing_rc() -> dict[str, object]:
    """matplotlib settings used while a session is drawn and saved (see ``rc_context``)."""
    families = ["DejaVu Sans"] + ([cjk_font()] if cjk_font() else [])
    return {
        "font.family": families,
        "font.size": 8,
        "axes.unicode_minus": False,
        "hatch.linewidth": 0.8,
        "hatch.color": HATCH_COLOUR,   # light, so the hatched node's text stays readable
        "figure.dpi": DPI,
        "savefig.dpi": DPI,
        "svg.hashsalt": "learn-pi-lab",
    }


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
    with rc_context(drawing_rc()):
        figure.savefig(buffer, format="png", dpi=DPI, facecolor="white",
                       metadata={"Software": None})
    return buffer.getvalue()
