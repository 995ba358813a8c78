"""The tolerant streaming reader (``learn_pi_lab.jsonl.reader``): every diagnostic with its
exact line number, both modes, header validity, migration, streaming, and the promise that
reading never changes a byte of the file."""

from __future__ import annotations

import io
import json
import lzma
import os
from contextlib import nullcontext
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from learn_pi_lab.i18n import catalog, explain
from learn_pi_lab.jsonl import reader
from learn_pi_lab.jsonl.reader import (
    SEVERITIES,
    Limits,
    Diagnostic,
    NotASessionFile,
    WrongArgument,
    iter_entries_streaming,
    iter_physical_lines,
    read_jsonl_tolerant,
    read_session,
    read_session_text,
    safe_json_lines,
)
from learn_pi_lab.jsonl.writer import write_new_file
from learn_pi_lab.pi.session import load_session, session_from_text
from learn_pi_lab.session_inspector import inspect_session

LINEAR = Path(__file__).resolve().parents[1] / "data" / "linear.jsonl"
HEADER = {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-03-01T10:00:00.000Z",
          "cwd": "/w"}


def line(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def entry(entry_id: str, parent: str | None, kind: str = "message", **payload) -> str:
    obj = {"type": kind, "id": entry_id, "parentId": parent,
           "timestamp": "2026-03-01T10:00:01.000Z", **payload}
    if kind == "message" and "message" not in payload:
        obj["message"] = {"role": "user", "content": entry_id}
    return line(obj)


def jsonl(*lines: str, final_newline: bool = True) -> str:
    return "\n".join(lines) + ("\n" if final_newline else "")


def found(session) -> list[tuple[int | None, str]]:
    return [(d.line, d.code) for d in session.diagnostics]


def ids(session) -> list[str]:
    return [loaded.obj.get("id") for loaded in session.entries]


H = line(HEADER)
A, B, C = entry("a", None), entry("b", "a"), entry("c", "b")


# --------------------------------------------------------------------------------------
# A clean file
# --------------------------------------------------------------------------------------

def test_clean_file() -> None:
    session = read_session_text(jsonl(H, A, B, C))
    assert session.header == HEADER
    assert session.header_line.line == 1 and session.header_line.text == H
    assert ids(session) == ["a", "b", "c"]
    assert [loaded.line for loaded in session.entries] == [2, 3, 4]
    assert [loaded.text for loaded in session.entries] == [A, B, C]
    assert session.objects() == [json.loads(A), json.loads(B), json.loads(C)]
    assert session.diagnostics == []
    assert (session.source_version, session.migrated, session.ends_with_newline) == (3, False, True)
    assert session.path is None


def test_header_only_is_an_empty_session() -> None:
    session = read_session_text(H + "\n")
    assert session.entries == [] and session.diagnostics == []


def test_missing_final_newline_is_fine_but_recorded() -> None:
    session = read_session_text(jsonl(H, A, B, final_newline=False))
    assert ids(session) == ["a", "b"] and session.diagnostics == []
    assert session.ends_with_newline is False


# --------------------------------------------------------------------------------------
# Line-level damage
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_torn_last_line_is_dropped_and_reported(mode: str) -> None:
    session = read_session_text(jsonl(H, A, B, C[:30], final_newline=False), mode=mode)
    assert ids(session) == ["a", "b"]
    assert found(session) == [(4, "torn-last-line")]
    assert session.diagnostics[0].severity == "warning"


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_corrupt_interior_line_costs_one_line(mode: str) -> None:
    session = read_session_text(jsonl(H, A, '{"type":"message","id":"b",', C), mode=mode)
    assert ids(session) == ["a", "c"]
    assert found(session) == [(3, "corrupt-line")]
    assert session.diagnostics[0].severity == "error"
    assert "column" in session.diagnostics[0].raw_error, "the parser's own words, kept apart"
    assert session.diagnostics[0].detail == ""


def test_unparseable_last_line_with_newline_is_corrupt_not_torn() -> None:
    session = read_session_text(jsonl(H, A, "{nope"))
    assert found(session) == [(3, "corrupt-line")]


def test_glued_objects_teaching_keeps_both() -> None:
    session = read_session_text(jsonl(H, A, B + C))
    assert ids(session) == ["a", "b", "c"]
    assert [loaded.line for loaded in session.entries] == [2, 3, 3]
    assert [loaded.text for loaded in session.entries] == [A, B, C], \
        "each glued object keeps its own slice of the line"
    assert found(session) == [(3, "glued-objects")]
    assert session.diagnostics[0].severity == "error"
    assert (session.diagnostics[0].detail, session.diagnostics[0].raw_error) == ("2", "")


def test_glued_objects_pi_mode_loses_the_whole_line() -> None:
    session = read_session_text(jsonl(H, A, B + C, entry("d", "c")), mode="pi")
    assert ids(session) == ["a", "d"]
    assert found(session) == [(3, "glued-objects")]


def test_glued_then_torn_keeps_the_complete_object_in_teaching_mode() -> None:
    text = jsonl(H, A, B + C[:20], final_newline=False)
    teaching = read_session_text(text)
    assert ids(teaching) == ["a", "b"]
    assert found(teaching) == [(3, "glued-objects")]
    assert teaching.diagnostics[0].detail == "1" and "Unterminated" in teaching.diagnostics[0].raw_error
    assert ids(read_session_text(text, mode="pi")) == ["a"]


def test_blank_and_whitespace_lines() -> None:
    session = read_session_text(jsonl(H, "", A, " \t ", B))
    assert ids(session) == ["a", "b"]
    assert found(session) == [(2, "blank-line"), (4, "blank-line")]
    assert {d.severity for d in session.diagnostics} == {"info"}


def test_not_an_object() -> None:
    session = read_session_text(jsonl(H, A, "[1,2]", "null", B))
    assert ids(session) == ["a", "b"]
    assert found(session) == [(3, "not-an-object"), (4, "not-an-object")]


def test_nan_and_infinity_are_not_json() -> None:
    session = read_session_text(jsonl(H, '{"type":"message","id":"x","parentId":null,"n":NaN}',
                                      '{"type":"message","id":"y","parentId":null,"n":-Infinity}'))
    assert found(session) == [(2, "corrupt-line"), (3, "corrupt-line")]


def test_absurdly_deep_nesting_is_refused_before_parsing() -> None:
    session = read_session_text(jsonl(H, '{"a":' + "[" * 100_000, A))
    assert ids(session) == ["a"] and found(session) == [(2, "too-deep")]


@pytest.mark.parametrize("depth", [40, 300, 499])
def test_a_line_within_a_raised_depth_limit_reads_the_same_however_deep_the_caller(
        depth: int) -> None:
    """The answer must not depend on the caller's own stack: a line nested ``depth`` deep,
    within ``max_depth`` (at most ``MAX_DEPTH_CEILING``), is read from a caller 400 calls
    down as from the top (a notebook's cell runs a few dozen calls deep)."""
    text = jsonl(H, '{"type":"message","id":"d","parentId":null,"x":'
                 + "[" * depth + "]" * depth + "}", entry("e", "d"))
    limits = Limits(max_depth=5000)

    def from_down(levels: int):
        return read_session_text(text, limits=limits) if levels == 0 else from_down(levels - 1)

    for session in (read_session_text(text, limits=limits), from_down(400)):
        assert ids(session) == ["d", "e"] and found(session) == []
    assert reader.parse_one_value("[" * depth + "]" * depth, limits) != reader.UNREADABLE


def test_the_depth_limit_has_a_ceiling_the_stack_can_hold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's parser and encoders recurse once per level, within its limit of 1,000
    calls: a larger limit, given or from the environment, is taken as the ceiling, so a
    line the reader accepts always leaves its caller room."""
    ceiling = reader.MAX_DEPTH_CEILING
    assert ceiling <= 500
    assert Limits(max_depth=10**9).max_depth == ceiling == Limits(max_depth=ceiling).max_depth
    monkeypatch.setenv("LEARN_PI_LAB_MAX_DEPTH", "999999999")
    assert Limits.from_environment().max_depth == ceiling
    monkeypatch.setenv("LEARN_PI_LAB_MAX_DEPTH", "²")   # (a digit to str.isdigit, not to int)
    assert Limits.from_environment().max_depth == Limits().max_depth
    too_deep = jsonl(H, '{"a":' + "[" * (ceiling + 1) + "]" * (ceiling + 1) + "}", A)
    session = read_session_text(too_deep, limits=Limits.from_environment())
    assert ids(session) == ["a"] and found(session) == [(2, "too-deep")]


def test_crlf_reported_once_and_removed() -> None:
    session = read_session_text(H + "\n" + A + "\r\n" + B + "\r\n")
    assert ids(session) == ["a", "b"]
    assert found(session) == [(2, "crlf")]
    assert [loaded.text for loaded in session.entries] == [A, B]


def test_bom_teaching_mode_skips_it() -> None:
    session = read_session_text("\ufeff" + jsonl(H, A))
    assert session.header == HEADER and session.header_line.text == H
    assert found(session) == [(1, "bom")]


def test_bom_pi_mode_is_not_a_session() -> None:
    with pytest.raises(NotASessionFile) as caught:
        read_session_text("\ufeff" + jsonl(H, A), mode="pi")
    assert (caught.value.reason, caught.value.line) == ("bom", 1)


def test_invalid_utf8_becomes_replacement_character(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(H, A).encode() + b'{"type":"message","id":"z","parentId":"a","t":"\xff"}\n')
    session = read_session(path)
    assert session.entries[-1].obj["t"] == "\ufffd"


# --------------------------------------------------------------------------------------
# Entry-level checks: ids, duplicates, headers, types
# --------------------------------------------------------------------------------------

def test_identical_duplicate_is_kept_once_teaching() -> None:
    session = read_session_text(jsonl(H, A, B, B, C))
    assert ids(session) == ["a", "b", "c"]
    assert [loaded.line for loaded in session.entries] == [2, 3, 5]
    assert found(session) == [(4, "duplicate-entry")]
    only = session.diagnostics[0]
    assert (only.severity, only.entry_id, only.first_line) == ("info", "b", 3)


def test_identical_duplicate_pi_mode_keeps_the_later_position() -> None:
    session = read_session_text(jsonl(H, A, B, C, B), mode="pi")
    assert ids(session) == ["a", "c", "b"], "Pi's leaf is the last line, so the later copy counts"
    assert [loaded.line for loaded in session.entries] == [2, 4, 5]
    assert found(session) == [(5, "duplicate-entry")]


def test_conflicting_duplicate_teaching_keeps_the_first() -> None:
    other = entry("b", "a", message={"role": "user", "content": "changed"})
    session = read_session_text(jsonl(H, A, B, other))
    assert ids(session) == ["a", "b"] and session.entries[1].text == B
    assert found(session) == [(4, "conflicting-duplicate")]
    assert session.diagnostics[0].severity == "error"
    assert session.diagnostics[0].entry_id == "b"


def test_conflicting_duplicate_pi_mode_later_wins() -> None:
    other = entry("b", "a", message={"role": "user", "content": "changed"})
    session = read_session_text(jsonl(H, A, B, C, other), mode="pi")
    assert ids(session) == ["a", "c", "b"]
    assert session.entries[-1].text == other
    assert found(session) == [(5, "conflicting-duplicate")]


def test_duplicate_comparison_is_json_not_python_equality() -> None:
    one = line({"type": "custom", "id": "x", "parentId": None, "data": 1})
    true = line({"type": "custom", "id": "x", "parentId": None, "data": True})
    assert found(read_session_text(jsonl(H, one, true))) == [(3, "conflicting-duplicate")]
    reordered = line({"parentId": None, "data": 1, "id": "x", "type": "custom"})
    assert found(read_session_text(jsonl(H, one, reordered))) == [(3, "duplicate-entry")]


@pytest.mark.parametrize("no_id", ['{"type":"message","parentId":"a"}',
                                   '{"type":"message","id":7,"parentId":"a"}',
                                   '{"type":"message","id":null,"parentId":"a"}'])
def test_missing_id_teaching_drops_pi_keeps(no_id: str) -> None:
    text = jsonl(H, A, no_id, B)
    teaching = read_session_text(text)
    assert ids(teaching) == ["a", "b"]
    assert found(teaching) == [(3, "missing-id")]
    pi = read_session_text(text, mode="pi")
    assert [loaded.line for loaded in pi.entries] == [2, 3, 4]
    assert found(pi) == [(3, "missing-id")]


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_extra_header_is_ignored(mode: str) -> None:
    second = line(dict(HEADER, id="sess-2"))
    session = read_session_text(jsonl(H, A, second, B), mode=mode)
    assert ids(session) == ["a", "b"] and session.header["id"] == "sess-1"
    assert found(session) == [(3, "extra-header")]
    assert session.diagnostics[0].severity == "warning"


def test_unknown_type_kept_verbatim() -> None:
    odd = '{"type":"future_entry", "id":"f","parentId":"a",  "payload":{"z":[1,2]}}'
    no_type = '{"id":"g","parentId":"f"}'
    session = read_session_text(jsonl(H, A, odd, no_type))
    assert ids(session) == ["a", "f", "g"]
    assert session.entries[1].text == odd, "the exact text, spacing included, is kept"
    assert found(session) == [(3, "unknown-type"), (4, "unknown-type")]
    assert session.diagnostics[0].detail == "future_entry"
    assert {d.severity for d in session.diagnostics} == {"info"}


def test_diagnostics_come_sorted_by_line() -> None:
    text = jsonl(H, A, "", B, B, "{bad", entry("q", "b", kind="mystery"), "[]", C[:9],
                 final_newline=False)
    assert found(read_session_text(text)) == [
        (3, "blank-line"), (5, "duplicate-entry"), (6, "corrupt-line"), (7, "unknown-type"),
        (8, "not-an-object"), (9, "torn-last-line")]


# --------------------------------------------------------------------------------------
# Not a session at all
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, reason, at_line", [
    ("", "empty-file", None),
    ("\n  \n", "no-header", None),
    ("garbage\n{also bad\n", "no-header", None),
    (jsonl(A, H), "not-a-header", 1),
    (jsonl(line({"type": "title", "title": "x"}), H), "not-a-header", 1),
    (jsonl(line(dict(HEADER, id=42)), A), "not-a-header", 1),
    (jsonl("[1]", H), "not-a-header", 1),
    (jsonl("", "{bad", A, H), "not-a-header", 3),
])
@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_not_a_session(text: str, reason: str, at_line: int | None, mode: str) -> None:
    with pytest.raises(NotASessionFile) as caught:
        read_session_text(text, mode=mode)
    error = caught.value
    assert (error.reason, error.line) == (reason, at_line)
    assert isinstance(error, ValueError)
    assert explain(error, "en") and explain(error, "zh") and explain(error, "en") != explain(error, "zh")
    assert str(error) == explain(error, "en"), "str() is the stable English message"


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_a_limit_met_before_the_header_is_named_not_called_empty(mode: str) -> None:
    """A first line longer than the line limit, or content past the file limit before any
    header (a .xz of NUL bytes): the error says which limit, not 'the file is empty'."""
    read_session_text("x" * 5000 + "\n" + H + "\n", mode=mode,
                      limits=Limits(max_line_bytes=1000))   # a header after it: fine, as in Pi
    deep_header = H[:-1] + ',"x":' + "[" * 401 + "]" * 401 + "}"
    entry = '{"type":"message","id":"a","parentId":null}'
    cases = [("x" * 5000 + "\n{torn\n", Limits(max_line_bytes=1000),
              "header-line-too-long", 1, "1000"),
             ("\0" * 5000, Limits(max_file_bytes=1000), "too-large-before-header", None,
              "1000"),
             # (a Pi user's review: a header the limit dropped, then "line 2 holds the first
             # JSON value, and it is not a session header", which blamed the wrong line)
             ("x" * 5000 + "\n" + entry + "\n", Limits(max_line_bytes=1000),
              "header-line-too-long", 1, "1000"),
             (deep_header + "\n" + entry + "\n", Limits(max_depth=400),
              "header-line-too-deep", 1, "400"),
             (deep_header + "\n", Limits(max_depth=400), "header-line-too-deep", 1, "400")]
    for text, limits, reason, at_line, detail in cases:
        with pytest.raises(NotASessionFile) as caught:
            read_session_text(text, mode=mode, limits=limits)
        error = caught.value
        assert (error.reason, error.line, error.detail) == (reason, at_line, detail)
        assert detail in explain(error, "zh") and detail in str(error)


def test_header_after_blank_and_corrupt_lines_is_accepted_like_pi() -> None:
    session = read_session_text(jsonl("", "{torn", H, A))
    assert session.header_line.line == 3 and ids(session) == ["a"]
    assert found(session) == [(1, "blank-line"), (2, "corrupt-line")]


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(NotASessionFile) as caught:
        read_session(tmp_path / "nope.jsonl")
    assert caught.value.reason == "missing-file"
    assert "nope.jsonl" in explain(caught.value, "en")
    with pytest.raises(NotASessionFile) as caught:
        read_session(tmp_path)
    assert caught.value.reason == "is-a-directory"


def test_broken_xz_is_unreadable_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl.xz"
    path.write_bytes(b"this is not xz data")
    with pytest.raises(NotASessionFile) as caught:
        read_session(path)
    assert caught.value.reason == "unreadable"


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        read_session_text(jsonl(H), mode="strict")


# --------------------------------------------------------------------------------------
# Old versions: migrated in memory
# --------------------------------------------------------------------------------------

V1_HEADER = line({"type": "session", "id": "old-1", "timestamp": "2025-11-20T10:00:00.000Z",
                  "cwd": "/w", "branchedFrom": "/x.jsonl"})
V1_LINES = [
    line({"type": "message", "timestamp": "t1", "message": {"role": "user", "content": "u"}}),
    line({"type": "message", "timestamp": "t2", "message": {"role": "assistant", "content": []}}),
    line({"type": "compaction", "timestamp": "t3", "summary": "s", "firstKeptEntryIndex": 2,
          "tokensBefore": 9}),
]


def test_v1_file_is_migrated_in_memory_with_repeatable_ids() -> None:
    text = jsonl(V1_HEADER, *V1_LINES)
    session = read_session_text(text)
    assert found(session) == [(1, "migrated")]
    assert session.diagnostics[0].detail == "v1 -> v3"
    assert (session.source_version, session.migrated) == (1, True)
    assert session.header["version"] == 3 and list(session.header)[-1] == "version"
    assert session.header["branchedFrom"] == "/x.jsonl"
    user, assistant, compaction = session.objects()
    assert user["parentId"] is None and assistant["parentId"] == user["id"]
    assert compaction["parentId"] == assistant["id"]
    assert compaction["firstKeptEntryId"] == assistant["id"]
    assert all(len(obj["id"]) == 8 for obj in session.objects())
    assert [loaded.text for loaded in session.entries] == V1_LINES, "the stored text is untouched"
    again = read_session_text(text)
    assert again.objects() == session.objects(), "reading twice gives the same ids"


def test_v2_hook_message_becomes_custom() -> None:
    header = line(dict(HEADER, version=2))
    hook = entry("h", None, message={"role": "hookMessage", "customType": "x", "content": "c"})
    session = read_session_text(jsonl(header, hook))
    assert session.objects()[0]["message"]["role"] == "custom"
    assert (session.source_version, session.migrated) == (2, True)
    assert found(session) == [(1, "migrated")]


def test_future_version_loads_as_is() -> None:
    session = read_session_text(jsonl(line(dict(HEADER, version=4)), A))
    assert (session.source_version, session.migrated, found(session)) == (4, False, [])


# --------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("code", sorted(SEVERITIES))
def test_every_code_has_a_message_in_both_languages(code: str) -> None:
    assert f"diag.{code}" in catalog()
    found_diagnostic = Diagnostic(7, code, SEVERITIES[code], "ab12cd34", "x")
    assert explain(found_diagnostic, "en").startswith("line 7: ")
    assert explain(found_diagnostic, "zh").startswith("第 7 行：")


def test_message_without_a_line() -> None:
    assert explain(Diagnostic(None, "cycle", "error", "a"), "en").startswith("file: ")


def test_message_names_the_entry_and_detail() -> None:
    text = explain(Diagnostic(4, "duplicate-entry", "info", "b2c3d4e5", first_line=3), "en")
    assert "b2c3d4e5" in text and "first copy on line 3" in text
    chinese = explain(Diagnostic(4, "duplicate-entry", "info", "b2c3d4e5", first_line=3), "zh")
    assert "第 3 行" in chinese


def test_a_raw_parser_error_is_shown_as_such_in_both_languages() -> None:
    found_diagnostic = read_session_text(jsonl(H, A, '{"type":', C)).diagnostics[0]
    assert "raw error: Expecting value" in explain(found_diagnostic, "en")
    chinese = explain(found_diagnostic, "zh")
    assert "原始错误" in chinese and chinese.startswith("第 3 行：")
    assert "skipped" not in chinese, "no English sentence in a Chinese diagnostic"


# --------------------------------------------------------------------------------------
# Files: never modified, written back byte for byte, .xz, streaming
# --------------------------------------------------------------------------------------

DAMAGED = jsonl(H, A, "", B, B, "{bad", entry("q", "b", kind="mystery"), C[:9], final_newline=False)


@pytest.mark.parametrize("content", [jsonl(H, A, B), DAMAGED, jsonl(V1_HEADER, *V1_LINES),
                                     "\ufeff" + jsonl(H, A)])
@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_reading_never_modifies_the_file(tmp_path: Path, content: str, mode: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(content, encoding="utf-8", newline="")
    past = 1_600_000_000
    os.utime(path, (past, past))
    before = path.read_bytes()
    try:
        read_session(path, mode=mode)
        list(iter_entries_streaming(path, mode=mode))
    except NotASessionFile:
        pass    # the BOM file in pi mode: rejected, and still left alone
    assert path.read_bytes() == before
    assert path.stat().st_mtime == past
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"], "no file created beside it"


def test_unknown_entries_are_written_back_byte_identical(tmp_path: Path) -> None:
    odd = '{"type":"future_entry","id":"f","parentId":"a","x":1.50,"y":"\\u00e9 é"}'
    original = jsonl(H, A, odd, entry("g", "f"))
    session = read_session_text(original)
    out = tmp_path / "copy.jsonl"
    write_new_file(out, session.header_line.text, [loaded.text for loaded in session.entries])
    assert out.read_bytes() == original.encode("utf-8")
    assert json.dumps(json.loads(odd), separators=(",", ":")) != odd, \
        "re-serializing would have changed this line: only the kept text preserves it"


def test_xz_file_is_read_transparently(tmp_path: Path) -> None:
    plain = tmp_path / "s.jsonl"
    plain.write_text(DAMAGED, encoding="utf-8")
    packed = tmp_path / "s.jsonl.xz"
    packed.write_bytes(lzma.compress(DAMAGED.encode("utf-8")))
    from_plain, from_xz = read_session(plain), read_session(packed)
    assert from_xz.objects() == from_plain.objects()
    assert found(from_xz) == found(from_plain)
    assert from_xz.ends_with_newline is False and from_xz.path == str(packed)


def test_xz_streams_padding_and_damage(tmp_path: Path) -> None:
    text = DAMAGED.encode("utf-8")
    half = len(text) // 2
    two_streams = lzma.compress(text[:half]) + b"\0" * 8 + lzma.compress(text[half:]) + b"\0" * 4
    packed = tmp_path / "two.jsonl.xz"
    packed.write_bytes(two_streams)
    assert read_session(packed).objects() == read_session_text(DAMAGED).objects()
    # (an attacker's review: bytes after the stream that are not xz were ignored in silence)
    for name, damaged in (("trailing", lzma.compress(text) + b"garbage, not xz"),
                          ("cut", lzma.compress(text)[:-20])):
        path = tmp_path / f"{name}.jsonl.xz"
        path.write_bytes(damaged)
        with pytest.raises(NotASessionFile) as raised:
            read_session(path)
        assert raised.value.reason == "unreadable", name


def test_read_session_and_read_session_text_agree(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(DAMAGED, encoding="utf-8")
    from_file, from_text = read_session(path), read_session_text(DAMAGED)
    assert from_file.entries == from_text.entries
    assert from_file.diagnostics == from_text.diagnostics


def test_iter_physical_lines() -> None:
    raw = "\ufeffone\r\ntwo\u2028still two\n\nlast".encode("utf-8")
    expected = [(1, "one", True), (2, "two\u2028still two", True), (3, "", True), (4, "last", False)]
    assert list(iter_physical_lines(io.BytesIO(raw))) == expected
    assert list(iter_physical_lines(io.StringIO(raw.decode(), newline="\n"))) == expected
    assert list(iter_physical_lines(io.BytesIO(raw), strip_bom=False))[0] == (1, "\ufeffone", True)
    assert list(iter_physical_lines(io.BytesIO(b""))) == []


def test_iter_physical_lines_from_a_path(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"a\nb\n")
    assert list(iter_physical_lines(path)) == [(1, "a", True), (2, "b", True)]
    assert list(iter_physical_lines(str(path))) == [(1, "a", True), (2, "b", True)]


class NoWholeRead(io.BytesIO):
    """A file that fails the test if anyone reads all of it at once."""

    def read(self, size: int | None = -1) -> bytes:
        assert size is not None and size >= 0, "the reader must not read the whole file at once"
        return super().read(size)


def test_streaming_never_reads_the_whole_file_at_once() -> None:
    data = jsonl(H, A, B, C).encode()
    assert [loaded.obj["type"] for loaded in iter_entries_streaming(NoWholeRead(data))] == \
        ["session", "message", "message", "message"]


def test_streaming_is_lazy(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    lines = [H] + [entry(f"{n:08x}", None) for n in range(40_000)]
    path.write_text(jsonl(*lines), encoding="utf-8")
    assert path.stat().st_size > 4 * reader._BLOCK
    with path.open("rb") as handle:
        stream = iter_entries_streaming(handle)
        first = next(stream)
        assert first.obj == HEADER
        assert handle.tell() <= reader._STREAM_BLOCK, "only the first block of the file was read"
        stream.close()


def test_streaming_yields_every_parsed_line_like_pi() -> None:
    problems: list[Diagnostic] = []
    text = jsonl(H, A, "", B, B, "{bad", B + C)
    lines = list(iter_entries_streaming(io.BytesIO(text.encode()), diagnostics=problems))
    assert [loaded.obj.get("id") for loaded in lines] == ["sess-1", "a", "b", "b", "b", "c"], \
        "no de-duplication while streaming: that needs the whole file"
    assert [(d.line, d.code) for d in problems] == [(3, "blank-line"), (6, "corrupt-line"),
                                                    (7, "glued-objects")]
    pi_lines = list(iter_entries_streaming(io.BytesIO(text.encode()), mode="pi"))
    assert [loaded.obj.get("id") for loaded in pi_lines] == ["sess-1", "a", "b", "b"]


def test_streaming_checks_the_header_before_yielding() -> None:
    stream = iter_entries_streaming(io.BytesIO(jsonl(A, H).encode()))
    with pytest.raises(NotASessionFile):
        next(stream)


def test_large_real_v1_file_streams_and_migrates() -> None:
    path = Path(__file__).resolve().parents[1] / "data" / "pi" / "pi-mono" / "large-session.jsonl.xz"
    session = read_session(path)
    assert (session.source_version, session.migrated) == (1, True)
    assert len(session.entries) == 1018
    assert found(session) == [(1, "migrated")]
    assert len({loaded.obj["id"] for loaded in session.entries}) == 1018


def test_the_file_layer_store_and_inspector_speak_no_language() -> None:
    """Core modules raise and report in English with fields; translating is the edge's job."""
    import ast

    package = Path(__file__).resolve().parents[1] / "learn_pi_lab"
    modules = [*sorted((package / "jsonl").glob("*.py")), package / "store.py",
               package / "session_inspector.py"]
    for module in modules:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {f"{node.module}.{alias.name}" for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module
                     for alias in node.names}
        assert not any(name.startswith("learn_pi_lab.i18n") for name in imported), module.name


@pytest.mark.parametrize("final_newline", [True, False])
def test_a_line_at_the_limit_is_read_and_one_byte_more_is_skipped(final_newline: bool) -> None:
    from learn_pi_lab.jsonl.reader import Limits

    def padded(entry_id: str, size: int) -> str:
        text = entry(entry_id, None, message={"role": "user", "content": ""})
        return text.replace('"content":""', '"content":"' + "x" * (size - len(text)) + '"')

    limit = 2000
    at_limit, over = padded("fits", limit), padded("over", limit + 1)
    assert (len(at_limit), len(over)) == (limit, limit + 1)
    session = read_session_text(jsonl(H, at_limit, over, final_newline=final_newline),
                                limits=Limits(max_line_bytes=limit))
    assert ids(session) == ["fits"]
    assert found(session) == [(3, "line-too-long")]


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
def test_lines_longer_than_one_block_are_joined(monkeypatch: pytest.MonkeyPatch,
                                                block: int) -> None:
    monkeypatch.setattr(reader, "_BLOCK", block)      # 7: every line spans several blocks
    session = read_session_text(jsonl(H, A, B + "\r", C, final_newline=False))
    assert ids(session) == ["a", "b", "c"] and found(session) == [(3, "crlf")]
    assert [loaded.text for loaded in session.entries] == [A, B, C]


def expected_lines(data: bytes, longest: int, allowed: int) -> tuple[list, int | None]:
    """What the line layer must give, worked out the plain way: ``(lines, limit line)``."""
    pieces = data.split(b"\n")
    last = pieces.pop()
    lines = [(no, piece, True) for no, piece in enumerate(pieces, 1)]
    if last:
        lines.append((len(pieces) + 1, last, False))
    given, total = [], 0
    for no, piece, terminated in lines:
        total += len(piece) + terminated
        if total > allowed:
            return given, no
        given.append((no, piece if len(piece) <= longest else None, terminated))
    return given, None


@settings(deadline=None, max_examples=300, derandomize=True, database=None)
@given(st.lists(st.sampled_from([b"", b"a", b"bc", b"defgh", b"x" * 13, b"\r"]), max_size=12),
       st.booleans(), st.integers(1, 9), st.integers(1, 16), st.integers(1, 80))
def test_blocks_cut_lines_like_a_plain_split(pieces: list[bytes], final_newline: bool,
                                            block: int, longest: int, allowed: int) -> None:
    data = b"\n".join(pieces) + (b"\n" if final_newline and pieces else b"")
    expected, stop = expected_lines(data, longest, allowed)
    got: list = []
    limits = Limits(max_line_bytes=longest, max_file_bytes=allowed)
    saved, reader._BLOCK = reader._BLOCK, block
    try:
        with pytest.raises(reader._ReadLimitReached) if stop else nullcontext() as raised:
            for line in reader._physical_lines(io.BytesIO(data), limits):
                got.append(line)
    finally:
        reader._BLOCK = saved
    assert got == expected
    if stop:
        assert raised.value.line == stop


# --------------------------------------------------------------------------------------
# Calling mistakes: a typed error that says what to call instead, never a deep traceback
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, argument, got", [
    (lambda: load_session(b'{"type":"session"}'), "path", "bytes"),   # the content, as bytes
    (lambda: load_session(None), "path", "NoneType"),
    (lambda: load_session(["a.jsonl"]), "path", "list"),
    (lambda: read_session(123), "path", "int"),
    (lambda: next(iter_entries_streaming(b"a.jsonl")), "path", "bytes"),
    (lambda: inspect_session(None), "path", "NoneType"),
    (lambda: session_from_text(b'{"type":"session"}'), "text", "bytes"),
    (lambda: session_from_text(None), "text", "NoneType"),
    (lambda: read_session_text(Path("x.jsonl")), "text", "PosixPath"),
    (lambda: load_session(LINEAR, fields="id"), "fields", "str"),
    (lambda: load_session(LINEAR, fields=("id", 3)), "fields", "tuple"),
    (lambda: read_jsonl_tolerant(None), "text", "NoneType"),
    (lambda: read_jsonl_tolerant(b'{"type":"session"}\n'), "text", "bytes"),
    (lambda: Limits(max_depth="50"), "limit", "str"),
    (lambda: Limits(max_lines=None), "limit", "NoneType"),
    (lambda: next(iter_physical_lines(None)), "source", "NoneType"),
    (lambda: next(safe_json_lines(iter([b"{}"]))), "source", "list_iterator"),
])
def test_calling_mistakes_are_typed_and_translated(call, argument: str, got: str) -> None:
    with pytest.raises(WrongArgument) as caught:
        call()
    assert isinstance(caught.value, TypeError)
    assert (caught.value.argument, caught.value.got) == (argument, got)
    assert got in str(caught.value) and got in explain(caught.value, "zh")
    assert explain(caught.value, "zh") != str(caught.value)


