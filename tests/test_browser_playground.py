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


def test_no_request_left_localhost(lab):
    assert lab["outside"] == [], f"requests outside 127.0.0.1: {lab['outside'][:10]}"
