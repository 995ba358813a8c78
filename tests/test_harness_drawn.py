"""Drawn inputs (``tests/drawn.py``), proven both ways.

* Each exercise with drawn inputs ends its test class with ``test_drawn_inputs``, so a stub
  or a plausible mistake still fails at the visible test it fails today.
* The reference solutions (``learn_pi_lab/lessons/``, written as a learner would) agree
  with the package's reference on the drawn inputs of 20 fixed seeds and a fresh one.
* ``tests/lookup_submissions/`` answers the visible tests from tables keyed on their public
  inputs: it passes every visible test (run here), and under ``grade``, in the sandbox, it
  fails the drawn test of each exercise, with the seed the gradebook records; the same seed
  gives the same message again.
* ``grade`` and ``verify`` draw one seed per run, or take ``LEARN_PI_LAB_DRAWN_SEED``.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import io
import json
import os
import secrets
import shutil
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import ModuleType

import pytest

from learn_pi_lab.harness import catalog, grade, sandbox, verify
from learn_pi_lab.harness.child import in_written_order
from learn_pi_lab.harness.runner import DRAWN_SEED_ENV
from tests import drawn

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "learn_pi_lab" / "lessons"
LOOKUP = REPO / "tests" / "lookup_submissions"
EXPECT = json.loads((LOOKUP / "expect.json").read_text(encoding="utf-8"))
FIXED_SEEDS = [str(number) for number in range(20)]
DRAWN_TEST = "test_drawn_inputs"


def class_of(exercise: catalog.Exercise) -> type[unittest.TestCase]:
    module_name, _, class_name = exercise.tests[0].rpartition(".")
    return getattr(importlib.import_module(module_name), class_name)


# Importing every graded test class fills drawn.REGISTRY with the exercises that have one.
EXERCISES = catalog.exercises()
CLASSES = {exercise.id: class_of(exercise) for exercise in EXERCISES}
COVERED = sorted(drawn.REGISTRY)


def solution_module(folder: Path, exercise: catalog.Exercise) -> ModuleType:
    """The exercise's file of ``folder``, imported under a name of its own."""
    name = f"drawn_{folder.name}_{exercise.module}".replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, folder / exercise.filename)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_covered_exercises_are_the_phase_one_ones_at_least() -> None:
    assert {"path-to", "validate", "state-at", "resolve-labels",
            "extension-state"} <= set(COVERED)


@pytest.mark.parametrize("exercise_id", [exercise.id for exercise in EXERCISES])
def test_a_drawn_test_is_the_last_test_of_its_class(exercise_id: str) -> None:
    names = [test._testMethodName for test in in_written_order(CLASSES[exercise_id])]
    if exercise_id in COVERED:
        assert names[-1] == DRAWN_TEST, names
    else:
        assert DRAWN_TEST not in names, "a drawn test needs its drawn.Drawn(...) too"


def test_every_covered_exercise_has_a_lookup_cheat() -> None:
    assert sorted(EXPECT["drawn"]) == COVERED
    for exercise_id, test in EXPECT["drawn"].items():
        assert test == f"{CLASSES[exercise_id].__name__}.{DRAWN_TEST}"


@pytest.mark.parametrize("exercise_id", COVERED)
def test_the_reference_solution_agrees_on_many_seeds(exercise_id: str) -> None:
    exercise = catalog.get(exercise_id)
    mine = getattr(solution_module(REFERENCE, exercise), exercise.function)
    fresh = str(secrets.randbelow(10 ** 10))
    for seed in [*FIXED_SEEDS, fresh]:
        problem = drawn.REGISTRY[exercise_id].first_difference(mine, seed)
        # (a disagreement is a finding about the two references: report it, do not bend)
        assert problem is None, f"seed {seed}: {problem}"


@pytest.mark.parametrize("exercise_id", COVERED)
def test_the_same_seed_draws_the_same_inputs(exercise_id: str) -> None:
    spec = drawn.REGISTRY[exercise_id]
    first = [spec.shown(args) for _size, args in spec.inputs("42")]
    again = [spec.shown(args) for _size, args in spec.inputs("42")]
    other = [spec.shown(args) for _size, args in spec.inputs("43")]
    assert first == again and first != other
    sizes = [size for size, _args in spec.inputs("42")]
    assert sizes == sorted(sizes) and sizes[0] == drawn.SMALLEST and sizes[-1] == drawn.LARGEST


def test_the_seed_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DRAWN_SEED_ENV, " 1234 ")
    assert drawn.seed() == "1234"
    from learn_pi_lab.harness.runner import drawn_seed
    assert drawn_seed() == "1234"
    monkeypatch.delenv(DRAWN_SEED_ENV)
    assert drawn_seed().isdigit() and drawn.seed() == drawn.seed()