def test_a_path_and_a_list_of_fields_are_fine() -> None:
    assert load_session(Path(LINEAR)).leaf_id == load_session(str(LINEAR)).leaf_id
    assert load_session(LINEAR, fields=["type", "id", "parentId"]).leaf_id is not None


# --------------------------------------------------------------------------------------
# max_lines: a file of tiny lines is bounded by its number of lines, not only its bytes
# --------------------------------------------------------------------------------------

SMALL = (json.dumps(HEADER) + "\n" + "".join(entry(f"e{n}", f"e{n - 1}" if n else None) + "\n"
                                            for n in range(6)))


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_reading_stops_at_max_lines_and_keeps_what_came_before(mode: str) -> None:
    file = read_session_text(SMALL, mode=mode, limits=Limits(max_lines=4))
    assert [loaded.obj["id"] for loaded in file.entries] == ["e0", "e1", "e2"]
    assert [(d.line, d.code, d.detail) for d in file.diagnostics] == [(5, "too-many-lines", "4")]
    assert "4" in explain(file.diagnostics[0], "zh")
    whole = read_session_text(SMALL, mode=mode, limits=Limits(max_lines=7))
    assert len(whole.entries) == 6 and whole.diagnostics == []


def test_an_unfinished_last_line_past_the_limit_is_not_read() -> None:
    file = read_session_text(SMALL + '{"type":"custom","id":"x"', limits=Limits(max_lines=7))
    assert [(d.line, d.code) for d in file.diagnostics] == [(8, "too-many-lines")]
    assert len(file.entries) == 6


