"""The original learn-pi course's session-tree API, still here (issue 13).

A learner or teacher coming from the public Chinese course (whkp/learn-pi) brings its tests
and habits. This file states that course's contract for ``learn_pi_lab.session_tree`` and
``python3 -m learn_pi_lab lab session-tree`` from its documented facts (written anew here,
not copied), and checks it under both languages: whatever ``LANG`` or
``LEARN_PI_LAB_LANG`` say, an exception's ``str()`` is the same English sentence, because
translating is the job of the place that shows it. docs/coming-from-learn-pi.md lists
where this workbook differs and why.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

import learn_pi_lab
from learn_pi_lab.cli import commands as cli
from learn_pi_lab.session_tree import (SESSION_TREE_FIXTURE, MalformedTranscript,
                                       TranscriptEntry, TranscriptTree,
                                       UnknownTranscriptEntry, validate)

ROOT = Path(__file__).resolve().parents[1]
LOCALES = {"zh": "zh_CN.UTF-8", "en": "en_US.UTF-8"}


@pytest.fixture(params=sorted(LOCALES), autouse=True)
def language(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs twice: once as a Chinese learner, once as an English one."""
    lang = request.param
    monkeypatch.setenv("LEARN_PI_LAB_LANG", lang)
    monkeypatch.setenv("LANG", LOCALES[lang])
    monkeypatch.delenv("LC_ALL", raising=False)
    return lang


def entry(entry_id: str, parent_id: str | None, text: str = "") -> TranscriptEntry:
    return TranscriptEntry(entry_id, parent_id, text or entry_id.title())


def ids_of(entries) -> tuple[str, ...]:
    return tuple(item.id for item in entries)


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------------------
# TranscriptEntry and the fixture
# --------------------------------------------------------------------------------------

def test_an_entry_is_id_parent_and_text_by_position() -> None:
    made = TranscriptEntry("root", None, "Root")
    assert (made.id, made.parent_id, made.text) == ("root", None, "Root")
    assert made.kind == "message", "the richer fields keep their defaults"
    with pytest.raises(FrozenInstanceError):
        made.text = "changed"  # type: ignore[misc]


def test_the_fixture_is_a_root_with_two_branches() -> None:
    assert [(e.id, e.parent_id, e.text) for e in SESSION_TREE_FIXTURE] == [
        ("root", None, "Root"), ("child", "root", "Child"), ("leaf", "child", "Leaf"),
        ("sibling", "root", "Sibling")]


# --------------------------------------------------------------------------------------
# TranscriptTree: path_to and branch_ids
# --------------------------------------------------------------------------------------

def test_path_to_runs_root_first_and_leaves_out_the_sibling() -> None:
    path = TranscriptTree(SESSION_TREE_FIXTURE).path_to("leaf")
    assert isinstance(path, tuple)
    assert ids_of(path) == ("root", "child", "leaf")
    assert [item.text for item in path] == ["Root", "Child", "Leaf"]


def test_the_tree_keeps_a_snapshot_and_hands_out_tuples() -> None:
    given = [entry("root", None), entry("child", "root")]
    tree = TranscriptTree(given)
    given.clear()
    given.append(entry("stranger", None))
    path, all_ids = tree.path_to("child"), tree.branch_ids()
    assert ids_of(path) == ("root", "child")
    assert all_ids == ("root", "child") and isinstance(all_ids, tuple)
    with pytest.raises(TypeError):
        path[0] = entry("stranger", None)  # type: ignore[index]
    with pytest.raises(TypeError):
        all_ids[0] = "stranger"  # type: ignore[index]


def test_branch_ids_are_every_id_in_input_order() -> None:
    tree = TranscriptTree([entry("b", "a"), entry("a", None), entry("c", "a")])
    assert tree.branch_ids() == ("b", "a", "c")


def test_an_unknown_leaf_is_a_key_error_naming_the_id() -> None:
    tree = TranscriptTree([entry("root", None)])
    with pytest.raises(UnknownTranscriptEntry) as caught:
        tree.path_to("missing")
    assert isinstance(caught.value, KeyError)
    assert caught.value.entry_id == "missing"
    assert str(caught.value) == "unknown transcript entry: 'missing'"


