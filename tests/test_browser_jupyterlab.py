"""End to end: the workbook in real JupyterLab, in headless Debian chromium.

nbval proves the notebooks compute the right text; only a browser proves a learner *sees*
it: that JupyterLab started like ``make lab`` (``learn_pi_lab.course.lab``, on a copy of the
repository) lands on chapter 00 with its Chinese drawn in a CJK font, that links reach the
other edition and the workspace, that editing a ``workspace/`` file changes the chapter's
check, that no cell errors and the page never talks to the internet (chapter 03's playground
has its own test, ``test_browser_playground.py``). The test does what a learner does (open,
run, click, type, save) and keeps a screenshot of every step under ``artifacts/browser/``.

Skipped, with a message, when ``/usr/bin/chromium`` is absent, except under CI (``CI`` set),
where a missing browser is a failure: ``.ci/run`` installs it.
"""

from __future__ import annotations

import re
import time

import pytest

from learn_pi_lab.course.lab import landing_path
from learn_pi_lab.i18n import t
from tests.browser_support import (ARTIFACTS, CLOSE, OPEN, REPO, chromium_page, copy_repo,
                                   jupyterlab, require_chromium, run_cell, run_notebook)

pytestmark = pytest.mark.browser
require_chromium()

playwright = pytest.importorskip("playwright.sync_api")

# Chapter 03's tree playground has its own browser test (tests/test_browser_playground.py,
# which runs the chapter and drives the widget); this file covers the lab itself and a few
# chapters run as a learner runs them (BROWSER_CHAPTERS).
EDITIONS = ("zh", "en")
NOTEBOOK_TIMEOUT_S = 120

# Runs in the page: the path of the document JupyterLab opened at start (waits for it).
LANDED_ON = """
async () => {
  const app = window.jupyterapp;
  for (let i = 0; i < 200; i++) {
    const widget = app.shell.currentWidget;
    if (widget && widget.context) { await widget.context.ready; return widget.context.path; }
    await new Promise(r => setTimeout(r, 100));
  }
  return null;
}
"""


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def _run_notebook(page, path: str, shot_name: str) -> str:
    return run_notebook(page, path, NOTEBOOK_TIMEOUT_S,
                        after_run=lambda page, failed: _shot(page, shot_name))


LANDING_EDITION = "zh"   # what `make lab` opens when LANG_EDITION is not set


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab started like `make lab` on a copy of the repository, and one chromium page
    that opened its start URL (and so landed where a learner lands)."""
    work = tmp_path_factory.mktemp("browser")
    root = copy_repo(work)
    with jupyterlab(root, work / "jupyter-home", ARTIFACTS / "jupyterlab.log",
                    edition=LANDING_EDITION) as url:
        with playwright.sync_playwright() as driver, \
                chromium_page(driver, f"{url}/", {"width": 1400, "height": 1000}) as opened:
            page = opened["page"]
            page.evaluate("window.jupyterapp.started")
            landed = page.evaluate(LANDED_ON)
            _shot(page, "00-lab-started")
            yield {**opened, "url": url, "root": root, "landed": landed}


def _status_of(output: str, exercise: str) -> str:
    """The status word of `exercise`'s row in a check table, as rendered (tab-separated cells;
    the status cell starts with a symbol such as "·" or "✓")."""
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.split("\t")]
        if exercise in cells:
            return cells[-1].split()[-1]
    raise AssertionError(f"no row for {exercise} in the check output:\n{output}")


# Runs in the page: mark the first rendered markdown paragraph holding Chinese characters, so
# the DevTools protocol can ask which font actually drew it.
MARK_CHINESE_PARAGRAPH = """
() => {
  const paragraphs = document.querySelectorAll('.jp-RenderedMarkdown p');
  for (const p of paragraphs) {
    if (/[\\u4e00-\\u9fff]{4}/.test(p.textContent)) { p.setAttribute('data-lpl-cjk', '1'); return p.textContent.slice(0, 40); }
  }
  return null;
}
"""


def _fonts_used_for(page, selector: str) -> list[str]:
    """The platform fonts chromium used to draw the text inside `selector` (DevTools CSS
    domain): the real answer, not what the style sheet asked for."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert node, f"nothing matches {selector}"
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        return [font["familyName"] for font in fonts]
    finally:
        cdp.detach()