def test_max_lines_before_the_header_says_so() -> None:
    with pytest.raises(NotASessionFile) as caught:
        read_session_text("\n" * 10 + SMALL, limits=Limits(max_lines=5))
    assert caught.value.reason == "too-many-lines-before-header"
    assert "5" in explain(caught.value, "zh")


def test_max_lines_comes_from_the_environment() -> None:
    assert Limits.from_environment({"LEARN_PI_LAB_MAX_LINES": "12"}).max_lines == 12
    assert Limits.from_environment({"LEARN_PI_LAB_MAX_LINES": "x"}).max_lines == 5_000_000


def test_ids_dropped_as_they_are_read_do_not_pile_up(tmp_path: Path) -> None:
    # teaching mode checks each block as it comes: id-less lines never accumulate
    path = tmp_path / "tiny.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + "{}\n" * 200_000, encoding="utf-8")
    file = read_session(path)
    assert file.entries == [] and file.diagnostic_counts["missing-id"] == 200_000


@pytest.mark.parametrize("name, reason", [("", "empty-name"), ("x.jsonl\x00", "nul-in-name")])
def test_a_name_no_file_can_have_is_refused_in_words(name: str, reason: str) -> None:
    for call in (load_session, read_session, inspect_session,
                 lambda path: next(iter_entries_streaming(path))):
        with pytest.raises(NotASessionFile) as caught:
            call(name)
        assert caught.value.reason == reason and explain(caught.value, "zh") != str(caught.value)


