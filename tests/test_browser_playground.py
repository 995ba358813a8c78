"""End to end: the tree playground of chapter 03 in real JupyterLab, in headless chromium.

A learner's path through the widget, in both editions, clicks only: run the chapter, click
``u2`` and see its JSONL line on hover, ``/tree`` (the leaf moves to ``a1`` and ``u2``'s
words fill the editor), send (one new line appears in the file view, with ``parentId``
``a1``, and level 1 is solved), undo (the line is gone, the level is not solved), and the
"what the model sees" view, and a /fork whose new file shows up beside the source. No console error, no request outside 127.0.0.1. Screenshots of
every step go to ``artifacts/browser/playground-*``.

Skipped, with a message, when ``/usr/bin/chromium`` is absent, except under CI (``CI``
set), where a missing browser is a failure.
"""

from __future__ import annotations

import os

import pytest

from tests.browser_support import (ARTIFACTS, CLOSE, chromium_page, copy_repo, jupyterlab,
                                   require_chromium, run_notebook)

pytestmark = pytest.mark.browser
require_chromium()

playwright = pytest.importorskip("playwright.sync_api")

CHAPTER = "03-rewind-and-branch.ipynb"
EDITIONS = ("zh", "en")
RUN_TIMEOUT_S = 150
STEP_TIMEOUT_MS = 30000


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"playground-{name}.png"))


def _run_all(page, path: str) -> str:
    def shot_if_failed(page, failed: bool) -> None:
        if failed:
            _shot(page, path.replace("/", "-") + "-failed")
    return run_notebook(page, path, RUN_TIMEOUT_S, after_run=shot_if_failed)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    work = tmp_path_factory.mktemp("playground-browser")
    root, notebooks = copy_repo(work), "notebooks/"
    # Solved levels go to a throw-away file, never to the developer's own .progress/.
    saved = os.environ.get("LEARN_PI_LAB_PROGRESS")
    os.environ["LEARN_PI_LAB_PROGRESS"] = str(work / "progress.json")
    try:
        with jupyterlab(root, work / "jupyter-home", ARTIFACTS / "jupyterlab-playground.log") as url:
            with playwright.sync_playwright() as driver, \
                    chromium_page(driver, f"{url}/lab", {"width": 1500, "height": 1000}) as opened:
                yield {**opened, "progress": work / "progress.json", "notebooks": notebooks}
    finally:
        if saved is None:
            os.environ.pop("LEARN_PI_LAB_PROGRESS", None)
        else:
            os.environ["LEARN_PI_LAB_PROGRESS"] = saved


def _node(widget, entry_id: str, extra: str = ""):
    return widget.locator(f'.lpl-pg-tree g.lpl-node{extra}[data-id="{entry_id}"]')


