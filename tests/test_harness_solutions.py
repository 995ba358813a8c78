"""The exercises are proven both ways.

* The stubs shipped in ``workspace/``: every exercise is "not started", with the stub's own
  message, and ``verify`` fails.
* ``learn_pi_lab/lessons/`` (each chapter's idea, written as a learner would, is a
  filled-in workspace):
  every exercise passes and ``verify`` exits 0.
* ``tests/solutions/wrong/<exercise>/<mistake>/``: a plausible mistake for every exercise
  fails, with the status and a message (``expect.json``) a learner can act on, at a visible
  test (never at the drawn inputs' test, which comes last: ``tests/drawn.py``).
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from functools import lru_cache, partial
from pathlib import Path

import pytest

from learn_pi_lab.harness import catalog, report, verify
from learn_pi_lab.harness.runner import ExerciseResult, run_exercise, run_in_parallel

SOLUTIONS = Path(__file__).resolve().parent / "solutions"
REFERENCE = catalog.LESSONS
WRONG = sorted(path for path in (SOLUTIONS / "wrong").glob("*/*") if path.is_dir())
GENEROUS = 120.0   # seconds: only a real endless loop reaches it, even on a busy machine


def run_verify(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = verify.main(list(argv))
    return code, out.getvalue()


def test_untouched_stubs_are_all_not_started(tmp_path: Path) -> None:
    results_file = tmp_path / "results.json"
    code, output = run_verify("--workspace", str(catalog.default_workspace()), "--lang", "en",
                              "--results", str(results_file), "--timeout", str(GENEROUS))
    assert code == 1
    results = json.loads(results_file.read_text(encoding="utf-8"))["results"]
    assert [r["exercise"] for r in results] == [e.id for e in catalog.exercises()]
    for result in results:
        assert (result["status"], result["reason"]) == ("not_started", "not-implemented"), \
            result
        assert f"exercise {result['exercise']} is not implemented yet" in result["detail"]
    count = len(catalog.exercises())
    assert (f"Exercises: {count} in all, 0 passed, 0 failed, 0 timed out, {count} not started."
            in output)
    assert "Not started yet: open workspace/ch01_jsonl.py" in output


def test_the_reference_workspace_passes_everything(tmp_path: Path) -> None:
    results_file = tmp_path / "results.json"
    code, output = run_verify("--workspace", str(REFERENCE), "--lang", "en",
                              "--results", str(results_file), "--timeout", str(GENEROUS))
    results = json.loads(results_file.read_text(encoding="utf-8"))
    failing = [r for r in results["results"] if r["status"] != "passed"]
    assert failing == []
    assert code == 0, output
    assert (results["passed"], results["total"]) == (len(catalog.exercises()),) * 2
    assert f"All {len(catalog.exercises())} exercise(s) pass" in output


@lru_cache(maxsize=1)
def wrong_results() -> dict[Path, ExerciseResult]:
    """Grade every wrong solution once, in parallel (the slow ones wait for a time-out)."""
    jobs = []
    for folder in WRONG:
        expect = json.loads((folder / "expect.json").read_text(encoding="utf-8"))
        jobs.append(partial(run_exercise, catalog.get(folder.parent.name), folder,
                            timeout=expect.get("timeout", GENEROUS), lang="en"))
    return dict(zip(WRONG, run_in_parallel(jobs)))


@pytest.mark.parametrize("folder", WRONG, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_a_plausible_mistake_fails_with_an_actionable_message(folder: Path) -> None:
    expect = json.loads((folder / "expect.json").read_text(encoding="utf-8"))
    exercise = catalog.get(folder.parent.name)
    result = wrong_results()[folder]
    text = "\n".join(report.explanation(exercise, result, "en"))
    assert result.status == expect["status"], text
    for fragment in expect["message_contains"]:
        assert fragment in text, f"{fragment!r} missing from:\n{text}"
    assert "Traceback" not in text
    if result.status == "failed":
        assert result.test and result.detail, "a failure names its test and says what is wrong"
    # the drawn inputs' test comes last (tests/drawn.py): a plausible mistake still fails at
    # the visible test that names it
    assert not (result.test or "").endswith(".test_drawn_inputs"), result.test


def test_every_exercise_has_a_mistake_that_is_caught() -> None:
    assert {folder.parent.name for folder in WRONG} == {e.id for e in catalog.exercises()}
