"""End to end: the workbook in real JupyterLab, in headless Debian chromium.

nbval proves the notebooks compute the right text; only a browser proves a learner *sees*
it: that the explorer's widgets render, that picking a leaf redraws the tree, that no cell
errors and the page never talks to the internet. The test does what a learner does (open,
run all, click) and keeps a screenshot of every step under ``artifacts/browser/``.

Skipped, with a message, when ``/usr/bin/chromium`` is absent, except under CI (``CI`` set),
where a missing browser is a failure: ``.ci/run`` installs it.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from tests.browser_support import (ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS, REPO, copy_notebooks,
                                   jupyterlab)

pytestmark = pytest.mark.browser

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser test, but /usr/bin/chromium is missing "
                           "(.ci/run installs the Debian package 'chromium')")
    pytest.skip("browser test SKIPPED: /usr/bin/chromium not found "
                "(apt-get install chromium to run it)", allow_module_level=True)

playwright = pytest.importorskip("playwright.sync_api")

EXPLORER_CHAPTER = "03-rewind-and-branch.ipynb"
EDITIONS = ("zh", "en")
NOTEBOOK_TIMEOUT_S = 120

# Runs in the page: open a notebook through JupyterLab's own command registry (exposed by
# LabApp.expose_app_in_browser), wait for its kernel, and run every cell.
OPEN_AND_RUN = """
async (path) => {
  const app = window.jupyterapp;
  const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  await panel.context.ready;
  await panel.sessionContext.ready;
  app.shell.activateById(panel.id);
  await app.commands.execute('notebook:run-all-cells');
  return panel.id;
}
"""

# Runs in the page: how far the active notebook got. Done when the kernel is idle and either
# every code cell has run or one raised (run-all stops at the first error).
PROGRESS = """
(panelId) => {
  const app = window.jupyterapp;
  const panel = Array.from(app.shell.widgets('main')).find(w => w.id === panelId);
  if (!panel) return {missing: true};
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const status = kernel ? kernel.status : 'none';
  let total = 0, done = 0; const errors = [];
  panel.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    total += 1;
    if (cell.model.executionCount !== null) done += 1;
    for (const output of cell.model.outputs.toJSON()) {
      if (output.output_type === 'error') {
        errors.push({cell: index, ename: output.ename, evalue: output.evalue});
      }
    }
  });
  return {status, total, done, errors};
}
"""

CLOSE = """
async (panelId) => {
  const app = window.jupyterapp;
  const panel = Array.from(app.shell.widgets('main')).find(w => w.id === panelId);
  if (panel) { await panel.sessionContext.shutdown(); panel.dispose(); }
}
"""


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def _run_notebook(page, path: str, shot_name: str) -> str:
    panel_id = page.evaluate(OPEN_AND_RUN, path)
    deadline = time.monotonic() + NOTEBOOK_TIMEOUT_S
    progress: dict = {}
    idle_since = None
    while time.monotonic() < deadline:
        progress = page.evaluate(PROGRESS, panel_id)
        finished = progress.get("status") == "idle" and (
            progress["done"] == progress["total"] or progress["errors"])
        if finished:
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since > 0.5:  # idle and stays idle: really finished
                break
        else:
            idle_since = None
        time.sleep(0.25)
    _shot(page, shot_name)
    try:
        assert progress.get("errors") == [], f"{path}: cells raised errors: {progress['errors']}"
        assert progress.get("total", 0) > 0 and progress.get("done") == progress.get("total"), (
            f"{path}: not every cell finished within {NOTEBOOK_TIMEOUT_S} s: {progress}")
    except AssertionError:
        page.evaluate(CLOSE, panel_id)  # a failed notebook must not linger into the next test
        raise
    return panel_id


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a copy of the notebooks, and one chromium page watching it."""
    work = tmp_path_factory.mktemp("browser")
    root = copy_notebooks(work)
    with jupyterlab(root, work / "jupyter-home", ARTIFACTS / "jupyterlab.log") as url:
        with playwright.sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM),
                                             args=CHROMIUM_FLAGS, headless=True)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            outside: list[str] = []
            console_errors: list[str] = []
            allowed = re.compile(r"^(https?|wss?)://127\.0\.0\.1:\d+/|^(data|blob|about):")

            def on_request(request) -> None:
                if not allowed.match(request.url):
                    outside.append(request.url)

            def on_console(message) -> None:
                if message.type == "error":
                    console_errors.append(message.text)

            page.on("request", on_request)
            page.on("console", on_console)
            page.goto(f"{url}/lab", wait_until="domcontentloaded")
            page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=60000)
            page.evaluate("window.jupyterapp.started")
            page.wait_for_selector(".jp-LabShell", timeout=60000)
            _shot(page, "00-lab-started")
            try:
                yield {"page": page, "url": url, "outside": outside,
                       "console_errors": console_errors}
            finally:
                context.close()
                browser.close()


# The picture's identity is its bytes, not its URL: every widget update gives the <img> a
# fresh blob: URL even when the PNG is the same, so comparing src would prove nothing.
DRAWING_DIGEST = """
async () => {
  const img = document.querySelector('.lpl-drawing img');
  if (!img || !img.src) return '';
  const bytes = await (await fetch(img.src)).arrayBuffer();
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest)).map(b => b.toString(16).padStart(2, '0')).join('');
}
"""


