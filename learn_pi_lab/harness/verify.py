"""``make verify`` / ``python3 -m learn_pi_lab verify``: grade your own workspace.

Runs every exercise (or one, with ``--exercise ID``) against ``workspace/``, shows a table,
then explains the first exercise to fix: the failing test's own message, the line in your
file, and a hint, in your language. It updates ``.verify/results.json`` (a run of one
exercise replaces that exercise's line only) and exits 0 only when everything passes, so
scripts and CI can use it too. An exercise that reaches ``--timeout`` is run again with a
limit calibrated on the package's own solution, timed on the same machine
(``runner.TimeLimits``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from learn_pi_lab.cli.arguments import OneLineParser, parsed_or_said
from learn_pi_lab.harness import catalog, report, runner, sandbox
from learn_pi_lab.harness.runner import (DEFAULT_TIMEOUT, ExerciseResult, drawn_seed,
                                         run_exercises, stopped_like_ctrl_c, usable_timeout)
from learn_pi_lab.i18n import current_language, t

RESULTS_PATH = catalog.REPO_ROOT / ".verify" / "results.json"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="python3 -m learn_pi_lab verify",
                           description="Check your exercises in workspace/.")
    parser.add_argument("--exercise", "-e", action="append", metavar="ID",
                        help="only this exercise (repeatable), e.g. path-to")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the report")
    parser.add_argument("--workspace", type=Path, default=None, metavar="DIR",
                        help="the folder with your chNN_*.py files (default: workspace/)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds allowed per exercise (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--fixed-timeout", action="store_true",
                        help="use --timeout as it is, never calibrated on the reference")
    parser.add_argument("--results", type=Path, default=RESULTS_PATH, metavar="FILE",
                        help="where to write the JSON results (default .verify/results.json)")
    return parser.parse_args(argv)


def merged(path: Path, workspace: Path, results: list[ExerciseResult]) -> list[dict]:
    """This run's results, plus the earlier ones of the other exercises when the file is of
    the same workspace (``make verify EX=path-to`` updates one line, it does not forget the
    rest), in catalog order."""
    fresh = {result.exercise: result.to_json() for result in results}
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
        if earlier.get("workspace") == str(workspace.resolve()):
            for row in earlier.get("results", []):
                if isinstance(row, dict) and row.get("exercise") not in fresh:
                    fresh[row.get("exercise")] = row
    except (OSError, ValueError, AttributeError):
        pass
    known = [exercise.id for exercise in catalog.exercises()]
    return [fresh[exercise_id] for exercise_id in known if exercise_id in fresh]


def write_results(path: Path, workspace: Path, lang: str,
                  results: list[ExerciseResult], seed: str | None = None) -> None:
    rows = merged(path, workspace, results)
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"workspace": str(workspace.resolve()), "lang": lang, "drawn_seed": seed,
                "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "passed": sum(row.get("status") == "passed" for row in rows), "total": len(rows),
                "results": rows}
    path.write_bytes(report.json_file_bytes(document))


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_said(parse_args, sys.argv[1:] if argv is None else argv)
    if args is None:
        return 2   # a wrong usage, said in one line
    lang = current_language(args.lang)
    try:
        with stopped_like_ctrl_c():   # from the first moment: Ctrl-C, SIGTERM, SIGHUP
            return check_workspace(args, lang)
    except KeyboardInterrupt:
        try:
            print("\n" + t("harness.interrupted", lang), file=sys.stderr)
        except OSError:
            pass   # the terminal is gone (SIGHUP): the exit code says it
        return 130


def say_course_updates(workspace: Path, lang: str) -> None:
    """What the last update of the course (an nbgitpuller link followed again, on a hub)
    did to the learner's files, one line each (``classroom.updates``); nothing otherwise."""
    from learn_pi_lab.classroom import updates
    root = workspace.resolve().parent
    for merged in updates.merged_files(root):
        print(t("harness.verify.update_merged", lang, path=merged.path, commit=merged.course[:12]))
    for renamed in updates.renamed_files(root):
        print(t("harness.verify.update_renamed", lang, path=renamed.path,
                original=renamed.original))


def check_workspace(args: argparse.Namespace, lang: str) -> int:
    """``main`` after its arguments are read."""
    try:
        exercises = catalog.select(args.exercise)
    except catalog.UnknownExercise as error:
        print(error.message(lang), file=sys.stderr)
        return 2
    workspace = args.workspace or catalog.default_workspace()
    if not workspace.is_dir():
        print(t("harness.no_workspace", lang, path=str(workspace)), file=sys.stderr)
        return 2
    if not catalog.tests_available():
        print(t("harness.no_tests", lang), file=sys.stderr)
        return 2
    if not usable_timeout(args.timeout):
        print(t("harness.bad_timeout", lang, timeout=args.timeout), file=sys.stderr)
        return 2

    walls = runner.default_sandbox()
    if walls.mode != "bwrap":
        print(report.sandbox_fallback(walls.mode, lang), file=sys.stderr)
    elif sandbox.python_starts():
        print(t("harness.sandbox_broken", lang, detail=sandbox.python_starts()), file=sys.stderr)
        return 2
    label = report.relative_label(workspace, Path.cwd())
    say_course_updates(workspace, lang)
    print(t("harness.checking", lang, count=len(exercises), workspace=label), flush=True)
    progress = report.ProgressBar(len(exercises), sys.stdout)
    seed = drawn_seed()   # one per run: the drawn inputs of every exercise (tests/drawn.py)
    results = run_exercises(exercises, workspace, timeout=args.timeout, lang=lang,
                            walls=walls, calibrate=not args.fixed_timeout, seed=seed,
                            on_result=lambda result: progress.advance(result.exercise))
    progress.finish()

    print(report.text_table(report.headers(lang), report.result_rows(exercises, results, lang)))
    print()
    print(report.counts_line(results, lang))
    to_fix = report.first_to_fix(results)
    if to_fix is None:
        print(report.all_passed_line(results, lang))
        if len(exercises) < len(catalog.exercises()):
            # (`make verify EX=...` passed: the report said nothing about what comes next)
            print(t("harness.verify.see_the_rest", lang))
    else:
        exercise = catalog.get(to_fix.exercise)
        print()
        print(t("harness.first_to_fix", lang, exercise=exercise.id,
                chapter=f"{exercise.chapter:02d}", title=exercise.text("title", lang)))
        for line in report.explanation(exercise, to_fix, lang, workspace_label=label):
            print("  " + line)
        if os.environ.get("MAKELEVEL"):
            # `make verify`: make ends a recipe that returns 1 with its own English line,
            # "make: *** [Makefile:NN: verify] Error 1", which reads like a breakdown (a
            # learner's review, in a terminal of `make lab`); say before it what it means
            print(t("harness.make_says_error", lang))
    try:
        write_results(args.results, workspace, lang, results, seed)
    except OSError as error:
        print(t("harness.results_not_written", lang, error=str(error)), file=sys.stderr)
    return 0 if to_fix is None else 1


if __name__ == "__main__":
    sys.exit(main())
