"""``build_session_context`` reads each entry's type once; its answer is the plain one.

On a long branch every pass over the entries is a trip through memory to each of them, so
``build_session_context`` reads the types once (``kinds``) and finds the settings in force by
reading from the end (``state_at_end``) instead of calling ``state_at``, the chapter 05
exercise, which reads the whole branch forwards. Checked here against the plain functions:
on generated branches of every entry type (damaged ones too: a message that is not an
object, a type that is a list) and on every branch of the course's and Pi's own files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from learn_pi_lab.pi.context import (PI_VERSIONS, SessionContext, _problems,
                                    build_session_context, context_entries, entry_to_messages,
                                    latest_edits, state_at, state_at_end, apply_context_edits)
from learn_pi_lab.pi.session import load_session

ROOT = Path(__file__).resolve().parents[1]

IDS = st.sampled_from(["a", "b", "c", "4f0e91a2"])
MESSAGE = st.one_of(
    st.none(), st.just([]), st.just("text"),
    st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "toolResult"]),
                           "content": st.one_of(st.none(), st.just("hi"))},
                          optional={"provider": st.sampled_from(["anthropic", None]),
                                    "model": st.sampled_from(["m1", "m2"])}))
ENTRY = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "model_change", "thinking_level_change", "compaction",
                              "context_edit", "label", "custom_message", "branch_summary",
                              "usage", "unknown"]) | st.just(["message"]) | st.none(),
     "id": IDS},
    optional={"message": MESSAGE, "provider": st.just("openai"), "modelId": st.just("gpt"),
              "thinkingLevel": st.sampled_from(["high", None, 3]), "targetId": IDS,
              "replacement": st.one_of(st.none(), st.just({"content": "edited"})),
              "firstKeptEntryId": IDS, "summary": st.just("s")})


def plain_context(path: list[dict], pi_version: str) -> SessionContext:
    """The context made of the chapter-sized functions only, as the chapters compose them."""
    model, thinking_level = state_at(path)
    selected = context_entries(path, pi_version)
    messages: list[dict] = []
    for index, entry in enumerate(selected):
        if pi_version == PI_VERSIONS[1] and index > 0 and entry.get("type") == "compaction":
            continue
        messages.extend(entry_to_messages(entry, pi_version))
    if pi_version == PI_VERSIONS[1] and latest_edits(selected):
        messages = apply_context_edits(selected, messages)
    return SessionContext(messages, model, thinking_level, [])


def assert_same_as_plain(path: list[dict]) -> None:
    kinds = [entry.get("type") for entry in path]
    assert state_at_end(path, kinds) == state_at(path)
    for pi_version in PI_VERSIONS:
        assert context_entries(path, pi_version, kinds) == context_entries(path, pi_version)
        built = build_session_context(path, pi_version=pi_version)
        plain = plain_context(path, pi_version)
        assert (built.messages, built.model, built.thinking_level) == \
            (plain.messages, plain.model, plain.thinking_level)
        assert built.problems[:len(_problems(path))] == _problems(path)


@settings(max_examples=400, deadline=None)
@given(st.lists(ENTRY, max_size=12))
def test_generated_branches(path: list[dict]) -> None:
    assert_same_as_plain(path)


def test_reading_from_the_end_finds_the_last_word() -> None:
    path = [{"type": "model_change", "provider": "p", "modelId": "first"},
            {"type": "thinking_level_change", "thinkingLevel": "high"},
            {"type": "message", "message": {"role": "assistant", "provider": "q", "model": "m"}},
            {"type": "thinking_level_change", "thinkingLevel": "low"},
            {"type": "message", "message": {"role": "user"}},
            {"type": "message", "message": None}]
    kinds = [entry.get("type") for entry in path]
    assert state_at_end(path, kinds) == ({"provider": "q", "modelId": "m"}, "low") == state_at(path)
    assert state_at_end([], []) == (None, "off") == state_at([])


def session_files() -> list[Path]:
    """The course's examples, Pi 1.6.0's and the public Pi sessions the course keeps."""
    return sorted([*(ROOT / "data").rglob("*.jsonl"), *(ROOT / "data").rglob("*.jsonl.xz")])


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_every_branch_of_the_known_files(mode: str) -> None:
    files = session_files()
    assert len(files) >= 20, "the course's data files and Pi's sessions"
    branches = 0
    for path in files:
        try:
            session = load_session(path, mode=mode)
        except ValueError:
            continue   # not a session (the failure examples say why elsewhere)
        for leaf in list(session._by_id)[:300]:
            try:
                branch = session.context_path(leaf)
            except ValueError:
                continue   # a branch through damage (teaching mode)
            assert_same_as_plain(branch)
            branches += 1
    assert branches > 500
