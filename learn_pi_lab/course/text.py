"""Printed labels in the edition's language, for code cells shared by both editions.

    from learn_pi_lab.course.text import L
    print(L("行数", "lines"), 3)      # 行数 3 in notebooks/zh, lines 3 in notebooks/en

The language is ``learn_pi_lab.i18n.current_language()``: ``LEARN_PI_LAB_LANG`` when the
builder runs a chapter, otherwise the edition folder the notebook runs in. Longer sentences
that the package itself prints belong in the message catalog (``learn_pi_lab/messages``);
``L`` is for the short labels of a chapter's own cells.
"""

from __future__ import annotations

from learn_pi_lab.i18n import current_language, display_width


def L(zh: str, en: str, lang: str | None = None) -> str:  # noqa: N802 (short on purpose)
    """``zh`` in the Chinese edition, ``en`` in the English one."""
    return zh if current_language(lang) == "zh" else en


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (a Chinese character takes
    two), so a table lines up in both editions: ``f"{pad(L('重复 id', 'duplicate id'), 16)}"``."""
    return text + " " * max(0, width - display_width(text))


def pad_left(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` terminal columns (``pad``'s other side)."""
    return " " * max(0, width - display_width(text)) + text


def figure_fonts() -> None:
    """Let this kernel's matplotlib figures draw Chinese labels: add the installed CJK font
    (``learn_pi_lab.drawing.style.cjk_font``) after the default font. Call it once, in a
    chapter's first code cell; without a CJK font nothing changes."""
    import matplotlib

    from learn_pi_lab.drawing.style import cjk_font
    font = cjk_font()
    if font is not None:
        matplotlib.rcParams["font.family"] = ["DejaVu Sans", font]
        matplotlib.rcParams["axes.unicode_minus"] = False
