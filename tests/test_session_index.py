"""The id index the reader builds on its way (``SessionFile.index``) is the session's own.

The reader already keeps a dict of the ids it has seen (to find repeats and check what
labels, compactions and branch summaries point at). That dict is exactly the session's
id -> entry index, so the reader hands it over, with whether every parent came before its
child (``parents_first``), and the session skips its own pass (``pi.session._index_by_id``,
which stays the reference and serves copies made in memory). Checked here: the reader's
index is always the dict the session would build (same keys, same order, the same objects);
the reader never calls a file "in order" that the session would not; a session built with
the reader's index and one built without it are the same; healthy files are in order,
damaged ones not. And ``one_chain`` (a session that never branched: its branch to the last
entry is the whole index, no walk): every branch it gives is the walked one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learn_pi_lab.course.big_sessions import session_file
from learn_pi_lab.jsonl.reader import SessionFile, read_session
from learn_pi_lab.pi.session import _index_by_id, session_from_file
from tests.hostile.make_corpus import build_corpus
from tests.reading_cases import HEADER, corpus_files, session_bytes, use_test_limits


def checked_index_in_order(path: Path, mode: str) -> bool | None:
    """Whether the reader found the file in order (None: not a session); checks its index."""
    try:
        file = read_session(path, mode=mode)
    except ValueError:
        return None
    expected, in_order = _index_by_id(file)
    assert file.index is not None
    assert list(file.index) == list(expected)
    assert all(mine is theirs for mine, theirs in zip(file.index.values(), expected.values()))
    if file.parents_first:
        assert in_order, "the reader called a file in order that the session would not"
    return file.parents_first


def session_facts(file: SessionFile, mode: str) -> Any:
    session = session_from_file(file, mode)
    branch = None
    try:
        branch = [entry.get("id") for entry in session.branch()]
    except ValueError as error:      # a damaged branch raises the same way with either index
        branch = type(error).__name__
    return (session.leaf_id, session.detached, session.diagnostics, branch,
            [(entry.id, entry.parent_id) for entry in session.tree.entries])


def same_session_either_way(path: Path, mode: str) -> None:
    try:
        file = read_session(path, mode=mode)
    except ValueError:
        return
    with_index = session_facts(file, mode)
    file.index = None
    assert session_facts(file, mode) == with_index


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_the_hostile_corpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: str) -> None:
    use_test_limits(monkeypatch)
    in_order = not_in_order = 0
    for _name, path in corpus_files(build_corpus(tmp_path, special=False)):
        answer = checked_index_in_order(path, mode)
        in_order += answer is True
        not_in_order += answer is False
        same_session_either_way(path, mode)
    assert in_order >= 20 and not_in_order >= 5   # both ways are exercised


@settings(derandomize=True, database=None, deadline=None, max_examples=300,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(session_bytes())
def test_generated_files(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "generated.jsonl"
    path.write_bytes(data)
    for mode in ("teaching", "pi"):
        checked_index_in_order(path, mode)
        same_session_either_way(path, mode)
        branches_agree(path, mode)   # (defined below: the one-chain shortcut)


CHAIN_DAMAGE = ["none", "duplicate", "no-id", "empty-id", "later-parent", "missing-parent",
                "self-parent", "number-parent", "extra-header"]


@settings(derandomize=True, database=None, deadline=None, max_examples=200,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 12), st.sampled_from(CHAIN_DAMAGE), st.data())
def test_a_chain_with_one_kind_of_damage(tmp_path: Path, length: int, damage: str,
                                         data: st.DataObject) -> None:
    entries = [{"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n else None}
               for n in range(length)]
    spot = data.draw(st.integers(0, length - 1))
    if damage == "duplicate":
        entries.append(dict(entries[spot]))
    elif damage == "no-id":
        del entries[spot]["id"]
    elif damage == "empty-id":
        entries[spot]["id"] = ""
    elif damage == "later-parent":
        entries[spot]["parentId"] = f"e{length}"
        entries.append({"type": "message", "id": f"e{length}", "parentId": None})
    elif damage == "missing-parent":
        entries[spot]["parentId"] = "nowhere"
    elif damage == "self-parent":
        entries[spot]["parentId"] = entries[spot]["id"]
    elif damage == "number-parent":
        entries[spot]["parentId"] = 7
    elif damage == "extra-header":
        entries.insert(spot, {"type": "session", "version": 3, "id": "again"})
    path = tmp_path / "chain.jsonl"
    path.write_text("\n".join([HEADER, *map(json.dumps, entries)]) + "\n", encoding="utf-8")
    for mode in ("teaching", "pi"):
        in_order = checked_index_in_order(path, mode)
        if damage in ("none", "extra-header") or (damage == "duplicate" and mode == "teaching"):
            assert in_order is True    # healthy, or a line both modes drop without a trace
        elif damage in ("later-parent", "missing-parent", "self-parent", "number-parent"):
            assert in_order is False
        elif damage == "duplicate":
            assert in_order is False   # pi mode keeps the later copy, at the later place
        else:   # an id-less line: in order only if no entry named it as its parent
            assert in_order is (spot == length - 1)
        same_session_either_way(path, mode)


@pytest.mark.parametrize("shape", ["linear", "branchy", "compacted"])
def test_the_course_large_sessions_take_the_checked_index_in_order(tmp_path: Path, shape: str) -> None:
    path = session_file(tmp_path, shape, 3000)
    for mode in ("teaching", "pi"):
        assert checked_index_in_order(path, mode) is True
        same_session_either_way(path, mode)


def test_a_copy_with_other_entries_starts_without_the_index(tmp_path: Path) -> None:
    import dataclasses
    path = session_file(tmp_path, "linear", 20)
    file = read_session(path)
    assert file.index is not None
    shorter = dataclasses.replace(file, entries=file.entries[:5])
    assert shorter.index is None
    assert len(session_from_file(shorter).branch()) == 5


def branches_agree(path: Path, mode: str) -> bool | None:
    """The branch to every entry, with the one-chain shortcut and by the walk; whether it was on."""
    try:
        session = session_from_file(read_session(path, mode=mode), mode)
    except ValueError:
        return None
    shortcut = session._one_chain

    def every_branch() -> list[Any]:
        found = []
        for leaf in [None, *session._by_id]:
            try:
                found.append([entry.get("id") for entry in session.branch(leaf)])
            except ValueError as error:
                found.append(type(error).__name__)
        return found
    quick = every_branch()
    session._one_chain = False
    assert every_branch() == quick
    return shortcut


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_one_chain_on_the_hostile_corpus_and_the_course_files(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: str) -> None:
    use_test_limits(monkeypatch)
    answers = [branches_agree(path, mode)
               for _name, path in corpus_files(build_corpus(tmp_path / "corpus", special=False))]
    assert answers.count(True) >= 20 and answers.count(False) >= 5   # both ways exercised
    for shape, chain in (("linear", True), ("compacted", True), ("branchy", False),
                         ("chain", True)):
        assert branches_agree(session_file(tmp_path, shape, 500), mode) is chain, shape


@pytest.mark.parametrize("shape", ["linear", "branchy", "compacted"])
@pytest.mark.parametrize("decoder", ["stdlib", "msgspec"])
def test_repeated_words_are_one_string_and_the_values_stay_equal(tmp_path: Path, shape: str,
                                                                 decoder: str) -> None:
    # Memory (issue 15): a decoder makes a new string for every value it reads; the reader
    # gives each entry type and message role one string object, and a child's parentId its
    # parent's own id string. Nothing a reader of the values can see changes.
    path = session_file(tmp_path, shape, 3000)
    file = read_session(path, decoder=decoder)
    plain = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert file.objects() == plain
    index = file.index
    assert index is not None
    for obj in file.objects():
        parent = obj.get("parentId")
        if parent is not None:
            assert parent is index[parent]["id"]
    kinds = {}
    roles = {}
    for obj in file.objects():
        assert kinds.setdefault(obj["type"], obj["type"]) is obj["type"]
        message = obj.get("message")
        if isinstance(message, dict):
            assert roles.setdefault(message["role"], message["role"]) is message["role"]
    assert len(roles) >= 2


def test_odd_types_and_roles_are_kept_as_they_are(tmp_path: Path) -> None:
    lines = [json.loads(HEADER),
             {"type": "user", "id": "a", "parentId": None},                  # a role as a type
             {"type": ["message"], "id": "b", "parentId": "a"},              # not a string
             {"type": "message", "id": "c", "parentId": "b",
              "message": {"role": ["user"], "content": []}},                 # a role not a string
             {"type": "message", "id": "d", "parentId": "c",
              "message": {"role": "critic", "content": []}}]
    path = tmp_path / "odd.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    file = read_session(path)
    assert file.objects() == lines[1:]
    assert [found.code for found in file.diagnostics].count("unknown-type") == 2