def _wait_for_current_path(page, path: str, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    current = None
    while time.monotonic() < deadline:
        current = page.evaluate(
            "() => { const w = window.jupyterapp.shell.currentWidget;"
            " return w && w.context ? w.context.path : null; }")
        if current == path:
            return
        time.sleep(0.2)
    raise AssertionError(f"expected {path} to be open and active, the active document is {current}")


def test_make_lab_lands_on_chapter_00_with_chinese_in_a_cjk_font(lab):
    page = lab["page"]
    assert lab["landed"] == landing_path(LANDING_EDITION), (
        f"`make lab` should open {landing_path(LANDING_EDITION)}, it opened {lab['landed']}")
    assert "notebooks" in {item.name for item in lab["root"].iterdir()}
    page.wait_for_selector(".jp-RenderedMarkdown p", timeout=30000)
    sample = page.evaluate(MARK_CHINESE_PARAGRAPH)
    assert sample, "the zh chapter 00 shows no Chinese paragraph"
    _shot(page, "zh-00-landing")
    fonts = _fonts_used_for(page, "[data-lpl-cjk]")
    assert any("CJK" in family for family in fonts), (
        f"the Chinese text {sample!r} was drawn with {fonts}, not a CJK font "
        "(install fonts-noto-cjk)")


# Runs in the page: the menu bar's titles, and the labels of the menu items chapter 00 and
# the learner's reports name (as JupyterLab shows them, in its interface language).
MENU_LABELS = """
() => {
  const commands = window.jupyterapp.commands;
  const bar = Array.from(document.querySelectorAll('.lm-MenuBar-itemLabel')).map(e => e.innerText);
  const items = ['notebook:run-all-cells', 'runmenu:restart-and-run-all', 'terminal:create-new',
                 'kernelmenu:interrupt'].map(id => commands.label(id));
  return {bar, items};
}
"""


def test_jupyterlab_menus_are_the_ones_chapter_00_names(lab):
    """The Chinese edition opens a Chinese JupyterLab (the official language pack), and the
    menu paths chapter 00 and the reports give (运行 → 运行所有单元格, 文件 → 新建 → 终端,
    内核 → 中断内核) are the ones on screen (a learner's review: the menus were English)."""
    import json
    page = lab["page"]
    page.wait_for_selector(".lm-MenuBar-itemLabel", timeout=30000)
    shown = page.evaluate(MENU_LABELS)
    _shot(page, "zh-00-menus")
    assert shown["bar"][:5] == ["文件", "编辑", "查看", "运行", "内核"], shown
    chapter = json.loads((REPO / landing_path(LANDING_EDITION)).read_text(encoding="utf-8"))
    text = "".join("".join(cell["source"]) for cell in chapter["cells"])
    run_all, restart_run_all, terminal, interrupt = (label.rstrip("…") for label in shown["items"])
    assert f"运行 → {run_all}" in text and f"内核 → {restart_run_all}" in text, shown
    assert f"文件 → 新建 → {terminal}" in text, shown
    for key in ("harness.learner.your_turn.no_limit", "harness.learner.your_turn.timeout"):
        assert f"内核 → {interrupt}" in t(key, "zh", function="f", seconds=1, where=""), shown


def _follow_link(page, text: str, opens: str) -> None:
    """Click the link showing `text` in the landing notebook; `opens` must become active.

    JupyterLab rewrites a relative href into a file URL and opens it itself on click, so the
    link is found by its text, as a learner finds it.
    """
    page.evaluate("([id]) => window.jupyterapp.shell.activateById(id)",
                  [page.evaluate(FIND_PANEL, landing_path(LANDING_EDITION))])
    _wait_for_current_path(page, landing_path(LANDING_EDITION))
    panel = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    link = page.locator(f'[id="{panel}"] a:text-is("{text}")').first
    link.scroll_into_view_if_needed()
    link.click()
    _wait_for_current_path(page, opens)


FIND_PANEL = """
(path) => {
  const widget = Array.from(window.jupyterapp.shell.widgets('main'))
    .find(w => w.context && w.context.path === path);
  return widget ? widget.id : null;
}
"""

CURRENT_ID = "() => window.jupyterapp.shell.currentWidget.id"


def test_links_reach_the_other_edition_and_the_workspace(lab):
    page = lab["page"]
    _follow_link(page, "../en/00-start-here.ipynb", "notebooks/en/00-start-here.ipynb")
    _shot(page, "en-00-via-link")
    page.evaluate(CLOSE, page.evaluate(CURRENT_ID))   # and its kernel session is gone
    _follow_link(page, "workspace/README.md", "workspace/README.md")
    _shot(page, "workspace-readme-via-link")
    page.evaluate(CLOSE, page.evaluate(CURRENT_ID))


SOLUTION_EXERCISE = "tolerant-reader"


def _reference_solution() -> str:
    """What a learner who solved chapter 01 would paste: the reference function, on its own."""
    import inspect

    from learn_pi_lab.jsonl.reader import read_jsonl_tolerant
    return "import json\n\n\n" + inspect.getsource(read_jsonl_tolerant)


def test_editing_a_workspace_file_changes_the_chapter_check(lab):
    """The learner's loop: the check says not started; open workspace/ch01_jsonl.py from the
    file browser, write the function, save; the same check cell now says passed."""
    page = lab["page"]
    chapter = f"notebooks/{LANDING_EDITION}/01-jsonl-vs-json-array.ipynb"
    target = lab["root"] / "workspace" / "ch01_jsonl.py"
    panel_id = page.evaluate(OPEN, chapter)
    try:
        before = run_cell(page, panel_id, 'check("01")')
        _shot(page, "zh-01-check-before")
        assert _status_of(before, SOLUTION_EXERCISE) == t("harness.status.not_started", "zh"), before

        # The file browser, from the top of the course: workspace/ -> ch01_jsonl.py.
        page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
        page.locator(".jp-FileBrowser .jp-BreadCrumbs-home").first.click()
        # (found by the name shown, not by the tooltip: the tooltip says 名称 in Chinese)
        item = '.jp-FileBrowser li.jp-DirListing-item:has(.jp-DirListing-itemText :text-is("{}"))'
        page.locator(item.format("workspace")).first.dblclick()
        page.locator(item.format("ch01_jsonl.py")).first.dblclick()
        _wait_for_current_path(page, "workspace/ch01_jsonl.py")
        editor_id = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
        editor = page.locator(f'[id="{editor_id}"] .cm-content').first
        editor.click()
        page.keyboard.press("Control+a")
        solution = _reference_solution()
        page.keyboard.insert_text(solution)   # like a paste: no auto-indent in between
        page.keyboard.press("Control+s")
        deadline = time.monotonic() + 20
        while target.read_text(encoding="utf-8").strip() != solution.strip():
            assert time.monotonic() < deadline, "saving the file did not write it to disk"
            time.sleep(0.2)
        _shot(page, "zh-01-workspace-edited")
        page.evaluate("() => window.jupyterapp.shell.currentWidget.dispose()")  # close the editor

        after = run_cell(page, panel_id, 'check("01")')
        _shot(page, "zh-01-check-after")
        assert _status_of(after, SOLUTION_EXERCISE) == t("harness.status.passed", "zh"), after
    finally:
        page.evaluate(CLOSE, panel_id)
    assert (REPO / "workspace" / "ch01_jsonl.py").read_text(encoding="utf-8") != \
        target.read_text(encoding="utf-8"), "the test must edit the copy, never the repository"


# Runs in the page: open a terminal (File -> New -> Terminal) and return its widget's id.
NEW_TERMINAL = """
async () => {
  const widget = await window.jupyterapp.commands.execute('terminal:create-new');
  return widget.id;
}
"""

# Runs in the page: the text the terminal shows, line by line (xterm's buffer; the widget
# keeps its xterm.js Terminal as `_term`, which is not public API: a JupyterLab upgrade may
# rename it, and this test then says so rather than passing).
TERMINAL_TEXT = """
(id) => {
  const widget = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.id === id);
  const term = widget && widget.content && widget.content._term;
  if (!term) return null;
  const buffer = term.buffer.active, lines = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    lines.push(line ? line.translateToString(true) : '');
  }
  return lines.join('\\n');
}
"""


def test_make_verify_in_a_terminal_of_the_lab_reports_in_chinese(lab):
    """The loop chapter 00 describes: File -> New -> Terminal, `make verify EX=...`; the report
    follows the edition `make lab` opened, and make's own English "Error 1" line is explained
    before it appears (a learner's review)."""
    import sys
    from pathlib import Path

    page = lab["page"]
    terminal_id = page.evaluate(NEW_TERMINAL)
    try:
        page.locator(f'[id="{terminal_id}"] .xterm-screen').first.click()
        # The copy has no .venv of its own: make uses this one, and does not install it again.
        venv = Path(sys.prefix)
        page.keyboard.type(f"make verify EX=resolve-labels VENV={venv} STAMP= ; echo exit=$?")
        page.keyboard.press("Enter")
        deadline, text = time.monotonic() + 120, ""
        while not re.search(r"exit=\d", text):   # (the typed command may wrap anywhere)
            assert time.monotonic() < deadline, f"make verify did not finish in 120 s:\n{text}"
            time.sleep(0.5)
            text = page.evaluate(TERMINAL_TEXT, terminal_id)
            assert text is not None, "cannot read the terminal (JupyterLab's widget changed?)"
        _shot(page, "zh-terminal-make-verify")
    finally:
        page.evaluate("""async (id) => {
          const widget = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.id === id);
          if (widget) { await widget.content.session.shutdown(); widget.dispose(); }
        }""", terminal_id)
    assert "正在检查 workspace/ 里的 1 个练习" in text, text
    assert "resolve-labels" in text and t("harness.status.not_started", "zh") in text, text
    assert "只重跑这一个：make verify EX=resolve-labels" in text, text
    note = text.index(t("harness.make_says_error", "zh")[:20])
    assert note < text.index("make: *** [Makefile") and "exit=2" in text, text


BROWSER_CHAPTERS = ("00-start-here.ipynb", "05-record-types-and-state.ipynb")
"""Run in the browser, each edition: what only a browser shows (outputs rendered, the
self-check widget every chapter ends with, console errors). nbval executes every notebook
and compares its outputs; the playground's chapter has its own browser test."""


def _browser_notebooks() -> list[str]:
    return [f"notebooks/{edition}/{name}" for edition in EDITIONS for name in BROWSER_CHAPTERS]


@pytest.mark.parametrize("path", _browser_notebooks())
def test_a_chapter_runs_in_the_browser_without_console_errors(lab, path):
    page = lab["page"]
    errors_before = len(lab["console_errors"])
    shot = path.removeprefix("notebooks/").replace("/", "-").replace(".ipynb", "")
    panel_id = _run_notebook(page, path, shot)
    page.evaluate(CLOSE, panel_id)
    new_errors = lab["console_errors"][errors_before:]
    assert new_errors == [], f"{path}: browser console errors: {new_errors}"


def test_no_request_left_localhost(lab):
    # Runs last in this module (pytest keeps definition order): every page load above counts.
    assert lab["outside"] == [], f"requests outside 127.0.0.1: {lab['outside'][:10]}"