def test_more_calling_mistakes_are_typed_and_translated() -> None:
    from learn_pi_lab.errors import UnknownChoice
    from learn_pi_lab.pi.session import FieldsLeftOut
    from learn_pi_lab.session_tree import UnknownTranscriptEntry
    session = load_session(LINEAR)
    for call, error in [(lambda: load_session(LINEAR, mode="Pi"), UnknownChoice),
                        (lambda: session_from_text("x", mode=None), UnknownChoice),
                        (lambda: load_session(LINEAR, pi_version="1.6"), UnknownChoice),
                        (lambda: session.context(pi_version=0), UnknownChoice),   # not ignored
                        (lambda: read_session(LINEAR, limits=1), WrongArgument),
                        (lambda: session.children(["id"]), UnknownTranscriptEntry),
                        (lambda: session.tree.path_to({"a": 1}), UnknownTranscriptEntry),
                        (lambda: load_session(LINEAR, fields=reader.TREE_FIELDS).children(None),
                         FieldsLeftOut)]:
        with pytest.raises(error) as caught:
            call()
        assert explain(caught.value, "zh") != str(caught.value), caught.value


def test_fields_always_keep_what_makes_the_tree() -> None:
    whole = load_session(LINEAR)
    for fields in (("id",), (), ["message"]):
        slim = load_session(LINEAR, fields=fields)
        assert [entry["id"] for entry in slim.branch()] == [entry["id"] for entry in whole.branch()]
        assert slim.file.fields[:3] == ("type", "id", "parentId")


