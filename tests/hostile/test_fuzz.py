"""Property-based fuzzing (hypothesis): damaged sessions never crash the package.

Each example starts from a small healthy session (every entry type) and damages it: byte
flips, a truncation, shuffled lines, or a random JSON value (huge numbers, lone
surrogates, deep nesting, wrong types included) in any field of any line. Then:

* the API (reader in both modes, streaming reader, loader, branch, context, labels,
  inspector, store, fork) raises nothing but the package's documented errors
  (``NotASessionFile``, ``TranscriptError``, ``OldSessionVersion``);
* every value it hands out can be written as strict JSON in UTF-8;
* every CLI command exits 0 or 2, with strict JSON on stdout where ``--json`` asks;
* the input file is byte-identical afterwards.

Runs are derandomized (the same examples on every run), so CI is repeatable; a failure
prints the smallest damaged file hypothesis found.
"""

from __future__ import annotations

import atexit
import io
import shutil
import json
import random
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learn_pi_lab.cli import commands as cli
from learn_pi_lab.jsonl.reader import NotASessionFile, iter_entries_streaming, read_session
from learn_pi_lab.jsonl.writer import OldSessionVersion, to_json_line
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.navigation import fork_entries
from learn_pi_lab.pi.session import load_session
from learn_pi_lab.session_inspector import inspect_session
from learn_pi_lab.session_tree import TranscriptError
from learn_pi_lab.store import FileBackend, SessionStore
from tests.hostile.make_corpus import TEST_LIMITS

DOCUMENTED = (NotASessionFile, TranscriptError, OldSessionVersion)

TS = "2026-03-01T10:00:00.000Z"
SEED: list[dict[str, Any]] = [
    {"type": "session", "version": 3, "id": "fz", "timestamp": TS, "cwd": "/w"},
    {"type": "model_change", "id": "m", "parentId": None, "timestamp": TS, "provider": "p",
     "modelId": "x"},
    {"type": "message", "id": "u1", "parentId": "m", "timestamp": TS,
     "message": {"role": "user", "content": "写一个函数"}},
    {"type": "message", "id": "a1", "parentId": "u1", "timestamp": TS,
     "message": {"role": "assistant", "provider": "p", "model": "x",
                 "content": [{"type": "text", "text": "好"},
                             {"type": "toolCall", "id": "t", "name": "read",
                              "arguments": {"path": "a.py"}}],
                 "usage": {"input": 5, "output": 7, "cost": {"total": 0.01}}}},
    {"type": "message", "id": "r1", "parentId": "a1", "timestamp": TS,
     "message": {"role": "toolResult", "toolCallId": "t", "toolName": "read",
                 "content": [{"type": "text", "text": "x = 1"}], "isError": False}},
    {"type": "thinking_level_change", "id": "k", "parentId": "r1", "timestamp": TS,
     "thinkingLevel": "high"},
    {"type": "compaction", "id": "c", "parentId": "k", "timestamp": TS, "summary": "s",
     "firstKeptEntryId": "a1", "tokensBefore": 100},
    {"type": "label", "id": "l", "parentId": "c", "timestamp": TS, "targetId": "u1",
     "label": "start"},
    {"type": "branch_summary", "id": "b", "parentId": "u1", "timestamp": TS, "fromId": "u1",
     "summary": "tried"},
    {"type": "custom", "customType": "todo", "data": {"n": 1}, "id": "x1", "parentId": "b",
     "timestamp": TS},
    {"type": "custom_message", "customType": "note", "content": "hi", "display": True,
     "id": "x2", "parentId": "x1", "timestamp": TS},
    {"type": "session_info", "id": "n", "parentId": "x2", "timestamp": TS, "name": "fuzz"},
    {"type": "message", "id": "u2", "parentId": "n", "timestamp": TS,
     "message": {"role": "user", "content": [{"type": "text", "text": "again"}]}},
]
SEED_TEXT = "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in SEED)

