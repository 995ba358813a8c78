"""The exercise catalog agrees with the workspace stubs, the package and the test classes.

One spec, two targets only works if the pieces agree: every exercise names a stub that
exists in ``workspace/``, with the same name and signature as the package's reference, a
``unittest`` class that exists, and (for the proofs in ``test_harness_solutions.py``) a
model answer and at least one plausible wrong answer.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import re
import unittest
from pathlib import Path
from types import ModuleType

import pytest

from learn_pi_lab.harness import catalog

REPO = Path(__file__).resolve().parents[1]
WORKSPACE = REPO / "workspace"
SOLUTIONS = REPO / "tests" / "solutions"
EXERCISES = catalog.exercises()

# docs/architecture.md, "An exercise": the table of exercises is part of the contract.
CONTRACT = {
    "tolerant-reader": ("ch01_jsonl", "read_jsonl_tolerant", "learn_pi_lab.jsonl.reader"),
    "path-to": ("ch02_parent_pointers", "path_to", "learn_pi_lab.session_tree"),
    "validate": ("ch02_parent_pointers", "validate", "learn_pi_lab.session_tree"),
    "branch-from": ("ch03_rewind_and_branch", "branch_from", "learn_pi_lab.pi.navigation"),
    "navigate-target": ("ch03_rewind_and_branch", "navigate_target", "learn_pi_lab.pi.navigation"),
    "fork-path": ("ch03_rewind_and_branch", "fork_path", "learn_pi_lab.pi.navigation"),
    "load-diagnostics": ("ch04_failures", "load_diagnostics", "learn_pi_lab.pi.session"),
    "safe-append": ("ch04_failures", "append_line", "learn_pi_lab.jsonl.writer"),
    "state-at": ("ch05_records_and_state", "state_at", "learn_pi_lab.pi.context"),
    "resolve-labels": ("ch05_records_and_state", "resolve_labels", "learn_pi_lab.pi.session"),
    "build-context": ("ch06_context", "build_context_messages", "learn_pi_lab.pi.context"),
    "apply-edits": ("ch06_context", "apply_context_edits", "learn_pi_lab.pi.context"),
    "inspect-session": ("ch07_inspector", "inspect_session", "learn_pi_lab.session_inspector"),
    "memory-backend": ("ch08_design_your_own", "MemoryBackend", "learn_pi_lab.store"),
    "file-backend": ("ch08_design_your_own", "FileBackend", "learn_pi_lab.store"),
    "extension-state": ("ch08_design_your_own", "rebuild_extension_state", "learn_pi_lab.store"),
}


def load_stub(module: str) -> ModuleType:
    """Import ``workspace/<module>.py`` under a private name (not the test target's name)."""
    spec = importlib.util.spec_from_file_location(f"stub_workspace.{module}",
                                                  WORKSPACE / f"{module}.py")
    assert spec is not None and spec.loader is not None
    stub = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stub)
    return stub


