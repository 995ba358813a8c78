"""Figures that read at a glance, in the learner's language (issue 10, items 4 and 6).

* Chinese figures carry Chinese text, drawn with a CJK font; without one, asking for a
  Chinese figure fails loudly instead of drawing boxes or silently switching to English.
* Every text is at least 9 pt at the size JupyterLab shows the PNG.
* Legends sit next to the tree and inside the image; tall trees are cut into bands.
* Label, model and name nodes say what they point at or set; badges never cover node text.
* One colour per concept; a side-by-side helper; a roadmap for the start of each chapter.

Figures are rendered with the Agg backend and checked through matplotlib's own objects:
text sizes (points), window extents (pixels) and the fonts matplotlib resolves.
"""

from __future__ import annotations

import re
import warnings
from unittest import mock

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ft2font import FT2Font  # noqa: E402
from matplotlib.text import Annotation, Text  # noqa: E402

from learn_pi_lab.course.paths import data_file  # noqa: E402
from learn_pi_lab.drawing import (Panel, concept_colour, draw_roadmap, draw_session,  # noqa: E402
                                  draw_side_by_side, figure_png)
from learn_pi_lab.drawing import style  # noqa: E402
from learn_pi_lab.drawing.layout import (MAX_BAND_ROWS, band_count, crosses_band,  # noqa: E402
                                         extent, fold_into_bands, tree_layout)
from learn_pi_lab.drawing.roadmap import CHAPTERS_OF_PART, PARTS, parts_of  # noqa: E402
from learn_pi_lab.drawing.scene import build_scene  # noqa: E402
from learn_pi_lab.i18n import explain  # noqa: E402
from learn_pi_lab.course.labs import story_tree  # noqa: E402
from learn_pi_lab.pi.session import load_session  # noqa: E402

HAN = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
LARGE_SESSION = data_file("pi/pi-mono/large-session.jsonl.xz")


def session(name: str, mode: str = "teaching"):
    return load_session(data_file(name), mode=mode)


def course_figures(lang: str) -> dict[str, Figure]:
    """The kinds of figure the chapters show, in one language."""
    return {
        "story": draw_session(story_tree(lang), lang=lang),
        "branched": draw_session(session("branched.jsonl"), fold_runs=False, lang=lang),
        "labelled": draw_session(session("labelled.jsonl"), fold_runs=False, lang=lang),
        "context": draw_session(session("compacted.jsonl"), view="context", fold_runs=False,
                                lang=lang),
        "damaged": draw_session(session("failure-dangling-parent.jsonl"), fold_runs=False,
                                lang=lang),
        "large": draw_session(load_session(LARGE_SESSION), lang=lang),
        "side-by-side": draw_side_by_side(
            Panel(session("failure-dangling-parent.jsonl"), fold_runs=False),
            Panel(session("failure-dangling-parent.jsonl", mode="pi").tree, fold_runs=False),
            lang=lang),
        "roadmap": draw_roadmap("04", lang=lang),
    }


@pytest.fixture(scope="module")
def figures() -> dict[str, dict[str, Figure]]:
    drawn = {lang: course_figures(lang) for lang in ("zh", "en")}
    for by_name in drawn.values():
        for figure in by_name.values():
            figure.canvas.draw()
    return drawn


def texts(figure: Figure) -> list[Text]:
    """Every visible, non-empty text of a figure (titles, legends, nodes, badges, notes)."""
    return [text for text in figure.findobj(Text)
            if text.get_visible() and text.get_text().strip()]


# -- the Chinese edition ---------------------------------------------------------------------

def test_zh_figures_differ_from_en_wherever_they_carry_text(figures):
    for name, zh_figure in figures["zh"].items():
        zh_texts = [text.get_text() for text in texts(zh_figure)]
        assert any(HAN.search(text) for text in zh_texts), f"{name}: no Chinese text"
        assert not any(HAN.search(text.get_text()) for text in texts(figures["en"][name])), name
        assert figure_png(zh_figure) != figure_png(figures["en"][name]), name


def _has_glyphs(font_file: str, text: str) -> bool:
    font = FT2Font(font_file)
    return all(font.get_char_index(ord(char)) for char in text if HAN.match(char))