@pytest.mark.parametrize("pack, name", [("gzip", "gzip"), ("bz2", "bzip2"), ("lzma", "xz")])
def test_a_compressed_file_is_named_as_such(tmp_path: Path, pack: str, name: str) -> None:
    """A Pi user's review: a .gz session was "a file with no parseable JSON line"."""
    import importlib
    text = b'{"type":"session","version":3,"id":"s","cwd":"/"}\n'
    path = tmp_path / f"session.jsonl.{pack}"   # (.xz by its name is read: see above)
    path.write_bytes(importlib.import_module(pack).compress(text))
    if pack == "lzma":
        path = path.rename(tmp_path / "packed.jsonl")
    with pytest.raises(NotASessionFile) as caught:
        read_session(path)
    assert (caught.value.reason, caught.value.detail) == ("compressed", name)
    assert "unpack it first" in str(caught.value)
    plain = tmp_path / "junk.jsonl"
    plain.write_bytes(b"\x1f not json\n")
    with pytest.raises(NotASessionFile) as caught:
        read_session(plain)
    assert caught.value.reason == "no-header"


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_a_compressed_file_whose_bytes_hold_a_json_value_is_named_as_such(
        tmp_path: Path, mode: str) -> None:
    """A Pi user's review: a real .jsonl.gz whose third line starts with ``2`` was "not a
    session file: line 3 holds the first JSON value" (teaching mode reads ``2`` glued to
    the rest of the line); the file is compressed, and that is what it must say."""
    path = tmp_path / "session.jsonl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00\xad\xa5\x10k\n\xc2\x10\n2\x90\xa15\n")
    with pytest.raises(NotASessionFile) as caught:
        read_session(path, mode=mode)
    assert (caught.value.reason, caught.value.detail) == ("compressed", "gzip")
    with pytest.raises(NotASessionFile) as caught:   # the inspector reads it its own way
        inspect_session(path)
    assert caught.value.reason == "compressed"


