"""v1 / v2 -> v3 migration, step by step as pi-session-format.md section 5.4 says."""

from __future__ import annotations

import copy
import re

import pytest

from learn_pi_lab.jsonl.migration import header_version, migrate_to_v3


def ids_from(*names: str):
    """A deterministic ``new_id``: hands out the given ids in order."""
    pending = iter(names)
    return lambda taken: next(pending)


V1_HEADER = {"type": "session", "id": "old", "timestamp": "2025-12-01T10:00:00.000Z", "cwd": "/w",
             "branchedFrom": "/p.jsonl", "provider": "anthropic"}


def v1_entries(first_kept_index) -> list[dict]:
    """The section 5 worked example: H, U, A, T, C{firstKeptEntryIndex}."""
    return [
        {"type": "message", "timestamp": "t1", "message": {"role": "user", "content": "u"}},
        {"type": "message", "timestamp": "t2", "message": {"role": "assistant", "content": []}},
        {"type": "thinking_level_change", "timestamp": "t3", "thinkingLevel": "high"},
        {"type": "compaction", "timestamp": "t4", "summary": "s",
         "firstKeptEntryIndex": first_kept_index, "tokensBefore": 10},
    ]


def test_worked_example_of_section_5() -> None:
    header, entries, source = migrate_to_v3(V1_HEADER, v1_entries(2),
                                            new_id=ids_from("u", "a", "t", "c"))
    assert source == 1
    user, assistant, thinking, compaction = entries
    assert (user["id"], user["parentId"]) == ("u", None)
    assert (assistant["id"], assistant["parentId"]) == ("a", "u")
    assert (thinking["id"], thinking["parentId"]) == ("t", "a")
    assert (compaction["id"], compaction["parentId"]) == ("c", "t")
    assert compaction["firstKeptEntryId"] == "a", "index 2 counts the header as 0: U=1, A=2"
    assert "firstKeptEntryIndex" not in compaction


def test_new_keys_go_at_the_end() -> None:
    header, entries, _ = migrate_to_v3(V1_HEADER, v1_entries(2), new_id=ids_from("u", "a", "t", "c"))
    assert list(header) == ["type", "id", "timestamp", "cwd", "branchedFrom", "provider", "version"]
    assert header["version"] == 3
    assert list(entries[0]) == ["type", "timestamp", "message", "id", "parentId"]
    assert list(entries[3]) == ["type", "timestamp", "summary", "tokensBefore", "id", "parentId",
                                "firstKeptEntryId"]


@pytest.mark.parametrize("index, kept", [(1, "u"), (2, "a"), (3, "t"), (4, "c")])
def test_index_at_or_before_the_compaction_resolves(index: int, kept: str) -> None:
    entries = v1_entries(index) + [{"type": "message", "timestamp": "t5", "message": {}}]
    _, migrated, _ = migrate_to_v3(V1_HEADER, entries, new_id=ids_from("u", "a", "t", "c", "m"))
    assert migrated[3]["firstKeptEntryId"] == kept, \
        "index 4 is the compaction itself, which has its id by the time it is looked up"


@pytest.mark.parametrize("index", [5, 6, 100, -1, 0, 2.5])
def test_index_forward_out_of_range_or_header_keeps_nothing(index) -> None:
    entries = v1_entries(index) + [{"type": "message", "timestamp": "t5", "message": {}}]
    _, migrated, _ = migrate_to_v3(V1_HEADER, entries, new_id=ids_from("u", "a", "t", "c", "m"))
    assert "firstKeptEntryId" not in migrated[3], f"index {index} must not resolve"
    assert "firstKeptEntryIndex" not in migrated[3], "the index is always deleted"


def test_index_that_is_not_a_number_is_left_alone() -> None:
    _, entries, _ = migrate_to_v3(V1_HEADER, v1_entries("2"), new_id=ids_from("u", "a", "t", "c"))
    assert entries[3]["firstKeptEntryIndex"] == "2" and "firstKeptEntryId" not in entries[3]