def test_zh_text_is_drawn_with_a_cjk_font(figures):
    cjk = style.cjk_font()
    assert cjk is not None, "the course needs a CJK font (fonts-noto-cjk)"
    cjk_file = font_manager.findfont(font_manager.FontProperties(family=cjk),
                                     fallback_to_default=False)
    checked = 0
    for name, figure in figures["zh"].items():
        for text in texts(figure):
            if HAN.search(text.get_text()):
                families = text.get_fontproperties().get_family()
                assert cjk in families, (name, text.get_text(), families)
                assert _has_glyphs(cjk_file, text.get_text()), (name, text.get_text())
                checked += 1
    assert checked > 20


def test_a_wrong_font_would_be_caught():
    # DejaVu Sans has no Chinese glyphs: the glyph check above must say so.
    dejavu = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans"))
    assert not _has_glyphs(dejavu, "当前分支")


def test_zh_figures_render_without_missing_glyph_warnings(figures):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for figure in figures["zh"].values():
            figure_png(figure)
    assert not [w for w in caught if "missing from" in str(w.message)], caught


def test_zh_drawing_into_axes_made_outside_the_course_fonts_is_still_chinese():
    # A chapter makes its axes with plt.subplots, under the default fonts (no CJK font).
    figure = Figure(figsize=(9, 5))
    left, right = figure.subplots(1, 2)
    draw_session(session("failure-dangling-parent.jsonl"), ax=left, lang="zh")
    draw_session(story_tree("zh"), ax=right, lang="zh", title="之后：多了一条分支")
    han = [text for text in texts(figure) if HAN.search(text.get_text())]
    assert len(han) > 5
    for text in han:
        assert style.cjk_font() in text.get_fontproperties().get_family(), text.get_text()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure_png(figure)
    assert not [w for w in caught if "missing from" in str(w.message)]


def test_without_a_cjk_font_a_chinese_figure_fails_loudly():
    with mock.patch.object(style, "cjk_font", return_value=None):
        with pytest.raises(style.MissingCJKFont) as caught:
            draw_session(story_tree("zh"), lang="zh")
        with pytest.raises(style.MissingCJKFont):
            draw_roadmap("tree", lang="zh")
        assert isinstance(draw_session(story_tree("en"), lang="en"), Figure)
    assert "fonts-noto-cjk" in str(caught.value)
    assert "fonts-noto-cjk" in explain(caught.value, "zh")
    assert HAN.search(explain(caught.value, "zh"))


def test_course_style_sets_fonts_and_sizes_for_chapter_plots():
    with matplotlib.rc_context():
        style.use_course_style("zh")
        assert style.cjk_font() in matplotlib.rcParams["font.family"]
        assert matplotlib.rcParams["font.size"] >= style.MIN_TEXT_POINTS
        assert matplotlib.rcParams["legend.fontsize"] >= style.MIN_TEXT_POINTS


# -- sizes -----------------------------------------------------------------------------------

def test_every_text_is_at_least_nine_points_where_it_is_shown(figures):
    for lang in ("zh", "en"):
        for name, figure in figures[lang].items():
            for text in texts(figure):
                shown = style.shown_points(text.get_fontsize(), figure)
                assert shown >= style.MIN_TEXT_POINTS, (lang, name, text.get_text(), shown)


def test_course_figures_fit_the_notebook_width(figures):
    for name, figure in figures["en"].items():
        assert figure.get_figwidth() <= style.MAX_SHOWN_WIDTH, name


def test_shown_points_shrinks_text_in_a_wide_figure():
    assert style.shown_points(9, Figure(figsize=(20, 4))) == pytest.approx(4.5)
    assert style.shown_points(9, Figure(figsize=(6, 4))) == 9


# -- legends ------------------------------------------------------------------------------------

def test_legends_sit_inside_the_image_right_beside_the_tree(figures):
    for lang in ("zh", "en"):
        for name in ("story", "branched", "labelled", "context", "damaged", "large"):
            figure = figures[lang][name]
            ax = figure.axes[0]
            legend = ax.get_legend().get_window_extent()
            image = figure.bbox
            assert image.x0 <= legend.x0 and legend.x1 <= image.x1, (lang, name, legend)
            assert image.y0 <= legend.y0 and legend.y1 <= image.y1, (lang, name, legend)
            nodes = [text.get_window_extent() for text in ax.texts if text.get_bbox_patch()]
            gap = legend.x0 - max(node.x1 for node in nodes)
            assert 0 < gap < 0.8 * figure.dpi, (lang, name, gap)   # beside, not far away
            title = next(text for text in figure.findobj(Text)
                         if text.get_text() == ax.get_title(loc="left")).get_window_extent()
            assert title.width > 100
            for text in ax.texts:   # the damage notes too
                extent = text.get_window_extent()
                assert image.x0 <= extent.x0 and extent.x1 <= image.x1 + 1, (name, text)
            assert image.x0 <= title.x0 and title.x1 <= image.x1, (lang, name, title)


