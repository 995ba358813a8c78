"""Where the learner acts in a chapter: predict, then run; run your own code; switch to it.

    from learn_pi_lab.course.act import predict, reveal, your_turn, use_my_code, implementation

* ``predict("ch01-p1", my_guess)`` writes down a guess *before* the cell that computes the
  answer runs; ``reveal("ch01-p1", actual)`` then shows the answer next to the guess. A guess
  left as ``None`` is simply "no guess yet", so an unattended run (the builder, nbval) prints
  the same text every time.
* ``your_turn("tolerant-reader", text)`` calls the learner's own function from
  ``workspace/`` on the chapter's data. A stub, an import error or an exception becomes a
  short message in the learner's language, never a traceback.
* ``use_my_code(True)`` makes ``implementation("tolerant-reader")`` hand out the learner's
  function, once it passes its checks, instead of the reference; otherwise the reference,
  with a note saying why. The switch lives in the kernel: each chapter shows it at its top.
* ``model_answer("02")`` shows, for each exercise of the chapter that passes its checks, the
  lesson's version (``learn_pi_lab/lessons/``) to compare with; before that, only where it is.

Every message comes from ``learn_pi_lab/messages/act.json``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Sequence

from learn_pi_lab.course.paths import show_path, workspace_dir
from learn_pi_lab.harness import catalog
from learn_pi_lab.harness import notebook
from learn_pi_lab.harness.similarity import is_stub
from learn_pi_lab.i18n import explain, t

# Guesses written down in this kernel: {"ch01-p1": 300}.
_guesses: dict[str, Any] = {}
# The switch.
_state = {"mine": False}


# ----------------------------------------------------------------------- predict, reveal

def predict(key: str, guess: Any, *, choices: Sequence[str] | None = None) -> None:
    """Write down a guess for ``key``; ``None`` means not guessed yet (shown as such)."""
    if guess is None or guess == "":
        _guesses.pop(key, None)
        print(t("course.act.no_guess_yet", prediction=key))
        return
    if choices is not None:
        normalised = str(guess).strip().upper()
        allowed = [str(choice).upper() for choice in choices]
        if normalised not in allowed:
            _guesses.pop(key, None)
            print(t("course.act.pick_one", prediction=key, guess=guess, choices=" / ".join(allowed)))
            return
        guess = normalised
    _guesses[key] = guess
    print(t("course.act.guess_noted", prediction=key, guess=guess))


def reveal(key: str, actual: Any, *, tolerance: float | None = None) -> None:
    """Show ``actual`` next to the guess for ``key``.

    ``tolerance`` (for numbers) is the relative distance still called close: 0.2 means
    within 20 % of the answer. Without a guess, the answer is shown with a nudge to guess
    first next time.
    """
    print(t("course.act.answer", prediction=key, actual=actual))
    if key not in _guesses:
        print(t("course.act.not_guessed", prediction=key))
        return
    guess = _guesses[key]
    if isinstance(actual, str) or not isinstance(guess, (int, float)):
        right = str(guess).strip().upper() == str(actual).strip().upper()
        print(t("course.act.right" if right else "course.act.wrong", guess=guess))
        return
    off = abs(guess - actual) / abs(actual) if actual else abs(guess - actual)
    if off == 0:
        print(t("course.act.right", guess=guess))
    elif tolerance is not None and off <= tolerance:
        print(t("course.act.close", guess=guess, percent=f"{off:.0%}"))
    else:
        print(t("course.act.far", guess=guess, percent=f"{off:.0%}"))


# ----------------------------------------------------------------------- your own code

def _load_workspace_function(exercise: catalog.Exercise) -> Callable:
    """The learner's function, read afresh from its file (an edit counts without a restart)."""
    path = workspace_dir() / exercise.filename
    if not path.is_file():
        raise FileNotFoundError(show_path(path))
    name = f"learn_pi_lab_workspace_{exercise.module}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, exercise.function)


def _where(error: BaseException, path: Path) -> str:
    """``workspace/ch01_jsonl.py:12``: the deepest line of the learner's file in the traceback."""
    lines = [frame for frame in traceback.extract_tb(error.__traceback__)
             if Path(frame.filename).resolve() == path.resolve()]
    if isinstance(error, SyntaxError) and error.lineno:
        return f"{show_path(path)}:{error.lineno}"
    return f"{show_path(path)}:{lines[-1].lineno}" if lines else show_path(path)