@pytest.mark.parametrize("edition", EDITIONS)
def test_playground_level_one_with_clicks_only(lab, edition):
    page = lab["page"]
    errors_before = len(lab["console_errors"])
    panel_id = _run_all(page, f"{lab['notebooks']}{edition}/{CHAPTER}")
    try:
        widget = page.locator(".lpl-playground").first
        widget.wait_for(timeout=STEP_TIMEOUT_MS)
        widget.scroll_into_view_if_needed()
        _node(widget, "u2").wait_for(timeout=STEP_TIMEOUT_MS)
        assert widget.locator(".lpl-pg-level").input_value() == "1", "the chapter starts at level 1"
        assert _node(widget, "a2", ".lpl-leaf").count() == 1, "the leaf starts on the last line"
        assert widget.locator(".lpl-pg-target svg g.lpl-node").count() == 5, (
            "the target tree (4 entries + the one to create) is shown beside the learner's")
        _shot(page, f"{edition}-0-start")

        # 1. Click u2: it is selected; hovering shows its JSONL line.
        _node(widget, "u2").click()
        _node(widget, "u2", ".lpl-selected").wait_for(timeout=STEP_TIMEOUT_MS)
        _node(widget, "u2").hover()
        page.wait_for_function(
            "() => document.querySelector('.lpl-pg-hover').textContent.includes('\"id\":\"u2\"')",
            timeout=STEP_TIMEOUT_MS)

        # 2. /tree: the leaf moves to a1 (u2's parent), u2's words come back to the editor.
        widget.locator(".lpl-pg-tree-button").click()
        _node(widget, "a1", ".lpl-leaf").wait_for(timeout=STEP_TIMEOUT_MS)
        assert _node(widget, "a2", ".lpl-leaf").count() == 0
        assert _node(widget, "a1", ".lpl-new").count() == 1, "the moved leaf is not highlighted"
        assert widget.locator(".lpl-pg-editor").input_value().strip(), "the editor is empty"
        assert widget.locator(".lpl-pg-added").count() == 0, "/tree must not write a line"
        _shot(page, f"{edition}-1-tree")

        # 3. Send: one new line in the file view, parentId a1; level 1 is solved.
        lines_before = widget.locator(".lpl-pg-file .lpl-pg-line").count()
        widget.locator(".lpl-pg-editor").fill("Use composition instead / 改用组合")
        widget.locator(".lpl-pg-send").click()
        widget.locator(".lpl-pg-added").first.wait_for(timeout=STEP_TIMEOUT_MS)
        added = widget.locator(".lpl-pg-added").all_text_contents()
        assert len(added) == 1 and '"parentId":"a1"' in added[0], added
        assert "改用组合" in added[0]
        assert widget.locator(".lpl-pg-file .lpl-pg-line").count() == lines_before + 1
        assert widget.locator(".lpl-pg-tree g.lpl-node.lpl-new.lpl-leaf").count() == 1
        widget.locator(".lpl-pg-status.lpl-solved").wait_for(timeout=STEP_TIMEOUT_MS)
        assert "✓" in widget.locator(".lpl-pg-level option[value='1']").text_content()
        _shot(page, f"{edition}-2-sent-solved")

        # 4. Undo: the line is gone, the leaf is back on a1, the level is no longer solved.
        widget.locator(".lpl-pg-undo").click()
        page.wait_for_function(
            "() => document.querySelectorAll('.lpl-playground .lpl-pg-added').length === 0",
            timeout=STEP_TIMEOUT_MS)
        _node(widget, "a1", ".lpl-leaf").wait_for(timeout=STEP_TIMEOUT_MS)
        assert widget.locator(".lpl-pg-file .lpl-pg-line").count() == lines_before
        assert widget.locator(".lpl-pg-status.lpl-solved").count() == 0
        assert widget.locator(".lpl-pg-status").text_content().strip(), "no reason shown"
        assert "Pi" in widget.locator(".lpl-pg-note").text_content()
        _shot(page, f"{edition}-3-undone")

        # 5. What the model sees: one toggle switches the list.
        heading = widget.locator(".lpl-pg-list").locator("xpath=preceding-sibling::b[1]")
        branch_heading = heading.text_content()
        widget.locator(".lpl-pg-view-context").click()
        widget.locator(".lpl-pg-view-context.lpl-active").wait_for(timeout=STEP_TIMEOUT_MS)
        assert heading.text_content() != branch_heading
        _shot(page, f"{edition}-4-context")

        # 6. /fork before u2: a new file appears beside the source, which gains no line.
        lines_now = widget.locator(".lpl-pg-file > .lpl-pg-line").count()
        _node(widget, "u2").click()
        _node(widget, "u2", ".lpl-selected").wait_for(timeout=STEP_TIMEOUT_MS)
        widget.locator(".lpl-pg-fork").click()
        widget.locator(".lpl-pg-copy").first.wait_for(timeout=STEP_TIMEOUT_MS)
        copy_lines = widget.locator(".lpl-pg-copy .lpl-pg-line").all_text_contents()
        assert len(copy_lines) == 3 and '"parentSession"' in copy_lines[0], copy_lines
        assert '"id":"a1"' in copy_lines[-1]
        assert widget.locator(".lpl-pg-file > .lpl-pg-line").count() == lines_now
        _shot(page, f"{edition}-5-fork")
    finally:
        page.evaluate(CLOSE, panel_id)
    new_errors = lab["console_errors"][errors_before:]
    assert new_errors == [], f"{edition}/{CHAPTER}: browser console errors: {new_errors}"
    assert lab["progress"].exists(), "solving level 1 did not record progress"