def _drawing_src(page) -> str:
    """A digest of the PNG currently shown in the explorer ('' when there is none)."""
    return page.evaluate(DRAWING_DIGEST)


def _wait_for_new_drawing(page, old: str, timeout_s: float = 20) -> str:
    deadline = time.monotonic() + timeout_s
    current = _drawing_src(page)
    while current == old and time.monotonic() < deadline:
        time.sleep(0.2)
        current = _drawing_src(page)
    return current


def _path_text(page) -> str:
    return page.text_content(".lpl-path-list") or ""


def _option_texts(select) -> list[str]:
    """The options' text as stored (textContent): innerText would be empty for an option
    the browser has not rendered yet."""
    return select.evaluate("s => Array.from(s.options).map(o => o.textContent.trim())")


@pytest.mark.parametrize("edition", EDITIONS)
def test_explorer_chapter_runs_and_responds(lab, edition):
    page = lab["page"]
    errors_before = len(lab["console_errors"])
    panel_id = _run_notebook(page, f"{edition}/{EXPLORER_CHAPTER}", f"{edition}-03-ran")
    try:
        page.wait_for_selector(".lpl-drawing img", timeout=30000)
        page.locator(".lpl-leaf-picker").first.scroll_into_view_if_needed()
        _shot(page, f"{edition}-03-explorer")

        # 1. Pick another leaf: the drawing and the listed path must both change.
        before_src, before_path = _drawing_src(page), _path_text(page)
        # The leaf picker lists exactly the tree's leaves, each as "<id>  <kind>  <text>"; the
        # rewind picker shows where the leaf is now.
        select = page.locator(".lpl-leaf-picker select").first
        options = _option_texts(select)
        leaf_ids = [text.split()[0] for text in options]
        rewind = page.locator(".lpl-rewind-picker select").first
        current_id = rewind.evaluate("s => s.options[s.selectedIndex].textContent").split()[0]
        assert current_id in leaf_ids, f"the explorer should start at a leaf: {current_id}"
        other = next(text for text in options if text.split()[0] != current_id)
        select.select_option(label=other)
        _wait_for_new_drawing(page, before_src)
        _shot(page, f"{edition}-03-picked-leaf")
        assert _drawing_src(page) != before_src, "the drawing did not change after picking a leaf"
        assert _path_text(page) != before_path, "the listed path did not change after picking a leaf"

        # 2. Rewind to an inner entry, then append there: a new branch (one more leaf) appears.
        leaves_before = len(select.locator("option").all())
        inner = next(label for label in _option_texts(rewind)
                     if label.split()[0] not in leaf_ids)
        src_before_rewind = _drawing_src(page)
        rewind.select_option(label=inner)
        _wait_for_new_drawing(page, src_before_rewind)
        _shot(page, f"{edition}-03-rewound")
        src_before_append = _drawing_src(page)
        page.fill(".lpl-append-text input", "try a different approach")
        page.click(".lpl-append-button")
        _wait_for_new_drawing(page, src_before_append)
        _shot(page, f"{edition}-03-appended")
        leaves_after = len(page.locator(".lpl-leaf-picker select").first.locator("option").all())
        assert leaves_after == leaves_before + 1, (
            f"appending at a non-leaf should add a branch (a new leaf): {leaves_before} -> {leaves_after}")

        # 3. Switch to "what the model sees": the list changes.
        listed_branch = _path_text(page)
        page.locator(".lpl-view-toggle button").nth(1).click()
        page.wait_for_function(
            "([text]) => document.querySelector('.lpl-path-list').textContent !== text",
            arg=[listed_branch], timeout=20000)
        _shot(page, f"{edition}-03-context-view")
        assert _path_text(page) != listed_branch, "the context view lists the same as the branch view"
    finally:
        page.evaluate(CLOSE, panel_id)
    new_errors = lab["console_errors"][errors_before:]
    assert new_errors == [], f"{EXPLORER_CHAPTER}: browser console errors: {new_errors}"


def _all_notebooks() -> list[str]:
    paths = []
    for edition in EDITIONS:
        for notebook in sorted((REPO / "notebooks" / edition).glob("*.ipynb")):
            if notebook.name != EXPLORER_CHAPTER:
                paths.append(f"{edition}/{notebook.name}")
    return paths


@pytest.mark.parametrize("path", _all_notebooks())
def test_every_other_notebook_runs_without_errors(lab, path):
    page = lab["page"]
    errors_before = len(lab["console_errors"])
    panel_id = _run_notebook(page, path, path.replace("/", "-").replace(".ipynb", ""))
    page.evaluate(CLOSE, panel_id)
    new_errors = lab["console_errors"][errors_before:]
    assert new_errors == [], f"{path}: browser console errors: {new_errors}"


def test_no_request_left_localhost(lab):
    # Runs last in this module (pytest keeps definition order): every page load above counts.
    assert lab["outside"] == [], f"requests outside 127.0.0.1: {lab['outside'][:10]}"
