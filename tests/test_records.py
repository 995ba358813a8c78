"""Typed records (``learn_pi_lab.jsonl.records``): groups, parsing, Pi's key order, tolerance."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from learn_pi_lab.jsonl.reader import read_session
from learn_pi_lab.jsonl.records import (
    RECORD_GROUPS,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
    Usage,
    parse_entry,
    record_group,
)

DATA = Path(__file__).resolve().parents[1] / "data"
SESSION_FILES = sorted(DATA.glob("*.jsonl")) + sorted((DATA / "pi").glob("*/*.jsonl")) + \
    sorted((DATA / "pi").glob("*/*.jsonl.xz"))
# Written by Pi itself or by data/generate.py (which follows Pi): their keys are in Pi's order.
# The pi-session-inspector fixtures were written by hand by a third party.
WRITTEN_LIKE_PI = set(DATA.glob("*.jsonl")) | {DATA / "pi" / "agent-sessions" / "small.jsonl"}


def test_record_groups_are_the_courses_three_responsibilities() -> None:
    assert RECORD_GROUPS == {
        "session": "metadata", "session_info": "metadata", "label": "metadata",
        "message": "content", "compaction": "content", "branch_summary": "content",
        "custom_message": "content",
        "model_change": "operation", "thinking_level_change": "operation", "custom": "operation",
        "usage": "metadata", "context_edit": "operation"}   # the two Pi 1.x types
    assert record_group("label") == "metadata"
    assert record_group("future_entry") == "unknown"
    assert record_group(None) == "unknown" and record_group(["x"]) == "unknown"


@pytest.mark.parametrize("kind, cls", [
    ("session", SessionHeader), ("message", MessageEntry),
    ("thinking_level_change", ThinkingLevelChangeEntry), ("model_change", ModelChangeEntry),
    ("compaction", CompactionEntry), ("branch_summary", BranchSummaryEntry),
    ("custom", CustomEntry), ("custom_message", CustomMessageEntry), ("label", LabelEntry),
    ("session_info", SessionInfoEntry), ("future_entry", UnknownEntry), (None, UnknownEntry),
])
def test_parse_entry_picks_the_class(kind, cls) -> None:
    record = parse_entry({"type": kind, "id": "x", "parentId": None})
    assert type(record) is cls


def test_unhashable_type_is_an_unknown_entry() -> None:
    record = parse_entry({"type": ["odd"], "id": "x", "parentId": None})
    assert isinstance(record, UnknownEntry) and record.to_json()["type"] == ["odd"]


def test_fields_have_python_names() -> None:
    record = parse_entry({"type": "compaction", "id": "c", "parentId": "p",
                          "timestamp": "2026-03-01T10:00:00.000Z", "summary": "s",
                          "firstKeptEntryId": "k", "tokensBefore": 5, "fromHook": False})
    assert (record.first_kept_entry_id, record.tokens_before, record.from_hook) == ("k", 5, False)
    assert (record.id, record.parent_id, record.group) == ("c", "p", "content")
    model = parse_entry({"type": "model_change", "id": "m", "parentId": None,
                         "provider": "p", "modelId": "x"})
    assert (model.provider, model.model_id, model.group) == ("p", "x", "operation")


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda path: path.name)
def test_every_line_of_every_data_file_round_trips(path: Path) -> None:
    session = read_session(path)
    header = parse_entry(session.header)
    assert isinstance(header, SessionHeader)
    assert header.to_json() == session.header
    for loaded in session.entries:
        record = parse_entry(loaded.obj)
        assert record.to_json() == loaded.obj, f"line {loaded.line} changed"
        # Migration appends keys at the end, where Pi's writer would not put them.
        if path in WRITTEN_LIKE_PI and not session.migrated:
            assert list(record.to_json()) == list(loaded.obj), f"line {loaded.line}: key order"


def test_payload_first_for_custom_entries() -> None:
    custom = CustomEntry(id="i", parent_id="p", timestamp="t", custom_type="ext", data={"n": 1})
    assert list(custom.to_json()) == ["type", "customType", "data", "id", "parentId", "timestamp"]
    message = CustomMessageEntry(id="i", parent_id=None, timestamp="t", custom_type="ext",
                                 content="hello", display=True)
    assert list(message.to_json()) == ["type", "customType", "content", "display", "id",
                                       "parentId", "timestamp"]


def test_optional_fields_stay_absent_and_nothing_is_invented() -> None:
    assert parse_entry({"type": "model_change"}).to_json() == {"type": "model_change",
                                                               "parentId": None}
    cleared = parse_entry({"type": "label", "id": "l", "parentId": "p", "targetId": "t"})
    assert cleared.label is None and "label" not in cleared.to_json()
    empty = parse_entry({"type": "label", "id": "l", "parentId": "p", "targetId": "t", "label": ""})
    assert empty.to_json()["label"] == ""


def test_unmodelled_keys_are_kept_after_the_known_ones() -> None:
    obj = {"type": "compaction", "id": "c", "parentId": "p", "timestamp": "t", "summary": "s",
           "firstKeptEntryId": "k", "tokensBefore": 1, "retainedTail": [{"role": "user"}]}
    record = parse_entry(obj)
    assert record.extra == {"retainedTail": [{"role": "user"}]}
    assert record.to_json() == obj and list(record.to_json())[-1] == "retainedTail"
    header = parse_entry({"type": "session", "id": "s", "timestamp": "t", "cwd": "/w",
                          "branchedFrom": "/old.jsonl", "thinkingLevel": "off"})
    assert header.version is None and header.extra == {"branchedFrom": "/old.jsonl",
                                                       "thinkingLevel": "off"}
    assert list(header.to_json()) == ["type", "id", "timestamp", "cwd", "branchedFrom",
                                      "thinkingLevel"]


def test_records_are_frozen() -> None:
    record = parse_entry({"type": "session_info", "id": "n", "parentId": None, "name": "x"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.name = "y"


def test_message_role_and_partial_usage() -> None:
    message = parse_entry({"type": "message", "id": "m", "parentId": None, "message": {
        "role": "assistant", "usage": {"totalTokens": 10, "cost": {"total": 0.01}}}})
    assert message.role == "assistant"
    assert message.usage == Usage(total_tokens=10, cost_total=0.01)
    assert Usage.from_json({"input": 3, "output": 4}) == Usage(input=3, output=4, total_tokens=7)
    assert Usage.from_json(None) == Usage()
    assert Usage.from_json({"input": "lots", "cost": "free"}) == Usage()
    no_message = parse_entry({"type": "message", "id": "m", "parentId": None})
    assert no_message.role is None and no_message.usage == Usage()


def test_usage_from_a_real_file_with_partial_usage() -> None:
    session = read_session(DATA / "pi" / "pi-session-inspector" / "error-message.jsonl")
    usages = [parse_entry(loaded.obj).usage for loaded in session.entries]
    assert [usage.total_tokens for usage in usages] == [10, 1, 5]
    assert [usage.input for usage in usages] == [0, 0, 0]


def test_unknown_entry_keeps_everything() -> None:
    obj = {"type": "future_entry", "secret": "ignored", "id": "e8", "parentId": "e7",
           "timestamp": "t"}
    record = parse_entry(obj)
    assert (record.kind, record.id, record.parent_id, record.group) == \
        ("future_entry", "e8", "e7", "unknown")
    assert record.to_json() == obj and list(record.to_json()) == list(obj)
