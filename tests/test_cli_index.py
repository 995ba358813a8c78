"""The command line's index (``jsonl.index``) gives the answers the whole reader gives.

``path``, ``context`` and ``tree`` read a plain file through ``SessionIndex`` (one pass, entries decoded
again only when shown) and fall back to the whole reader for anything else. Checked here,
byte for byte (stdout, stderr and the exit code), on every file of ``data/``, on the hostile
corpus and on generated files, in both modes, both Pi versions, both decoders, JSON and
text: the command with its index, and the command made to read every file with the whole
reader. Also: the files the index takes are the ones it should (plain ones), and it is never
wrong about a leaf it does not have.
"""

from __future__ import annotations

import io
import lzma
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from learn_pi_lab.cli import commands as cli
from learn_pi_lab.course.big_sessions import session_file
from learn_pi_lab.jsonl.index import NotPlain, SessionIndex
from learn_pi_lab.jsonl.reader import read_session
from tests.hostile.make_corpus import build_corpus
from tests.reading_cases import corpus_files, session_bytes, use_test_limits

REPO = Path(__file__).resolve().parents[1]
DATA_FILES = sorted([*REPO.glob("data/*.jsonl"), *REPO.glob("data/pi/**/*.jsonl"),
                     *REPO.glob("data/pi16/*.jsonl")])
VARIANTS = [(command, options) for command in ("path", "context")
            for options in ([], ["--json"], ["--pi-compat"], ["--pi-compat", "--json"],
                            ["--pi-version", "0.84.2", "--json"],
                            ["--decoder", "msgspec", "--json"],
                            ["--decoder", "stdlib", "--json"])] + [
    ("tree", options) for options in ([], ["--pi-compat"], ["--pi-version", "0.84.2"],
                                      ["--decoder", "msgspec"], ["--decoder", "stdlib"])]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


class NoIndex(SessionIndex):
    def __init__(self, *args, **kwargs) -> None:
        raise NotPlain("the test reads every file with the whole reader")