def test_inputs_are_not_modified() -> None:
    header, entries = copy.deepcopy(V1_HEADER), v1_entries(2)
    before = copy.deepcopy((header, entries))
    migrate_to_v3(header, entries, new_id=ids_from("u", "a", "t", "c"))
    assert (header, entries) == before


def test_stray_header_counts_in_the_index_and_gets_no_id() -> None:
    entries = v1_entries(3)
    entries.insert(1, {"type": "session", "id": "dup", "timestamp": "t", "cwd": "/w"})
    _, migrated, _ = migrate_to_v3(V1_HEADER, entries, new_id=ids_from("u", "a", "t", "c"))
    assert migrated[1]["id"] == "dup", "a stray header keeps its own id; it is no tree entry"
    assert migrated[1]["version"] == 3
    assert migrated[2]["parentId"] == "u", "the chain skips the stray header"
    assert migrated[4]["firstKeptEntryId"] == "a", "H=0, U=1, stray H=2, A=3"


def test_v1_hook_message_is_renamed_too() -> None:
    entries = [{"type": "message", "timestamp": "t", "message": {"role": "hookMessage", "content": "x"}}]
    _, migrated, _ = migrate_to_v3(V1_HEADER, entries, new_id=ids_from("h"))
    assert migrated[0]["message"]["role"] == "custom"


def test_v2_only_renames_hook_messages() -> None:
    header = {"type": "session", "version": 2, "id": "s", "timestamp": "t", "cwd": "/w"}
    entries = [
        {"type": "message", "id": "a", "parentId": None, "timestamp": "t",
         "message": {"role": "hookMessage", "customType": "c", "content": "x", "display": True}},
        {"type": "message", "id": "b", "parentId": "a", "timestamp": "t",
         "message": {"role": "user", "content": "y"}},
        {"type": "custom", "customType": "hookMessage", "id": "c", "parentId": "b", "timestamp": "t"},
    ]
    new_header, migrated, source = migrate_to_v3(header, entries, new_id=ids_from())
    assert source == 2
    assert list(new_header) == list(header) and new_header["version"] == 3
    assert migrated[0]["message"]["role"] == "custom"
    assert migrated[1] == entries[1] and migrated[2] == entries[2]
    assert [entry["id"] for entry in migrated] == ["a", "b", "c"]


@pytest.mark.parametrize("version", [3, 4])
def test_current_or_future_version_is_untouched(version: int) -> None:
    header = {"type": "session", "version": version, "id": "s"}
    entries = [{"type": "message", "id": "a", "parentId": None,
                "message": {"role": "hookMessage"}}]
    new_header, migrated, source = migrate_to_v3(header, entries, new_id=ids_from())
    assert (new_header, migrated, source) == (header, entries, version)


def test_header_version_rules() -> None:
    assert header_version({"type": "session"}) == 1
    assert header_version({"version": None}) == 1, "Pi: header.version ?? 1"
    assert header_version({"version": 2}) == 2
    assert header_version({"version": "3"}) is None
    assert header_version({"version": True}) is None


def test_version_that_is_not_a_number_is_not_migrated() -> None:
    header = {"type": "session", "version": "2", "id": "s"}
    entries = [{"type": "message", "timestamp": "t", "message": {"role": "user"}}]
    assert migrate_to_v3(header, entries, new_id=ids_from()) == (header, entries, None)


def test_default_ids_are_eight_hex_and_unique() -> None:
    entries = [{"type": "message", "timestamp": str(n), "message": {"role": "user"}}
               for n in range(200)]
    _, migrated, _ = migrate_to_v3(V1_HEADER, entries)
    new_ids = [entry["id"] for entry in migrated]
    assert all(re.match(r"^[0-9a-f]{8}$", entry_id) for entry_id in new_ids)
    assert len(set(new_ids)) == 200
    assert [entry["parentId"] for entry in migrated] == [None] + new_ids[:-1]
