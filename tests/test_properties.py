"""Properties of the file layer, checked on many generated session trees (hypothesis).

(a) any tree written to a file reads back exactly;
(b) cutting the file at any byte loses at most the entry that was cut;
(c) after any cut, ``append_line`` still adds an entry the next read can see.

Example counts are kept modest so the whole file runs in seconds on a small CI machine.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learn_pi_lab.jsonl.reader import NotASessionFile, read_session
from learn_pi_lab.jsonl.records import KNOWN_ENTRY_TYPES
from learn_pi_lab.jsonl.writer import append_line, order_like_pi, to_json_line, write_new_file

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
SCALARS = (st.none() | st.booleans() | st.integers(-10**15, 10**15)
           | st.floats(allow_nan=False, allow_infinity=False) | TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(TEXT, inner, max_size=3), max_leaves=6)
# Keys the reader checks as references (targetId, firstKeptEntryId, fromId) are set below
# to real ids, so a generated tree is healthy; damaged references have tests of their own.
PAYLOAD_KEYS = TEXT.filter(lambda key: key not in ("type", "id", "parentId", "timestamp",
                                                   "targetId", "firstKeptEntryId", "fromId"))
HEADER = {"type": "session", "version": 3, "id": "0195a0e0-0000-7000-8000-000000000001",
          "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/home/learner/é 项目"}


@st.composite
def session_trees(draw) -> list[dict]:
    """Entries in file order; each parent is None or an earlier entry (a forest)."""
    count = draw(st.integers(min_value=0, max_value=10))
    ids = draw(st.lists(st.text("0123456789abcdef", min_size=8, max_size=8),
                        min_size=count, max_size=count, unique=True))
    entries = []
    for position, entry_id in enumerate(ids):
        parent = draw(st.sampled_from([None, *ids[:position]]))
        kind = draw(st.sampled_from(sorted(KNOWN_ENTRY_TYPES) + ["future_entry"]))
        payload = draw(st.dictionaries(PAYLOAD_KEYS, VALUES, max_size=3))
        if kind == "label":   # a label names an entry of the file
            payload["targetId"] = draw(st.sampled_from(ids[:position + 1]))
        entries.append(order_like_pi({"type": kind, "id": entry_id, "parentId": parent,
                                      "timestamp": f"2026-03-01T10:00:{position:02d}.000Z",
                                      **payload}))
    return entries


def file_bytes(entries: list[dict]) -> bytes:
    return "".join(to_json_line(obj) + "\n" for obj in [HEADER, *entries]).encode("utf-8")


def unknown_type_lines(entries: list[dict]) -> list[tuple[int, str]]:
    return [(number, "unknown-type") for number, obj in enumerate(entries, start=2)
            if obj["type"] not in KNOWN_ENTRY_TYPES]


@SETTINGS
@given(session_trees())
def test_a_any_tree_round_trips_through_write_and_read(entries: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        write_new_file(path, HEADER, entries)
        session = read_session(path)
        assert session.header == HEADER
        assert session.objects() == entries
        assert [loaded.line for loaded in session.entries] == list(range(2, len(entries) + 2))
        assert [(d.line, d.code) for d in session.diagnostics] == unknown_type_lines(entries)

        appended = Path(folder) / "appended.jsonl"
        write_new_file(appended, HEADER, [])
        for obj in entries:
            append_line(appended, obj)
        assert appended.read_bytes() == path.read_bytes(), \
            "appending one by one writes the same bytes as writing the file at once"


@st.composite
def cut_files(draw) -> tuple[list[dict], bytes, int]:
    entries = draw(session_trees())
    data = file_bytes(entries)
    return entries, data, draw(st.integers(min_value=0, max_value=len(data)))


def complete_before(entries: list[dict], data: bytes, cut: int) -> int:
    """How many entries' JSON text lies wholly inside ``data[:cut]``."""
    end = data.index(b"\n") + 1          # after the header line
    complete = 0
    for obj in entries:
        end += len(to_json_line(obj).encode("utf-8"))
        if end > cut:
            break
        complete += 1
        end += 1                          # its newline
    return complete


@SETTINGS
@given(cut_files())
def test_b_a_cut_at_any_byte_loses_at_most_the_entry_that_was_cut(case) -> None:
    entries, data, cut = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(data[:cut])
        header_length = data.index(b"\n")
        if cut < header_length:
            with pytest.raises(NotASessionFile):
                read_session(path)
            return
        session = read_session(path)
        survivors = complete_before(entries, data, cut)
        assert session.objects() == entries[:survivors], "every complete earlier entry survives"
        at_line_boundary = cut in (0, len(data)) or data[cut - 1:cut] == b"\n" \
            or data[cut:cut + 1] == b"\n"
        expected = unknown_type_lines(entries[:survivors])
        if not at_line_boundary:
            expected.append((survivors + 2, "torn-last-line"))
        assert [(d.line, d.code) for d in session.diagnostics] == expected


@SETTINGS
@given(cut_files())
def test_c_append_after_any_cut_keeps_the_new_entry_readable(case) -> None:
    entries, data, cut = case
    cut = max(cut, data.index(b"\n"))    # the header itself must survive for a session to exist
    new = {"type": "message", "id": "new-entry", "parentId": None,
           "timestamp": "2026-03-01T11:00:00.000Z", "message": {"role": "user", "content": "again"}}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(data[:cut])
        append_line(path, new)
        session = read_session(path)
        survivors = complete_before(entries, data, cut)
        assert session.objects() == entries[:survivors] + [new]
        assert path.read_bytes().startswith(data[:cut]), "the bytes before the cut are untouched"
        codes = [d.code for d in session.diagnostics if d.code != "unknown-type"]
        assert codes in ([], ["corrupt-line"]), "at most the cut line is lost, now as an interior line"


def _values_the_long_way(decoder, text: str) -> tuple[list, str]:
    """What ``_SafeDecoder.values`` answers, asked of the full decoder alone (no first try
    with ``scan_once``): the yardstick for its shortcut on lines that are not JSON."""
    import json
    try:
        return [(decoder.decoder.decode(text), 0, len(text))], ""
    except json.JSONDecodeError as error:
        if error.msg != "Extra data":
            return [], f"{error.msg} (column {error.colno})"
        return None, "glued"
    except (ValueError, RecursionError):
        return None, "other"


@settings(derandomize=True, database=None, max_examples=400, deadline=None)
@given(st.one_of(st.text(alphabet='{}[]":,0123456789.eE+-ntrufalsNIy \t\\x', max_size=24),
                 st.sampled_from(["not json 1 {", "{bad", "nul", '{"a":}', "[1,", '"open',
                                  "  {bad", "\t", '{"a":1}x', "1e400", "-", '{"a":NaN}'])))
def test_a_line_that_is_not_json_gets_the_full_decoders_reason(text: str) -> None:
    """The reader's first try (``scan_once``) answers a line no value can start, or one the
    scanner stops in, with the reason and column the full decoder gives for it."""
    from learn_pi_lab.jsonl.reader import _SafeDecoder
    decoder = _SafeDecoder()
    values, error = decoder.values(text)
    expected_values, expected_error = _values_the_long_way(_SafeDecoder(), text)
    if expected_values is not None and not expected_values:   # the line holds no value
        assert (values, error) == ([], expected_error)
    elif expected_values:                                     # one value, the whole line
        assert error == "" and len(values) == 1