# -- every theme: contrast measured, one level by keyboard alone, motion within bounds --------

THEMES = ("JupyterLab Light", "JupyterLab Dark", "JupyterLab Dark High Contrast")
AA_TEXT, AA_MARK = 4.5, 3.0

# Runs in the page: WCAG contrast of an element's colour (``color``, ``fill`` or ``stroke``)
# against what lies under it: a given element's colour (a node's text on its box), else the
# first ancestor with a background, each translucent layer blended over the one below.
CONTRAST = """
([selector, property, under]) => {
  const parse = (text) => {
    const found = text.match(/rgba?\\(([^)]+)\\)/);
    if (!found) return null;
    const [r, g, b, a] = found[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [r, g, b, a === undefined ? 1 : a];
  };
  const over = (top, bottom) => top.slice(0, 3).map((v, i) => v * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  const backdrop = (element) => {
    const layers = [];
    for (let at = element; at; at = at.parentElement) {
      const colour = parse(getComputedStyle(at).backgroundColor);
      if (colour && colour[3] > 0) { layers.push(colour); if (colour[3] >= 1) break; }
    }
    let result = [255, 255, 255, 1];
    for (const layer of layers.reverse()) result = over(layer, result);
    return result;
  };
  const luminance = (rgb) => {
    const [r, g, b] = rgb.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const element = document.querySelector(selector);
  if (!element) return null;
  let bottom = under ? parse(getComputedStyle(document.querySelector(under)).fill) : backdrop(element.parentElement);
  if (under && bottom[3] < 1) bottom = over(bottom, backdrop(document.querySelector(under).parentElement));
  const top = over(parse(getComputedStyle(element)[property]), bottom);
  const [light, dark] = [luminance(top), luminance(bottom)].sort((x, y) => y - x);
  return Math.round(((light + 0.05) / (dark + 0.05)) * 100) / 100;
}
"""

# Every Element.animate call from now on, recorded (the pointer's glide and the growing node
# are made that way; the flash is a CSS animation, checked by its duration).
RECORD_MOTION = """() => {
  if (window.__lplMotions) return;
  window.__lplMotions = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, options) {
    window.__lplMotions.push(typeof options === "number" ? options : (options || {}).duration);
    return animate.call(this, frames, options);
  };
}"""

W = ".lpl-playground"
MEASURED = [   # (what, selector, property, drawn on, at least)
    ("edge on the branch", f"{W} .lpl-pg-tree line.lpl-edge-path", "stroke", None, AA_MARK),
    ("edge off the branch", f"{W} .lpl-pg-tree line.lpl-edge:not(.lpl-edge-path)", "stroke", None, AA_MARK),
    ("leaf pointer", f"{W} .lpl-pg-tree .lpl-leaf-mark", "fill", None, AA_TEXT),
    ("node text", f"{W} .lpl-pg-tree text.lpl-node-text", "fill",
     f"{W} .lpl-pg-tree rect.lpl-box", AA_TEXT),
    ("outline of a node off the branch", f"{W} .lpl-pg-tree g.lpl-node:not(.lpl-on-path) rect.lpl-box",
     "stroke", None, AA_MARK),
    ("selection ring", f"{W} .lpl-pg-tree .lpl-ring-selected", "stroke", None, AA_MARK),
    ("entry panel text", f"{W} .lpl-pg-hover", "color", None, AA_TEXT),
    ("file panel text", f"{W} .lpl-pg-file .lpl-pg-line", "color", None, AA_TEXT),
    ("appended line", f"{W} .lpl-pg-file .lpl-pg-added", "color", None, AA_TEXT),
    ("level status", f"{W} .lpl-pg-status", "color", None, AA_TEXT),
    ("toolbar button", f"{W} .lpl-pg-undo", "color", None, AA_TEXT),
    ("keys line", f"{W} .lpl-pg-keys", "color", None, AA_TEXT),
    ("chapter check status", ".lpl-check td[class^=lpl-]", "color", None, AA_TEXT),
    ("self-check question", ".lpl-selfcheck", "color", None, AA_TEXT),
]


