"""End to end: a page written by ``export --html``, opened from disk in headless chromium.

What a reader does, in both editions: run the command as the README says, open the file,
find the leaf chosen and its context shown, click a node on the other branch and see that
node's JSONL line, branch and context (checked against ``context``), move to its parent with
the arrow key. The hostile case's markup is shown as text and none of it runs. No console
error, no request other than the page itself. Screenshots go to ``artifacts/browser/export-*``.

Skipped, with a message, when ``/usr/bin/chromium`` is absent, except under CI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from learn_pi_lab.entry_text import message_text
from learn_pi_lab.pi.session import load_session
from tests.browser_support import ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS, require_chromium
from tests.hostile.make_corpus import _files

pytestmark = pytest.mark.browser
require_chromium()
playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]
BRANCHED = ROOT / "data" / "branched.jsonl"
OTHER_BRANCH = "c738e46f"     # the last entry of branched.jsonl's first, abandoned branch
TIMEOUT_MS = 20000


def export(source: Path, out: Path, lang: str, *extra: str) -> str:
    """The command as a reader types it (``learn-pi-lab`` beside this Python, else ``-m``)."""
    script = Path(sys.executable).with_name("learn-pi-lab")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "learn_pi_lab"]
    done = subprocess.run([*command, "export", str(source), "--html", "--out", str(out),
                           "--lang", lang, *extra], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


def open_page(browser, path: Path, scheme: str):
    """The page from disk, with every console error and every request recorded."""
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1400, "height": 900})
    page = context.new_page()
    seen = {"errors": [], "requests": []}
    page.on("console", lambda message: seen["errors"].append(message.text)
            if message.type == "error" else None)
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on("request", lambda request: seen["requests"].append(request.url))
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready=true]", timeout=TIMEOUT_MS)
    return context, page, seen


def shown_context(page) -> list[str]:
    return page.eval_on_selector_all('[data-part=context] li', 'items => items.map(item => '
                                     'item.firstChild.nextSibling.textContent.trim())')


def expected_context(entry_id: str) -> list[str]:
    messages = load_session(BRANCHED).context(entry_id).messages
    return [message_text(message)[:300].strip() for message in messages]


@pytest.mark.parametrize("lang, scheme", [("zh", "dark"), ("en", "light")])
def test_open_click_and_check_the_context(browser, tmp_path: Path, lang: str,
                                          scheme: str) -> None:
    out = tmp_path / f"page-{lang}.html"
    said = export(BRANCHED, out, lang)
    assert str(out) in said
    context, page, seen = open_page(browser, out, scheme)
    try:
        session = load_session(BRANCHED)
        leaf = session.leaf_id
        assert page.get_attribute("[data-part=title]", "data-entry") == leaf
        assert shown_context(page) == expected_context(leaf)
        page.click(f'g.node[data-key="{OTHER_BRANCH}"]')
        assert page.get_attribute("[data-part=title]", "data-entry") == OTHER_BRANCH
        line = next(loaded for loaded in session.file.entries
                    if loaded.obj.get("id") == OTHER_BRANCH)
        assert page.text_content("[data-part=line]") == line.text
        assert shown_context(page) == expected_context(OTHER_BRANCH)
        branch = page.eval_on_selector_all("[data-part=branch] li", "items => items.length")
        assert branch == len(session.branch(OTHER_BRANCH))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"export-{lang}-{scheme}.png"))
        page.keyboard.press("ArrowUp")
        parent = session.entry(OTHER_BRANCH)["parentId"]
        assert page.get_attribute("[data-part=title]", "data-entry") == parent
        assert page.evaluate("document.activeElement.getAttribute('data-key')") == parent
        title = page.title()
        assert title.startswith("Pi 会话" if lang == "zh" else "Pi session")
    finally:
        context.close()
    assert seen["errors"] == []
    assert seen["requests"] == [out.as_uri()], "no request but the page itself"


def test_markup_from_the_session_is_shown_not_run(browser, tmp_path: Path) -> None:
    source = tmp_path / "markup-in-text.jsonl"
    source.write_bytes(_files()["markup-in-text.jsonl"])
    out = tmp_path / "markup.html"
    export(source, out, "en", "--pi-compat")
    context, page, seen = open_page(browser, out, "light")
    try:
        page.click('g.node[data-key="u1"]')
        line = page.text_content("[data-part=line]")
        assert "</script><script>window.__pwned=2</script><!--" in json.loads(line)["message"][
            "content"]
        page.click('g.node[data-key="<i>id</i>"]')
        shown = " ".join(shown_context(page))
        assert '<img src=x onerror="window.__pwned=3">&amp;' in shown
        assert "</script><script>window.__pwned=2</script>" in shown
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.eval_on_selector_all("img, b, i, iframe", "found => found.length") == 0
        page.screenshot(path=str(ARTIFACTS / "export-markup.png"))
    finally:
        context.close()
    assert seen["errors"] == []
    assert seen["requests"] == [out.as_uri()]