# Raw JSON texts that a Python value cannot express: they go into the file as text.
HOSTILE_LITERALS = ["1e400", "-1e400", "1e-400", '"\\ud800"', '"a\\udfffb"', '"\\ud83d\\ude00"',
                    "9" * 400, "-0", "NaN", "Infinity", '"\\u0000"', '"\\u2028"',
                    "[" * 150 + "]" * 150, '{"a":' * 120 + "1" + "}" * 120]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
    | st.sampled_from(["u1", "a1", "m", "root", "session", "message", "compaction", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6)

FIELDS = ["type", "id", "parentId", "version", "timestamp", "message", "role", "content",
          "targetId", "label", "firstKeptEntryId", "fromId", "name", "customType", "data",
          "provider", "modelId", "thinkingLevel", "usage", "summary", "cwd"]


@st.composite
def damaged_files(draw: st.DrawFn) -> bytes:
    lines = SEED_TEXT.encode("utf-8").split(b"\n")[:-1]
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        damage = draw(st.sampled_from(["value", "value", "literal", "flip", "truncate",
                                       "shuffle", "duplicate", "drop"]))
        index = draw(st.integers(min_value=0, max_value=len(lines) - 1)) if lines else 0
        if not lines:
            break
        if damage in ("value", "literal"):
            try:
                obj = json.loads(lines[index])
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            field = draw(st.sampled_from(FIELDS))
            target = obj.get("message") if field in ("role", "content", "usage") \
                and isinstance(obj.get("message"), dict) else obj
            target[field] = draw(json_values) if damage == "value" else "@@LITERAL@@"
            try:
                text = to_json_line(obj)   # an earlier literal may have made it unwritable
            except ValueError:
                continue
            if damage == "literal":
                text = text.replace('"@@LITERAL@@"', draw(st.sampled_from(HOSTILE_LITERALS)))
            lines[index] = text.encode("utf-8")
        elif damage == "flip" and any(lines):
            data = bytearray(b"\n".join(lines))
            for _flip in range(draw(st.integers(min_value=1, max_value=4))):
                position = draw(st.integers(min_value=0, max_value=len(data) - 1))
                data[position] ^= draw(st.integers(min_value=1, max_value=255))
            lines = bytes(data).split(b"\n")
        elif damage in ("truncate", "flip"):
            data = b"\n".join(lines)
            lines = data[:draw(st.integers(min_value=0, max_value=len(data)))].split(b"\n")
        elif damage == "shuffle":
            order = draw(st.permutations(range(len(lines))))
            lines = [lines[i] for i in order]
        elif damage == "duplicate":
            lines.insert(draw(st.integers(min_value=0, max_value=len(lines))), lines[index])
        else:
            del lines[index]
    final_newline = draw(st.booleans())
    return b"\n".join(lines) + (b"\n" if final_newline and lines else b"")


pytestmark = pytest.mark.slow
FOLDER = Path(tempfile.mkdtemp(prefix="lpl-fuzz-"))
atexit.register(shutil.rmtree, FOLDER, True)
FUZZ = settings(derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much,
                                       HealthCheck.function_scoped_fixture])


def strict(value: Any) -> None:
    """Strict JSON (no NaN/Infinity) that is valid UTF-8, or the test fails."""
    json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")


def write(data: bytes, name: str = "fuzz.jsonl") -> Path:
    path = FOLDER / name
    path.write_bytes(data)
    return path


def use_the_api(path: Path) -> None:
    for mode in ("teaching", "pi"):
        try:
            file = read_session(path, mode=mode)
        except DOCUMENTED:
            continue
        strict(file.header)
        for loaded in file.entries:
            strict(loaded.obj)
            loaded.text.encode("utf-8")
        try:
            session = load_session(path, mode=mode)
            strict([session.labels(), session.name()])
            for leaf in [session.leaf_id, *(entry.id for entry in session.tree.leaves())][:4]:
                if leaf is None:
                    continue
                try:
                    branch = session.branch(leaf)
                    context = build_session_context(branch)
                    strict([context.messages, context.model, context.thinking_level])
                    fork_entries(session, leaf, "at", rng=random.Random(1))
                except DOCUMENTED:
                    pass
        except DOCUMENTED:
            pass
    try:
        for loaded in iter_entries_streaming(path, mode="pi"):
            strict(loaded.obj)
    except DOCUMENTED:
        pass
    try:
        strict(inspect_session(path))
    except DOCUMENTED:
        pass


@pytest.fixture
def test_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in TEST_LIMITS.items():
        monkeypatch.setenv(name, value)


@settings(FUZZ, max_examples=1500)
@given(data=damaged_files())
def test_the_api_raises_only_documented_errors(data: bytes, test_limits: None) -> None:
    path = write(data)
    use_the_api(path)
    assert path.read_bytes() == data, "reading changed the file"


@settings(FUZZ, max_examples=300)
@given(data=damaged_files())
def test_the_store_opens_or_refuses_and_never_writes_when_it_refuses(data: bytes,
                                                                     test_limits: None) -> None:
    path = write(data, "store.jsonl")
    try:
        store = SessionStore(FileBackend(path), cwd="/w")
    except (*DOCUMENTED, ValueError) as error:
        assert isinstance(error, DOCUMENTED), f"undocumented refusal: {error!r}"
        assert path.read_bytes() == data, "a refused file was written to"
        return
    new_id = store.append("message", {"message": {"role": "user", "content": "new"}})
    assert path.read_bytes().startswith(data), "old bytes are never rewritten"
    assert read_session(path).entries[-1].obj["id"] == new_id


CLI_COMMANDS = (["inspect"], ["inspect", "--json"], ["tree"], ["tree", "--pi-compat"],
                ["path", "--json"], ["context", "--json"], ["context", "--pi-compat", "--json"],
                ["migrate", "--out", "NEW"], ["fork", "--before", "u2", "--out", "NEW"])


@settings(FUZZ, max_examples=150)
@given(data=damaged_files())
def test_every_cli_command_exits_0_or_2_with_strict_json(data: bytes, test_limits: None) -> None:
    path = write(data, "cli.jsonl")
    for command in CLI_COMMANDS:
        new = FOLDER / "new.jsonl"
        if new.exists():
            new.unlink()
        argv = [command[0], str(path), *(str(new) if arg == "NEW" else arg for arg in command[1:])]
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(argv)
        assert code in (0, 2), (command, code, err.getvalue())
        out.getvalue().encode("utf-8"), err.getvalue().encode("utf-8")
        if code == 0 and "--json" in command:
            json.loads(out.getvalue(), parse_constant=lambda name: 1 / 0)
        if code == 2:
            assert len(err.getvalue().strip().splitlines()) == 1
        if "NEW" in command and code == 0:
            read_session(new)
    assert path.read_bytes() == data
    assert [item.name for item in FOLDER.iterdir() if item.name.endswith(".tmp")] == []
