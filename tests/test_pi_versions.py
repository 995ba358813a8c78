"""Pi 0.84.2 beside Pi 1.6.0: the rules that differ, one small hand-made case each.

Every rule here is also checked against Pi's own code on generated sessions
(test_pi_generated.py); these cases name each rule so that a failure says which one broke.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from learn_pi_lab.cli import commands as cli
from learn_pi_lab.jsonl.records import KNOWN_ENTRY_TYPES, PI_1X_ENTRY_TYPES
from learn_pi_lab.pi.context import (BASELINE_PI_VERSION, CURRENT_PI_VERSION, PI_VERSIONS,
                                     build_session_context, js_time)
from learn_pi_lab.pi.session import session_from_text
from learn_pi_lab.session_inspector import inspect_session, inspect_session_as

OLD, NEW = BASELINE_PI_VERSION, CURRENT_PI_VERSION
HEADER = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-11-20T09:00:00.000Z",
          "cwd": "/work"}


def entry(type_: str, entry_id: str, parent_id: str | None, **fields) -> dict:
    return {"type": type_, "id": entry_id, "parentId": parent_id,
            "timestamp": fields.pop("timestamp", "2026-11-20T09:00:01.000Z"), **fields}


def msg(entry_id: str, parent_id: str | None, role: str, content="hi", **extra) -> dict:
    return entry("message", entry_id, parent_id,
                 message={"role": role, "content": content, "timestamp": 1, **extra})


def edit(entry_id: str, parent_id: str, target: str, replacement) -> dict:
    return entry("context_edit", entry_id, parent_id, targetId=target, replacement=replacement)


def context_of(entries: list[dict], version: str, leaf: str | None = None):
    text = "".join(json.dumps(obj) + "\n" for obj in [HEADER, *entries])
    return session_from_text(text, pi_version=version).context(leaf)


def contents(context) -> list:
    return [(m["entryId"], m["role"], m.get("content")) for m in context.messages]


CHAT = [msg("u1", None, "user", "first question"),
        msg("a1", "u1", "assistant", [{"type": "text", "text": "first answer"}],
            provider="acme", model="alpha"),
        msg("u2", "a1", "user", "second question")]


def test_versions_and_types() -> None:
    assert PI_VERSIONS == ("0.84.2", "1.6.0")
    assert PI_1X_ENTRY_TYPES == {"usage", "context_edit"} <= KNOWN_ENTRY_TYPES
    with pytest.raises(ValueError, match="pi_version"):
        build_session_context([], pi_version="2.0")


def test_edit_omits_the_target_only_in_1_6_and_the_line_stays() -> None:
    entries = [*CHAT, edit("e1", "u2", "a1", None)]
    assert [m["entryId"] for m in context_of(entries, NEW).messages] == ["u1", "u2"]
    assert [m["entryId"] for m in context_of(entries, OLD).messages] == ["u1", "a1", "u2"]
    session = session_from_text("".join(json.dumps(o) + "\n" for o in [HEADER, *entries]))
    assert session.entry("a1")["message"]["content"][0]["text"] == "first answer"


def test_string_replacement_becomes_a_text_block_for_assistant_not_for_user() -> None:
    entries = [*CHAT, edit("e1", "u2", "a1", {"content": "shorter"}),
               edit("e2", "e1", "u1", {"content": "q?"})]
    assert contents(context_of(entries, NEW)) == [
        ("u1", "user", "q?"), ("a1", "assistant", [{"type": "text", "text": "shorter"}]),
        ("u2", "user", "second question")]


def test_latest_edit_on_the_branch_wins_and_going_back_restores_the_original() -> None:
    entries = [*CHAT, edit("e1", "u2", "u1", {"content": "v1"}),
               edit("e2", "e1", "u1", {"content": "v2"})]
    assert context_of(entries, NEW).messages[0]["content"] == "v2"
    assert context_of(entries, NEW, leaf="e1").messages[0]["content"] == "v1"
    assert context_of(entries, NEW, leaf="u2").messages[0]["content"] == "first question"


def test_an_edit_on_another_branch_does_not_count() -> None:
    entries = [*CHAT, edit("e1", "u2", "u1", None),
               msg("u3", "a1", "user", "other branch")]           # sibling of u2
    assert [m["entryId"] for m in context_of(entries, NEW).messages] == ["u1", "a1", "u3"]


def test_an_edit_hidden_by_a_compaction_no_longer_counts() -> None:
    entries = [*CHAT, edit("e1", "u2", "u1", None),
               entry("compaction", "c1", "e1", summary="S", firstKeptEntryId="u1",
                     tokensBefore=9),
               entry("compaction", "c2", "c1", summary="T", firstKeptEntryId="u2",
                     tokensBefore=9)]
    # c2 keeps the branch from u2 on: e1 is in the context, its target u1 is not.
    assert [m["entryId"] for m in context_of(entries, NEW).messages] == ["c2", "u2"]
    assert [m["entryId"] for m in context_of(entries, OLD).messages] == ["c2", "u2", "c1"]


def test_nested_compaction_older_summary_only_in_0_84() -> None:
    entries = [*CHAT,
               entry("compaction", "c1", "u2", summary="S1", firstKeptEntryId="u1",
                     tokensBefore=1),
               msg("u3", "c1", "user", "more"),
               entry("compaction", "c2", "u3", summary="S2", firstKeptEntryId="u1",
                     tokensBefore=2)]
    old = [m["entryId"] for m in context_of(entries, OLD).messages]
    new = [m["entryId"] for m in context_of(entries, NEW).messages]
    assert old == ["c2", "u1", "a1", "u2", "c1", "u3"]
    assert new == ["c2", "u1", "a1", "u2", "u3"]


def test_system_message_checkpoint_leads_and_replaces_kept_system_messages() -> None:
    checkpoint = {"role": "system", "content": "You are Pi. Tools: read, bash.", "timestamp": 3}
    entries = [msg("s0", None, "system", "old prompt"), msg("u1", "s0", "user", "q"),
               entry("compaction", "c1", "u1", summary="S", firstKeptEntryId="s0",
                     tokensBefore=5, systemMessage=checkpoint),
               msg("s1", "c1", "system", "a later section")]
    new = context_of(entries, NEW).messages
    assert [(m["entryId"], m["role"]) for m in new] == [
        ("c1", "system"), ("c1", "compactionSummary"), ("u1", "user"), ("s1", "system")]
    assert new[0]["content"] == checkpoint["content"]
    old = context_of(entries, OLD).messages
    assert [(m["entryId"], m["role"]) for m in old] == [
        ("c1", "compactionSummary"), ("s0", "system"), ("u1", "user"), ("s1", "system")]


def test_usage_entries_send_nothing_and_count_in_1_6_totals(tmp_path: Path) -> None:
    usage = entry("usage", "g1", "u2", kind="cache_warm", provider="acme", model="alpha",
                  usage={"input": 100, "output": 0, "cacheRead": 7, "totalTokens": 107})
    entries = [*CHAT, usage, edit("e1", "g1", "u1", None)]
    for version in PI_VERSIONS:
        assert "g1" not in {m["entryId"] for m in context_of(entries, version).messages}
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in [HEADER, *entries]), encoding="utf-8")
    old, new = inspect_session(path), inspect_session_as(path, NEW)
    assert (new["usage"]["input"], old["usage"]["input"]) == (100, 0)
    assert (new["context_edits"], new["usage_entries"], new["pi_version"]) == (1, 1, NEW)
    assert old["pi_version"] == OLD


def test_several_roots_are_a_normal_shape() -> None:
    """resetLeaf(): the next append starts a new root; its branch starts there."""
    entries = [*CHAT, msg("r2", None, "user", "fresh start"), msg("b2", "r2", "assistant", [])]
    session = session_from_text("".join(json.dumps(o) + "\n" for o in [HEADER, *entries]),
                                pi_version=NEW)
    assert session.diagnostics == []
    assert [e["id"] for e in session.branch()] == ["r2", "b2"]
    assert [m["entryId"] for m in session.context().messages] == ["r2", "b2"]


def test_problems_where_pi_would_throw() -> None:
    entries = [*CHAT, entry("context_edit", "e1", "u2", targetId="u1")]   # no replacement
    context = context_of(entries, NEW)
    assert [(p.entry_id, p.code) for p in context.problems] == [("e1", "edit-without-replacement")]
    assert context.messages[0]["content"] == "first question"   # the broken edit is skipped
    broken = [entry("message", "m1", None)]
    assert [p.code for p in context_of(broken, OLD).problems] == ["message-without-object"]
    # (an attacker's review: pi mode keeps an entry whose id is a list or an object; beside a
    # broken edit that was a TypeError, "unhashable type", and a traceback from `context`)
    odd_ids = [msg(["L"], None, "user", "x"), msg({"a": 1}, None, "user", "y"),
               *CHAT, entry("context_edit", "e1", "u2", targetId="u1")]
    context = build_session_context(odd_ids, pi_version=NEW)
    assert [(p.entry_id, p.code) for p in context.problems] == [("e1", "edit-without-replacement")]


def test_js_time_is_new_date_get_time() -> None:
    assert js_time(None, present=False) is None          # new Date(undefined) -> NaN
    assert js_time(None) == 0 and js_time(1.9) == 1 and js_time(True) == 1
    assert js_time("2026-11-20T09:00:00.000Z") == 1795165200000
    assert js_time(9e15) is None and js_time("yesterday") is None


# --------------------------------------------------------------------------------------
# The command line: --pi-version on every command that reads a session
# --------------------------------------------------------------------------------------

def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main([str(arg) for arg in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def edited_file(tmp_path: Path) -> Path:
    usage = entry("usage", "g1", "e1", kind="cache_warm", provider="acme", model="alpha",
                  usage={"input": 5})
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in
                            [HEADER, *CHAT, edit("e1", "u2", "a1", None), usage]),
                    encoding="utf-8")
    return path


def test_cli_context_default_is_1_6(edited_file: Path) -> None:
    code, out, _ = run("context", edited_file, "--json")
    default = json.loads(out)
    assert code == 0 and set(default) == {"leaf", "model", "thinkingLevel", "messages"}
    assert [m["entryId"] for m in default["messages"]] == ["u1", "u2"]
    _, out, _ = run("context", edited_file, "--json", "--pi-version", "0.84.2")
    assert [m["entryId"] for m in json.loads(out)["messages"]] == ["u1", "a1", "u2"]
    _, out, _ = run("context", edited_file, "--json", "--pi-version", "1.6.0", "--pi-compat")
    assert json.loads(out) == default


def test_cli_tree_hides_usage_in_1_6_only(edited_file: Path) -> None:
    _, new, _ = run("tree", edited_file)
    _, old, _ = run("tree", edited_file, "--pi-version", "0.84.2")
    body = lambda out: "\n".join(out.splitlines()[1:])   # after the header line (leaf g1)
    assert "g1" not in body(new) and "g1" in body(old) and "e1" in body(new)
    # (a Pi user's review: a session ending in usage entries had no leaf marked; Pi 1.6.0
    # selects the nearest entry /tree shows)
    marked = [line for line in body(new).splitlines() if "← leaf" in line]
    assert len(marked) == 1 and "e1" in marked[0], new
    assert [line for line in body(old).splitlines() if "← leaf" in line][0].count("g1") == 1


def test_cli_tree_folds_only_entries_it_shows(tmp_path: Path) -> None:
    """A Pi user's review: a run ending in two usage entries spent its folded run's tail on
    them, so the run's last shown entry was folded away and never appeared."""
    chain = [entry("message", "r", None, message={"role": "user", "content": "hi"})]
    for n in range(1, 8):
        role = "assistant" if n % 2 else "user"
        chain.append(entry("message", f"x{n}", chain[-1]["id"],
                           message={"role": role, "content": "LAST" if n == 7 else "hi"}))
    chain += [entry("usage", "us1", "x7", kind="cache_warm", provider="p", model="m",
                    usage={}),
              entry("usage", "us2", "us1", kind="cache_warm", provider="p", model="m",
                    usage={}),
              entry("message", "b1", "r", message={"role": "user", "content": "other"})]
    path = tmp_path / "folded.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in [HEADER, *chain]), encoding="utf-8")
    _, out, _ = run("tree", path, "--lang", "en")
    assert "x7" in out and "LAST" in out and "… 3 entries …" in out, out
    assert "us1" not in out and "us2" not in out


def test_cli_path_and_inspect_take_the_flag(edited_file: Path) -> None:
    for version in PI_VERSIONS:
        code, out, _ = run("path", edited_file, "--json", "--pi-version", version)
        assert code == 0 and json.loads(out)["path"][-1] == "g1"
        code, out, _ = run("inspect", edited_file, "--json", "--pi-version", version)
        assert code == 0 and json.loads(out)["pi_version"] == version
    # (a Pi user's review: 0.84.2 was said to read these entries "by its rules"; it does not
    # know them)
    _, old, _ = run("inspect", edited_file, "--pi-version", "0.84.2", "--lang", "en")
    _, new, _ = run("inspect", edited_file, "--lang", "en")
    assert "Pi 0.84.2 does not know these types" in old and "by Pi 1.6.0's rules" in new
    code, _, err = run("context", edited_file, "--pi-version", "2.0")
    assert code == 2 and "2.0" in err and "Traceback" not in err