def test_a_file_cut_short_while_it_is_read_is_refused_not_read_in_part(tmp_path: Path) -> None:
    """A Pi user's review: a 200,000-entry file truncated by another program during ``tree``
    showed 3,094 entries and exit 0. Growing is fine (sessions grow by appending)."""
    entry = '{"type":"message","id":"e%06d","parentId":null,"message":{"role":"user"}}\n'
    path = tmp_path / "cut.jsonl"
    path.write_text(H + "\n" + "".join(entry % n for n in range(50_000)), encoding="utf-8")
    size = str(path.stat().st_size)
    for cut in (True, False):
        lines = iter_physical_lines(path)
        next(lines)
        if cut:
            os.truncate(path, 100_000)
        else:
            with path.open("a", encoding="utf-8") as grow:
                grow.write(entry % 50_000)
        if cut:
            with pytest.raises(NotASessionFile) as caught:
                for _ in lines:
                    pass
            error = caught.value
            assert (error.reason, error.detail) == ("shrank-while-read", size)
            assert size in explain(error, "zh") and "shorter" in str(error)
        else:
            assert sum(1 for _ in lines) >= 1_000


def test_a_file_that_only_claims_a_larger_size_is_not_called_shrunk() -> None:
    """``/sys`` files say 4096 bytes and hold fewer: not a file cut while it was read."""
    claims = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not claims.is_file() or claims.stat().st_size <= len(claims.read_bytes()):
        pytest.skip("no /sys file that claims more bytes than it holds here")
    with pytest.raises(NotASessionFile) as caught:
        read_session(claims)
    assert caught.value.reason == "no-header"


def test_every_diagnostic_code_is_in_the_docs_with_its_severity() -> None:
    """docs/diagnostics.md lists each code of ``SEVERITIES`` once, with the same severity."""
    from learn_pi_lab.jsonl.reader import SEVERITIES
    docs = Path(__file__).resolve().parents[1] / "docs" / "diagnostics.md"
    rows = {}
    for line in docs.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 3:
            assert cells[0] not in rows, f"{cells[0]} is listed twice"
            rows[cells[0]] = cells[1]
    assert rows == {f"`{code}`": severity for code, severity in SEVERITIES.items()}