def test_a_difference_is_one_message_with_the_input_both_answers_and_the_seed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEARN_PI_LAB_LANG", "en")
    problem = drawn.REGISTRY["resolve-labels"].first_difference(lambda entries: {}, "7")
    assert problem is not None
    lines = problem.splitlines()
    assert len(lines) == 5 and len(problem) <= 1500, problem
    assert lines[0].startswith("On inputs drawn at random") and " of 40 " in lines[0]
    assert lines[1].startswith('input: [{"type":')
    assert lines[2].startswith("expected: {'") and lines[3] == "your code: {}"
    assert lines[4] == ("To run the same inputs again: "
                        "LEARN_PI_LAB_DRAWN_SEED=7 make verify EX=resolve-labels")

    def raises(entries_by_id: object, leaf_id: str) -> None:
        raise KeyError(leaf_id)
    with_error = drawn.REGISTRY["path-to"].first_difference(raises, "7")
    assert with_error is not None and "your code: raised KeyError: " in with_error
    monkeypatch.setenv("LEARN_PI_LAB_LANG", "zh")
    chinese = drawn.REGISTRY["resolve-labels"].first_difference(lambda entries: {}, "7")
    assert chinese is not None and "参考答案：" in chinese and "你的代码：{}" in chinese


def test_a_difference_hidden_by_a_cut_answer_is_pointed_at(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers are cut at SHOWN_ANSWER characters: when the difference lies beyond the cut,
    one more line says where it is and what the two answers have there."""
    from learn_pi_lab.pi.context import build_context_messages

    def no_null_details(path_entries: list) -> list:   # drops details that are null
        return [{key: value for key, value in message.items()
                 if not (key == "details" and value is None)}
                for message in build_context_messages(path_entries)]

    def null_details_case(seed: str) -> str | None:
        return drawn.REGISTRY["build-context"].first_difference(no_null_details, seed)

    for language, wanted in (("en", "first difference at ["),
                             ("zh", "第一处不同在 [")):
        monkeypatch.setenv("LEARN_PI_LAB_LANG", language)
        problem = null_details_case("0")
        assert problem is not None
        lines = problem.splitlines()
        assert len(lines) == 6 and len(problem) <= 1500, problem
        assert lines[4].startswith(wanted) and "['details']" in lines[4], lines[4]
        assert "None" in lines[4] and ("(missing)" in lines[4] or "（没有）" in lines[4])
    assert drawn.first_place([{"a": 1}, (1, 2)], [{"a": 1}, (1, 3)]) == ("[1]", (1, 2), (1, 3))
    assert drawn.first_place({"a": [1]}, {"a": [1, 2]}) == ("['a'][1]", drawn.MISSING, 2)


def patched_to(module: ModuleType, exercise: catalog.Exercise,
               monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the exercise's test module at ``module``: every global of it that is the
    exercise's reference module (what ``load_target`` gave it) becomes ``module``."""
    tests = importlib.import_module(exercise.tests[0].rpartition(".")[0])
    reference = importlib.import_module(exercise.reference)
    names = [name for name, value in vars(tests).items() if value is reference]
    assert names, exercise.id
    for name in names:
        monkeypatch.setattr(tests, name, module)


@pytest.mark.parametrize("exercise_id", sorted(EXPECT["drawn"]))
def test_the_lookup_cheat_passes_every_visible_test_and_fails_the_drawn_one(
        exercise_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    exercise = catalog.get(exercise_id)
    patched_to(solution_module(LOOKUP, exercise), exercise, monkeypatch)
    tests = list(in_written_order(CLASSES[exercise_id]))
    visible, last = tests[:-1], tests[-1]
    result = unittest.TestResult()
    unittest.TestSuite(visible).run(result)
    assert (result.failures, result.errors) == ([], []), (result.failures + result.errors)[:1]
    assert result.testsRun == len(visible) > 0
    result = unittest.TestResult()
    last.run(result)
    assert len(result.failures) == 1, result.errors
    assert "make verify EX=" + exercise_id in result.failures[0][1]


@pytest.mark.skipif(sandbox.bwrap_path() is None and not os.environ.get("CI"),
                    reason="bubblewrap is not installed (CI installs it: .ci/run)")
def test_under_grade_the_lookup_cheat_fails_each_drawn_test(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DRAWN_SEED_ENV, raising=False)   # grade draws its own
    submissions = tmp_path / "submissions"
    (submissions / "looks-up").mkdir(parents=True)
    for path in LOOKUP.glob("*.py"):
        shutil.copyfile(path, submissions / "looks-up" / path.name)
    argv = [str(submissions), "--out", str(tmp_path / "book"), "--lang", "en",
            "--timeout", "60", "--jobs", "2",
            *[part for exercise in sorted(EXPECT["drawn"]) for part in ("-e", exercise)]]
    printed, errors = io.StringIO(), io.StringIO()
    with redirect_stdout(printed), redirect_stderr(errors):
        code = grade.main(argv)
    assert code == 0, errors.getvalue()
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    seed = book["drawn_seed"]
    assert isinstance(seed, str) and seed.isdigit()
    assert f"seed {seed}" in printed.getvalue()
    rows = {row["exercise"]: row for row in book["results"]}
    monkeypatch.setenv("LEARN_PI_LAB_LANG", "en")
    for exercise_id, test in EXPECT["drawn"].items():
        row = rows[exercise_id]
        assert (row["status"], row["reason"], row["test"]) == ("failed", "assertion", test), row
        assert f"{DRAWN_SEED_ENV}={seed} make verify EX={exercise_id}" in row["detail"], row
        # the verdict can be reproduced: the same seed, the same first difference
        exercise = catalog.get(exercise_id)
        cheat = getattr(solution_module(LOOKUP, exercise), exercise.function)
        assert drawn.REGISTRY[exercise_id].first_difference(cheat, seed) == row["detail"]


def test_verify_records_its_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = tmp_path / "results.json"
    argv = ["--workspace", str(REFERENCE), "-e", "resolve-labels", "--lang", "en",
            "--results", str(results), "--timeout", "120"]
    monkeypatch.setenv(DRAWN_SEED_ENV, "20261202")
    with redirect_stdout(io.StringIO()):
        assert verify.main(argv) == 0
    assert json.loads(results.read_text(encoding="utf-8"))["drawn_seed"] == "20261202"
    monkeypatch.delenv(DRAWN_SEED_ENV)
    with redirect_stdout(io.StringIO()):
        assert verify.main(argv) == 0
    assert json.loads(results.read_text(encoding="utf-8"))["drawn_seed"].isdigit()


CHEATS = REPO / "tests" / "drawn_cheats"
CHEATS_EXPECT = json.loads((CHEATS / "expect.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("exercise_id", sorted(CHEATS_EXPECT["drawn"]))
def test_a_drawn_cheat_fails_the_drawn_test_in_process(
        exercise_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tests/drawn_cheats/``: changing what it was given, or raising an exception chosen for
    its verdict, is a difference at the drawn test, on every fixed seed."""
    exercise = catalog.get(exercise_id)
    cheat = getattr(solution_module(CHEATS, exercise), exercise.function)
    spec = drawn.REGISTRY[exercise_id]
    for seed_text in FIXED_SEEDS[:8]:
        assert spec.first_difference(cheat, seed_text) is not None, seed_text


def test_the_code_under_test_gets_its_own_copy_of_each_drawn_input() -> None:
    """What the learner's code does to its arguments never reaches the reference's answer or
    what ``same_error`` reads: a function that empties every list and dict it was given and
    then answers as the reference does passes."""
    def wipe(value: object) -> None:
        if isinstance(value, dict):
            for inner in list(value.values()):
                wipe(inner)
            value.clear()
        elif isinstance(value, list):
            for inner in value:
                wipe(inner)
            value.clear()

    for exercise_id in ("extension-state", "build-context", "apply-edits", "validate"):
        spec = drawn.REGISTRY[exercise_id]

        def answers_then_wipes(*args: object) -> object:
            try:
                return copy.deepcopy(spec.reference(*args))   # its answer, not the input's
            finally:
                for argument in args:
                    wipe(argument)

        assert spec.first_difference(answers_then_wipes, "3") is None, exercise_id


@pytest.mark.skipif(sandbox.bwrap_path() is None and not os.environ.get("CI"),
                    reason="bubblewrap is not installed (CI installs it: .ci/run)")
def test_under_grade_each_drawn_cheat_fails_as_an_assertion(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the sandbox, where a change to an argument comes back to the trusted side: each
    cheat is ``failed``, ``assertion``, at the drawn test (not passed, not "not started",
    not "not own code")."""
    monkeypatch.setenv(DRAWN_SEED_ENV, CHEATS_EXPECT["seed"])
    submissions = tmp_path / "submissions"
    (submissions / "cheats").mkdir(parents=True)
    for path in CHEATS.glob("*.py"):
        shutil.copyfile(path, submissions / "cheats" / path.name)
    argv = [str(submissions), "--out", str(tmp_path / "book"), "--lang", "en",
            "--timeout", "60", "--jobs", "2",
            *[part for exercise in sorted(CHEATS_EXPECT["drawn"]) for part in ("-e", exercise)]]
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert grade.main(argv) == 0
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    assert book["drawn_seed"] == CHEATS_EXPECT["seed"]
    rows = {row["exercise"]: row for row in book["results"]}
    for exercise_id, test in CHEATS_EXPECT["drawn"].items():
        row = rows[exercise_id]
        assert (row["status"], row["reason"], row["test"]) == ("failed", "assertion", test), row
