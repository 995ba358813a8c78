"""``python3 -m learn_pi_lab grade SUBMISSIONS_DIR --out DIR``: grade a whole class.

``SUBMISSIONS_DIR`` holds one folder per learner, each a copy of that learner's
``workspace/`` (a folder holding the whole course repository works too: its ``workspace/``
is used). Every learner gets every exercise, graded the way ``make verify`` grades, with
three extra precautions because the code is not yours:

* **Copies, taken first.** Before anything runs, each learner's ``.py`` files are read into
  memory. Grades come from those copies only, so code that writes into another learner's
  folder (or its own) while grading cannot change anybody's grade.
* **A sandbox per run.** Each (learner, exercise) runs in its own fresh copy, with ``HOME``,
  ``TMPDIR`` and the working directory inside it, under the usual time limit and output cap.
  An empty folder, a crash on import, an endless loop, megabytes of output or ``sys.exit()``
  is one learner's grade, never the end of the grading run.
* **A before/after check.** The submissions folder is fingerprinted before and after; any
  file that changed is reported (it is evidence, not an input to any grade).

Writes ``gradebook.csv`` and ``gradebook.json`` (learner, exercise, status, seconds, ...)
and prints the pass rate of each exercise with its most common failing test: where the class
gets stuck.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from learn_pi_lab.harness import catalog, report
from learn_pi_lab.harness.runner import (DEFAULT_TIMEOUT, ExerciseResult, run_exercise,
                                         run_in_parallel)
from learn_pi_lab.i18n import current_language, t

CSV_FIELDS = ("learner", "exercise", "chapter", "status", "seconds", "reason", "test", "detail")
CHANGES_LISTED = 10


@dataclass
class Grade:
    learner: str
    result: ExerciseResult

    def row(self) -> dict:
        result = self.result
        return {"learner": self.learner, "exercise": result.exercise,
                "chapter": catalog.get(result.exercise).chapter, "status": result.status,
                "seconds": result.seconds, "reason": result.reason, "test": result.test,
                "detail": result.detail}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python3 -m learn_pi_lab grade",
                                     description="Grade a folder of learner workspaces.")
    parser.add_argument("submissions", type=Path, metavar="SUBMISSIONS_DIR",
                        help="one sub-folder per learner, each a copy of their workspace/")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="where gradebook.csv and gradebook.json are written")
    parser.add_argument("--exercise", "-e", action="append", metavar="ID",
                        help="grade only this exercise (repeatable)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds allowed per exercise (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="exercises run at the same time (default: the number of CPUs)")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the summary")
    return parser.parse_args(argv)


def learner_code(folder: Path) -> Path:
    """The folder holding the learner's ``chNN_*.py`` files: the folder itself, or its
    ``workspace/`` when someone handed in the whole course repository."""
    nested = folder / "workspace"
    if not any(folder.glob("ch[0-9][0-9]_*.py")) and nested.is_dir():
        return nested
    return folder


def read_python_files(folder: Path) -> dict[str, bytes]:
    """Every ``.py`` file under ``folder``, read into memory: ``{relative path: content}``.

    Regular files only (a symbolic link could point anywhere). Keeping the copy in memory
    rather than on disk means no learner's code, whatever it writes, can reach it.
    """
    files: dict[str, bytes] = {}
    for current, subfolders, names in os.walk(folder):
        subfolders[:] = [name for name in subfolders
                         if not name.startswith(".") and name != "__pycache__"
                         and not os.path.islink(os.path.join(current, name))]
        for name in names:
            path = Path(current) / name
            if name.endswith(".py") and path.is_file() and not path.is_symlink():
                files[str(path.relative_to(folder))] = path.read_bytes()
    return files


def write_files(files: dict[str, bytes], target: Path) -> None:
    target.mkdir(parents=True)
    for relative, content in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def fingerprint(folder: Path) -> dict[str, tuple[int, int]]:
    """``{relative path: (size, modification time)}`` for every file: cheap, and enough to
    notice that something was written."""
    found: dict[str, tuple[int, int]] = {}
    for current, subfolders, files in os.walk(folder):
        for name in files + [d for d in subfolders if os.path.islink(os.path.join(current, d))]:
            path = os.path.join(current, name)
            status = os.lstat(path)
            found[os.path.relpath(path, folder)] = (status.st_size, status.st_mtime_ns)
    return found


def changed_paths(before: dict[str, tuple[int, int]],
                  after: dict[str, tuple[int, int]]) -> list[str]:
    return sorted(path for path in before.keys() | after.keys()
                  if before.get(path) != after.get(path))


def grade_one(learner: str, exercise: catalog.Exercise, files: dict[str, bytes], root: Path,
              timeout: float, lang: str) -> Grade:
    """One exercise of one learner, in a fresh sandbox made from the learner's files."""
    sandbox = Path(tempfile.mkdtemp(prefix=f"{exercise.id}-", dir=root))
    workspace, home, scratch = sandbox / "workspace", sandbox / "home", sandbox / "tmp"
    write_files(files, workspace)
    home.mkdir()
    scratch.mkdir()
    private = {"HOME": str(home), "USERPROFILE": str(home), "TMPDIR": str(scratch),
               "TEMP": str(scratch), "TMP": str(scratch)}
    result = run_exercise(exercise, workspace, timeout=timeout, lang=lang, cwd=sandbox,
                          extra_env=private)
    shutil.rmtree(sandbox, ignore_errors=True)
    return Grade(learner, result)