def test_side_by_side_has_one_legend_inside_the_image(figures):
    figure = figures["en"]["side-by-side"]
    assert len(figure.legends) == 1 and all(ax.get_legend() is None for ax in figure.axes)
    legend = figure.legends[0].get_window_extent()
    assert figure.bbox.x0 <= legend.x0 and legend.x1 <= figure.bbox.x1
    assert figure.bbox.y0 <= legend.y0
    for ax in figure.axes:
        nodes = [text.get_window_extent() for text in ax.texts if text.get_bbox_patch()]
        assert min(node.y0 for node in nodes) > legend.y1, "a node is over the legend"


# -- long runs ------------------------------------------------------------------------------------

def test_a_tall_layout_is_cut_into_bands_side_by_side():
    import networkx as nx
    graph = nx.DiGraph()
    nx.add_path(graph, range(20))
    graph.add_edge(5, "side")
    positions = tree_layout(graph)
    columns, rows = extent(positions)
    assert (columns, rows) == (2, 20)
    bands = band_count(columns, rows, max_columns=20)
    assert bands == 3
    folded, rows_per_band = fold_into_bands(positions, bands)
    assert rows_per_band == 7 and extent(folded)[1] == 7
    assert len(set(folded.values())) == len(folded)          # nothing overlaps
    order = sorted(range(20), key=lambda n: (folded[n][0] // 2.8, -folded[n][1]))
    assert order == list(range(20))                          # read band by band, top down
    crossings = [(a, b) for a, b in graph.edges if crosses_band(folded[a], folded[b])]
    assert crossings == [(6, 7), (13, 14)]


def test_band_count_prefers_fewer_bands_to_a_too_wide_picture():
    assert band_count(1, 6, max_columns=10) == 1
    assert band_count(1, 30, max_columns=10) == 4
    assert band_count(4, 30, max_columns=10) == 2
    assert band_count(9, 30, max_columns=10) == 1


def test_linear_sessions_are_no_longer_tall_columns(figures):
    for name in ("branched", "labelled", "context"):
        figure = figures["en"][name]
        assert figure.get_figheight() * figure.dpi <= 700, name
        rows = {round(text.get_position()[1]) for text in figure.axes[0].texts
                if text.get_bbox_patch() and not isinstance(text, Annotation)}
        assert len(rows) <= MAX_BAND_ROWS, (name, rows)


# -- nodes and badges --------------------------------------------------------------------------

def test_label_model_and_name_nodes_say_what_they_point_at_or_set():
    graph = build_scene(session("labelled.jsonl"), fold_runs=False).graph
    assert graph.nodes["f0e6ed3a"]["text"] == 'f0e6ed3a\nlabel -> 35763ac4\n"baseline"'
    assert graph.nodes["c4ab7f6d"]["text"] == "c4ab7f6d\nlabel -> 8b918acf\n(cleared)"
    # a model id is kept whole as long as it fits a node as wide as a label node's
    assert graph.nodes["366dbaaf"]["text"] == "366dbaaf\nmodel\nclaude-sonnet-4-5"
    named = build_scene(session("named.jsonl"), fold_runs=False).graph
    names = [data["text"].split("\n")[-1] for _, data in named.nodes(data=True)
             if data["text"].split("\n")[1] == "name"]
    assert names[-1] == "(cleared)" and all(name.startswith('"') for name in names[:-1])
    chinese = build_scene(session("labelled.jsonl"), fold_runs=False, lang="zh").graph
    # the Chinese figure says what kind of entry a node is in Chinese
    assert chinese.nodes["c4ab7f6d"]["text"] == "c4ab7f6d\n标签 -> 8b918acf\n（已清除）"
    assert chinese.nodes["366dbaaf"]["text"] == "366dbaaf\n换模型\nclaude-sonnet-4-5"


def _overlap(a, b, tolerance: float = 0.5) -> bool:
    return (a.x0 + tolerance < b.x1 and b.x0 + tolerance < a.x1
            and a.y0 + tolerance < b.y1 and b.y0 + tolerance < a.y1)


def badges_over_node_text(figure: Figure) -> list[tuple[str, str]]:
    found = []
    for ax in figure.axes:
        nodes = [text for text in ax.texts
                 if text.get_bbox_patch() and not isinstance(text, Annotation)]
        badges = [text for text in ax.texts if isinstance(text, Annotation) and text.get_text()]
        for badge in badges:
            for node in nodes:
                if _overlap(badge.get_window_extent(), node.get_window_extent()):
                    found.append((badge.get_text(), node.get_text()))
    return found


def test_badges_do_not_cover_node_text(figures):
    for lang in ("zh", "en"):
        for name in ("story", "labelled", "context", "damaged", "side-by-side"):
            assert badges_over_node_text(figures[lang][name]) == [], (lang, name)


def test_the_badge_check_sees_an_overlap():
    figure = Figure(figsize=(3, 2))
    ax = figure.add_subplot()
    node = ax.text(0.5, 0.5, "a1\nuser", bbox={"boxstyle": "round"})
    ax.annotate("leaf", xy=(0.5, 0.5), xycoords=node)
    figure.canvas.draw()
    assert badges_over_node_text(figure) == [("leaf", "a1\nuser")]


# -- colours, side by side, roadmap ------------------------------------------------------------

def test_one_colour_per_concept():
    colours = style.CONCEPT_COLOURS
    assert {"jsonl", "json-array", "teaching", "pi"} <= set(colours)
    assert len(set(colours.values())) == len(colours), "two concepts share a colour"
    assert concept_colour("jsonl") == colours["jsonl"]
    with pytest.raises(KeyError, match="json-array"):
        concept_colour("JSONL")


def test_side_by_side_puts_the_first_drawing_on_the_left(figures):
    figure = figures["en"]["side-by-side"]
    left, right = figure.axes
    assert left.get_position().x1 <= right.get_position().x0
    plain = draw_side_by_side(story_tree("en"), session("branched.jsonl"), lang="en")
    assert len(plain.axes) == 2
    titled = draw_side_by_side(Panel(story_tree("en"), title="before"),
                               Panel(story_tree("en"), title="after", leaf_id="a18"), lang="en")
    assert [ax.get_title(loc="left") for ax in titled.axes] == ["before", "after"]


def test_roadmap_highlights_the_chapter_and_its_part():
    assert parts_of("04") == (("bytes",), "04")
    assert parts_of("context") == (("context",), None)
    assert parts_of("8") == (PARTS, "08")
    with pytest.raises(ValueError, match="bytes"):
        parts_of("09")
    figure = draw_roadmap("06", lang="en")
    boxes = [patch for patch in figure.patches]
    assert [patch.get_linewidth() > 2 for patch in boxes] == [False, False, True]
    bold = [text.get_text() for text in texts(figure) if text.get_fontweight() == "bold"]
    assert any(text.startswith("06") for text in bold)
    listed = " ".join(text.get_text() for text in texts(figure))
    for chapters in CHAPTERS_OF_PART.values():
        for number in chapters:
            assert f"{number} " in listed
    assert figure_png(draw_roadmap("06", lang="en")) == figure_png(figure)
    assert figure_png(draw_roadmap("02", lang="en")) != figure_png(figure)


def test_notes_wrap_by_display_width_in_both_languages():
    from learn_pi_lab.drawing.static import wrap_columns
    from learn_pi_lab.i18n import display_width
    english = wrap_columns("line 4: entry a2 appears twice on lines 3 and 4, kept once", 24)
    assert english[0] == "line 4: entry a2" and all(line.startswith("    ") for line in english[1:])
    assert " ".join(part.strip() for part in english) == (
        "line 4: entry a2 appears twice on lines 3 and 4, kept once")
    chinese = wrap_columns("第 6 行：一行里粘着不止一个 JSON 值（上一行缺少结尾换行时又追加了内容）", 30)
    assert len(chinese) > 1
    assert all(display_width(line) <= 31 for line in chinese)          # + closing punctuation
    assert not any(line.strip()[0] in "，。）" for line in chinese[1:])
