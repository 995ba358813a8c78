"""Reading only the tree's keys (``fields=TREE_FIELDS``) changes memory, nothing else.

``path --json`` needs ids and parents, so it reads with ``fields``: every entry read from a
plain file keeps only those keys, and the rest stays in the file. Checked here: the same
lines, texts, diagnostics (a duplicate still compared whole) and branches as a whole read,
on the hostile corpus and on generated files, in both modes; old files (which must be
migrated) are read whole; a session read that way refuses to build a context.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from learn_pi_lab.cli import commands as cli
from learn_pi_lab.jsonl.reader import TREE_FIELDS, NotASessionFile, read_session
from learn_pi_lab.pi.session import load_session
from tests.hostile.make_corpus import build_corpus
from tests.reading_cases import corpus_files, session_bytes, use_test_limits


def compared(path: Path, mode: str) -> Any:
    """Whole read vs read with fields: what must be equal, and the entries of both."""
    try:
        whole = read_session(path, mode=mode)
    except NotASessionFile as refused:
        with pytest.raises(NotASessionFile) as again:
            read_session(path, mode=mode, fields=TREE_FIELDS)
        assert again.value.reason == refused.reason
        return None
    partial = read_session(path, mode=mode, fields=TREE_FIELDS)
    assert partial.diagnostics == whole.diagnostics
    assert partial.diagnostic_counts == whole.diagnostic_counts
    assert partial.header == whole.header and partial.migrated == whole.migrated
    assert [(e.line, e.text) for e in partial.entries] == [(e.line, e.text) for e in whole.entries]
    for mine, theirs in zip(partial.entries, whole.entries):
        if partial.fields is None or mine._source is None:
            assert mine.obj == theirs.obj            # not kept in the file: kept whole
        else:
            assert mine.obj == {key: theirs.obj[key] for key in TREE_FIELDS
                                if key in theirs.obj}
    return partial, whole


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_corpus(tmp_path_factory.mktemp("hostile-fields"), special=False)


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_hostile_corpus_reads_the_same_with_fields(monkeypatch: pytest.MonkeyPatch,
                                                   corpus: dict[str, Path], mode: str) -> None:
    use_test_limits(monkeypatch)
    partial_reads = 0
    for _name, path in corpus_files(corpus):
        both = compared(path, mode)
        if both and both[0].fields is not None and any(e._source for e in both[0].entries):
            partial_reads += 1
    assert partial_reads >= 20


@settings(derandomize=True, database=None, deadline=None, max_examples=200,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(session_bytes())
def test_generated_files_read_the_same_with_fields(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "generated.jsonl"
    path.write_bytes(data)
    for mode in ("teaching", "pi"):
        compared(path, mode)


def test_a_duplicate_is_compared_whole(tmp_path: Path) -> None:
    """Two copies that differ only outside the fields are still told apart."""
    header = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}'
    one = '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}'
    other = one.replace('"hi"', '"bye"')
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join([header, one, one, other]) + "\n", encoding="utf-8")
    partial, _ = compared(path, "teaching")
    assert [d.code for d in partial.diagnostics] == ["duplicate-entry", "conflicting-duplicate"]


def test_old_files_are_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "v2.jsonl"
    path.write_text('{"type":"session","version":2,"id":"s","timestamp":"2026-03-01T10:00:00.000Z"}\n'
                    '{"type":"message","id":"a","parentId":null,'
                    '"message":{"role":"user","content":"hi"}}\n', encoding="utf-8")
    partial, whole = compared(path, "teaching")
    assert partial.fields is None and partial.entries[0].obj == whole.entries[0].obj


def test_a_session_read_with_fields_refuses_what_needs_whole_entries(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z"}\n'
                    '{"type":"message","id":"a","parentId":null,'
                    '"message":{"role":"user","content":"hi"}}\n', encoding="utf-8")
    session = load_session(path, fields=TREE_FIELDS)
    assert [entry["id"] for entry in session.branch()] == ["a"]
    assert session.entry("a") == {"type": "message", "id": "a", "parentId": None}
    for needs_whole_entries in (session.context, session.labels, session.name):
        with pytest.raises(ValueError, match="fields"):
            needs_whole_entries()
    assert load_session(path).name() is None   # read whole, the same calls answer


def test_cli_path_json_is_the_whole_session_branch(monkeypatch: pytest.MonkeyPatch,
                                                   corpus: dict[str, Path]) -> None:
    """``path --json`` (read with fields) prints the branch a whole read gives."""
    use_test_limits(monkeypatch)
    checked = 0
    for name, path in corpus_files(corpus):
        for flags, mode in (([], "teaching"), (["--pi-compat"], "pi")):
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                code = cli.main(["path", str(path), "--json", *flags])
            if code != 0:
                continue
            if mode == "pi" and path.stat().st_size == 0:   # Pi opens it as a new session
                assert json.loads(out.getvalue()) == {"leaf": None, "path": []}, name
                with pytest.raises(NotASessionFile, match="empty"):
                    load_session(path, mode=mode)   # the teaching API says what it is
                checked += 1
                continue
            session = load_session(path, mode=mode)
            expected = [entry.get("id") for entry in session.branch()] if session.leaf_id else []
            assert json.loads(out.getvalue()) == {"leaf": session.leaf_id, "path": expected}, name
            checked += 1
    assert checked >= 30
