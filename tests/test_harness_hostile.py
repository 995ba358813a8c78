"""A class with cheats in it: every cheat fails, nothing outside its sandbox changes, and the
honest learners get the grades they get without the cheats.

The cheats are data: ``tests/hostile_submissions/<case>/`` holds the learner's file(s) and
``expect.json`` (the exercise, the status and reason it must get, and why). ``{{SUBMISSIONS}}``
in a file becomes the class's submissions folder, so a cheat can aim at a real path. The
whole class, cheats and honest learners together, is graded in one ``grade`` run, as a
teacher would run it, with the sandbox (``bwrap``) active.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import pytest

from learn_pi_lab.harness import catalog, files, grade, sandbox

REPO = Path(__file__).resolve().parents[1]
CASES = sorted(path for path in (REPO / "tests" / "hostile_submissions").iterdir()
               if path.is_dir())
REFERENCE = REPO / "learn_pi_lab" / "lessons"
STUBS = catalog.default_workspace()
EXERCISES = ("path-to", "resolve-labels", "file-backend", "extension-state")
HONEST = {  # learner: {exercise: (status, reason)}
    "honest-stub": {"path-to": ("not_started", "not-implemented"),
                    "resolve-labels": ("not_started", "not-implemented"),
                    "file-backend": ("not_started", "not-implemented"),
                    "extension-state": ("not_started", "not-implemented")},
    "honest-partial": {"path-to": ("not_started", "not-implemented"),
                       "resolve-labels": ("passed", None),
                       "file-backend": ("not_started", "not-implemented"),
                       "extension-state": ("not_started", "not-implemented")},
    "honest-full": {"path-to": ("passed", None), "resolve-labels": ("passed", None),
                    "file-backend": ("passed", None), "extension-state": ("passed", None)},
}
FILES = sorted({catalog.get(exercise).filename for exercise in EXERCISES})

if sandbox.bwrap_path() is None and not os.environ.get("CI"):
    pytest.skip("bubblewrap is not installed (CI installs it: .ci/run)", allow_module_level=True)


def expectation(case: Path) -> dict:
    return json.loads((case / "expect.json").read_text(encoding="utf-8"))


def build_class(root: Path, *, cheats: bool) -> Path:
    submissions = root / "submissions"
    for learner in HONEST:
        (submissions / learner).mkdir(parents=True)
        for name in FILES:
            source = REFERENCE if learner == "honest-full" else STUBS
            shutil.copyfile(source / name, submissions / learner / name)
    shutil.copyfile(REFERENCE / catalog.get("resolve-labels").filename,
                    submissions / "honest-partial" / catalog.get("resolve-labels").filename)
    if cheats:
        for case in CASES:
            folder = submissions / case.name
            folder.mkdir()
            for path in case.glob("*.py"):
                text = path.read_text(encoding="utf-8")
                (folder / path.name).write_text(
                    text.replace("{{SUBMISSIONS}}", str(submissions)), encoding="utf-8")
            make(folder, expectation(case).get("make", {}), submissions)
    return submissions


def make(folder: Path, what: dict, submissions: Path) -> None:
    """What a case's files cannot hold: an untouched stub file, a link, a named pipe, a
    folder tree ``deep`` levels deep (``expect.json``'s ``make``)."""
    if "stub" in what:
        shutil.copyfile(STUBS / what["stub"], folder / what["stub"])
    if "link" in what:
        name, target = what["link"]
        (folder / name).symlink_to(target.replace("{{SUBMISSIONS}}", str(submissions)))
    if "fifo" in what:
        os.mkfifo(folder / what["fifo"])
    if "deep" in what:   # os.makedirs recurses too: one level at a time
        here = os.open(folder, os.O_RDONLY)
        for _ in range(what["deep"]):
            os.mkdir("d", dir_fd=here)
            below = os.open("d", os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = below
        os.close(here)


def run_grade(submissions: Path, out: Path) -> tuple[int, str, str]:
    argv = [str(submissions), "--out", str(out), "--lang", "en", "--timeout", "8",
            *[part for exercise in EXERCISES for part in ("-e", exercise)]]
    printed, errors = io.StringIO(), io.StringIO()
    with redirect_stdout(printed), redirect_stderr(errors):
        code = grade.main(argv)
    return code, printed.getvalue(), errors.getvalue()


def survivors(marker: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                command = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if marker.encode() in command:
                found.append(int(name))
    return found


@lru_cache(maxsize=1)
def graded(root: Path) -> dict:
    submissions = build_class(root / "with-cheats", cheats=True)
    before = {folder.name: grade.fingerprint(folder) for folder in submissions.iterdir()}
    course_before = grade.course_fingerprint()
    code, printed, errors = run_grade(submissions, root / "with-cheats" / "book")
    after = {folder.name: grade.fingerprint(folder) for folder in submissions.iterdir()}
    course_after = grade.course_fingerprint()
    book = json.loads((root / "with-cheats" / "book" / "gradebook.json").read_text("utf-8"))

    honest_only = build_class(root / "honest-only", cheats=False)
    run_grade(honest_only, root / "honest-only" / "book")
    alone = json.loads((root / "honest-only" / "book" / "gradebook.json").read_text("utf-8"))
    return {"code": code, "printed": printed, "errors": errors, "book": book,
            "alone": alone, "before": before, "after": after, "course_before": course_before,
            "course_after": course_after, "root": root}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    root = tmp_path_factory.mktemp("hostile")
    yield graded(root)
    files.remove_tree(root)   # deeper than pytest's own (recursive) clean-up can go


def row(book: dict, learner: str, exercise: str) -> dict:
    return next(r for r in book["results"]
                if (r["learner"], r["exercise"]) == (learner, exercise))


def test_grading_finishes(run: dict) -> None:
    assert run["code"] == 0, run["errors"]


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_each_cheat_fails_with_its_reason(run: dict, case: Path) -> None:
    expect = expectation(case)
    got = row(run["book"], case.name, expect["exercise"])
    assert got["status"] != "passed"
    assert (got["status"], got["reason"]) == (expect["status"], expect["reason"]), got
    if "detail_contains" in expect:
        assert expect["detail_contains"] in got["detail"], got
    if "test_contains" in expect:
        assert expect["test_contains"] in (got["test"] or ""), got


def test_no_cheat_passes_anything(run: dict) -> None:
    cheats = {case.name for case in CASES}
    passed = [(r["learner"], r["exercise"]) for r in run["book"]["results"]
              if r["learner"] in cheats and r["status"] == "passed"]
    assert passed == []


def test_honest_learners_keep_their_grades(run: dict) -> None:
    for learner, wanted in HONEST.items():
        for exercise, status in wanted.items():
            with_cheats = row(run["book"], learner, exercise)
            alone = row(run["alone"], learner, exercise)
            assert (with_cheats["status"], with_cheats["reason"]) == status, with_cheats
            assert (alone["status"], alone["reason"], alone["test"]) == \
                (with_cheats["status"], with_cheats["reason"], with_cheats["test"])


def test_the_course_and_every_submission_are_byte_identical(run: dict) -> None:
    assert run["course_after"] == run["course_before"]
    assert run["after"] == run["before"]
    assert run["book"]["changed_during_grading"] == []


def test_nothing_is_written_outside_the_sandbox(run: dict) -> None:
    for path in (Path("/tmp/hostile-was-here"), Path.home() / "hostile-was-here",
                 REPO / "hostile-was-here"):
        assert not path.exists(), path
    leftovers = [relative for relative, _info in files.entries(run["root"])
                 if Path(relative).name in ("sibling-was-here", "report.json")]
    assert leftovers == []
    assert sorted(p.name for p in (run["root"] / "with-cheats" / "book").iterdir()) == \
        ["gradebook.csv", "gradebook.json", "lms.csv", "report.html"]


def test_no_process_outlives_the_run(run: dict) -> None:
    for case in CASES:
        marker = expectation(case).get("survivor")
        if marker:
            assert survivors(marker) == [], case.name


def test_the_gradebook_keeps_the_evidence(run: dict) -> None:
    stalled = row(run["book"], "stalls-forever", "resolve-labels")
    assert stalled["test"] and stalled["test"].startswith("ResolveLabelsTests.")
    socket = row(run["book"], "opens-a-socket", "resolve-labels")
    assert socket["where"].startswith("ch05_records_and_state.py:4"), socket
    report = row(run["book"], "forges-a-report", "resolve-labels")
    assert '"outcome": "passed"' in report["output"], "what it printed is kept as evidence"
    assert run["book"]["sandbox"] == "bwrap"
    assert "honest-full" in run["printed"] and "4/4" in run["printed"]
    linked = row(run["book"], "links-a-teacher-file", "file-backend")
    assert "root:" not in linked["detail"] + linked["output"], "no teacher file is quoted"


def test_the_csv_gradebook_is_text_to_a_spreadsheet(run: dict) -> None:
    import csv
    with (run["root"] / "with-cheats" / "book" / "gradebook.csv").open(encoding="utf-8-sig") as f:
        cells = [cell for row in csv.reader(f) for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "@", "\r")], "no formula"
    assert not [cell for cell in cells if any(ord(c) < 32 and c not in "\n\t" for c in cell)]
    printed = row(run["book"], "prints-a-formula", "resolve-labels")["output"]
    assert "=HYPERLINK" in printed, "the JSON gradebook keeps the evidence as it was"


def test_a_linked_workspace_gives_nobody_a_note(run: dict) -> None:
    assert "links-a-classmates-workspace" not in row(run["book"], "honest-full",
                                                    "resolve-labels")["note"]