def summarize(grades: list[Grade], exercises: list[catalog.Exercise]) -> dict[str, dict]:
    """Per exercise: how many passed, the pass rate, and the most common way to fail: the
    first failing test, or the reason when no test got to fail (``import-error``,
    ``timeout``, ``output-limit``, ``crashed``)."""
    summary = {}
    for exercise in exercises:
        mine = [g.result for g in grades if g.result.exercise == exercise.id]
        passed = sum(r.status == "passed" for r in mine)
        not_started = sum(r.status == "not_started" for r in mine)
        failing = Counter(r.test or r.reason for r in mine
                          if r.status in ("failed", "timed_out"))
        common = failing.most_common(1)
        summary[exercise.id] = {"passed": passed, "not_started": not_started,
                                "total": len(mine),
                                "pass_rate": round(passed / len(mine), 3) if mine else 0.0,
                                "most_common_failure": common[0][0] if common else None,
                                "most_common_failure_count": common[0][1] if common else 0}
    return summary


def write_gradebook(out: Path, learners: list[str], exercises: list[catalog.Exercise],
                    grades: list[Grade], summary: dict, changed: list[str]) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out / "gradebook.csv", out / "gradebook.json"
    with csv_path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for grade in grades:
            writer.writerow(grade.row())
    document = {"learners": learners, "exercises": [e.id for e in exercises],
                "results": [grade.row() for grade in grades], "summary": summary,
                "changed_during_grading": changed}
    json_path.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n",
                         encoding="utf-8")
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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    lang = current_language(args.lang)
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
    if args.timeout <= 0:
        print(t("harness.bad_timeout", lang, timeout=args.timeout), file=sys.stderr)
        return 2
    folders = sorted(path for path in submissions.iterdir()
                     if path.is_dir() and not path.is_symlink() and not path.name.startswith("."))
    if not folders:
        print(t("harness.grade.no_learners", lang, path=str(submissions)), file=sys.stderr)
        return 2
    learners = [folder.name for folder in folders]

    print(t("harness.grade.start", lang, learners=len(learners), exercises=len(exercises)),
          flush=True)
    before = fingerprint(submissions)
    # Every learner's code is copied before any of it runs.
    snapshots = {folder.name: read_python_files(learner_code(folder)) for folder in folders}
    with tempfile.TemporaryDirectory(prefix="learn-pi-lab-grade-") as temporary:
        root = Path(temporary)
        jobs = [partial(grade_one, learner, exercise, snapshots[learner], root,
                        args.timeout, lang)
                for learner in learners for exercise in exercises]
        progress = report.ProgressBar(len(jobs), sys.stdout)
        try:
            grades = run_in_parallel(jobs, workers=args.jobs, on_result=lambda grade:
                                     progress.advance(f"{grade.learner} {grade.result.exercise}"))
        except KeyboardInterrupt:
            print("\n" + t("harness.interrupted", lang), file=sys.stderr)
            return 130
        progress.finish()
    changed = changed_paths(before, fingerprint(submissions))

    summary = summarize(grades, exercises)
    print_summary(summary, exercises, lang)
    if changed:
        listed = ", ".join(changed[:CHANGES_LISTED]) + (" ..." if len(changed) > CHANGES_LISTED
                                                         else "")
        print(t("harness.grade.changed", lang, paths=listed))
    csv_path, json_path = write_gradebook(out, learners, exercises, grades, summary, changed)
    print(t("harness.grade.written", lang, csv=str(csv_path), json=str(json_path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
