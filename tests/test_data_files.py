"""Every file in data/: counted by hand, and kept in step with data/generate.py.

The numbers below were worked out by reading each file line by line (data/README.md says
what each file shows); they are not computed from the reader, so a reader bug or a
generator change shows up here.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from learn_pi_lab.i18n import explain
from learn_pi_lab.jsonl.reader import iter_physical_lines, read_session
from learn_pi_lab.pi.session import load_session

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

# name: (physical lines, entries kept in teaching mode, teaching diagnostics,
#        entries kept in pi mode, pi diagnostics)
EXPECTED = {
    "linear.jsonl": (12, 11, [], 11, []),
    "branched.jsonl": (17, 16, [], 16, []),
    "forked.jsonl": (9, 8, [], 8, []),
    "labelled.jsonl": (15, 14, [], 14, []),
    "named.jsonl": (12, 11, [], 11, []),
    "compacted.jsonl": (12, 11, [], 11, []),
    "compacted-nested.jsonl": (13, 12, [], 12, []),
    "branch-summary.jsonl": (12, 11, [], 11, []),
    "custom.jsonl": (10, 9, [], 9, []),
    "failure-torn-last-line.jsonl": (7, 5, [(7, "torn-last-line")], 5, [(7, "torn-last-line")]),
    "failure-duplicate-entry.jsonl": (8, 6, [(6, "duplicate-entry")], 6, [(6, "duplicate-entry")]),
    "failure-conflicting-duplicate.jsonl": (10, 8, [(8, "conflicting-duplicate")],
                                            8, [(8, "conflicting-duplicate")]),
    "failure-dangling-parent.jsonl": (8, 7, [], 7, []),
    "failure-middle-branch.jsonl": (11, 10, [], 10, []),
    "glued-line.jsonl": (7, 7, [(6, "glued-objects")], 5, [(6, "glued-objects")]),
    "v1.jsonl": (9, 8, [(1, "migrated")], 8, [(1, "migrated")]),
    "v2.jsonl": (7, 6, [(1, "migrated")], 6, [(1, "migrated")]),
}


def lines_of(name: str) -> dict[int, str]:
    return {number: text for number, text, _ in iter_physical_lines(DATA / name)}


def ids_by_line(name: str, mode: str = "teaching") -> dict[int, str]:
    return {loaded.line: loaded.obj["id"] for loaded in read_session(DATA / name, mode=mode).entries}


def by_line(name: str) -> dict[int, dict]:
    return {loaded.line: loaded.obj for loaded in read_session(DATA / name).entries}


def found(diagnostics) -> list[tuple[int | None, str]]:
    return [(d.line, d.code) for d in diagnostics]


def test_every_generated_file_is_listed_here_and_in_the_readme() -> None:
    on_disk = sorted(path.name for path in DATA.glob("*.jsonl"))
    assert on_disk == sorted(EXPECTED)
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for name in on_disk:
        assert f"`{name}`" in readme, f"data/README.md does not describe {name}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_by_hand(name: str) -> None:
    lines, teaching_entries, teaching_found, pi_entries, pi_found = EXPECTED[name]
    assert len(lines_of(name)) == lines
    teaching = read_session(DATA / name)
    assert (len(teaching.entries), found(teaching.diagnostics)) == (teaching_entries, teaching_found)
    pi = read_session(DATA / name, mode="pi")
    assert (len(pi.entries), found(pi.diagnostics)) == (pi_entries, pi_found)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_ids_and_timestamps_look_like_pi(name: str) -> None:
    session = read_session(DATA / name)
    assert ISO_MS.match(session.header["timestamp"])
    for loaded in session.entries:
        assert re.match(r"^[0-9a-f]{8}$", loaded.obj["id"]), f"line {loaded.line}"
        assert ISO_MS.match(loaded.obj["timestamp"]), f"line {loaded.line}"
    assert session.ends_with_newline is (name != "failure-torn-last-line.jsonl")


def test_generate_check_passes_on_the_committed_files() -> None:
    result = subprocess.run([sys.executable, str(DATA / "generate.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_generate_check_fails_when_a_file_differs(tmp_path: Path, monkeypatch) -> None:
    spec = importlib.util.spec_from_file_location("data_generate", DATA / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    for path in DATA.glob("*.jsonl"):
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.setattr(generate, "DATA_DIR", tmp_path)
    assert generate.main(["--check"]) == 0
    with (tmp_path / "named.jsonl").open("ab") as handle:
        handle.write(b'{"type":"session_info"}\n')
    assert generate.main(["--check"]) == 1
    (tmp_path / "named.jsonl").unlink()
    (tmp_path / "v1.jsonl").unlink()
    assert generate.main(["--check"]) == 1
    assert generate.main([]) == 0, "writing regenerates what was missing"
    assert generate.main(["--check"]) == 0
    assert (tmp_path / "v1.jsonl").read_bytes() == (DATA / "v1.jsonl").read_bytes()


# --------------------------------------------------------------------------------------
# What each file is for
# --------------------------------------------------------------------------------------

def test_linear_has_the_usual_message_shapes() -> None:
    objs = by_line("linear.jsonl")
    assert [objs[n]["type"] for n in (2, 3)] == ["model_change", "thinking_level_change"]
    roles = [objs[n]["message"]["role"] for n in range(4, 13)]
    assert roles == ["user", "assistant", "toolResult", "assistant", "user", "assistant",
                     "toolResult", "bashExecution", "assistant"]
    assert objs[5]["message"]["content"][0]["type"] == "toolCall"
    assert objs[6]["message"]["toolCallId"] == objs[5]["message"]["content"][0]["id"]
    assert objs[7]["message"]["content"][0]["type"] == "thinking"
    assert "diff" in objs[10]["message"]["details"]
    assert objs[11]["message"]["exitCode"] == 0
    assert "拆成三个函数" in lines_of("linear.jsonl")[8], "UTF-8 text is stored as is"


def test_branched_has_one_branch_point_with_two_children() -> None:
    objs = by_line("branched.jsonl")
    ids = {n: obj["id"] for n, obj in objs.items()}
    children_of_7 = [n for n, obj in objs.items() if obj["parentId"] == ids[7]]
    assert children_of_7 == [8, 14]
    assert [n for n, obj in objs.items() if obj["parentId"] is None] == [2]
    assert objs[8]["message"]["content"][0]["text"].startswith("Use the strategy pattern")
    assert load_session(DATA / "branched.jsonl").leaf_id == ids[17]


def test_forked_copies_the_path_before_the_fork_point() -> None:
    parent, fork = lines_of("branched.jsonl"), lines_of("forked.jsonl")
    assert [fork[n] for n in range(2, 8)] == [parent[n] for n in range(2, 8)], \
        "lines 2-7 are copied byte for byte, same ids"
    session = read_session(DATA / "forked.jsonl")
    assert session.header["parentSession"] == "data/branched.jsonl"
    assert (ROOT / session.header["parentSession"]).is_file()
    assert all(session.header["timestamp"] > loaded.obj["timestamp"]
               for loaded in session.entries[:6]), "the fork is newer than what it copied"
    objs = by_line("forked.jsonl")
    assert objs[8]["parentId"] == objs[7]["id"]


def test_labelled_latest_wins_and_clears() -> None:
    objs = by_line("labelled.jsonl")
    line_of = {obj["id"]: n for n, obj in objs.items()}
    labels = [(line_of[obj["targetId"]], obj.get("label")) for n, obj in sorted(objs.items())
              if obj["type"] == "label"]
    assert labels == [(5, "first-try"), (4, "task"), (5, "baseline"), (8, "wip"), (8, ""), (4, None)]
    assert load_session(DATA / "labelled.jsonl").labels() == {objs[5]["id"]: "baseline"}


def test_named_ends_with_an_empty_name() -> None:
    objs = by_line("named.jsonl")
    names = [(n, obj["name"]) for n, obj in sorted(objs.items()) if obj["type"] == "session_info"]
    assert names == [(6, "payments refactor"), (9, "checkout: composition refactor"), (12, "")]
    assert load_session(DATA / "named.jsonl").name() is None


def test_compacted_keeps_from_the_second_request() -> None:
    objs = by_line("compacted.jsonl")
    assert objs[10]["type"] == "compaction" and objs[10]["firstKeptEntryId"] == objs[8]["id"]
    assert objs[10]["fromHook"] is False and objs[10]["details"]["readFiles"] == ["payments/checkout.py"]


def test_compacted_nested_two_compactions_same_kept_entry() -> None:
    objs = by_line("compacted-nested.jsonl")
    compactions = [n for n, obj in sorted(objs.items()) if obj["type"] == "compaction"]
    assert compactions == [8, 11]
    assert objs[8]["firstKeptEntryId"] == objs[11]["firstKeptEntryId"] == objs[6]["id"]


def test_branch_summary_from_id_is_the_branch_point() -> None:
    objs = by_line("branch-summary.jsonl")
    summary = objs[10]
    assert summary["type"] == "branch_summary"
    assert summary["fromId"] == summary["parentId"] == objs[5]["id"]
    assert objs[11]["parentId"] == summary["id"]


def test_custom_and_custom_message() -> None:
    objs = by_line("custom.jsonl")
    assert [n for n, obj in sorted(objs.items()) if obj["type"] == "custom"] == [4, 8]
    assert [n for n, obj in sorted(objs.items()) if obj["type"] == "custom_message"] == [6]
    assert objs[6]["display"] is True and list(objs[6])[:2] == ["type", "customType"]


def test_torn_last_line_is_a_prefix_of_a_real_entry() -> None:
    torn = lines_of("failure-torn-last-line.jsonl")[7]
    assert torn.startswith('{"type":"message","id":"') and not torn.endswith("}")
    assert not (DATA / "failure-torn-last-line.jsonl").read_bytes().endswith(b"\n")


def test_duplicate_entry_repeats_a_line_byte_for_byte() -> None:
    lines = lines_of("failure-duplicate-entry.jsonl")
    assert lines[6] == lines[5]


def test_conflicting_duplicate_modes_keep_different_copies() -> None:
    teaching = ids_by_line("failure-conflicting-duplicate.jsonl")
    pi = ids_by_line("failure-conflicting-duplicate.jsonl", mode="pi")
    assert 7 in teaching and 8 not in teaching
    assert 8 in pi and 7 not in pi
    assert teaching[7] == pi[8]


def test_dangling_parent_is_named_on_its_line() -> None:
    objs = by_line("failure-dangling-parent.jsonl")
    known = {obj["id"] for obj in objs.values()}
    assert [n for n, obj in objs.items() if obj["parentId"] not in known | {None}] == [7]
    session = load_session(DATA / "failure-dangling-parent.jsonl")
    assert found(session.diagnostics) == [(7, "dangling-parent")]
    assert session.diagnostics[0].entry_id == objs[7]["id"]
    assert objs[7]["parentId"] in explain(session.diagnostics[0], "en"), "the missing id is named"


def test_middle_branch_gives_the_middle_entry_two_children() -> None:
    objs = by_line("failure-middle-branch.jsonl")
    assert [n for n, obj in objs.items() if obj["parentId"] == objs[5]["id"]] == [6, 10]


def test_glued_line_pi_mode_orphans_the_next_entry() -> None:
    teaching = read_session(DATA / "glued-line.jsonl")
    assert [loaded.line for loaded in teaching.entries] == [2, 3, 4, 5, 6, 6, 7]
    pi = load_session(DATA / "glued-line.jsonl", mode="pi")
    assert found(pi.diagnostics) == [(6, "glued-objects"), (7, "dangling-parent")]


def test_v1_is_migrated_in_memory() -> None:
    assert all('"id"' not in text for n, text in lines_of("v1.jsonl").items() if n > 1)
    session = read_session(DATA / "v1.jsonl")
    assert (session.source_version, session.migrated) == (1, True)
    objs = by_line("v1.jsonl")
    assert objs[7]["type"] == "compaction"
    assert objs[7]["firstKeptEntryId"] == objs[5]["id"], "index 4 = line 5 (header at index 0)"
    assert [objs[n]["parentId"] for n in range(3, 10)] == [objs[n]["id"] for n in range(2, 9)]


def test_v2_hook_message_becomes_custom() -> None:
    assert '"role":"hookMessage"' in lines_of("v2.jsonl")[4]
    session = read_session(DATA / "v2.jsonl")
    assert session.source_version == 2
    assert by_line("v2.jsonl")[4]["message"]["role"] == "custom"


# --------------------------------------------------------------------------------------
# The public Pi files: verbatim copies, origin and checksums in data/README.md
# --------------------------------------------------------------------------------------

def readme_checksums() -> dict[str, str]:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `([^`]+)` \| [\d,]+ \| `([0-9a-f]{64})` \|", readme, re.MULTILINE))


def test_readme_lists_every_public_file_with_its_checksum() -> None:
    listed = readme_checksums()
    stored = sorted(str(path.relative_to(DATA / "pi")) for path in (DATA / "pi").glob("*/*.jsonl*"))
    assert sorted(listed) == stored


@pytest.mark.parametrize("name, digest", sorted(readme_checksums().items()))
def test_public_file_is_a_verbatim_copy(name: str, digest: str) -> None:
    assert hashlib.sha256((DATA / "pi" / name).read_bytes()).hexdigest() == digest


def test_every_public_file_has_a_known_answer() -> None:
    answers = sorted(path.stem for path in (DATA / "pi" / "expected").glob("*.json"))
    files = sorted(str(path.relative_to(DATA / "pi")).replace("/", "__").split(".")[0]
                   for path in (DATA / "pi").glob("*/*.jsonl*"))
    assert answers == files
