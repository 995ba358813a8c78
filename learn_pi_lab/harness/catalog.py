"""The exercise catalog: which function each exercise asks for, and which tests grade it.

The catalog is data (``exercises.json``) so a course developer adds an exercise without
touching the runner. Each entry names the learner's file (``module`` in ``workspace/``),
the function or class to write, the reference module in the package that has the same name
and signature, the package's other code that does the same job (``same_job``), a title and a
hint in both languages, and the ``unittest`` classes that grade it. One spec, two targets:
the same test classes prove the reference and grade the learner.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from learn_pi_lab.i18n import FALLBACK, current_language, t

CATALOG_PATH = Path(__file__).with_name("exercises.json")
PACKAGE_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = PACKAGE_DIR.parent
LESSONS = PACKAGE_DIR / "lessons"
"""Each chapter's idea as code, which is also its exercises' model answer (a workspace)."""


@dataclass(frozen=True)
class Exercise:
    id: str                        # "path-to": what `make verify EX=...` takes
    chapter: int                   # the notebook that teaches it
    module: str                    # "ch02_parent_pointers": the learner's file in workspace/
    function: str                  # "path_to": the function or class to write
    reference: str                 # "learn_pi_lab.session_tree": the package's version
    title: dict[str, str]          # {"zh": ..., "en": ...}
    hint: dict[str, str]
    tests: tuple[str, ...]         # "tests.test_04_session_tree.PathToTests", ...
    same_job: tuple[str, ...] = ()
    """Other code of the package that computes the same answer without going through
    ``reference`` ("learn_pi_lab.pi.session:Session.branch": module, then a function, a
    class, or a class's method). It refuses to run while the learner's file is graded, as
    the reference does (``harness.hiding``)."""

    def text(self, field: str, lang: str | None = None) -> str:
        """``title`` or ``hint`` in the learner's language (English if missing)."""
        texts: dict[str, str] = getattr(self, field)
        return texts.get(current_language(lang)) or texts[FALLBACK]

    @property
    def filename(self) -> str:
        return f"{self.module}.py"


class UnknownExercise(LookupError):
    """An exercise id that is not in the catalog (a typo in `make verify EX=...`)."""

    def __init__(self, exercise_id: str) -> None:
        super().__init__(exercise_id)
        self.exercise_id = exercise_id

    def message(self, lang: str | None = None) -> str:
        """What to tell the learner: the typo, and every id that does exist."""
        known = ", ".join(exercise.id for exercise in exercises())
        text = t("harness.unknown_exercise", lang, exercise=self.exercise_id, known=known)
        names = {e.id: e.id for e in exercises()} | {e.function: e.id for e in exercises()}
        close = difflib.get_close_matches(self.exercise_id, list(names), n=1)
        if close:
            text += " " + t("harness.did_you_mean", lang, suggestion=names[close[0]])
        return text


@lru_cache(maxsize=1)
def exercises() -> tuple[Exercise, ...]:
    """Every exercise, in course order."""
    with CATALOG_PATH.open(encoding="utf-8") as handle:
        raw = json.load(handle)
    return tuple(Exercise(id=item["id"], chapter=item["chapter"], module=item["module"],
                          function=item["function"], reference=item["reference"],
                          title=item["title"], hint=item["hint"], tests=tuple(item["tests"]),
                          same_job=tuple(item.get("same_job", ())))
                 for item in raw)


def get(exercise_id: str) -> Exercise:
    """The exercise with this id; the name of the function or class it asks for works too
    (``read_jsonl_tolerant`` for ``tolerant-reader``: the chapters show that name)."""
    for exercise in exercises():
        if exercise.id == exercise_id:
            return exercise
    named = [exercise for exercise in exercises() if exercise.function == exercise_id]
    if len(named) == 1:
        return named[0]
    raise UnknownExercise(exercise_id)


def select(exercise_ids: list[str] | None) -> list[Exercise]:
    """The exercises asked for (all when none are named), in course order, each once;
    ``UnknownExercise`` for a typo."""
    if not exercise_ids:
        return list(exercises())
    wanted = {get(exercise_id).id for exercise_id in exercise_ids}
    return [exercise for exercise in exercises() if exercise.id in wanted]


def for_chapter(chapter: int) -> tuple[Exercise, ...]:
    return tuple(exercise for exercise in exercises() if exercise.chapter == chapter)


def default_workspace() -> Path:
    """``workspace/`` next to the package: where the learner's stubs live."""
    return REPO_ROOT / "workspace"


def tests_available() -> bool:
    """The grading tests ship with the course repository, not with an installed wheel."""
    return (REPO_ROOT / "tests" / "targets.py").is_file()
