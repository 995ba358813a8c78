"""``python3 -m learn_pi_lab grade SUBMISSIONS_DIR --out DIR``: grade a whole class.

``SUBMISSIONS_DIR`` holds one folder per learner, each a copy of that learner's
``workspace/`` (a folder holding the whole course repository works too: its ``workspace/``
is used). Every learner gets every exercise, graded the way ``make verify`` grades (see
``runner``: the tests and the verdict in a trusted process, the learner's code in a
sandboxed worker), with extra precautions because the code is not yours:

* **Copies, taken first.** Before anything runs, each learner's ``.py`` files are read into
  memory. Grades come from those copies only.
* **The sandbox.** ``bwrap`` hides the submissions folder, the gradebook folder, your home
  and ``/tmp`` from the learner's code, and makes everything else read-only. Without
  ``bwrap`` grading refuses to start, unless you pass ``--no-sandbox`` (then it says what is
  not protected).
* **The course is checked.** The package and the tests are hashed before grading and after
  every run; a change stops grading at once and names the submissions that were running.
* **A before/after check.** The submissions folder is hashed before and after; any file that
  changed is reported (it is evidence, not an input to any grade).
* **Time limits from the reference.** A run that reaches ``--timeout`` is run again with the
  exercise's calibrated limit: the larger of ``--timeout`` and ``runner.REFERENCE_FACTOR``
  times the time of the package's own solution, timed in the same run, in the same way, on
  the same (busy) machine (``runner.TimeLimits``).

Writes ``gradebook.csv`` and ``gradebook.json`` (learner, exercise, status, seconds, the
failing test, its message, the learner's line, the start of the printed output, and a note
when a solution is the reference's or another learner's with only names and formatting
changed) and prints the pass rate of each exercise with its most common failing test (where
the class gets stuck), then each learner's total.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import threading
from collections import Counter
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from learn_pi_lab.harness import catalog, report, sandbox, similarity
from learn_pi_lab.harness.files import fingerprint, learner_code, read_python_files
from learn_pi_lab.harness.runner import (DEFAULT_TIMEOUT, ExerciseResult, Sandbox,
                                         TimeLimits, default_jobs, drawn_seed, run_calibrated,
                                         run_exercise, run_in_parallel, stopped_like_ctrl_c,
                                         usable_timeout)
from learn_pi_lab.cli.arguments import OneLineParser, parsed_or_said
from learn_pi_lab.classroom import class_report   # the page a teacher looks at
from learn_pi_lab.i18n import current_language, t
from learn_pi_lab.cli.terminal_text import shown

CSV_FIELDS = ("learner", "exercise", "chapter", "status", "seconds", "reason", "test", "detail",
              "where", "output", "note")
CHANGES_LISTED = 10
OUTPUT_IN_GRADEBOOK = 500      # characters of printed output kept per row


@dataclass(frozen=True)
class Code:
    """One learner's code as grading uses it: the ``.py`` files read before anything ran
    (``files``, the only thing that runs) and the folder they were read from (``folder``,
    only looked at for what was not read: an exercise's file that is a link, or too large,
    is named as such, as ``verify`` names it)."""
    folder: Path
    files: dict[str, bytes]


@dataclass
class Grade:
    learner: str
    result: ExerciseResult
    note: str = ""

    def row(self) -> dict:
        result = self.result
        return {"learner": self.learner, "exercise": result.exercise,
                "chapter": catalog.get(result.exercise).chapter, "status": result.status,
                "seconds": result.seconds, "reason": result.reason, "test": result.test,
                "detail": result.detail, "where": result.where,
                "output": report.learner_output(result.output)[:OUTPUT_IN_GRADEBOOK],
                "note": self.note}


def parse_args(argv: list[str]) -> argparse.Namespace:
    limits = sandbox.Limits()
    parser = OneLineParser(prog="python3 -m learn_pi_lab grade",
                           description="Grade a folder of learner workspaces.")
    parser.add_argument("submissions", type=Path, metavar="SUBMISSIONS_DIR",
                        help="one sub-folder per learner, each a copy of their workspace/")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="where gradebook.csv and gradebook.json are written")
    parser.add_argument("--exercise", "-e", action="append", metavar="ID",
                        help="grade only this exercise (repeatable)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds allowed per exercise, at least (default "
                             f"{DEFAULT_TIMEOUT:g}; more when the reference needs it)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="exercises run at the same time (default: the number of CPUs)")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the summary")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="grade without bubblewrap (resource limits only: NOT protected)")
    parser.add_argument("--memory-mb", type=int, default=limits.memory // sandbox.MiB,
                        metavar="MB", help="address space of the learner's code")
    parser.add_argument("--cpu-seconds", type=int, default=limits.cpu_seconds, metavar="S",
                        help="CPU seconds of each process of the learner's code")
    parser.add_argument("--processes", type=int, default=limits.processes, metavar="N",
                        help="processes the learner's code may have at once")
    parser.add_argument("--file-size-mb", type=int, default=limits.file_size // sandbox.MiB,
                        metavar="MB", help="largest file the learner's code may write")
    parser.add_argument("--open-files", type=int, default=limits.open_files, metavar="N",
                        help="open files of the learner's code")
    parser.add_argument("--disk-mb", type=int, default=limits.disk // sandbox.MiB, metavar="MB",
                        help="what the learner's code may keep on disk, all files together")
    return parser.parse_args(argv)


LIMIT_RANGES = {"memory_mb": (256, 1 << 20), "cpu_seconds": (1, 1_000_000),
                "processes": (4, 4096), "file_size_mb": (1, 1 << 20), "open_files": (32, 65536),
                "disk_mb": (16, 1 << 20)}
"""What the limits may be: from the smallest the worker's Python itself can start under to
the largest the system accepts (outside them every run crashed, and each was charged to the
learners). Up to a terabyte of memory, eleven days of CPU."""


def bad_argument(args: argparse.Namespace, lang: str) -> str | None:
    """The one line that says which number is unusable, or None."""
    if not usable_timeout(args.timeout):
        return t("harness.bad_timeout", lang, timeout=args.timeout)
    if args.jobs is not None and not 1 <= args.jobs <= 1024:
        return t("harness.grade.bad_number", lang, option="--jobs", minimum=1, maximum=1024,
                 value=args.jobs)
    for name, (minimum, maximum) in LIMIT_RANGES.items():
        value = getattr(args, name)
        if not minimum <= value <= maximum:
            return t("harness.grade.bad_number", lang, option="--" + name.replace("_", "-"),
                     minimum=minimum, maximum=maximum, value=value)
    return None


def ready_to_write(out: Path, lang: str) -> str | None:
    """Check the gradebook's folder before any grading (a class takes minutes): it must be a
    folder this user can write, without a gradebook in it already (never overwritten). The
    folder is made now, so the sandbox can hide it. The one line that says what is wrong, or
    None."""
    if out.exists() and not out.is_dir():
        return t("harness.grade.out_not_folder", lang, path=str(out))
    existing = [name for name in ("gradebook.csv", "gradebook.json") if (out / name).exists()]
    if existing:
        return t("harness.grade.out_has_gradebook", lang, path=str(out / existing[0]))
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".learn-pi-lab-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        return t("harness.grade.out_unwritable", lang, path=str(out),
                 detail=error.strerror or str(error))
    return None


SKIPPED_REASONS = ("link", "hidden", "not_folder")


def learner_folders(submissions: Path) -> tuple[list[Path], dict[str, str]]:
    """The learners' folders of ``submissions``, and every other entry there with the reason
    it is not graded: ``link`` (it may point at a classmate's folder: never graded as
    someone's own), ``hidden`` (a name starting with ``.``: ``.git``, a checkpoint folder,
    not a learner's, but listed so no learner goes missing unseen), ``not_folder`` (a file:
    a zip not unpacked, say)."""
    folders, skipped = [], {}
    for path in sorted(submissions.iterdir()):
        if path.is_symlink():
            skipped[path.name] = "link"
        elif path.name.startswith("."):
            skipped[path.name] = "hidden"
        elif not path.is_dir():
            skipped[path.name] = "not_folder"
        else:
            folders.append(path)
    return folders, skipped


def nested_code(learners: list[str], snapshots: dict[str, dict[str, bytes]],
                exercises: list[catalog.Exercise]) -> dict[str, str]:
    """Learners whose exercise files are only deeper down (an unpacked ZIP of the course:
    ``learn-pi-lab-main/workspace/ch01_jsonl.py``): learner -> the folder they are in."""
    names = {exercise.filename for exercise in exercises}
    found = {}
    for learner in learners:
        files = snapshots[learner]
        if names & set(files):
            continue
        deeper = sorted(path for path in files if Path(path).name in names)
        if deeper:
            found[learner] = str(Path(deeper[0]).parent)
    return found


def changed_paths(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(path for path in before.keys() | after.keys()
                  if before.get(path) != after.get(path))


def course_fingerprint() -> dict[str, str]:
    """The teacher's course as grading depends on it: the package (with the exercise catalog)
    and the tests."""
    found = {}
    for folder in (catalog.PACKAGE_DIR, catalog.REPO_ROOT / "tests"):
        found.update({f"{folder.name}/{path}": digest
                      for path, digest in fingerprint(folder).items()})
    return found


class CourseWatch:
    """Hashes the course after every run; the first change stops grading and is blamed on
    the submissions that were running since the last clean check."""

    def __init__(self) -> None:
        self.before = course_fingerprint()
        self.lock = threading.Lock()
        self.running: set[str] = set()
        self.suspects: set[str] = set()
        self.changed: list[str] = []
        self.stop = threading.Event()

    def started(self, learner: str) -> None:
        with self.lock:
            self.running.add(learner)

    def finished(self, learner: str) -> None:
        with self.lock:
            self.suspects |= self.running
            self.running.discard(learner)
            if self.stop.is_set():
                return
            changed = changed_paths(self.before, course_fingerprint())
            if changed:
                self.changed = changed
                self.stop.set()
            else:
                self.suspects = set(self.running)


class Stalls:
    """Files whose import did not finish in time, and not for want of a processor: each
    exercise of such a file would stall at the same import, so it is judged once, from that
    one run, rather than once per exercise (a learner who stalls everywhere cost minutes per
    exercise: an attacker's review)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: dict[tuple[str, str], ExerciseResult] = {}

    def known(self, learner: str, exercise: catalog.Exercise) -> ExerciseResult | None:
        with self.lock:
            stalled = self.seen.get((learner, exercise.filename))
        return None if stalled is None else replace(stalled, exercise=exercise.id)

    def note(self, learner: str, exercise: catalog.Exercise, result: ExerciseResult) -> None:
        if result.status == "timed_out" and result.at_import and not result.crowded():
            with self.lock:
                self.seen.setdefault((learner, exercise.filename), result)


def in_running_order(pairs: list[tuple[str, catalog.Exercise]]
                     ) -> list[tuple[str, catalog.Exercise]]:
    """(learner, exercise) pairs in the order they are run: every learner's first exercise of
    each file before anyone's second, so that when a learner's file stalls at its import,
    that run has ended before the file's next exercise starts, which is then judged from it
    (``Stalls``) instead of stalling beside it. (The gradebook keeps the learners' order.)"""
    def rank(pair: tuple[str, catalog.Exercise]) -> int:
        _learner, exercise = pair
        same_file = [other.id for other in catalog.exercises()
                     if other.filename == exercise.filename]
        return same_file.index(exercise.id)
    return sorted(pairs, key=rank)   # (stable: learners, then exercises, as given)


def grade_one(learner: str, exercise: catalog.Exercise, code: Code,
              limits: TimeLimits, lang: str, walls: Sandbox, watch: CourseWatch,
              stalls: Stalls, timeout: float | None = None) -> Grade | None:
    """One exercise of one learner (``None`` when grading was stopped before it began):
    calibrated (``run_calibrated``), or with one given ``timeout``; judged from an earlier
    run when its file's import stalled there (``Stalls``)."""
    if watch.stop.is_set():
        return None
    known = stalls.known(learner, exercise)
    if known is not None:
        return Grade(learner, known)
    watch.started(learner)
    try:
        if timeout is None:
            result = run_calibrated(exercise, code.folder, limits, lang=lang, files=code.files,
                                    walls=walls, seed=limits.seed)
        else:
            result = run_exercise(exercise, code.folder, timeout=timeout, lang=lang,
                                  files=code.files, walls=walls, seed=limits.seed)
    finally:
        watch.finished(learner)
    stalls.note(learner, exercise, result)
    return Grade(learner, result)


def hung_on_time(grade: Grade | None, floor: float) -> bool:
    """Does the verdict depend on how busy the machine was? A time-out while other work took
    the run's processor (``ExerciseResult.crowded``), or a pass that needed more than the
    floor (a limit that grew with a reference timed beside busy code)."""
    return grade is not None and (
        grade.result.status == "timed_out" and grade.result.crowded()
        or grade.result.status == "passed" and grade.result.seconds > floor)


def run_again(graded: list[Grade | None], codes: dict[str, Code], limits: TimeLimits,
              lang: str, walls: Sandbox, watch: CourseWatch, stalls: Stalls,
              jobs: int) -> list[Grade | None]:
    """Every run whose verdict hung on time (``hung_on_time``), run again on a limit whose
    reference was timed alone: that verdict is the one that counts.

    A time limit is wall-clock time, and runs share the processors: a learner's code that
    starts many busy processes slows whatever runs beside it. An honest classmate could time
    out (a teacher's review); and the reference, timed beside it, could look ten times
    slower, so the limit grew and a learner's too-slow code passed (an attacker's review).
    So once every run is done, the reference of each exercise concerned is timed again,
    alone; the runs concerned then run again, ``jobs`` at a time; one that still hangs on
    time (crowded again: a neighbour with many busy processes) runs once more, alone. A
    time-out that was not crowded is the code's own (it had its processor and did not
    finish) and is not run again: a learner whose code stalls costs its time limit once per
    run, in parallel, not again in series. The gradebook's ``time_limits`` and
    ``reference_seconds`` are the ones measured alone."""
    again = [index for index, grade in enumerate(graded) if hung_on_time(grade, limits.floor)]
    if not again:
        return graded
    print(t("harness.grade.again_alone", lang, runs=len(again)), flush=True)
    alone_limits = TimeLimits(limits.floor, lang=lang, walls=walls, seed=limits.seed)
    graded = list(graded)
    exercises = {graded[index].result.exercise for index in again}   # type: ignore[union-attr]
    for exercise_id in sorted(exercises):   # the references, timed now: nothing else runs
        alone_limits.of(catalog.get(exercise_id))

    def once_more(index: int) -> Grade | None:
        before = graded[index]
        assert before is not None
        exercise = catalog.get(before.result.exercise)
        return grade_one(before.learner, exercise, codes[before.learner], limits, lang, walls,
                         watch, stalls, timeout=alone_limits.of(exercise))

    for index, grade in zip(again, run_in_parallel([partial(once_more, index)
                                                    for index in again], workers=jobs)):
        graded[index] = grade if grade is not None else graded[index]
    if jobs > 1:
        for index in [index for index in again if hung_on_time(graded[index], limits.floor)
                      and graded[index].result.status == "timed_out"]:   # type: ignore[union-attr]
            alone = once_more(index)
            if alone is None:   # grading was stopped meanwhile (the course changed)
                break
            graded[index] = alone
    limits.known.update(alone_limits.known)
    limits.reference_seconds.update(alone_limits.reference_seconds)
    return graded


def summarize(grades: list[Grade], exercises: list[catalog.Exercise]) -> dict[str, dict]:
    """Per exercise: how many passed, the pass rate, and the most common way to fail: the
    first failing test, or the reason when no test got to fail (``import-error``,
    ``timeout``, ``output-limit``, ``crashed``)."""
    summary = {}
    for exercise in exercises:
        mine = [g.result for g in grades if g.result.exercise == exercise.id]
        passed = sum(r.status == "passed" for r in mine)
        not_started = sum(r.status == "not_started" for r in mine)
        not_own = sum(r.status == "not_own_code" for r in mine)
        failing = Counter(r.test or r.reason for r in mine
                          if r.status in ("failed", "timed_out"))
        common = failing.most_common(1)
        summary[exercise.id] = {"passed": passed, "not_started": not_started,
                                "not_own_code": not_own,
                                "total": len(mine),
                                "pass_rate": round(passed / len(mine), 3) if mine else 0.0,
                                "most_common_failure": common[0][0] if common else None,
                                "most_common_failure_count": common[0][1] if common else 0}
    return summary


def learner_totals(grades: list[Grade], learners: list[str]) -> dict[str, dict]:
    totals = {}
    for learner in learners:
        mine = [g for g in grades if g.learner == learner]
        counts = Counter(g.result.status for g in mine)
        totals[learner] = {"passed": counts["passed"], "total": len(mine),
                           **{status: counts[status] for status in
                              ("failed", "timed_out", "not_started", "not_own_code")},
                           "notes": sum(1 for g in mine if g.note)}
    return totals


def write_gradebook(out: Path, learners: list[str], exercises: list[catalog.Exercise],
                    grades: list[Grade], summary: dict, changed: list[str],
                    extra: dict) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out / "gradebook.csv", out / "gradebook.json"
    # utf-8-sig: a byte-order mark first, so a spreadsheet opened by double-click reads the
    # Chinese names and messages as UTF-8 (Excel guesses a local code page without it)
    with csv_path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for grade in grades:
            writer.writerow({key: report.spreadsheet_safe(value) for key, value in grade.row().items()})
    document = {"learners": learners, "exercises": [e.id for e in exercises],
                "results": [grade.row() for grade in grades], "summary": summary,
                "changed_during_grading": changed, **extra}
    json_path.write_bytes(report.json_file_bytes(document))
    return csv_path, json_path


def print_summary(summary: dict, exercises: list[catalog.Exercise], lang: str) -> None:
    headers = [t("harness.col.chapter", lang), t("harness.col.exercise", lang),
               t("harness.grade.col.passed", lang), t("harness.grade.col.rate", lang),
               t("harness.grade.col.not_started", lang), t("harness.grade.col.common", lang)]
    rows = []
    for exercise in exercises:
        line = summary[exercise.id]
        common = line["most_common_failure"]
        rows.append([f"{exercise.chapter:02d}", exercise.id, f"{line['passed']}/{line['total']}",
                     f"{100 * line['pass_rate']:.0f}%", str(line["not_started"]),
                     f"{common} ({line['most_common_failure_count']})" if common else ""])
    print(report.text_table(headers, rows))


def print_totals(totals: dict, lang: str) -> None:
    headers = [t("harness.grade.col.learner", lang), t("harness.grade.col.passed", lang),
               t("harness.status.failed", lang), t("harness.status.timed_out", lang),
               t("harness.status.not_started", lang), t("harness.status.not_own_code", lang),
               t("harness.grade.col.notes", lang)]
    rows = [[shown(learner), f"{line['passed']}/{line['total']}", str(line["failed"]),
             str(line["timed_out"]), str(line["not_started"]), str(line["not_own_code"]),
             shown(str(line["notes"] or ""))] for learner, line in totals.items()]
    print(report.text_table(headers, rows))


def the_walls(args: argparse.Namespace, hidden: list[Path]) -> Sandbox:
    limits = sandbox.Limits(memory=args.memory_mb * sandbox.MiB, cpu_seconds=args.cpu_seconds,
                            processes=args.processes,
                            file_size=args.file_size_mb * sandbox.MiB,
                            open_files=args.open_files, disk=args.disk_mb * sandbox.MiB)
    return Sandbox("rlimits" if args.no_sandbox else "bwrap", limits,
                   tuple(str(path.resolve()) for path in hidden))


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_said(parse_args, sys.argv[1:] if argv is None else argv)
    if args is None:
        return 2   # a wrong usage, said in one line
    lang = current_language(args.lang)
    made: list[Path] = []   # the gradebook folder, when this run made it
    try:
        with stopped_like_ctrl_c():   # from the first moment: Ctrl-C, SIGTERM, SIGHUP
            return grade_class(args, lang, made)
    except KeyboardInterrupt:
        try:
            print("\n" + t("harness.interrupted", lang), file=sys.stderr)
        except OSError:
            pass   # the terminal is gone (SIGHUP): the exit code says it
        return 130
    finally:   # stopped, or the course changed: no gradebook, so no empty folder either
        for folder in made:
            try:
                folder.rmdir()
            except OSError:
                pass


def grade_class(args: argparse.Namespace, lang: str, made: list[Path]) -> int:
    """``main`` after its arguments are read; ``made`` hears of the gradebook folder when
    this run makes it (removed again unless the gradebook is written into it)."""
    submissions = args.submissions
    if not submissions.is_dir():
        print(t("harness.grade.bad_dir", lang, path=str(submissions)), file=sys.stderr)
        return 2
    out = args.out.resolve()
    if out == submissions.resolve() or submissions.resolve() in out.parents:
        print(t("harness.grade.out_inside", lang, path=str(args.out)), file=sys.stderr)
        return 2
    try:
        exercises = catalog.select(args.exercise)
    except catalog.UnknownExercise as error:
        print(error.message(lang), file=sys.stderr)
        return 2
    problem = bad_argument(args, lang)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if args.no_sandbox:
        print(t("harness.grade.no_sandbox", lang), file=sys.stderr)
    elif sandbox.bwrap_path() is None:
        print(t("harness.grade.needs_bwrap", lang), file=sys.stderr)
        return 2
    elif sandbox.python_starts():
        print(t("harness.sandbox_broken", lang, detail=sandbox.python_starts()), file=sys.stderr)
        return 2
    folders, skipped = learner_folders(submissions)
    links = [name for name, why in skipped.items() if why == "link"]
    for why in SKIPPED_REASONS:   # each entry that is not graded is named, with the reason
        names = [name for name, reason in skipped.items() if reason == why]
        if names:
            print(t(f"harness.grade.skipped_{why}", lang, names=", ".join(map(shown, names))),
                  file=sys.stderr)
    if not folders:
        print(t("harness.grade.no_learners", lang, path=str(submissions)), file=sys.stderr)
        return 2
    learners = [folder.name for folder in folders]
    created = not out.exists()
    problem = ready_to_write(out, lang)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if created:
        made.append(out)

    print(t("harness.grade.start", lang, learners=len(learners), exercises=len(exercises)),
          flush=True)
    walls = the_walls(args, [submissions, out])
    before = fingerprint(submissions)
    # Every learner's code is copied before any of it runs.
    codes = {folder.name: Code(learner_code(folder), read_python_files(learner_code(folder)))
             for folder in folders}
    snapshots = {learner: code.files for learner, code in codes.items()}
    nested = nested_code(learners, snapshots, exercises)
    for learner, folder in nested.items():
        print(t("harness.grade.nested", lang, learner=shown(learner), folder=shown(folder)),
              file=sys.stderr)
    watch = CourseWatch()
    # One seed for the whole run: every learner, and the reference's timing, get the same
    # drawn inputs (tests/drawn.py), and the gradebook keeps it to reproduce any verdict.
    seed = drawn_seed()
    limits = TimeLimits(args.timeout, lang=lang, walls=walls, seed=seed)
    stalls = Stalls()
    pairs = in_running_order([(learner, exercise) for learner in learners
                              for exercise in exercises])
    jobs = [partial(grade_one, learner, exercise, codes[learner], limits, lang, walls, watch,
                    stalls) for learner, exercise in pairs]
    progress = report.ProgressBar(len(jobs), sys.stdout)
    done = run_in_parallel(jobs, workers=args.jobs, on_result=lambda grade: grade and
                           progress.advance(f"{grade.learner} {grade.result.exercise}"))
    progress.finish()
    by_pair = {(learner, exercise.id): grade
               for (learner, exercise), grade in zip(pairs, done)}
    graded = [by_pair[(learner, exercise.id)] for learner in learners for exercise in exercises]
    if (args.jobs or default_jobs()) > 1 and not watch.stop.is_set():
        graded = run_again(graded, codes, limits, lang, walls, watch, stalls,
                           args.jobs or default_jobs())
    if watch.stop.is_set():
        print(t("harness.grade.course_changed", lang,
                learners=", ".join(shown(name) for name in sorted(watch.suspects)),
                paths=", ".join(map(shown, watch.changed[:CHANGES_LISTED]))), file=sys.stderr)
        return 3
    grades = [grade for grade in graded if grade is not None]
    changed = changed_paths(before, fingerprint(submissions))
    notes = similarity.notes(exercises, snapshots,
                             {(g.learner, g.result.exercise): g.result.status for g in grades},
                             lang)
    grades = [replace(g, note=notes.get((g.learner, g.result.exercise), "")) for g in grades]

    summary = summarize(grades, exercises)
    totals = learner_totals(grades, learners)
    print_summary(summary, exercises, lang)
    print()
    print_totals(totals, lang)
    if changed:
        listed = ", ".join(map(shown, changed[:CHANGES_LISTED])) + (
            " ..." if len(changed) > CHANGES_LISTED else "")
        print(t("harness.grade.changed", lang, paths=listed))
    print(t("harness.grade.drawn_seed", lang, seed=seed))
    extra = {"learner_totals": totals, "skipped_links": links, "skipped": skipped,
             "nested_submissions": nested,
             "time_limits": {"floor": limits.floor, **limits.known},
             "reference_seconds": limits.reference_seconds, "sandbox": walls.mode,
             "limits": walls.limits.to_json(), "drawn_seed": seed}
    csv_path, json_path = write_gradebook(out, learners, exercises, grades, summary, changed,
                                          extra)
    made.clear()   # the folder is the gradebook's now
    print(t("harness.grade.written", lang, csv=str(csv_path), json=str(json_path)))
    try:
        page, table = class_report.write_reports(out, class_report.load_gradebook(out), lang)
        print(t("classroom.report.written", lang, page=str(page), table=str(table)))
    except (OSError, class_report.UserError) as error:
        print(t("classroom.report.unwritable", lang, error=str(error)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