def shape(function: object) -> list[tuple[str, object, object]]:
    """What a caller relies on: parameter names, kinds and defaults (annotations may be
    spelled differently and still mean the same)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def public_methods(cls: type) -> dict[str, list]:
    return {name: shape(member) for name, member in vars(cls).items()
            if callable(member) and (not name.startswith("_") or name == "__init__")}


def by_id(exercise: catalog.Exercise) -> str:
    return exercise.id


def test_the_catalog_is_the_contract_table() -> None:
    found = {e.id: (e.module, e.function, e.reference) for e in EXERCISES}
    assert found == CONTRACT
    assert len(EXERCISES) >= 12


def test_ids_are_unique_and_in_chapter_order() -> None:
    ids = [e.id for e in EXERCISES]
    assert len(ids) == len(set(ids))
    chapters = [e.chapter for e in EXERCISES]
    assert chapters == sorted(chapters)


def test_a_test_class_grades_one_exercise_only() -> None:
    names = [name for e in EXERCISES for name in e.tests]
    assert len(names) == len(set(names))


def test_every_workspace_file_has_exercises() -> None:
    files = {path.stem for path in WORKSPACE.glob("ch*.py")}
    assert files == {e.module for e in EXERCISES}


@pytest.mark.parametrize("exercise", EXERCISES, ids=by_id)
def test_module_belongs_to_its_chapter(exercise: catalog.Exercise) -> None:
    assert exercise.module.startswith(f"ch{exercise.chapter:02d}_")


@pytest.mark.parametrize("exercise", EXERCISES, ids=by_id)
def test_title_and_hint_in_both_languages(exercise: catalog.Exercise) -> None:
    for field in ("title", "hint"):
        texts = getattr(exercise, field)
        assert set(texts) == {"zh", "en"}
        assert all(text.strip() for text in texts.values())
    assert re.search(r"[\u4e00-\u9fff]", exercise.hint["zh"]), "the zh hint must be Chinese"
    assert exercise.text("hint", "zh") == exercise.hint["zh"]
    assert exercise.text("hint", "en") == exercise.hint["en"]
    assert len(exercise.hint["en"]) > len(exercise.title["en"])


@pytest.mark.parametrize("exercise", EXERCISES, ids=by_id)
def test_stub_has_the_reference_signature(exercise: catalog.Exercise) -> None:
    stub = getattr(load_stub(exercise.module), exercise.function)
    reference = getattr(importlib.import_module(exercise.reference), exercise.function)
    if inspect.isclass(reference):
        assert inspect.isclass(stub)
        assert public_methods(stub) == public_methods(reference)
    else:
        # The reference may take extra keyword-only options (the inspector's ``limits``);
        # what a caller of the exercise relies on must match exactly.
        optional = {name for name, kind, default in shape(reference)
                    if kind is inspect.Parameter.KEYWORD_ONLY and default is not inspect.Parameter.empty}
        assert shape(stub) == [p for p in shape(reference) if p[0] not in optional]
    assert stub.__doc__ and "/" in stub.__doc__, "the stub's docstring teaches in zh and en"


@pytest.mark.parametrize("exercise", EXERCISES, ids=by_id)
def test_stub_raises_not_implemented_naming_the_exercise(exercise: catalog.Exercise) -> None:
    stub = getattr(load_stub(exercise.module), exercise.function)
    arguments = [None] * sum(1 for p in inspect.signature(stub).parameters.values()
                             if p.default is inspect.Parameter.empty)
    with pytest.raises(NotImplementedError) as raised:
        stub(*arguments)
    message = str(raised.value)
    assert f"练习 {exercise.id} 还没有完成" in message
    assert f"exercise {exercise.id} is not implemented yet" in message


@pytest.mark.parametrize("exercise", EXERCISES, ids=by_id)
def test_tests_name_existing_unittest_classes(exercise: catalog.Exercise) -> None:
    assert exercise.tests
    loader = unittest.TestLoader()
    for name in exercise.tests:
        module_name, _, class_name = name.rpartition(".")
        assert re.fullmatch(r"tests\.test_\w+", module_name), name
        test_class = getattr(importlib.import_module(module_name), class_name)
        assert issubclass(test_class, unittest.TestCase)
        assert loader.loadTestsFromTestCase(test_class).countTestCases() > 0


@pytest.mark.parametrize("exercise", EXERCISES, ids=by_id)
def test_a_model_answer_and_a_wrong_answer_exist(exercise: catalog.Exercise) -> None:
    assert (catalog.LESSONS / exercise.filename).is_file()
    variants = [path for path in (SOLUTIONS / "wrong" / exercise.id).iterdir() if path.is_dir()]
    assert variants, f"no wrong solution for {exercise.id}"
    for variant in variants:
        assert (variant / exercise.filename).is_file()
        expect = json.loads((variant / "expect.json").read_text(encoding="utf-8"))
        assert expect["status"] in ("failed", "timed_out")
        assert expect["mistake"] and expect["message_contains"]


def test_unknown_exercise_is_a_typed_error() -> None:
    with pytest.raises(catalog.UnknownExercise) as raised:
        catalog.get("no-such-exercise")
    assert raised.value.exercise_id == "no-such-exercise"
    assert [e.id for e in catalog.for_chapter(2)] == ["path-to", "validate"]
    assert catalog.for_chapter(0) == ()


def test_select_keeps_course_order_and_drops_repeats() -> None:
    assert [e.id for e in catalog.select(["validate", "path-to", "validate"])] == \
        ["path-to", "validate"]
    assert catalog.select(None) == list(EXERCISES)
    with pytest.raises(catalog.UnknownExercise):
        catalog.select(["path-to", "typo"])