# --------------------------------------------------------------------------------------
# validate: what is malformed, with the English words the original course used
# --------------------------------------------------------------------------------------

MALFORMED = {
    "not an entry": ([entry("root", None), ("x", None)], "entries must be TranscriptEntry values"),
    "empty id": ([entry("", None, "empty")], "empty id is not allowed"),
    "duplicate id": ([entry("root", None, "one"), entry("root", None, "two")],
                     "duplicate id: 'root'"),
    "self parent": ([entry("me", "me")], "self parent is not allowed: 'me'"),
    "dangling parent": ([entry("child", "missing")], "dangling parent for 'child': 'missing'"),
    "empty parent": ([entry("root", None), entry("child", "")],
                     "dangling parent for 'child': ''"),
    "two-entry cycle": ([entry("first", "second"), entry("second", "first")],
                        "cycle detected involving entry"),
    "cycle behind a tail": ([entry("tail", "a"), entry("a", "b"), entry("b", "c"),
                             entry("c", "a")], "cycle detected involving entry"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_entries_are_refused_by_validate_and_by_the_tree(case: str) -> None:
    entries, words = MALFORMED[case]
    for attempt in (lambda: validate(entries), lambda: TranscriptTree(entries)):
        with pytest.raises(MalformedTranscript) as caught:
            attempt()
        assert isinstance(caught.value, ValueError)
        assert words in str(caught.value), f"{case}: {str(caught.value)!r}"


def test_a_cycle_names_an_entry_of_the_loop_not_the_tail() -> None:
    entries, _ = MALFORMED["cycle behind a tail"]
    with pytest.raises(MalformedTranscript) as caught:
        validate(entries)
    named = str(caught.value).split("involving entry ", 1)[1].split(":", 1)[0].strip("'")
    assert named in {"a", "b", "c"}


@pytest.mark.parametrize("entries", [
    [],
    [entry("r1", None), entry("r2", None), entry("x", "r1")],
    [entry("leaf", "child"), entry("child", "root"), entry("root", None)],
], ids=["empty", "several roots", "children first"])
def test_forests_are_fine(entries: list[TranscriptEntry]) -> None:
    assert validate(entries) is None
    assert TranscriptTree(entries).branch_ids() == ids_of(entries)


# --------------------------------------------------------------------------------------
# python3 -m learn_pi_lab lab session-tree
# --------------------------------------------------------------------------------------

def test_cli_prints_the_fixture_branch_as_one_sorted_json_object() -> None:
    code, out, err = run_cli("lab", "session-tree")
    assert (code, err) == (0, "")
    assert json.loads(out) == {"path_ids": ["root", "child", "leaf"],
                               "texts": ["Root", "Child", "Leaf"]}
    assert out.index('"path_ids"') < out.index('"texts"') and out.count("\n") == 1


def test_cli_with_another_leaf() -> None:
    code, out, _ = run_cli("lab", "session-tree", "--leaf", "sibling")
    assert code == 0
    assert json.loads(out) == {"path_ids": ["root", "sibling"], "texts": ["Root", "Sibling"]}


def test_cli_unknown_leaf() -> None:
    code, out, err = run_cli("lab", "session-tree", "--leaf", "X")
    assert (code, out) == (2, "")
    assert err.startswith("session-tree: unknown transcript entry: 'X'")
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("extra", [["somewhere"], ["--boundary", "."]],
                         ids=["directory", "boundary"])
def test_cli_refuses_arguments_of_other_labs(extra: list[str]) -> None:
    code, out, err = run_cli("lab", "session-tree", *extra)
    assert (code, out) == (2, "")
    assert err.startswith("session-tree:") and "not supported" in err


def test_cli_alone_prints_help_and_version_prints_the_version() -> None:
    code, out, err = run_cli()
    assert code == 0 and err == "" and ("usage:" in out or "用法：" in out) and "lab" in out
    assert run_cli("--version") == (0, learn_pi_lab.__version__ + "\n", "")


def test_cli_in_a_real_process_under_the_locale(language: str) -> None:
    env = {**os.environ, "LANG": LOCALES[language], "LEARN_PI_LAB_LANG": language}
    done = subprocess.run([sys.executable, "-m", "learn_pi_lab", "lab", "session-tree",
                           "--leaf", "X"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("session-tree: unknown transcript entry: 'X'")
