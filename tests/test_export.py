"""``export --html``: the page shows what ``context`` says, holds every text safely, and the
command never overwrites a file or touches its input.

The page keeps each node's context as "its parent's, plus these messages" and walks that
chain in the browser; ``page.resolved_context`` is the same walk in Python. These tests hold
that walk to ``Session.context`` for every node of every shipped file and of generated
damaged ones, in both modes and both Pi versions. The browser test
(``test_browser_export.py``) checks that the page's script shows what this data says.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from learn_pi_lab.cli import commands as cli
from learn_pi_lab.export import page as export_page
from learn_pi_lab.export.page import page_data, render_page, resolved_context
from learn_pi_lab.pi.context import PI_VERSIONS
from learn_pi_lab.pi.session import load_session, session_from_text
from learn_pi_lab.session_tree import TranscriptError
from tests.pi_sessions import sessions

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted([*ROOT.glob("data/*.jsonl"), *ROOT.glob("data/pi16/*.jsonl"),
                  *ROOT.glob("data/pi/**/*.jsonl")])
MODES = ("teaching", "pi")


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def payload_of(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="lpl-data">(.*?)</script>', page, re.S)
    assert found, "the page holds its data block"
    return json.loads(found.group(1))


def assert_page_matches_context(session, data) -> None:
    """Every entry on the page: its context as the page builds it is ``Session.context``'s,
    with the same model and thinking level; an entry whose context the mode refuses says so."""
    assert data["entries"], "the page holds the session's entries"
    for at, item in enumerate(data["entries"]):
        shown = data["contexts"][at]
        try:
            expected = session.context(item["id"])
        except TranscriptError:
            assert "error" in shown or any("error" in data["contexts"][up]
                                           for up in _chain(data, at)), item["id"]
            continue
        assert "error" not in shown, item["id"]
        assert resolved_context(data, at) == expected.messages, item["id"]
        assert shown["model"] == expected.model, item["id"]
        assert shown["thinking"] == expected.thinking_level, item["id"]


def _chain(data, at: int) -> list[int]:
    found = []
    while at >= 0:
        found.append(at)
        at = data["contexts"][at]["base"]
    return found


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: str(path.relative_to(ROOT)))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("version", PI_VERSIONS)
def test_every_context_on_the_page_is_what_context_says(path: Path, mode: str,
                                                        version: str) -> None:
    session = load_session(path, mode=mode, pi_version=version)
    if not session.tree.entries:
        pytest.skip("no entries")
    data = page_data(session, lang="en")
    assert_page_matches_context(session, data)
    lines = {found.line for found in session.file.entries}
    assert all(item["line"] in lines for item in data["entries"])


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(sessions())
def test_generated_damaged_sessions_too(generated) -> None:
    text = generated[0].decode("utf-8")
    for mode in MODES:
        for version in PI_VERSIONS:
            session = session_from_text(text, mode=mode, pi_version=version)
            if session.tree.entries:
                assert_page_matches_context(session, page_data(session, lang="en"))


def test_each_message_and_line_is_held_once() -> None:
    """A 10-entry chain does not hold 10 copies of its history: messages are numbered once,
    and a message that is its entry's own is read from that entry's line."""
    session = load_session(ROOT / "data" / "linear.jsonl")
    data = page_data(session, lang="en")
    numbers = [number for context in data["contexts"] for number in context["add"]]
    assert len(numbers) == len(set(numbers)) == len(data["messages"])
    assert sum(1 for message in data["messages"] if message.get("same")) >= 1
    page = render_page(data)
    assert page.count('"raw":') == len(data["entries"])


def test_a_large_session_is_exported_around_its_leaf(monkeypatch, tmp_path) -> None:
    """Above MAX_ENTRIES: the last AROUND entries of the leaf's branch and what grows from
    them, the rest counted; a context that starts above them counts its earlier messages."""
    monkeypatch.setattr(export_page, "MAX_ENTRIES", 30)
    monkeypatch.setattr(export_page, "AROUND", 8)
    lines = [json.dumps({"type": "session", "version": 3, "id": "s", "timestamp":
                         "2026-01-01T00:00:00.000Z", "cwd": "/w"})]
    parent = None
    for number in range(60):   # a chain of 60, then a side branch from entry 55
        role = "user" if number % 2 == 0 else "assistant"
        lines.append(json.dumps({"type": "message", "id": f"e{number}", "parentId": parent,
                                 "timestamp": "2026-01-01T00:00:00.000Z",
                                 "message": {"role": role, "content": f"turn {number}"}}))
        parent = f"e{number}"
    lines.append(json.dumps({"type": "message", "id": "side", "parentId": "e55",
                             "timestamp": "2026-01-01T00:00:00.000Z",
                             "message": {"role": "user", "content": "elsewhere"}}))
    session = session_from_text("\n".join(lines) + "\n")
    data = page_data(session, leaf="e59", lang="en")
    ids = [item["id"] for item in data["entries"]]
    assert ids == [f"e{number}" for number in range(52, 60)] + ["side"]
    assert data["leftOut"] == 61 - 9
    for at, item in enumerate(data["entries"]):
        expected = session.context(item["id"]).messages
        shown = resolved_context(data, at)
        earlier = data["contexts"][_chain(data, at)[-1]]["earlier"]
        assert earlier + len(shown) == len(expected)
        assert shown == expected[earlier:]
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(["export", str(path), "--html", "--out", str(tmp_path / "p.html"),
                          "--leaf", "e59", "--lang", "en"])
    assert code == 0, err
    assert "the page holds the tree around the leaf" in out and "52 entries are left out" in out


def test_the_command_writes_one_page_and_never_overwrites(tmp_path) -> None:
    source = ROOT / "data" / "branched.jsonl"
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    out = tmp_path / "page.html"
    code, said, err = run(["export", str(source), "--html", "--out", str(out), "--lang", "en"])
    assert (code, err) == (0, "")
    assert said.startswith(f"wrote the page {out}") and "16 entries" in said
    page = out.read_text(encoding="utf-8")
    data = payload_of(page)
    assert data["source"] == "branched.jsonl" and data["lang"] == "en"
    addresses = set(re.findall(r"https?://[^\s\"')]+", page))
    assert addresses == {"http://www.w3.org/2000/svg"}, "the page names no address to fetch"
    assert "default-src 'none'" in page
    out.write_text("mine", encoding="utf-8")
    code, said, err = run(["export", str(source), "--html", "--out", str(out), "--lang", "en"])
    assert code == 2 and said == "" and "already exists" in err
    assert out.read_text(encoding="utf-8") == "mine"
    code, said, err = run(["export", str(source), "--out", str(tmp_path / "x.html"),
                           "--lang", "en"])
    assert code == 2 and "export needs --html" in err and not (tmp_path / "x.html").exists()
    code, said, err = run(["export", str(source), "--html", "--out", str(tmp_path / "y.html"),
                           "--leaf", "nope", "--lang", "en"])
    assert code == 2 and not (tmp_path / "y.html").exists()
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before


def test_chinese_edition_page(tmp_path) -> None:
    out = tmp_path / "页面.html"
    code, said, err = run(["export", str(ROOT / "data" / "compacted.jsonl"), "--html",
                           "--out", str(out), "--lang", "zh"])
    assert code == 0, err
    assert said.startswith("已写入页面")
    page = out.read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page
    data = payload_of(page)
    assert data["ui"]["summary"] == "压缩摘要"
    assert any(message["role"] == "compactionSummary" for message in data["messages"])


def test_the_script_hash_in_the_policy_is_the_script() -> None:
    """The content security policy runs exactly the page's own script and nothing else: a
    script the session's text smuggled in would not match the hash."""
    import base64
    page = render_page(page_data(load_session(ROOT / "data" / "linear.jsonl"), lang="en"))
    script = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(script) == 1
    digest = base64.b64encode(hashlib.sha256(script[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page
