"""The package's other code that does an exercise's job refuses too (``same_job``).

``tests/shortcut_submissions/`` is a workspace whose graded functions each hand in a
differently named function of the package that computes the answer without the exercise's
reference (an audit of all sixteen exercises found one for twelve). Graded like any learner's
workspace, in the sandbox, each of those is not own code and names what refused; the two
exercises solved with the helpers their stubs import and hints name still pass.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import shutil
from pathlib import Path

import pytest

from learn_pi_lab.harness import catalog, sandbox
from learn_pi_lab.harness.runner import run_exercises

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "tests" / "shortcut_submissions"
EXPECT = json.loads((CASE / "expect.json").read_text(encoding="utf-8"))


def test_every_same_job_name_is_code_of_the_package() -> None:
    for exercise in catalog.exercises():
        for qualified in exercise.same_job:
            where, _, name = qualified.partition(":")
            target = importlib.import_module(where)
            for part in name.split("."):
                target = getattr(target, part)
            assert inspect.isfunction(target) or inspect.isclass(target), qualified
            assert qualified.startswith("learn_pi_lab."), qualified


@pytest.mark.skipif(sandbox.bwrap_path() is None and not os.environ.get("CI"),
                    reason="bubblewrap is not installed (CI installs it: .ci/run)")
def test_shortcuts_through_other_package_code_are_not_own_code(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    for path in CASE.glob("*.py"):
        shutil.copyfile(path, workspace / path.name)
    results = {result.exercise: result
               for result in run_exercises(catalog.exercises(), workspace, lang="en")}
    for exercise, name in EXPECT["refused"].items():
        result = results[exercise]
        assert (result.status, result.reason, result.detail) == (
            "not_own_code", "package-solution-ran", name), exercise
    for exercise in EXPECT["passed"]:
        assert results[exercise].status == "passed", exercise
    for exercise in EXPECT["not_started"]:
        assert results[exercise].status == "not_started", exercise
    assert set(results) == {*EXPECT["refused"], *EXPECT["passed"], *EXPECT["not_started"]}


INSPECTOR_LOAD_DIAGNOSTICS = '''
import os
import tempfile
from learn_pi_lab.session_inspector import inspect_session


def load_diagnostics(text):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s.jsonl")
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        report = inspect_session(path)
    return [(line, code) for line, code in report["diagnostics"]]
'''
INSPECTOR_LABELS = '''
from learn_pi_lab.jsonl.reader import DiagnosticLog
from learn_pi_lab.session_inspector import _Census


def resolve_labels(entries):
    census = _Census({"type": "session", "version": 3, "id": "s"}, 1, DiagnosticLog(100))
    for entry in entries:
        census._count(dict(entry), entry.get("type"))
    return census.labels
'''


TREE_METHOD_BRANCH = '''
def branch_from(tree, entry_id, new_id, kind="message", payload=None):
    return getattr(tree, "branch_" + "from")(entry_id, new_id, kind, payload)
'''


@pytest.mark.skipif(sandbox.bwrap_path() is None and not os.environ.get("CI"),
                    reason="bubblewrap is not installed (CI installs it: .ci/run)")
@pytest.mark.parametrize("exercise, source, refused", [
    ("load-diagnostics", INSPECTOR_LOAD_DIAGNOSTICS, "learn_pi_lab.session_inspector._Census"),
    ("resolve-labels", INSPECTOR_LABELS, "learn_pi_lab.session_inspector._Census"),
    ("branch-from", TREE_METHOD_BRANCH, "learn_pi_lab.session_tree.TranscriptTree.branch_from")])
def test_another_chapters_answer_that_does_this_job_refuses_too(tmp_path: Path, exercise: str,
                                                                source: str, refused: str) -> None:
    # (attackers' reviews: chapter 07's inspector computes chapter 04's diagnostics and
    # chapter 05's labels; the tree's own branch_from method is chapter 03's exercise; each
    # passed before it joined its exercise's same_job list)
    from learn_pi_lab.harness.runner import run_exercise
    graded = catalog.get(exercise)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / graded.filename).write_text(source, encoding="utf-8")
    result = run_exercise(graded, workspace, lang="en")
    assert (result.status, result.reason, result.detail) == (
        "not_own_code", "package-solution-ran", refused)
