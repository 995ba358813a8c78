"""``make test`` (tools/run_tests.py) on a learner's clone: answers written in ``workspace/``
make the tests that read the shipped stubs fail, and the run says so, in the learner's
language (a learner's review: chapter 00 shows `make test` next to `make lab`, and after a
few exercises it failed in the grader's tests and the notebooks' your-turn cells)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _run_tests_module():
    spec = importlib.util.spec_from_file_location("run_tests", REPO / "tools" / "run_tests.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(repo: Path, *arguments: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
                   cwd=repo, check=True, capture_output=True, timeout=60)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "ch05_records_and_state.py").write_text("stub\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("course\n", encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "stubs")
    return tmp_path


def test_untouched_stubs_need_no_note(clone: Path) -> None:
    run_tests = _run_tests_module()
    (clone / "README.md").write_text("a developer's change\n", encoding="utf-8")
    assert run_tests.changed_exercise_files(clone) == []
    assert run_tests.workspace_note(clone) is None


def test_answers_in_the_workspace_are_named_in_the_learners_language(
        clone: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_tests = _run_tests_module()
    (clone / "workspace" / "ch05_records_and_state.py").write_text("answer\n", encoding="utf-8")
    assert run_tests.changed_exercise_files(clone) == ["workspace/ch05_records_and_state.py"]
    monkeypatch.setenv("LEARN_PI_LAB_LANG", "zh")
    note = run_tests.workspace_note(clone)
    assert "workspace/ch05_records_and_state.py" in note and "make verify" in note
    assert "练习模板" in note
    monkeypatch.setenv("LEARN_PI_LAB_LANG", "en")
    assert "untouched stubs" in run_tests.workspace_note(clone)


def test_without_git_there_is_no_note(tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir()
    assert _run_tests_module().changed_exercise_files(tmp_path) == []
