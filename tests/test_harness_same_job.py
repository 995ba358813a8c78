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