def your_turn(exercise_id: str, *args: Any, expect_errors: tuple[type, ...] = (),
              **kwargs: Any) -> Any:
    """Run the learner's ``workspace/`` function of ``exercise_id`` on ``args``.

    Returns what it returns; ``None`` (after a message) while it is a stub or when it fails.
    An exception of a type in ``expect_errors`` is an answer, not a failure (``validate``
    raises on bad data): it is shown and returned. A call still running after
    ``notebook.YOUR_TURN_SECONDS`` (an endless loop) is stopped with a message too
    (``notebook.call_with_time_limit``).
    """
    exercise = catalog.get(exercise_id)
    path = workspace_dir() / exercise.filename
    label = t("course.act.function_label", function=exercise.function, path=show_path(path))
    try:
        finished, result = notebook.call_with_time_limit(
            lambda: _load_workspace_function(exercise)(*args, **kwargs),
            function=label, path=path, shown=show_path(path),
            seconds=notebook.YOUR_TURN_SECONDS)
        if not finished:
            return None
    except NotImplementedError:
        print(t("course.act.stub", function=label, chapter=f"{exercise.chapter:02d}"))
        return None
    except expect_errors as error:
        print(t("course.act.raised_expected", function=label,
                error=f"{type(error).__name__}: {explain(error)}"))
        return error
    except Exception as error:  # the learner's code: any failure is a message, not a traceback
        print(t("course.act.raised", function=label, where=_where(error, path),
                error=f"{type(error).__name__}: {explain(error)}",
                chapter=f"{exercise.chapter:02d}"))
        return None
    if _first_call_in_this_cell(exercise_id):   # a loop over five inputs says it once
        print(t("course.act.ran_yours", function=label))
    return result


def _first_call_in_this_cell(exercise_id: str) -> bool:
    """Whether this is the first ``your_turn`` of ``exercise_id`` in the running cell (a
    notebook's execution count); outside a notebook, every call is."""
    try:
        from IPython import get_ipython
    except ImportError:
        return True
    cell = getattr(get_ipython(), "execution_count", None)
    if cell is None:
        return True
    seen = (exercise_id, cell)
    first = _state.get("announced") != seen
    _state["announced"] = seen
    return first


# ----------------------------------------------------------------------- the switch

def use_my_code(on: bool = True) -> None:
    """Later cells use your passing workspace functions (``True``) or the reference."""
    _state["mine"] = bool(on)
    print(t("course.act.switch_on" if on else "course.act.switch_off"))


def _reference(exercise: catalog.Exercise) -> Callable:
    return getattr(importlib.import_module(exercise.reference), exercise.function)


def _status(exercise: catalog.Exercise) -> str:
    """The checks' verdict on the learner's file, graded once per saved version of the file
    (the chapter's check cell grades it too: ``notebook.verdict``)."""
    return notebook.verdict(exercise, workspace_dir())


def implementation(exercise_id: str) -> Callable:
    """The function the chapter should run for ``exercise_id``: yours when the switch is on
    and it passes its checks, else the reference (with a note saying which and why)."""
    exercise = catalog.get(exercise_id)
    label = t("course.act.function_label", function=exercise.function,
              path=show_path(workspace_dir() / exercise.filename))
    if not _state["mine"]:
        return _reference(exercise)
    status = _status(exercise)
    if status == "passed":
        try:
            function = _load_workspace_function(exercise)
        except Exception:  # it passed a moment ago; a half-saved file falls back below
            status = "failed"
        else:
            print(t("course.act.using_yours", function=label))
            return function
    print(t("course.act.using_reference", function=label,
            status=t(f"harness.status.{status}"), exercise=exercise.id))
    return _reference(exercise)


# ----------------------------------------------------------------------- the model answer

def model_answer(chapter: int | str) -> None:
    """For each exercise of ``chapter``: once yours passes its checks, the lesson's version of
    it (the function and the helpers it calls, from ``learn_pi_lab/lessons/``), to compare
    with yours; before that, where it is and what opens it. A stub is seen without running
    anything, so an unattended run prints the same text every time."""
    for exercise in catalog.for_chapter(notebook.chapter_number(chapter)):
        lesson = catalog.LESSONS / exercise.filename
        mine = workspace_dir() / exercise.filename
        status = ("not_started" if not mine.is_file()
                  or is_stub(mine.read_bytes(), exercise.function) else _status(exercise))
        where = show_path(lesson)
        if status != "passed":
            print(t("course.act.model_answer_later", exercise=exercise.id, path=where,
                    status=t(f"harness.status.{status}")))
            continue
        print(t("course.act.model_answer", exercise=exercise.id, path=where))
        print(lesson_source(lesson, exercise.function))


def lesson_source(path: Path, name: str) -> str:
    """The definition of ``name`` in the lesson ``path`` and of the top-level functions it
    calls (and they call), in file order."""
    text = path.read_text(encoding="utf-8")
    defined = {node.name: node for node in ast.parse(text).body
               if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    wanted, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in wanted or current not in defined:
            continue
        wanted.add(current)
        todo.extend(node.id for node in ast.walk(defined[current]) if isinstance(node, ast.Name))
    return "\n\n".join(ast.get_source_segment(text, node, padded=False) or ""
                        for node in defined.values() if node.name in wanted)
