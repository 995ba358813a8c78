"""Known answers: what Pi v0.84.2's own code said about real session files.

``expected/*.json`` was produced by running Pi's ``SessionManager`` (open, getLeafId,
getBranch, buildSessionContext, getSessionName, getLabel) on each public sample file. The
course's loader and context builder must give the same leaf, path, labels, name, model,
thinking level and context, in both modes (these files are undamaged).

The answers are read from ``data/pi/expected`` when the project ships them, else from the
shared folder beside the project (``../shared/pi-sessions/expected``); each session file is
found relative to its ``expected`` folder. With neither present the tests skip, saying so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.session import load_session

ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = (ROOT / "data" / "pi" / "expected", ROOT.parent / "shared" / "pi-sessions" / "expected")


def expected_dir() -> Path | None:
    for candidate in CANDIDATES:
        if candidate.is_dir() and any(candidate.glob("*.json")):
            return candidate
    return None


EXPECTED_DIR = expected_dir()
CASES = sorted(EXPECTED_DIR.glob("*.json")) if EXPECTED_DIR else []
needs_answers = pytest.mark.skipif(
    EXPECTED_DIR is None,
    reason="no known answers: neither data/pi/expected nor ../shared/pi-sessions/expected exists")


def load_case(answer_path: Path, mode: str) -> tuple[dict, object, object]:
    answer = json.loads(answer_path.read_text(encoding="utf-8"))
    session_path = answer_path.parent.parent / answer["file"]
    if not session_path.exists():
        pytest.fail(f"{answer_path.name} names {answer['file']}, which is not in "
                    f"{answer_path.parent.parent}")
    session = load_session(session_path, mode=mode)
    return answer, session, build_session_context(session.branch())


@needs_answers
def test_answers_were_found() -> None:
    assert len(CASES) >= 5, f"expected at least the 5 public answers in {EXPECTED_DIR}"


@needs_answers
@pytest.mark.parametrize("mode", ["teaching", "pi"])
@pytest.mark.parametrize("answer_path", CASES, ids=lambda path: path.stem)
def test_matches_pi(answer_path: Path, mode: str) -> None:
    answer, session, context = load_case(answer_path, mode)
    branch = session.branch()

    if answer["leaf"] is not None:
        assert session.leaf_id == answer["leaf"]
    if isinstance(answer["path"], int):       # a v1 file: Pi's migration ids are random
        assert len(branch) == answer["path"]
    else:
        assert [entry["id"] for entry in branch] == answer["path"]
    assert session.name() == answer["sessionName"]
    assert session.labels() == answer["labels"]
    assert context.model == answer["model"]
    assert context.thinking_level == answer["thinkingLevel"]

    if answer["leaf"] is None:                # roles only, for the same reason
        assert [m["role"] for m in context.messages] == answer["context"]
    else:
        assert [[m["role"], m["entryId"]] for m in context.messages] == answer["context"]
    assert session.file.migrated == answer["migratedOnOpen"]


@needs_answers
def test_v1_context_ids_are_on_the_branch() -> None:
    """For the v1 file the ids are ours, but each message must still come from the branch."""
    v1_cases = [path for path in CASES
                if json.loads(path.read_text(encoding="utf-8"))["leaf"] is None]
    if not v1_cases:
        pytest.skip("no v1 answer among the known answers")
    for answer_path in v1_cases:
        _answer, session, context = load_case(answer_path, "teaching")
        on_branch = {entry["id"] for entry in session.branch()}
        assert {m["entryId"] for m in context.messages} <= on_branch