def _focused_class(page) -> str:
    return page.evaluate("document.activeElement ? document.activeElement.className : ''")


def _tab_to(page, css_class: str) -> None:
    """Tab on until the element with ``css_class`` has the focus, as a keyboard user would."""
    for _ in range(30):
        if css_class in _focused_class(page):
            return
        page.keyboard.press("Tab")
    assert css_class in _focused_class(page), f"Tab reaches .{css_class}"


def test_playground_in_every_theme_by_keyboard(lab):
    """Light, Dark, Dark High Contrast: level 1 solved by keyboard alone, the contrast of
    every mark and text measured from computed styles, a screenshot per theme; motion at most
    400 ms and none under prefers-reduced-motion."""
    page = lab["page"]
    errors_before = len(lab["console_errors"])
    page.evaluate(RECORD_MOTION)   # (into the running page: a reload would race JupyterLab's
                                   # restoring of its open tabs)
    panel_id = _run_all(page, f"{lab['notebooks']}zh/{CHAPTER}")
    measured = {}
    try:
        widget = page.locator(".lpl-playground").first
        widget.wait_for(timeout=STEP_TIMEOUT_MS)
        assert "leaf" not in widget.locator(".lpl-pg-tree svg").text_content(), (
            "the Chinese playground draws no English")
        assert "◀ 叶子" in widget.locator(".lpl-pg-tree svg").text_content()
        for theme in THEMES:
            page.evaluate("(theme) => window.jupyterapp.commands.execute('apputils:change-theme',"
                          " {theme})", theme)
            page.wait_for_function("(theme) => document.body.dataset.jpThemeName === theme",
                                   arg=theme, timeout=STEP_TIMEOUT_MS)
            page.wait_for_timeout(500)   # the theme's stylesheet applied
            widget.locator(".lpl-pg-level").select_option("1")   # no change if it is already
            widget.locator(".lpl-pg-reset").click()   # the level as it starts: leaf on a2
            widget.scroll_into_view_if_needed()
            _node(widget, "a2", ".lpl-leaf").wait_for(timeout=STEP_TIMEOUT_MS)
            page.wait_for_function("() => !document.querySelector('.lpl-playground .lpl-pg-added')",
                                   timeout=STEP_TIMEOUT_MS)

            # keyboard alone from here: into the tree, up twice (the leaf, then u2), Enter
            widget.locator(".lpl-pg-tree").focus()
            page.keyboard.press("ArrowUp")
            _node(widget, "a2", ".lpl-selected").wait_for(timeout=STEP_TIMEOUT_MS)
            page.keyboard.press("ArrowUp")
            _node(widget, "u2", ".lpl-selected").wait_for(timeout=STEP_TIMEOUT_MS)
            page.evaluate("() => { window.__lplMotions = []; }")
            page.keyboard.press("Enter")
            _node(widget, "a1", ".lpl-leaf").wait_for(timeout=STEP_TIMEOUT_MS)
            motions = page.evaluate("() => window.__lplMotions")
            assert motions and all(0 < duration <= 400 for duration in motions), motions
            _tab_to(page, "lpl-pg-editor")
            page.keyboard.press("Control+A")
            page.keyboard.type("改用组合")
            page.keyboard.press("Control+Enter")
            widget.locator(".lpl-pg-status.lpl-solved").wait_for(timeout=STEP_TIMEOUT_MS)
            flash = page.evaluate("() => getComputedStyle(document.querySelector("
                                  "'.lpl-playground .lpl-pg-added')).animationDuration")
            assert flash == "0.4s", flash
            _node(widget, "u2").click()   # a selection ring to measure, off the branch now
            _node(widget, "u2", ".lpl-selected").wait_for(timeout=STEP_TIMEOUT_MS)
            _node(widget, "u2").hover()
            hover = widget.locator(".lpl-pg-hover").text_content()
            assert "第 4 行" in hover and "line" not in hover.split("\n")[0], hover
            measured[theme] = {what: page.evaluate(CONTRAST, [selector, prop, under])
                               for what, selector, prop, under, _ in MEASURED}
            _shot(page, "theme-" + theme.lower().replace(" ", "-"))

            # Ctrl+Z from the tree takes the line back: the level is open again
            widget.locator(".lpl-pg-tree").focus()
            page.keyboard.press("Control+z")
            page.wait_for_function("() => !document.querySelector('.lpl-playground .lpl-pg-added')",
                                   timeout=STEP_TIMEOUT_MS)
            assert widget.locator(".lpl-pg-status.lpl-solved").count() == 0

        # prefers-reduced-motion: nothing moves
        page.emulate_media(reduced_motion="reduce")
        page.evaluate("() => { window.__lplMotions = []; }")
        widget.locator(".lpl-pg-tree").focus()
        page.keyboard.press("Control+z")   # undo the /tree: the pointer goes back, no glide
        _node(widget, "a2", ".lpl-leaf").wait_for(timeout=STEP_TIMEOUT_MS)
        assert page.evaluate("() => window.__lplMotions") == []
        page.emulate_media(reduced_motion="no-preference")

        # levels 2 and 3 in JupyterLab Dark, by keyboard alone
        page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme',"
                      " {theme: 'JupyterLab Dark'})")
        page.wait_for_function("() => document.body.dataset.jpThemeName === 'JupyterLab Dark'",
                               timeout=STEP_TIMEOUT_MS)
        for level, leaf, walk, answer in (
                ("2", "a3", [("ArrowUp", "a3"), ("ArrowUp", "u3"), ("ArrowUp", "a2")], True),
                ("3", "a2b", [("ArrowUp", "a2b"), ("ArrowUp", "u2b"), ("ArrowLeft", "u2"),
                              ("ArrowDown", "a2")], False)):
            widget.locator(".lpl-pg-level").select_option(level)
            _node(widget, leaf, ".lpl-leaf").wait_for(timeout=STEP_TIMEOUT_MS)
            widget.locator(".lpl-pg-tree").focus()
            for key, lands_on in walk:
                page.keyboard.press(key)
                _node(widget, lands_on, ".lpl-selected").wait_for(timeout=STEP_TIMEOUT_MS)
            page.keyboard.press("Enter")
            _node(widget, "a2", ".lpl-leaf").wait_for(timeout=STEP_TIMEOUT_MS)
            _tab_to(page, "lpl-pg-editor")
            page.keyboard.type("换一个问题")
            page.keyboard.press("Control+Enter")
            if answer:
                _tab_to(page, "lpl-pg-answer-text")
                page.keyboard.press("Enter")
            widget.locator(".lpl-pg-status.lpl-solved").wait_for(timeout=STEP_TIMEOUT_MS)
            assert widget.locator(".lpl-pg-editor").input_value() == "", "sent: the editor is empty"
            page.wait_for_timeout(500)   # the motion done
            _shot(page, f"theme-jupyterlab-dark-level-{level}")
    finally:
        page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme',"
                      " {theme: 'JupyterLab Light'})")
        page.evaluate(CLOSE, panel_id)
    failures = [f"{theme}: {what} {measured[theme][what]} < {least}"
                for theme in THEMES for what, _, _, _, least in MEASURED
                if measured[theme][what] is None or measured[theme][what] < least]
    print({theme: measured[theme] for theme in THEMES})
    assert failures == [], failures
    new_errors = lab["console_errors"][errors_before:]
    assert new_errors == [], f"browser console errors: {new_errors}"


def test_no_request_left_localhost(lab):
    assert lab["outside"] == [], f"requests outside 127.0.0.1: {lab['outside'][:10]}"
