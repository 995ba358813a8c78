"""The command line: ``python3 -m learn_pi_lab ...``.

The contract: exit 0 on success; a user error (missing file, directory, not a session file,
unknown id, bad option, output file already there) exits 2 with exactly one line on stderr
and no traceback; an input file is never changed. Commands run in-process through
``cli.main(argv)`` for speed, plus a few real subprocess runs.

``path`` and ``context`` must give Pi's own answers (``expected/*.json``, from Pi v0.84.2) in
``--pi-compat`` mode, and for v3 files in the default teaching mode too.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import learn_pi_lab
from learn_pi_lab.cli import commands as cli
from learn_pi_lab.course import labs
from learn_pi_lab.jsonl.reader import read_session
from learn_pi_lab.pi.session import load_session
from learn_pi_lab.session_inspector import inspect_session, inspect_session_as

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
EXPECTED_CANDIDATES = (DATA / "pi" / "expected",
                       ROOT.parent / "shared" / "pi-sessions" / "expected")
TREE_DAMAGE = {"dangling-parent", "self-parent", "cycle"}


def session_files() -> list[Path]:
    files = sorted(DATA.glob("*.jsonl")) + sorted((DATA / "pi").glob("*/*.jsonl*"))
    return [path for path in files if path.is_file()]


def expected_answers() -> list[Path]:
    for folder in EXPECTED_CANDIDATES:
        if folder.is_dir() and any(folder.glob("*.json")):
            return sorted(folder.glob("*.json"))
    return []


def run(*argv: str | os.PathLike) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main([os.fspath(arg) for arg in argv])
    return code, out.getvalue(), err.getvalue()


def run_json(*argv: str | os.PathLike) -> dict:
    code, out, err = run(*argv)
    assert code == 0, f"{argv} exited {code}: {err}"
    assert err == ""
    return json.loads(out)


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def assert_user_error(code: int, out: str, err: str, *, contains: str = "") -> None:
    assert code == 2, f"expected exit 2, got {code}; stderr: {err!r}"
    assert err.endswith("\n") and err.count("\n") == 1, f"one line on stderr, got {err!r}"
    assert "Traceback" not in err
    assert out == ""
    assert contains in err, f"{contains!r} not in {err!r}"


def has_tree_damage(path: Path) -> bool:
    return any(found.code in TREE_DAMAGE for found in load_session(path).diagnostics)


def names(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


FILES = session_files()


def test_the_course_files_are_there() -> None:
    assert len(FILES) >= 15, "data/ should hold the course's session files"


# --------------------------------------------------------------------------------------
# lab session-story (this workbook's 18-turn example) and lab session-tree (the original
# course's 4-entry example; its contract is also checked in tests/test_original_api.py)
# --------------------------------------------------------------------------------------

def test_lab_session_tree_is_the_original_courses_example() -> None:
    code, out, err = run("lab", "session-tree")
    assert (code, err) == (0, "")
    assert out == '{"path_ids": ["root", "child", "leaf"], "texts": ["Root", "Child", "Leaf"]}\n'
    assert json.loads(run("lab", "session-tree", "--leaf", "sibling")[1]) == {
        "path_ids": ["root", "sibling"], "texts": ["Root", "Sibling"]}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_lab_session_tree_errors_start_with_its_name_and_the_english_message(lang: str) -> None:
    code, out, err = run("lab", "session-tree", "--leaf", "X", "--lang", lang)
    assert_user_error(code, out, err, contains="session-tree: unknown transcript entry: 'X'")
    assert err.startswith("session-tree: unknown transcript entry: 'X'")
    assert ("找不到条目" in err) == (lang == "zh"), "the learner's language follows the English"
    for extra in (["some-directory"], ["--boundary", "."]):
        code, out, err = run("lab", "session-tree", *extra, "--lang", lang)
        assert_user_error(code, out, err, contains="not supported")
        assert err.startswith("session-tree: ")


def test_lab_session_story_refuses_the_other_examples_arguments() -> None:
    assert_user_error(*run("lab", "session-story", "some-directory", "--lang", "en"),
                      contains="not supported")


def test_lab_session_story_prints_the_current_branch_root_first() -> None:
    report = run_json("lab", "session-story", "--lang", "en")
    tree = labs.story_tree("en")
    ids = [step["id"] for step in report["path"]]
    assert report["leaf"] == tree.leaf_id == ids[-1]
    assert tree[ids[0]].parent_id is None
    for parent, child in zip(ids, ids[1:]):
        assert tree[child].parent_id == parent
    assert "u06" not in ids and "summary" in ids, "the default leaf is on the new branch"
    assert all(step["kind"] and step["text"] for step in report["path"])


def test_lab_session_story_with_a_leaf_on_the_abandoned_branch() -> None:
    report = run_json("lab", "session-story", "--leaf", "a18")
    ids = [step["id"] for step in report["path"]]
    assert ids[-1] == "a18" and "u06" in ids and "summary" not in ids
    assert len(ids) == 2 + 2 * labs.STORY_TURNS


def test_lab_session_story_is_the_same_in_both_languages_except_the_text() -> None:
    zh, en = run_json("lab", "session-story", "--lang", "zh"), run_json("lab", "session-story",
                                                                         "--lang", "en")
    assert [s["id"] for s in zh["path"]] == [s["id"] for s in en["path"]]
    assert zh["path"][2]["text"] != en["path"][2]["text"]
    assert run_json("lab", "session-story", "--lang", "zh") == zh, "deterministic"


# --------------------------------------------------------------------------------------
# Every command on every file
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", FILES, ids=names)
def test_inspect(path: Path) -> None:
    before = snapshot(path)
    assert run_json("inspect", path, "--json") == inspect_session_as(path, "1.6.0")  # the default
    assert run_json("inspect", path, "--json", "--pi-version", "0.84.2") == inspect_session(path)
    for lang in ("zh", "en"):
        code, out, err = run("inspect", path, "--lang", lang)
        assert code == 0 and err == ""
        assert inspect_session(path)["session_id"] in out
    assert snapshot(path) == before


@pytest.mark.parametrize("path", FILES, ids=names)
def test_tree(path: Path) -> None:
    before = snapshot(path)
    code, out, err = run("tree", path)
    session = load_session(path)
    read_apart = {code for code in cli.READ_APART_FROM_PI
                  if session.file.diagnostic_counts.get(code)}
    assert code == 0 and (err == "") == (not read_apart), err   # the note, only when due
    lines = out.splitlines()
    if session.leaf_id is not None:
        leaf_lines = [line for line in lines if f" {session.leaf_id}  " in line]
        assert any(line.endswith(cli.t("cli.tree.leaf")) for line in leaf_lines), out
    for target, label in session.labels().items():
        assert any(target in line and f"[{label}]" in line for line in lines), out
    assert run("tree", path) == (code, out, err), "the same file prints the same tree"
    assert snapshot(path) == before


def test_tree_folds_long_linear_runs_and_marks_branches() -> None:
    big = next((path for path in FILES if path.name.startswith("large-session")), None)
    if big is not None:
        code, out, _ = run("tree", big, "--lang", "en")
        assert code == 0 and "… 1014 entries …" in out and len(out.splitlines()) < 10
    code, out, _ = run("tree", DATA / "branched.jsonl", "--lang", "en")
    assert code == 0 and "├─ " in out and "└─ " in out


def test_tree_of_deeply_nested_branches_has_lines_of_bounded_width(tmp_path: Path) -> None:
    """Each entry with two children, 3,000 levels deep: the indent stops growing at
    INDENT_LEVELS and the deeper branch lines say their level (the width once grew by three
    characters a level, and 200,000 levels took 23 GB)."""
    from learn_pi_lab.cli.tree_text import INDENT_LEVELS
    lines = ['{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z",'
             '"cwd":"/"}']
    parent = None
    for level in range(3000):
        for name in (f"n{level}", f"s{level}"):
            lines.append(json.dumps({"type": "message", "id": name, "parentId": parent,
                                     "timestamp": "2026-01-01T00:00:00.000Z",
                                     "message": {"role": "user", "content": name}}))
        parent = f"n{level}"
    path = tmp_path / "nested.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = run("tree", path, "--lang", "en")
    shown = out.splitlines()
    assert code == 0 and len(shown) == 1 + 6000
    assert max(map(len, shown)) < 3 * INDENT_LEVELS + 60
    assert any(line.endswith("s2999  user: s2999  ← leaf") and "[level 2999] " in line
               for line in shown), shown[-3:]
    _, chinese, _ = run("tree", path, "--lang", "zh")
    assert "[第 2999 层] " in chinese


def test_tree_with_another_leaf_marks_that_leaf() -> None:
    session = load_session(DATA / "branched.jsonl")
    other = [entry.id for entry in session.tree.leaves() if entry.id != session.leaf_id][0]
    code, out, _ = run("tree", DATA / "branched.jsonl", "--leaf", other, "--lang", "en")
    marked = [line for line in out.splitlines() if line.endswith("← leaf")]
    assert code == 0 and len(marked) == 1 and other in marked[0]


def check_branch(path_ids: list[str], leaf: str | None, session) -> None:
    if leaf is None:
        assert path_ids == []
        return
    assert path_ids[-1] == leaf
    assert session.entry(path_ids[0]).get("parentId") is None or session.mode == "pi"
    for parent, child in zip(path_ids, path_ids[1:]):
        assert session.entry(child).get("parentId") == parent


@pytest.mark.parametrize("path", FILES, ids=names)
def test_path_and_context(path: Path) -> None:
    before = snapshot(path)
    damaged = has_tree_damage(path)
    for mode_flags in ([], ["--pi-compat"]):
        session = load_session(path, mode="pi" if mode_flags else "teaching")
        for command in ("path", "context"):
            code, out, err = run(command, path, "--json", *mode_flags)
            if code == 2 and not mode_flags and damaged:
                assert_user_error(code, out, err)  # teaching mode will not walk through damage
                continue
            assert code == 0, err
            answer = json.loads(out)
            assert answer["leaf"] == session.leaf_id
            if command == "path":
                check_branch(answer["path"], answer["leaf"], session)
            else:
                assert set(answer) == {"leaf", "model", "thinkingLevel", "messages"}
                ids = {entry["id"] for entry in session.branch(answer["leaf"])} \
                    if answer["leaf"] else set()
                assert all(message["entryId"] in ids for message in answer["messages"])
    assert snapshot(path) == before


def test_context_of_a_last_line_without_an_id_shows_a_dash_for_its_id(tmp_path: Path) -> None:
    # Pi keeps that line's message in the context (no entryId); "None" is Python's word
    path = tmp_path / "no-id.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "user", "content": "hi", "timestamp": 1}},
        {"type": "message", "parentId": "a1", "timestamp": "2026-01-01T00:00:02Z",
         "message": {"role": "user", "content": "again", "timestamp": 2}})) + "\n")
    code, out, err = run("context", path, "--pi-compat", "--lang", "en")
    assert code == 0, err
    assert out.splitlines()[1:] == ["a1  user", "-  user"]
    assert "None" not in out


@pytest.mark.parametrize("path", FILES, ids=names)
def test_migrate_writes_a_new_v3_file(path: Path, tmp_path: Path) -> None:
    before = snapshot(path)
    out_path = tmp_path / "migrated.jsonl"
    code, out, err = run("migrate", path, "--out", out_path)
    assert code == 0 and err == "" and str(out_path) in out
    source, migrated = read_session(path), read_session(out_path)
    assert migrated.header["version"] == 3 and not migrated.migrated
    assert migrated.objects() == source.objects(), "the same entries, now as v3"
    assert snapshot(path) == before


@pytest.mark.parametrize("path", FILES, ids=names)
def test_migrate_counts_the_problems_inspect_lists(path: Path, tmp_path: Path) -> None:
    # (a Pi user's review: migrate said "0 problems" where inspect listed a parent cycle, a
    # dangling parent and a self-parent; the count now leaves out only the harmless ones)
    from learn_pi_lab.jsonl.reader import SEVERITIES
    counts = inspect_session(path)["problem_counts"]
    expected = sum(count for code, count in counts.items() if SEVERITIES[code] != "info")
    code, out, err = run("migrate", path, "--out", tmp_path / "m.jsonl", "--lang", "en")
    assert code == 0, err
    assert f"; {expected} problem" in out, (counts, out)


def test_migrate_counts_tree_problems(tmp_path: Path) -> None:
    source = write_session(tmp_path / "m.jsonl", user_at("c1", "c2", 1),
                           assistant_at("c2", "c1", 2), user_at("d", "gone", 3),
                           user_at("s", "s", 4), user_at("ok", None, 5))
    for extra in ([], ["--pi-compat"]):
        out = tmp_path / f"m2{len(extra)}.jsonl"
        code, stdout, err = run("migrate", source, "--out", out, "--lang", "en", *extra)
        assert code == 0, err
        assert "; 3 problems found in the source" in stdout
        assert "copied as they are" in stdout
        assert out.read_bytes() == source.read_bytes()


def test_an_xz_output_name_is_refused_and_a_full_disk_names_the_file(tmp_path: Path) -> None:
    """migrate wrote plain JSONL under an .xz name (which the tool then could not read);
    a write that fails (a full disk) said 'cannot read or write :' without the file."""
    source = DATA / "branched.jsonl"
    code, _, err = run("migrate", source, "--out", tmp_path / "out.jsonl.xz", "--lang", "en")
    assert code == 2 and "ends in .xz" in err and not (tmp_path / "out.jsonl.xz").exists()
    for packed in ("out.jsonl.gz", "out.jsonl.zst", "OUT.JSONL.BZ2"):   # (a Pi user's review)
        for command in (["migrate", source], ["fork", source, "--at", "8a3c84c6"]):
            for lang in ("en", "zh"):
                code, stdout, err = run(*command, "--out", tmp_path / packed, "--lang", lang)
                assert_user_error(code, stdout, err, contains=packed)
                assert "JSONL" in err and not (tmp_path / packed).exists()
    from unittest import mock

    from learn_pi_lab.jsonl import writer

    def full(descriptor: int, data: bytes) -> None:
        raise OSError(28, "No space left on device")
    with mock.patch.object(writer, "_write_all", full):
        code, _, err = run("migrate", source, "--out", tmp_path / "full.jsonl", "--lang", "en")
    assert code == 2 and str(tmp_path / "full.jsonl") in err and "No space left" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path", FILES, ids=names)
def test_fork_at_the_leaf_copies_the_branch(path: Path, tmp_path: Path) -> None:
    before = snapshot(path)
    session = load_session(path)
    if session.leaf_id is None:
        pytest.fail(f"{path} has no leaf to fork at")
    out_path = tmp_path / "fork.jsonl"
    code, out, err = run("fork", path, "--at", session.leaf_id, "--out", out_path)
    if has_tree_damage(path) and code == 2:
        assert_user_error(code, out, err)
        assert not out_path.exists()
        return
    assert code == 0, err
    fork = load_session(out_path)
    branch_ids = [entry["id"] for entry in session.branch() if entry.get("type") != "label"]
    assert [entry["id"] for entry in fork.branch()][:len(branch_ids)] == branch_ids
    assert fork.header["parentSession"] == str(path.resolve())
    assert fork.diagnostics == [] or all(found.severity == "info" for found in fork.diagnostics)
    assert snapshot(path) == before


def test_fork_before_a_user_message(tmp_path: Path) -> None:
    path = DATA / "branched.jsonl"
    session = load_session(path)
    users = [entry for entry in session.branch()
             if entry.get("type") == "message" and entry["message"].get("role") == "user"]
    target = users[-1]
    out_path = tmp_path / "before.jsonl"
    code, _, err = run("fork", path, "--before", target["id"], "--out", out_path)
    assert code == 0, err
    ids = [entry["id"] for entry in load_session(out_path).branch()]
    assert ids == [entry["id"] for entry in session.branch(target["parentId"])]


def test_fork_says_before_or_at_in_the_learners_language(tmp_path: Path) -> None:
    # (a Pi user's review: the Chinese line said "在 X 处 fork，position=before", English
    # words in it, and "at X" for a fork before X)
    path = DATA / "branched.jsonl"
    user = next(entry for entry in load_session(path).branch()
                if entry.get("type") == "message" and entry["message"].get("role") == "user")
    said = {}
    for position in ("before", "at"):
        for lang in ("en", "zh"):
            out = tmp_path / f"{position}-{lang}.jsonl"
            code, stdout, err = run("fork", path, f"--{position}", user["id"], "--out", out,
                                    "--lang", lang)
            assert code == 0, err
            said[position, lang] = stdout
    assert f"(fork before {user['id']})" in said["before", "en"]
    assert f"(fork at {user['id']})" in said["at", "en"]
    assert f"在 {user['id']} 之前 fork" in said["before", "zh"]
    assert f"在 {user['id']} 处 fork" in said["at", "zh"]
    assert all("position" not in text for text in said.values())


def write_session(path: Path, *entries: dict) -> Path:
    """A v3 file: a fixed header, then one line per entry."""
    header = {"type": "session", "version": 3, "id": "s",
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}
    path.write_text("".join(json.dumps(obj) + "\n" for obj in (header, *entries)),
                    encoding="utf-8")
    return path


def stamp(second: int) -> str:
    return f"2026-01-01T00:00:{second:02d}.000Z"


def user_at(entry_id: str, parent: str | None, second: int, text: str = "hi") -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp(second),
            "message": {"role": "user", "content": [{"type": "text", "text": text}]}}


def assistant_at(entry_id: str, parent: str | None, second: int) -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp(second),
            "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                        "provider": "p", "model": "m", "stopReason": "stop"}}


def label_at(entry_id: str, parent: str, second: int, target: str, label: str) -> dict:
    return {"type": "label", "id": entry_id, "parentId": parent, "timestamp": stamp(second),
            "targetId": target, "label": label}


@pytest.mark.parametrize("version, kept, messages", [
    (None, "u2", ["C", "u2", "a2", "u3", "a3"]),          # the default: Pi 1.6.0
    ("1.6.0", "u2", ["C", "u2", "a2", "u3", "a3"]),
    ("0.84.2", "L", ["C", "u3", "a3"])])                  # 0.84.2's fork loses u2 and a2
def test_fork_of_a_compaction_kept_from_a_label(tmp_path: Path, version: str | None,
                                                 kept: str, messages: list[str]) -> None:
    source = write_session(
        tmp_path / "fk.jsonl", user_at("u1", None, 1), assistant_at("a1", "u1", 2),
        label_at("L", "a1", 3, "a1", "mark"), user_at("u2", "L", 4), assistant_at("a2", "u2", 5),
        {"type": "compaction", "id": "C", "parentId": "a2", "timestamp": stamp(6),
         "summary": "SUM", "firstKeptEntryId": "L", "tokensBefore": 10},
        user_at("u3", "C", 7), assistant_at("a3", "u3", 8))
    out = tmp_path / "f.jsonl"
    code, _, err = run("fork", source, "--at", "a3", "--out", out,
                       *(["--pi-version", version] if version else []))
    assert code == 0, err
    compaction = next(entry for entry in read_session(out).objects()
                      if entry["type"] == "compaction")
    assert compaction["firstKeptEntryId"] == kept
    printed = run_json("context", out, "--json", "--pi-version", version or "1.6.0")
    assert [message["entryId"] for message in printed["messages"]] == messages


# --------------------------------------------------------------------------------------
# Pi's own answers
# --------------------------------------------------------------------------------------

ANSWERS = expected_answers()


def answer_case(answer_path: Path) -> tuple[dict, Path]:
    answer = json.loads(answer_path.read_text(encoding="utf-8"))
    return answer, answer_path.parent.parent / answer["file"]


@pytest.mark.skipif(not ANSWERS, reason="no expected/*.json (neither data/pi nor ../shared)")
@pytest.mark.parametrize("answer_path", ANSWERS, ids=lambda path: path.stem)
def test_path_and_context_match_pi(answer_path: Path) -> None:
    answer, session_path = answer_case(answer_path)
    modes = [["--pi-compat"]] + ([[]] if not answer["migratedOnOpen"] else [])
    for flags in modes:
        flags = [*flags, "--pi-version", "0.84.2"]   # the recorded answers are Pi 0.84.2's
        path = run_json("path", session_path, "--json", *flags)
        context = run_json("context", session_path, "--json", *flags)
        if isinstance(answer["path"], int):  # a v1 file: Pi's migration ids were random
            assert len(path["path"]) == answer["path"]
        else:
            assert (path["leaf"], path["path"]) == (answer["leaf"], answer["path"])
            assert context["leaf"] == answer["leaf"]
        assert context["model"] == answer["model"]
        assert context["thinkingLevel"] == answer["thinkingLevel"]
        got = [[m["role"], m["entryId"]] for m in context["messages"]]
        if answer["context"] and isinstance(answer["context"][0], str):
            assert [role for role, _ in got] == answer["context"]
        else:
            assert got == answer["context"]


# --------------------------------------------------------------------------------------
# User errors: exit 2, one line, no traceback, nothing changed
# --------------------------------------------------------------------------------------

@pytest.fixture
def sample(tmp_path: Path) -> Path:
    copy = tmp_path / "branched.jsonl"
    copy.write_bytes((DATA / "branched.jsonl").read_bytes())
    return copy


@pytest.mark.parametrize("command", [["inspect"], ["tree"], ["path", "--json"],
                                     ["context", "--json"]])
def test_missing_file_directory_and_not_a_session(command: list[str], tmp_path: Path) -> None:
    text_file = tmp_path / "notes.txt"
    text_file.write_text("just some notes\n", encoding="utf-8")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    no_header = tmp_path / "no-header.jsonl"
    no_header.write_text('{"type":"message","id":"a","parentId":null}\n', encoding="utf-8")
    for bad in (tmp_path / "missing.jsonl", tmp_path, text_file, empty, no_header):
        before = snapshot(bad) if bad.is_file() else None
        code, out, err = run(command[0], bad, *command[1:])
        assert_user_error(code, out, err)
        if before is not None:
            assert snapshot(bad) == before


def test_a_bom_is_a_user_error_only_in_pi_mode(tmp_path: Path) -> None:
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + (DATA / "linear.jsonl").read_bytes())
    assert run("path", bom, "--json")[0] == 0
    assert_user_error(*run("path", bom, "--json", "--pi-compat"))


@pytest.mark.parametrize("argv", [
    ["path", "{f}", "--json", "--leaf", "no-such-id"],
    ["context", "{f}", "--json", "--leaf", "no-such-id"],
    ["tree", "{f}", "--leaf", "no-such-id"],
    ["fork", "{f}", "--at", "no-such-id", "--out", "{out}"],
    ["fork", "{f}", "--before", "no-such-id", "--out", "{out}"],
])
def test_unknown_id(argv: list[str], sample: Path, tmp_path: Path) -> None:
    before = snapshot(sample)
    out_path = tmp_path / "new.jsonl"
    filled = [arg.format(f=sample, out=out_path) for arg in argv]
    assert_user_error(*run(*filled, "--lang", "en"), contains="no-such-id")
    assert snapshot(sample) == before and not out_path.exists()


def test_unknown_id_in_the_lab() -> None:
    for example in ("session-tree", "session-story"):
        assert_user_error(*run("lab", example, "--leaf", "no-such-id"), contains="no-such-id")


def test_fork_before_needs_a_user_message(sample: Path, tmp_path: Path) -> None:
    session = load_session(sample)
    out_path = tmp_path / "new.jsonl"
    assert_user_error(*run("fork", sample, "--before", session.leaf_id, "--out", out_path,
                           "--lang", "en"), contains="--at")
    assert not out_path.exists()


@pytest.mark.parametrize("command", ["migrate", "fork"])
def test_refuses_to_overwrite(command: str, sample: Path, tmp_path: Path) -> None:
    existing = tmp_path / "existing.jsonl"
    existing.write_text("precious\n", encoding="utf-8")
    extra = ["--at", load_session(sample).leaf_id] if command == "fork" else []
    before = snapshot(sample)
    assert_user_error(*run(command, sample, *extra, "--out", existing))
    assert existing.read_text(encoding="utf-8") == "precious\n"
    assert_user_error(*run(command, sample, *extra, "--out", sample), contains="")
    assert snapshot(sample) == before


def test_an_output_folder_that_does_not_exist(sample: Path, tmp_path: Path) -> None:
    assert_user_error(*run("migrate", sample, "--out", tmp_path / "no" / "such" / "x.jsonl"))


@pytest.mark.parametrize("argv", [
    ["bogus"], ["inspect"], ["path", "{f}", "--bogus"], ["--lang", "fr", "inspect", "{f}"],
    ["fork", "{f}", "--out", "{out}"], ["fork", "{f}", "--at", "a", "--before", "b",
                                        "--out", "{out}"],
    ["migrate", "{f}"], ["lab", "other-example"],
])
def test_bad_usage(argv: list[str], sample: Path, tmp_path: Path) -> None:
    filled = [arg.format(f=sample, out=tmp_path / "new.jsonl") for arg in argv]
    assert_user_error(*run(*filled))
    assert not (tmp_path / "new.jsonl").exists()


def test_an_option_the_command_lacks_points_at_that_commands_help(sample: Path) -> None:
    # (a Pi user's review: `tree FILE --json` said "see python3 -m learn_pi_lab --help",
    # whose page does not list tree's options)
    for argv, help_of in ((("tree", sample, "--json"), "learn_pi_lab tree --help"),
                          (("inspect", sample, "--leaf", "a1"),
                           "learn_pi_lab inspect --help"),
                          (("path", sample, sample), "learn_pi_lab path --help"),
                          (("--bogus",), "learn_pi_lab --help")):
        for lang in ("en", "zh"):
            code, out, err = run(*argv, "--lang", lang)
            assert_user_error(code, out, err, contains=help_of)
            assert ("不认识的参数" if lang == "zh" else "unrecognized arguments") in err


def test_damage_in_teaching_mode_names_the_problem() -> None:
    dangling = DATA / "failure-dangling-parent.jsonl"
    session = load_session(dangling)
    (found,) = [d for d in session.diagnostics if d.code == "dangling-parent"]
    code, out, err = run("path", dangling, "--json", "--lang", "en")
    assert_user_error(code, out, err, contains=found.entry_id)
    assert "--pi-compat" in err
    assert run("path", dangling, "--json", "--pi-compat")[0] == 0


def test_fork_past_a_dangling_parent(tmp_path: Path) -> None:
    # (a Pi user's review: fork's error suggested --pi-compat, which fork did not take, and
    # `--before d` named the missing parent as an unknown id of the learner's)
    source = write_session(tmp_path / "d.jsonl", user_at("d", "gone", 1),
                           assistant_at("d2", "d", 2))
    out = tmp_path / "x.jsonl"
    code, stdout, err = run("fork", source, "--at", "d2", "--out", out, "--lang", "en")
    assert_user_error(code, stdout, err, contains="'gone'")
    assert "--pi-compat" in err
    code, _, err = run("fork", source, "--at", "d2", "--out", out, "--pi-compat")
    assert code == 0, err   # Pi's getBranch stops at the orphan: d becomes the fork's root
    assert [(e["id"], e["parentId"]) for e in read_session(out).objects()] == \
        [("d", None), ("d2", "d")]
    for extra in ([], ["--pi-compat"]):   # Pi's /fork before d fails as well
        for lang, words in (("en", "its parent 'gone' is not in the file"),
                            ("zh", "它的父节点 'gone' 不在文件里")):
            code, stdout, err = run("fork", source, "--before", "d", "--out",
                                    tmp_path / "y.jsonl", "--lang", lang, *extra)
            assert_user_error(code, stdout, err, contains=words)
            assert "--pi-compat" not in err and "unknown" not in err
    assert not (tmp_path / "y.jsonl").exists()


def test_the_pi_compat_hint_only_where_the_command_has_the_option() -> None:
    from learn_pi_lab.session_tree import DanglingParent
    error = DanglingParent("gone", "d")
    assert "--pi-compat" in cli._explain(error, "en", pi_compat=False, offers_pi_compat=True)
    assert "--pi-compat" not in cli._explain(error, "en", pi_compat=False,
                                             offers_pi_compat=False)
    assert "--pi-compat" not in cli._explain(error, "en", pi_compat=True)


def test_no_pi_compat_hint_for_a_self_parent_that_pi_mode_refuses_too(tmp_path: Path) -> None:
    # (a Pi user's review: the hint said --pi-compat reads a self-parent as a root; Pi's
    # getBranch never returns from one, so --pi-compat then refused it as a cycle)
    source = tmp_path / "self-parent.jsonl"
    source.write_text(
        '{"type":"session","version":3,"id":"s","cwd":"/"}\n'
        '{"type":"message","id":"a","parentId":"a","message":{"role":"user","content":"x"}}\n',
        encoding="utf-8")
    for argv in (("path", source), ("context", source, "--json"),
                 ("fork", source, "--at", "a", "--out", tmp_path / "new.jsonl")):
        for lang in ("en", "zh"):
            code, out, err = run(*argv, "--lang", lang)
            assert_user_error(code, out, err, contains="'a'")
            assert "--pi-compat" not in err, (argv, err)
            assert_user_error(*run(*argv, "--lang", lang, "--pi-compat"), contains="a -> a")
    assert not (tmp_path / "new.jsonl").exists()


def test_a_cycle_stops_with_an_error_instead_of_hanging(tmp_path: Path) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.write_text(
        '{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/"}\n'
        '{"type":"message","id":"x","parentId":"y","timestamp":"2026-03-01T10:00:01.000Z",'
        '"message":{"role":"user","content":"a","timestamp":1}}\n'
        '{"type":"message","id":"y","parentId":"x","timestamp":"2026-03-01T10:00:02.000Z",'
        '"message":{"role":"user","content":"b","timestamp":2}}\n', encoding="utf-8")
    for flags in ([], ["--pi-compat"]):
        code, out, err = run("context", loop, "--json", *flags)
        if code != 0:
            assert_user_error(code, out, err)
    assert_user_error(*run("path", loop, "--json", "--pi-compat"))
    assert run("tree", loop)[0] == 0
    assert run("inspect", loop)[0] == 0


def test_a_long_cycle_is_one_short_line_everywhere(tmp_path: Path) -> None:
    # (an attacker's review: inspect printed a 200,000-entry loop as a 2-million-character
    # line; the error already showed its two ends; now every report does, one rule)
    n = 1000
    lines = ['{"type":"session","version":3,"id":"s","cwd":"/"}'] + [
        json.dumps({"type": "message", "id": f"c{i}", "parentId": f"c{(i + 1) % n}",
                    "message": {"role": "user", "content": "x"}}) for i in range(n)]
    loop = tmp_path / "long-loop.jsonl"
    loop.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for argv in (("inspect", loop), ("inspect", loop, "--json"), ("path", loop, "--pi-compat"),
                 ("context", loop, "--pi-compat"), ("tree", loop), ("tree", loop, "--pi-compat")):
        _, out, err = run(*argv, "--lang", "en")
        assert argv[0] == "tree" or "… (981) …" in out + err, argv   # (tree names one id)
        assert max(map(len, (out + err).splitlines())) < 1000, argv
    session = load_session(loop)
    assert [d.code for d in session.diagnostics] == ["cycle"]
    assert "… (981) …" in session.diagnostics[0].detail


def test_tree_puts_the_branch_holding_the_leaf_first_as_pi(tmp_path: Path) -> None:
    # (a Pi user's review: Pi's /tree, both versions, orders the branch and the root that
    # hold the current leaf first, the others oldest first)
    def message(entry_id: str, parent: str | None, text: str) -> str:
        return json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                           "message": {"role": "user", "content": text}})
    path = tmp_path / "two-branches.jsonl"
    path.write_text("\n".join([
        '{"type":"session","version":3,"id":"s","cwd":"/"}', message("r1", None, "first root"),
        message("old", "r1", "older branch"), message("new", "r1", "newer branch"),
        message("r2", None, "second root"), message("x", "r2", "on the second root"),
        message("leaf", "new", "the leaf")]) + "\n", encoding="utf-8")
    _, out, _ = run("tree", path, "--lang", "en")
    order = [name for line in out.splitlines() for name in ("r1", "old", "new", "r2", "leaf")
             if f" {name}  " in line]
    assert order == ["r1", "new", "leaf", "old", "r2"], out


def test_tree_keeps_roots_in_file_order_as_pi(tmp_path: Path) -> None:
    # (a Pi user's review: roots are not sorted by time; only the leaf's root moves first)
    path = write_session(tmp_path / "roots.jsonl",
                         user_at("aaaa0001", None, 10), assistant_at("aaaa0002", "aaaa0001", 11),
                         user_at("bbbb0001", None, 5), assistant_at("bbbb0002", "bbbb0001", 6),
                         user_at("cccc0001", None, 7))
    _, out, _ = run("tree", path, "--lang", "en")
    order = [line.split()[1] for line in out.splitlines()[1:]]
    assert order == ["cccc0001", "aaaa0001", "aaaa0002", "bbbb0001", "bbbb0002"], out


def test_tree_pi_compat_lists_an_empty_id_where_pi_does(tmp_path: Path) -> None:
    # Pi's /tree lists a line whose id is "" (its index files it under ""), with the lines
    # whose parentId is "" under it; its current-branch marks stop at a parentId "", and a
    # leaf "" marks none (answers of Pi's own selector: test_pi_differential, empty ids).
    below = write_session(tmp_path / "below.jsonl", user_at("a", None, 1, "one"),
                          user_at("", "a", 2, "no id"), user_at("b", "", 3, "under it"),
                          user_at("c", "a", 4, "sibling"), user_at("d", "b", 5, "leaf"))
    code, out, err = run("tree", below, "--pi-compat", "--lang", "en")
    assert code == 0 and err == "", err
    assert out.splitlines() == [
        "session s · 5 entries · leaf d",
        "○ a  user: one",
        '├─ ○ ""  user: no id',
        "│  ● b  user: under it",
        "│  ● d  user: leaf  ← leaf",
        "└─ ○ c  user: sibling"], out
    last = write_session(tmp_path / "last.jsonl", user_at("a", None, 1, "one"),
                         user_at("b", "a", 2, "older"), user_at("c", "a", 3, "newer"),
                         user_at("", "c", 4, "the last line"))
    _, out, _ = run("tree", last, "--pi-compat", "--lang", "en")
    assert out.splitlines() == [
        'session s · 4 entries · leaf ""',
        "○ a  user: one",
        "├─ ○ c  user: newer",
        '│  ○ ""  user: the last line  ← leaf',
        "└─ ○ b  user: older"], out
    # teaching mode keeps refusing the empty id: the line is dropped (missing-id)
    code, out, err = run("tree", below, "--lang", "en")
    assert code == 0 and '""' not in out and "missing-id" in err
    assert "● d  user: leaf  ← leaf" in out and "⚠ detached (dangling-parent)" in out


def test_messages_follow_the_language(sample: Path) -> None:
    missing = sample.parent / "missing.jsonl"
    zh, en = run("inspect", missing, "--lang", "zh")[2], run("inspect", missing, "--lang", "en")[2]
    assert zh != en and zh.startswith("错误") and en.startswith("error")


def test_help_is_a_success() -> None:
    code, out, err = run("--help")
    assert code == 0 and "inspect" in out and err == ""
    assert run() == (code, out, err), "no command at all prints the same help"
    code, out, _ = run("fork", "--help")
    assert code == 0 and "--before" in out


def test_verify_and_grade_are_delegated_to_the_harness(tmp_path: Path) -> None:
    code, out, _ = run("verify", "--help")
    assert code == 0 and "--exercise" in out
    code, out, _ = run("grade", "--help")
    assert code == 0 and "--out" in out and "SUBMISSIONS_DIR" in out
    code, _, err = run("verify", "--exercise", "no-such-exercise", "--lang", "en")
    assert code == 2 and "no-such-exercise" in err and "Traceback" not in err


# --------------------------------------------------------------------------------------
# Real processes
# --------------------------------------------------------------------------------------

def run_process(*argv: str, lang: str = "en_US.UTF-8") -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items()
           if key not in ("LEARN_PI_LAB_LANG", "LC_ALL")}
    env["LANG"] = lang
    return subprocess.run([sys.executable, "-m", "learn_pi_lab", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_deleted_working_directory_is_no_traceback(tmp_path: Path) -> None:
    # (a Pi user's review: the language lookup read the working directory and raised)
    source = write_session(tmp_path / "s.jsonl", user_at("u1", None, 1))
    env = {key: value for key, value in os.environ.items()
           if key not in ("LEARN_PI_LAB_LANG", "LC_ALL", "LEARN_PI_LAB_EDITION")}
    env.update(LANG="en_US.UTF-8", PYTHONPATH=str(ROOT))
    done = subprocess.run(["bash", "-c", 'mkdir gone && cd gone && rmdir ../gone && '
                           f'"$0" -m learn_pi_lab tree {source}', sys.executable],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert "u1" in done.stdout


def test_messages_without_lang_look_the_folder_up_once(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # (a Pi user's review: every message of `tree` on a damaged file resolved the working
    # directory again to pick the language: 48 s instead of 4.5 s for 200,000 entries)
    from learn_pi_lab import i18n
    source = write_session(tmp_path / "damaged.jsonl",
                           *(user_at(f"e{i}", f"gone{i}", 1) for i in range(200)))
    for name in ("LEARN_PI_LAB_LANG", "LC_ALL", "LEARN_PI_LAB_EDITION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    resolve, calls = Path.resolve, []

    def counted(path: Path, *args, **kwargs) -> Path:
        calls.append(path)
        return resolve(path, *args, **kwargs)

    monkeypatch.setattr(Path, "resolve", counted)
    if hasattr(i18n, "_edition_in"):
        i18n._edition_in.cache_clear()
    for command in (["tree", source], ["context", source, "--pi-compat", "--leaf", "e5"]):
        calls.clear()
        code, out, err = run(*command)
        assert code == 0, err
        assert len(calls) <= 2, (command, len(calls))   # not one per message


def test_subprocess_lab() -> None:
    done = run_process("lab", "session-story")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["leaf"] == labs.story_tree().leaf_id


def test_version() -> None:
    code, out, err = run("--version")
    assert (code, out, err) == (0, f"{learn_pi_lab.__version__}\n", "")


def test_subprocess_user_error_speaks_the_locale() -> None:
    done = run_process("inspect", "no-such-file.jsonl", lang="zh_CN.UTF-8")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("错误")


def test_the_program_writes_all_its_output_before_it_ends_the_process() -> None:
    # python3 -m learn_pi_lab leaves with os._exit (cli.end_process): nothing may be lost
    big = DATA / "pi" / "pi-mono" / "large-session.jsonl.xz"
    done = run_process("context", str(big), "--json")
    assert done.returncode == 0 and done.stderr == ""
    code, out, _ = run("context", big, "--json")
    assert code == 0 and done.stdout == out and len(out) > 100_000


@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("argv", [["path", str(DATA / "branched.jsonl"), "--json"],
                                  ["--help"], ["context", "--help"], ["--version"], []],
                         ids=["path", "help", "command-help", "version", "no-command"])
def test_a_full_disk_is_one_line_and_exit_2(buffered: bool, argv: list[str]) -> None:
    # Buffered (a user's usual Python), a small output is written only by end_process's
    # flush, so it fails there; unbuffered, main's own write fails first (argparse's help
    # and version used to swallow that failure and exit 0). Both say so.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    env["LANG"] = "en_US.UTF-8"
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "learn_pi_lab", *argv], cwd=ROOT,
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                              env=env)
    assert done.returncode == 2
    assert done.stderr == "error: could not write the output: No space left on device\n"


def test_called_from_python_main_keeps_nothing_alive(sample: Path) -> None:
    code, _, _ = run("context", sample, "--json")
    assert code == 0 and cli._LEFT_FOR_EXIT is None   # freed when main returns, as usual
    with redirect_stdout(io.StringIO()):
        assert cli.main(["context", str(sample), "--json"], ending_process=True) == 0
    assert cli._LEFT_FOR_EXIT                         # kept for the process's end...
    code, _, _ = run("context", sample, "--json")
    assert code == 0 and cli._LEFT_FOR_EXIT is None   # ...but not by the next call from Python


def shell(command: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    env["LANG"] = "en_US.UTF-8"
    return subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_streams_the_shell_closed_or_filled_are_not_a_traceback() -> None:
    python = f"{sys.executable} -m learn_pi_lab"
    sample = DATA / "branched.jsonl"
    done = shell(f"{python} context {sample} >&-")             # stdout closed
    assert done.returncode == 0 and "Traceback" not in done.stderr
    done = shell(f"{python} context /no/such/file 2>&-")       # stderr closed
    assert done.returncode == 2 and done.stdout == ""          # not on stdout instead
    done = shell(f"{python} context /no/such/file 2>/dev/full; echo rc=$?")
    assert done.stdout.strip() == "rc=2"


def test_an_empty_file_name_is_said_so() -> None:
    done = run_process("context", "")
    assert done.returncode == 2 and done.stderr == "error: the file name is empty\n"


def test_subprocess_output_cut_short_by_a_pipe_is_not_an_error() -> None:
    big = DATA / "pi" / "pi-mono" / "large-session.jsonl.xz"
    env = {**os.environ, "LANG": "en_US.UTF-8"}
    process = subprocess.Popen([sys.executable, "-m", "learn_pi_lab", "context", str(big),
                                "--json"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().strip() == b"{"   # like `| head -1`: read, then stop
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait(timeout=120) == 0 and error == b""


def test_the_collector_is_paused_only_while_a_command_runs(sample: Path) -> None:
    import gc
    seen = []
    original = cli.cmd_path

    def spy(args):
        seen.append(gc.isenabled())
        return original(args)

    cli.cmd_path = spy  # main() builds its parser, and so finds the handler, on each call
    try:
        code, _, _ = run("path", sample, "--json")
    finally:
        cli.cmd_path = original
    assert code == 0 and seen == [False], "paused while the command runs"
    assert gc.isenabled(), "restored after the command"
    with pytest.raises(RuntimeError):
        with cli.collector_paused():
            assert not gc.isenabled()
            raise RuntimeError("a failing command")
    assert gc.isenabled(), "restored after a failure too"


@pytest.mark.parametrize("count", [0, 1, 999, 1000, 1001, 2500])
def test_streamed_json_is_one_value_with_an_item_per_line(count: int) -> None:
    items = [{"n": n, "text": "é\n"} if n % 2 else f"id-{n}" for n in range(count)]
    out = io.StringIO()
    with redirect_stdout(out):
        cli._stream_json({"leaf": None}, "path", iter(items))
    text = out.getvalue()
    assert json.loads(text) == {"leaf": None, "path": items}
    lines = text.splitlines()
    assert lines[:2] == ["{", '  "leaf": null,']
    assert len(lines) == (5 + count if count else 4)   # {, leaf, "path": [, items..., ], }
    if count:
        assert lines[3:3 + count] == ["    " + json.dumps(item, ensure_ascii=False,
                                                       separators=(",", ":"))
                                      + ("," if n < count - 1 else "")
                                      for n, item in enumerate(items)]


def test_a_last_line_with_an_empty_id_is_no_leaf_in_pi_mode(tmp_path: Path) -> None:
    """Pi tests the leaf for truth: "" is no leaf (its branch is empty) and never an error."""
    path = tmp_path / "empty-leaf.jsonl"
    path.write_text("\n".join([
        '{"type":"session","version":3,"id":"s1"}',
        '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}',
        '{"type":"message","id":"","parentId":"a","message":{"role":"user","content":"x"}}',
    ]) + "\n", encoding="utf-8")
    for command in (["tree"], ["path"], ["path", "--json"], ["context"], ["context", "--json"]):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main([command[0], str(path), "--pi-compat", *command[1:]])
        assert code == 0 and err.getvalue() == "", (command, err.getvalue())
        if command == ["path", "--json"]:
            assert json.loads(out.getvalue()) == {"leaf": "", "path": []}   # Pi: getLeafId() is ""
        if command == ["context", "--json"]:   # the context walks up from the last line, as Pi's
            assert [m["entryId"] for m in json.loads(out.getvalue())["messages"]] == ["a", ""]


def test_escape_sequences_in_a_file_are_shown_not_obeyed(tmp_path: Path) -> None:
    """A session id that sets the terminal's title and clears the screen, a message that
    turns the text red, an id with a newline: text output shows them as escapes, one line
    per entry; JSON output escapes them itself and is unchanged."""
    path = tmp_path / "escapes.jsonl"
    path.write_text(
        json.dumps({"type": "session", "version": 3, "id": "s\x1b]0;PWNED\x07\x1b[2J",
                    "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/"}) + "\n"
        + json.dumps({"type": "message", "id": "a\nb", "parentId": None,
                      "timestamp": "2026-03-01T10:00:00.000Z",
                      "message": {"role": "user", "content": "hello\x1b[31mRED\u202e"}}) + "\n",
        encoding="utf-8")
    for command in ("tree", "path", "context", "inspect"):
        code, out, _ = run(command, path, "--lang", "en")
        assert code == 0 and "\x1b" not in out and "\x07" not in out and "\u202e" not in out
        assert "a\nb" not in out, (command, out)
    _, out, _ = run("tree", path, "--lang", "en")
    assert "\\x1b]0;PWNED\\x07\\x1b[2J" in out and "a\\nb  user: hello\\x1b[31mRED\\u202e" in out
    assert run_json("context", path, "--json")["leaf"] == "a\nb"


def test_escape_sequences_reach_stderr_as_escapes_too(tmp_path: Path) -> None:
    """(an attacker's review) Notes and errors name ids and files from outside: a damaged
    entry's id in the context note, an id in a parent cycle, a file's own name."""
    header = json.dumps({"type": "session", "version": 3, "id": "s", "cwd": "/"})
    evil = "a\x1b]0;PWNED\x07\x1b[2J"
    noted = tmp_path / "noted.jsonl"
    noted.write_text("\n".join([
        header, json.dumps({"type": "message", "id": evil, "parentId": None, "message": None}),
        json.dumps({"type": "message", "id": "b", "parentId": evil,
                    "message": {"role": "user", "content": "x"}})]) + "\n", encoding="utf-8")
    looped = tmp_path / "looped.jsonl"
    looped.write_text("\n".join([
        header, json.dumps({"type": "message", "id": "x", "parentId": evil,
                            "message": {"role": "user", "content": "x"}}),
        json.dumps({"type": "message", "id": evil, "parentId": "x",
                    "message": {"role": "user", "content": "y"}})]) + "\n", encoding="utf-8")
    named = tmp_path / "evil\x1b]0;PWNED\x07.jsonl"
    named.write_text("not json\n", encoding="utf-8")
    for argv in (("context", noted, "--leaf", "b"), ("context", noted, "--json", "--leaf", "b"),
                 ("path", looped, "--pi-compat"), ("tree", looped, "--pi-compat"),
                 ("inspect", named), ("tree", named)):
        code, out, err = run(*argv, "--lang", "en")
        assert err, argv   # something was said on stderr...
        assert "\x1b" not in err and "\x07" not in err, (argv, err)   # ...and nothing obeyed
        assert "\\x1b]0;PWNED\\x07" in err + out, (argv, err)


def test_verify_and_grade_say_a_wrong_usage_in_one_line_too() -> None:
    # (an attacker's review: they printed argparse's usage text, in English)
    for argv, language in ((["verify", "--lang", "xx"], "en"), (["verify", "--nonsense"], "en"),
                           (["grade"], "en"), (["grade", "--lang", "zh"], "zh"),
                           (["--lang", "zh", "grade", "somewhere"], "zh")):
        code, out, err = run(*argv)
        assert (code, out) == (2, ""), argv
        assert len(err.splitlines()) == 1, (argv, err)
        assert err.startswith("命令用法不对" if language == "zh" else "wrong usage"), (argv, err)


def test_teaching_mode_says_when_it_reads_damage_apart_from_pi() -> None:
    """A Pi user's review: ``context`` showed the first of two conflicting copies (Pi sends
    the later) and said nothing; ``migrate`` already did."""
    damaged = DATA / "failure-conflicting-duplicate.jsonl"
    for command in ("context", "tree", "path"):
        code, _out, err = run(command, damaged, "--lang", "en")
        assert code == 0 and err.count("note: teaching mode reads 1 damaged place") == 1, err
        assert "(conflicting-duplicate)" in err and "--pi-compat" in err
        assert "note:" not in run(command, damaged, "--pi-compat", "--lang", "en")[2]
    assert "教学模式的读法和 Pi 不同（glued-objects）" in run(
        "context", DATA / "glued-line.jsonl", "--lang", "zh")[2]
    assert run("context", DATA / "branched.jsonl", "--lang", "en")[2] == ""


def test_argparse_speaks_the_chosen_language_too() -> None:
    """A Pi user's review: ``--lang zh`` kept argparse's own words in English ("usage:",
    "options", "unrecognized arguments")."""
    import argparse
    english_words = argparse._   # type: ignore[attr-defined]
    code, out, _ = run("tree", "--help", "--lang", "zh")
    assert code == 0 and out.startswith("用法：") and "显示这段帮助并退出" in out
    assert "usage:" not in out and "show this help" not in out and "options" not in out
    code, out, err = run("tree", "x", "--bogus", "--lang", "zh")
    assert code == 2 and "不认识的参数：--bogus" in err and "unrecognized" not in err
    code, out, err = run("tree", "x", "--pi-version", "9", "--lang", "zh")
    assert "参数 --pi-version：无效的选择：'9'" in err
    code, out, err = run("verify", "--timeout", "x", "--lang", "zh")
    assert code == 2 and "无效的 float 值：'x'" in err
    code, out, _ = run("tree", "--help", "--lang", "en")
    assert out.startswith("usage: ") and "show this help message and exit" in out
    assert argparse._ is english_words, "argparse's own lookup is put back"   # type: ignore[attr-defined]


def test_the_last_lang_given_counts(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text('{"type":"session","version":3,"id":"s","cwd":"/"}\n', encoding="utf-8")
    english, chinese = (run("inspect", path, "--lang", lang)[1] for lang in ("en", "zh"))
    assert english != chinese
    assert run("inspect", path, "--lang", "zh", "--lang", "en")[1] == english
    assert run("inspect", path, "--lang=en", "--lang", "zh")[1] == chinese


REPEATED = "\n".join([
    '{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}',
    '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z",'
    '"message":{"role":"user","content":"hi"}}',
    '{"type":"message","id":"b2","parentId":"a1","timestamp":"2026-03-01T10:00:02.000Z",'
    '"message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}',
    '{"type":"message","id":"b2","parentId":"a1","timestamp":"2026-03-01T10:00:04.000Z",'
    '"message":{"role":"user","content":"dup"}}',
    '{"type":"message","id":"d4","parentId":"b2","timestamp":"2026-03-01T10:00:05.000Z",'
    '"message":{"role":"user","content":"ok"}}', ""])


def test_migrate_says_which_copy_of_a_repeated_id_it_kept(tmp_path: Path) -> None:
    # (a learner's review: the copy silently kept the first b2, while Pi reads the later one)
    source = tmp_path / "repeated.jsonl"
    source.write_text(REPEATED, encoding="utf-8")
    code, out, _ = run("--lang", "en", "migrate", source, "--out", tmp_path / "first.jsonl")
    assert code == 0 and "1 problem found in the source" in out
    assert "(the later one is at line 4), but Pi reads the later one" in out
    assert "--pi-compat" in out
    code, out, _ = run("--lang", "en", "migrate", source, "--out", tmp_path / "as-pi.jsonl",
                       "--pi-compat")
    assert code == 0 and "Pi reads" not in out

    def roles(path: Path) -> list[str]:
        return [message["role"] for message in
                run_json("context", path, "--json", "--pi-compat")["messages"]]
    assert roles(source) == roles(tmp_path / "as-pi.jsonl") == ["user", "user", "user"]
    assert roles(tmp_path / "first.jsonl") == ["user", "assistant", "user"]   # as it warned


def test_a_model_that_names_neither_half_is_a_dash(tmp_path: Path) -> None:
    # (a learner's review: an assistant message without provider and model showed None/None)
    source = tmp_path / "no-model.jsonl"
    source.write_text(REPEATED.replace('"id":"b2","parentId":"a1","timestamp":'
                                       '"2026-03-01T10:00:04.000Z"', '"id":"c3","parentId":"b2",'
                                       '"timestamp":"2026-03-01T10:00:04.000Z"'),
                      encoding="utf-8")
    code, out, _ = run("--lang", "en", "context", source)
    assert code == 0 and out.startswith("leaf d4 · model - · thinking level off")
    assert cli._model_shown({"provider": "acme", "modelId": None}) == "acme/?"


def test_tree_and_context_show_values_that_are_not_strings_as_json(tmp_path: Path) -> None:
    """Labels and roles that are not strings read as the file spells them (``[true]``, not
    ``[True]``); a label holding a newline stays on its line (escaped). With the index and
    without (test_cli_index holds the two the same on generated files)."""
    path = tmp_path / "odd.jsonl"
    stamp = '"timestamp":"2026-01-01T00:00:0{}.000Z"'
    lines = ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z",'
             '"cwd":"/x"}']
    for n, (entry_id, parent, rest) in enumerate([
            ("aaaaaaaa", None, '"type":"message","message":{"role":"user","content":"hi"}'),
            ("bbbbbbbb", "aaaaaaaa", '"type":"message","message":{"role":true,"content":"yo"}'),
            ("cccccccc", "bbbbbbbb", '"type":"label","targetId":"aaaaaaaa","label":true'),
            ("dddddddd", "cccccccc", '"type":"label","targetId":"bbbbbbbb","label":{"a":[1]}'),
            ("eeeeeeee", "dddddddd", '"type":"label","targetId":"cccccccc","label":"x\\ny"'),
            ("ffffffff", "eeeeeeee", '"type":"thinking_level_change","thinkingLevel":true'),
            ("gggggggg", "ffffffff", '"type":"branch_summary","fromId":"root","summary":false')],
            start=1):
        parent_text = "null" if parent is None else f'"{parent}"'
        lines.append(f'{{"id":"{entry_id}","parentId":{parent_text},{stamp.format(n)},{rest}}}')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = run("tree", path, "--lang", "en")
    assert code == 0
    assert "aaaaaaaa  user: hi  [true]" in out
    assert 'bbbbbbbb  true: yo  [{"a":[1]}]' in out
    assert "cccccccc  label: aaaaaaaa = true  [x\\ny]" in out
    assert "True" not in out and "'a'" not in out
    assert "ffffffff  thinking_level_change: true" in out
    assert "gggggggg  branch_summary: false" in out
    code, out, _ = run("context", path, "--lang", "en")
    assert code == 0 and "bbbbbbbb  true" in out.splitlines()
    assert "thinking level true" in out.splitlines()[0]
    code, out, _ = run("inspect", path, "--lang", "en")
    assert code == 0 and 'aaaaaaaa=true, bbbbbbbb={"a":[1]}, cccccccc=x\\ny' in out