def both_ways(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    with_index = run(argv)
    with monkeypatch.context() as patched:
        patched.setattr(cli, "SessionIndex", NoIndex)
        whole_reader = run(argv)
    assert with_index == whole_reader, argv


def leaves_of(path: Path) -> list[str | None]:
    """The default leaf, the first entry, one in the middle, and one the file lacks."""
    try:
        index = SessionIndex(path)
    except (NotPlain, ValueError, OSError):
        return [None]
    ids = index.ids
    return [None, *(sorted({ids[0], ids[len(ids) // 2]}) if ids else []), "no-such-id"]


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda path: path.name)
def test_every_data_file_reads_the_same_through_the_index(monkeypatch: pytest.MonkeyPatch,
                                                          path: Path) -> None:
    for leaf in leaves_of(path):
        for command, options in VARIANTS:
            both_ways(monkeypatch, [command, str(path), *options,
                                    *(["--leaf", leaf] if leaf else []), "--lang", "en"])


def test_plain_files_take_the_index_and_damaged_ones_do_not() -> None:
    taken = {path.name for path in DATA_FILES if _plain(path)}
    assert {"linear.jsonl", "branched.jsonl", "compacted.jsonl", "labelled.jsonl",
            "context-edit.jsonl", "nested-compactions.jsonl"} <= taken
    assert not taken & {"failure-torn-last-line.jsonl", "failure-duplicate-entry.jsonl",
                        "failure-dangling-parent.jsonl", "glued-line.jsonl", "v1.jsonl",
                        "v2.jsonl"}


def _plain(path: Path) -> bool:
    try:
        SessionIndex(path)
        return True
    except NotPlain:
        return False


def test_the_hostile_corpus_reads_the_same(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    use_test_limits(monkeypatch)
    for _name, path in corpus_files(build_corpus(tmp_path, special=False)):
        for command, options in VARIANTS[:4] + VARIANTS[7:11]:
            both_ways(monkeypatch, [command, str(path), *options, "--lang", "en"])


@settings(derandomize=True, database=None, deadline=None, max_examples=150,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(session_bytes())
def test_generated_files_read_the_same(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                       data: bytes) -> None:
    path = tmp_path / "generated.jsonl"
    path.write_bytes(data)
    for command, options in VARIANTS:
        both_ways(monkeypatch, [command, str(path), *options, "--lang", "en"])


@pytest.mark.parametrize("shape", ["linear", "branchy", "compacted"])
def test_the_course_large_sessions_read_the_same(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path, shape: str) -> None:
    path = session_file(tmp_path, shape, 3000)
    assert _plain(path)
    for command, options in VARIANTS:
        both_ways(monkeypatch, [command, str(path), *options, "--lang", "en"])


def test_a_compressed_file_is_read_by_the_whole_reader(tmp_path: Path) -> None:
    packed = tmp_path / "s.jsonl.xz"
    packed.write_bytes(lzma.compress((REPO / "data" / "linear.jsonl").read_bytes()))
    assert not _plain(packed)
    code, out, _ = run(["path", str(packed), "--json"])
    assert code == 0 and '"path": [' in out and '"6b1a69d2"' in out


@pytest.mark.parametrize("decoder", ["stdlib", "msgspec"])
def test_re_read_entries_are_the_readers_with_either_decoder(tmp_path: Path, decoder: str) -> None:
    """Consecutive lines are decoded again as one JSON array (one call per run); scattered
    and single lines one by one: every way gives the reader's objects."""
    from learn_pi_lab.jsonl.reader import read_session
    path = session_file(tmp_path, "branchy", 3000)
    objects = [loaded.obj for loaded in read_session(path).entries]
    index = SessionIndex(path, decoder=decoder)
    try:
        everything = list(range(len(index.ids)))
        assert index.entries(everything) == objects
        scattered = everything[::7] + everything[3:40] + everything[60:40:-1] + [5, 5, 6]
        assert index.entries(scattered) == [objects[at] for at in scattered]
        assert index.entries(range(100, 400)) == objects[100:400]
        assert index.entry(len(objects) - 1) == objects[-1] == index.entry(-1)
        assert index.entries([-2, 0, -1]) == [objects[-2], objects[0], objects[-1]]
        for outside in (len(objects), -len(objects) - 1):
            with pytest.raises(IndexError):
                index.entry(outside)
    finally:
        index.close()


def test_a_long_run_is_read_in_pieces_of_about_run_bytes(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    from learn_pi_lab.jsonl import index as index_module
    path = session_file(tmp_path, "linear", 400)
    index = SessionIndex(path)
    reads: list[int] = []
    real_pread = index_module.os.pread

    def counted(fd: int, size: int, start: int) -> bytes:
        reads.append(size)
        return real_pread(fd, size, start)

    monkeypatch.setattr(index_module, "RUN_BYTES", 20_000)
    monkeypatch.setattr(index_module.os, "pread", counted)
    try:
        assert index.entries(range(len(index.ids))) == \
            [loaded.obj for loaded in read_session(path).entries]
    finally:
        index.close()
    largest_line = max(index.sizes)
    assert len(reads) >= path.stat().st_size // (20_000 + largest_line)
    assert max(reads) < 20_000 + largest_line, "one run: about RUN_BYTES, never the file"


@pytest.mark.parametrize("depth", [300, 497])
def test_a_line_nested_to_a_raised_limit_reads_the_same_from_any_depth(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, depth: int) -> None:
    """With ``LEARN_PI_LAB_MAX_DEPTH`` raised (to its ceiling, 500), a line nested that
    deep is read by the pass and read again when shown, however deep in its calls the
    command is by then; written back as JSON too: the same answers with the index and
    without, never a traceback."""
    monkeypatch.setenv("LEARN_PI_LAB_MAX_DEPTH", "5000")
    path = tmp_path / "deep.jsonl"
    nested = "[" * depth + "]" * depth
    path.write_text(
        '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z",'
        '"cwd":"/x"}\n'
        '{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"t",'
        '"message":{"role":"user","content":"a","d":' + nested + '}}\n'
        '{"type":"message","id":"cccccccc","parentId":"aaaaaaaa","timestamp":"t",'
        '"message":{"role":' + nested + ',"content":[]}}\n'
        '{"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"t",'
        '"message":{"role":"assistant","content":[]}}\n', encoding="utf-8")
    assert _plain(path)
    for command, options in VARIANTS:
        both_ways(monkeypatch, [command, str(path), *options, "--lang", "en"])
    code, out, err = run(["context", str(path), "--json", "--decoder", "stdlib"])
    assert code == 0 and nested in out and not err

    def deep_down(levels: int) -> Any:
        return index.entry(0) if levels == 0 else deep_down(levels - 1)

    from learn_pi_lab.session_inspector import inspect_session
    assert inspect_session(path)["entries"] == 3   # (the Python API: the plain path)
    index = SessionIndex(path, decoder="stdlib")
    try:   # (400 calls down: the ceiling leaves a caller that much)
        value, levels = deep_down(400)["message"]["d"], 0
        while isinstance(value, list):   # (== would itself need the stack it checks)
            value, levels = value[0] if value else None, levels + 1
        assert levels == depth
    finally:
        index.close()


def test_a_run_the_array_reading_refuses_is_read_line_by_line() -> None:
    from learn_pi_lab.jsonl import index as index_module
    from learn_pi_lab.jsonl.fast_decoder import REFUSED
    assert index_module._json_array(b'[{"a":1},{"b":"\xc3\xa9"}]') == [{"a": 1}, {"b": "é"}]
    assert index_module._json_array(b'[{"a":"\xed\xa0\x80"}]') is REFUSED   # not UTF-8
    assert index_module._json_array(b"[" * 100_000 + b"]" * 100_000) is REFUSED


def test_an_indexed_branch_reads_like_a_list_of_its_entries(tmp_path: Path) -> None:
    """Read in order, by index (forwards, backwards, negative), by slice, reversed: the
    same entries as the reader's, and an index past either end is an IndexError."""
    from learn_pi_lab.jsonl.index import AHEAD, IndexedBranch
    from learn_pi_lab.jsonl.reader import read_session
    path = session_file(tmp_path, "linear", 3 * AHEAD + 7)
    objects = [loaded.obj for loaded in read_session(path).entries]
    index = SessionIndex(path)
    try:
        branch = IndexedBranch(index, index.branch(index.leaf_id))
        assert list(branch) == objects and len(branch) == len(objects)
        assert [branch[at] for at in range(len(objects))] == objects
        assert [branch[at] for at in reversed(range(len(objects)))] == objects[::-1]
        assert branch[-1] == objects[-1] and branch[AHEAD + 3] == objects[AHEAD + 3]
        assert branch[5:9] == objects[5:9] and list(reversed(branch)) == objects[::-1]
        for outside in (len(objects), -len(objects) - 1):
            with pytest.raises(IndexError):
                branch[outside]
    finally:
        index.close()


def _session(tmp_path: Path, entries: list[dict]) -> Path:
    import json
    path = tmp_path / "s.jsonl"
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-01T10:00:00.000Z",
              "cwd": "/"}, *({"type": "message", "timestamp": "2026-03-01T10:00:01.000Z",
                             "message": {"role": "user", "content": "hi"}, **entry}
                            for entry in entries)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_entry_ids_keep_eight_character_ids_as_numbers_and_others_as_they_are(
        tmp_path: Path) -> None:
    """Pi's 8-hex ids (any 8 ASCII characters) become 8-byte numbers; a longer, shorter or
    non-ASCII id is kept as it is. Both kinds are found, by one and by many, and read back."""
    ids = ["0000a1b2", "root", "deadbeef", "ünïcödé!", "x" * 36, "e0000001", "ZZ top 1"]
    path = _session(tmp_path, [{"id": entry_id, "parentId": ids[at - 1] if at else None}
                               for at, entry_id in enumerate(ids)])
    index = SessionIndex(path)
    assert list(index.ids) == ids and index.ids[-1] == ids[-1] and index.leaf_id == ids[-1]
    assert sorted(index.ids.others.values()) == sorted(["root", "ünïcödé!", "x" * 36])
    assert len(index.ids.keys) == len(ids)
    assert [index.find(entry_id) for entry_id in ids] == list(range(len(ids)))
    assert index.find("0000a1b3") == index.find("nothere") == index.find(7) == -1
    assert index.ids.find_all({*ids, "0000a1b3", "nothere"}) == {
        entry_id: at for at, entry_id in enumerate(ids)}
    assert list(index.parents) == [-1, 0, 1, 2, 3, 4, 5] and index.elsewhere == []


@pytest.mark.parametrize("ids, reason", [
    (["0000a1b2", "deadbeef", "0000a1b2"], "id"),     # an 8-character id twice
    (["root", "deadbeef", "root"], "id"),             # another id twice
    (["0000a1b2"] + [f"{n:08x}" for n in range(1, 3000)] + ["0000a1b2"], "id"),  # far apart
])
def test_a_repeated_id_is_not_plain(tmp_path: Path, ids: list[str], reason: str) -> None:
    path = _session(tmp_path, [{"id": entry_id, "parentId": None} for entry_id in ids])
    with pytest.raises(NotPlain) as refused:
        SessionIndex(path)
    assert refused.value.reason == reason


@pytest.mark.parametrize("entries", [
    [{"id": "aaaaaaaa", "parentId": "bbbbbbbb"}, {"id": "bbbbbbbb", "parentId": None}],  # after
    [{"id": "aaaaaaaa", "parentId": None}, {"id": "bbbbbbbb", "parentId": "bbbbbbbb"}],  # itself
    [{"id": "aaaaaaaa", "parentId": None}, {"id": "bbbbbbbb", "parentId": "cccccccc"}],  # missing
    [{"id": "aaaaaaaa", "parentId": None}, {"id": "bbbbbbbb", "parentId": 7}],           # a number
])
def test_a_parent_not_written_before_its_child_is_not_plain(tmp_path: Path,
                                                            entries: list[dict]) -> None:
    with pytest.raises(NotPlain):
        SessionIndex(_session(tmp_path, entries))


def test_parents_that_are_not_the_line_before_are_resolved_after_the_pass(
        tmp_path: Path) -> None:
    path = _session(tmp_path, [{"id": "r0000000", "parentId": None},
                               {"id": "a0000000", "parentId": "r0000000"},
                               {"id": "b0000000", "parentId": "r0000000"},
                               {"id": "root2", "parentId": None},
                               {"id": "c0000000", "parentId": "a0000000"},
                               {"id": "d0000000", "parentId": "root2"}])
    index = SessionIndex(path)
    assert list(index.parents) == [-1, 0, 0, -1, 1, 3]
    assert index.roots == [0, 3] and index.elsewhere == [2, 4, 5]


def test_the_index_keeps_no_object_per_entry(tmp_path: Path) -> None:
    """What the index keeps is arrays: at most 40 bytes per entry (8 for the id, 4 for the
    parent, 4+4+4 for where the line is, 1+1 for type and role, and the arrays' spare room),
    measured with tracemalloc on a 20,000-entry chain; a list of ids and a dict from id to
    position alone would take about 150."""
    import tracemalloc
    path = session_file(tmp_path, "chain", 20_000)
    tracemalloc.start()
    try:
        index = SessionIndex(path)
        kept, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(index.ids) == 20_000 and not index.ids.others
    assert kept / 20_000 < 40, kept / 20_000


def _reports_both_ways(monkeypatch: pytest.MonkeyPatch, path: Path) -> bool:
    """The inspector's report on ``path`` through the index and through its census, for both
    Pi versions and both decoders, must be equal; True when the index took the file."""
    from learn_pi_lab import session_inspector
    from learn_pi_lab.jsonl.reader import Limits
    took = False
    for version in ("0.84.2", "1.6.0"):
        for decoder in ("stdlib", "msgspec"):
            limits = Limits.from_environment()
            took |= session_inspector._plain_report(path, version, limits, decoder) is not None
            try:
                with_index = session_inspector.inspect_session_as(path, version, decoder=decoder)
            except ValueError as error:
                with_index = repr(error)
            with monkeypatch.context() as patched:
                patched.setattr(session_inspector, "_plain_report", lambda *_args: None)
                try:
                    census = session_inspector.inspect_session_as(path, version, decoder=decoder)
                except ValueError as error:
                    census = repr(error)
            assert with_index == census, (path, version, decoder)
    return took


def test_the_inspector_reports_the_same_through_the_index(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    """A plain file is inspected through the index (``session_inspector._plain_report``):
    the same report as the census gives, on every file of ``data/``, the hostile corpus and
    the course's large sessions; and the index does take the plain ones."""
    took = {path.name for path in DATA_FILES if _reports_both_ways(monkeypatch, path)}
    assert {"linear.jsonl", "branched.jsonl", "labelled.jsonl", "usage.jsonl"} <= took
    for shape in ("linear", "branchy", "compacted"):
        assert _reports_both_ways(monkeypatch, session_file(tmp_path, shape, 2000))
    use_test_limits(monkeypatch)
    for _name, path in corpus_files(build_corpus(tmp_path / "corpus", special=False)):
        _reports_both_ways(monkeypatch, path)


@settings(derandomize=True, database=None, deadline=None, max_examples=100,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(session_bytes())
def test_the_inspector_reports_the_same_on_generated_files(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "generated.jsonl"
    path.write_bytes(data)
    _reports_both_ways(monkeypatch, path)


@pytest.mark.parametrize("change", ["rewritten", "truncated", "replaced"])
@pytest.mark.parametrize("argv", [["context", "--json"], ["path"], ["tree"]])
def test_a_file_changed_after_the_pass_is_one_error_line(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path, change: str,
                                                         argv: list[str]) -> None:
    """The index reads an entry again from its line; when the file was rewritten, cut short
    or replaced after the pass, the command says which line changed (the reader's
    ``SourceChanged``), exit 2, no traceback."""
    path = tmp_path / "s.jsonl"
    path.write_bytes((REPO / "data" / "linear.jsonl").read_bytes())

    class ChangedAfterThePass(SessionIndex):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            data = path.read_bytes()
            if change == "rewritten":   # (every line, each the same length as before)
                path.write_bytes(data.replace(b'"timestamp":"2026', b'"timestamp":"2027'))
            elif change == "truncated":
                path.write_bytes(data[:len(data) // 3])
            else:
                path.unlink()
                path.write_bytes(data.replace(b'"timestamp":"2026', b'"timestamp":"2025'))

    monkeypatch.setattr(cli, "SessionIndex", ChangedAfterThePass)
    code, _out, err = run([argv[0], str(path), *argv[1:], "--lang", "en"])
    assert code == 2 and err.count("\n") == 1, err
    assert "changed after it was read" in err and "line " in err and "Traceback" not in err
