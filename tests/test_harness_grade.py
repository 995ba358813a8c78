"""``grade`` over a class with good, wrong and hostile submissions.

A realistic bad day for a teacher: model answers, untouched stubs, a wrong answer, an empty
folder, a syntax error, an endless loop, a flood of output, ``sys.exit()`` on import, a
submission that tries to write into another learner's folder and into the submissions folder,
and one learner who handed in the whole course repository. Grading must finish and give each
its correct grade; in the sandbox the hostile writes cannot even happen (the submissions
folder is not there for the learner's code), so that submission fails on import.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from functools import lru_cache
from pathlib import Path

import pytest

from learn_pi_lab.harness import catalog, grade, report, runner

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "learn_pi_lab" / "lessons"
LABELS_FILE = catalog.get("resolve-labels").filename          # ch05_records_and_state.py
STATE_FILE = catalog.get("extension-state").filename          # ch08_design_your_own.py
BROKEN = "raise RuntimeError('overwritten while grading')\n"

EXPECTED = {  # learner: (resolve-labels status, reason), (extension-state status, reason)
    "alice": (("passed", None), ("passed", None)),
    "bob": (("not_started", "not-implemented"), ("not_started", "not-implemented")),
    "carol": (("failed", "assertion"), ("passed", None)),
    "dave": (("not_started", "missing-file"), ("not_started", "missing-file")),
    "erin": (("failed", "import-error"), ("passed", None)),
    "frank": (("timed_out", "timeout"), ("passed", None)),
    "grace": (("failed", "output-limit"), ("passed", None)),
    "heidi": (("failed", "import-error"), ("passed", None)),
    "ivan": (("failed", "import-error"), ("passed", None)),
    "judy": (("passed", None), ("passed", None)),
}


def labels_with(body: str) -> str:
    return textwrap.dedent(body)


def build_class(root: Path) -> Path:
    submissions = root / "submissions"
    for learner in EXPECTED:
        (submissions / learner).mkdir(parents=True)

    def give(learner: str, name: str, text: str) -> None:
        (submissions / learner / name).write_text(text, encoding="utf-8")

    def model_answers(learner: str) -> None:
        for name in (LABELS_FILE, STATE_FILE):
            shutil.copyfile(REFERENCE / name, submissions / learner / name)

    model_answers("alice")
    for name in (LABELS_FILE, STATE_FILE):
        shutil.copyfile(catalog.default_workspace() / name, submissions / "bob" / name)
    for learner in ("carol", "erin", "frank", "grace", "heidi", "ivan"):
        model_answers(learner)
    shutil.copyfile(REPO / "tests/solutions/wrong/resolve-labels/empty-label-does-not-clear"
                    / LABELS_FILE, submissions / "carol" / LABELS_FILE)
    give("erin", LABELS_FILE, "def resolve_labels(entries)\n    return {}\n")
    give("frank", LABELS_FILE, "def resolve_labels(entries):\n    while True:\n        pass\n")
    give("grace", LABELS_FILE,
         "def resolve_labels(entries):\n    while True:\n        print('label?' * 100)\n")
    give("heidi", LABELS_FILE, "import sys\nsys.exit(0)\n")
    # ivan's answer is right, but importing it tries to damage alice's folder and to leave a
    # file in the submissions folder and in its home folder.
    hostile = labels_with(f"""
        from pathlib import Path
        Path({str(submissions / 'alice' / LABELS_FILE)!r}).write_text({BROKEN!r})
        Path({str(submissions / 'PWNED.txt')!r}).write_text("ivan was here")
        (Path.home() / "ivan-was-here").write_text("home sweet home")
    """)
    give("ivan", LABELS_FILE, (REFERENCE / LABELS_FILE).read_text(encoding="utf-8") + hostile)
    (submissions / "judy" / "workspace").mkdir()
    for name in (LABELS_FILE, STATE_FILE):
        shutil.copyfile(REFERENCE / name, submissions / "judy" / "workspace" / name)
    (submissions / ".hidden").mkdir()   # not a learner
    return submissions


def run_grade(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = grade.main(list(argv))
    return code, out.getvalue(), err.getvalue()


@lru_cache(maxsize=1)
def graded_class(root: Path) -> tuple[int, str, Path, Path]:
    submissions = build_class(root)
    out = root / "gradebook"
    code, printed, _err = run_grade(str(submissions), "--out", str(out), "--lang", "en",
                                    "-e", "resolve-labels", "-e", "extension-state",
                                    "--timeout", "5", "--jobs", "4")
    return code, printed, submissions, out


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path, Path]:
    return graded_class(tmp_path_factory.mktemp("class"))


def test_grading_finishes(graded: tuple) -> None:
    code, printed, _submissions, _out = graded
    assert code == 0
    assert "resolve-labels" in printed and "extension-state" in printed


def test_every_learner_gets_the_right_grade(graded: tuple) -> None:
    _code, _printed, _submissions, out = graded
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    assert book["learners"] == sorted(EXPECTED)
    assert book["exercises"] == ["resolve-labels", "extension-state"]
    found = {(row["learner"], row["exercise"]): (row["status"], row["reason"])
             for row in book["results"]}
    for learner, (labels, state) in EXPECTED.items():
        assert found[(learner, "resolve-labels")] == labels, learner
        assert found[(learner, "extension-state")] == state, learner


def test_writes_outside_the_sandbox_cannot_happen(graded: tuple) -> None:
    _code, printed, submissions, out = graded
    assert (submissions / "alice" / LABELS_FILE).read_bytes() == \
        (REFERENCE / LABELS_FILE).read_bytes()
    assert not (submissions / "PWNED.txt").exists()
    assert not (Path.home() / "ivan-was-here").exists()
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    assert book["changed_during_grading"] == []
    assert "changed while grading" not in printed
    ivan = next(row for row in book["results"]
                if (row["learner"], row["exercise"]) == ("ivan", "resolve-labels"))
    assert "No such file or directory" in ivan["detail"], ivan
    assert ivan["where"].startswith(f"{LABELS_FILE}:"), ivan


def test_changed_paths_are_found_by_content(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    before = grade.fingerprint(tmp_path)
    (tmp_path / "a.py").write_text("x = 2\n")
    (tmp_path / "b.py").write_text("")
    assert grade.changed_paths(before, grade.fingerprint(tmp_path)) == ["a.py", "b.py"]


def test_the_csv_gradebook(graded: tuple) -> None:
    _code, _printed, _submissions, out = graded
    with (out / "gradebook.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * len(EXPECTED)
    assert {"learner", "exercise", "status", "seconds"} <= set(rows[0])
    carol = next(r for r in rows if (r["learner"], r["exercise"]) == ("carol", "resolve-labels"))
    assert carol["test"] == "ResolveLabelsTests.test_empty_label_clears"
    assert "empty label clears" in carol["detail"]
    assert all(float(row["seconds"]) >= 0 for row in rows)


def test_the_pass_rate_summary(graded: tuple) -> None:
    _code, printed, _submissions, out = graded
    summary = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))["summary"]
    assert summary["resolve-labels"]["passed"] == 2     # alice, judy
    assert summary["resolve-labels"]["total"] == 10
    assert summary["extension-state"]["passed"] == 8    # all but bob and dave
    assert summary["resolve-labels"]["not_started"] == 2   # bob (stub) and dave (no file)
    assert summary["extension-state"]["not_started"] == 2
    # erin, heidi and ivan never got past the import; carol, frank and grace fail in three
    # ways.
    assert summary["resolve-labels"]["most_common_failure"] == "import-error"
    assert summary["resolve-labels"]["most_common_failure_count"] == 3
    assert summary["extension-state"]["most_common_failure"] is None
    line = next(l for l in printed.splitlines() if "resolve-labels" in l)
    assert "2/10" in line and "20%" in line
    assert "not started" in printed
    alice = next(l for l in printed.splitlines() if l.startswith("alice "))
    assert "2/2" in alice, "each learner's total is printed too"


def test_a_missing_submissions_folder_is_exit_2(tmp_path: Path) -> None:
    code, out, err = run_grade(str(tmp_path / "nope"), "--out", str(tmp_path / "out"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "nope" in err


def test_a_file_instead_of_a_folder_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    code, _out, err = run_grade(str(tmp_path / "file.txt"), "--out", str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1


def test_no_learner_folders_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "subs").mkdir()
    code, _out, err = run_grade(str(tmp_path / "subs"), "--out", str(tmp_path / "out"),
                                "--lang", "en")
    assert code == 2 and "no learner folders" in err


def test_the_gradebook_may_not_go_inside_the_submissions(tmp_path: Path) -> None:
    (tmp_path / "subs" / "alice").mkdir(parents=True)
    code, _out, err = run_grade(str(tmp_path / "subs"), "--out", str(tmp_path / "subs" / "book"),
                                "--lang", "en")
    assert code == 2 and "--out" in err
    assert not (tmp_path / "subs" / "book").exists()


def small_class(tmp_path: Path) -> Path:
    submissions = tmp_path / "subs"
    for learner in ("amy", "ben"):
        (submissions / learner).mkdir(parents=True)
        shutil.copyfile(REFERENCE / LABELS_FILE, submissions / learner / LABELS_FILE)
    return submissions


SURROGATE_RAISES = """
import json


def resolve_labels(entries):
    raise ValueError("no label " + json.loads('"\\\\ud800"'))
"""
SURROGATE_RETURNS = """
import json


def resolve_labels(entries):
    return {json.loads('"\\\\ud800"'): "x"}
"""


def test_a_lone_surrogate_in_a_message_or_a_value_is_graded_not_a_crash(tmp_path: Path) -> None:
    """A teacher's review: ``json.loads('"\\ud800"')`` in a learner's exception message
    killed the test process on its way out (UTF-8 cannot carry it): "crashed", no message."""
    submissions = tmp_path / "subs"
    for learner, body in (("erin", SURROGATE_RAISES), ("fred", SURROGATE_RETURNS)):
        (submissions / learner).mkdir(parents=True)
        stub = (catalog.default_workspace() / LABELS_FILE).read_text(encoding="utf-8")
        (submissions / learner / LABELS_FILE).write_text(
            stub[:stub.index("def resolve_labels")] + body, encoding="utf-8")
    code, out, err = run_grade(str(submissions), "--out", str(tmp_path / "book"),
                               "--lang", "en", "-e", "resolve-labels", "--jobs", "2")
    assert code == 0, err
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    rows = {row["learner"]: row for row in book["results"]}
    assert rows["erin"]["status"] == rows["fred"]["status"] == "failed"
    assert rows["erin"]["reason"] == "error"
    message, called = rows["erin"]["detail"].splitlines()   # the error, then the input it met
    assert message == "ValueError: no label \ud800"
    assert called.startswith("What your function was given: resolve_labels([{")
    assert rows["erin"]["where"].startswith(LABELS_FILE)
    assert rows["fred"]["reason"] == "assertion" and "returned:" in rows["fred"]["detail"]
    csv_text = (tmp_path / "book" / "gradebook.csv").read_text(encoding="utf-8-sig")
    assert "no label \\ud800" in csv_text   # the escape, readable


@pytest.mark.parametrize("jobs", ["2", "1"])
def test_a_run_that_timed_out_crowded_is_run_again_and_a_stall_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    """A teacher's review: a learner's code that starts many busy processes slowed an honest
    classmate running beside it past the time limit. A time-out while other work took the
    run's processor (``waited``) is run again (here amy's run beside the others is made to
    look so: alone, her code passes); ben's loop had its processor and did not finish: its
    time-out stands, and costs no second run. With ``--jobs 1`` every run was alone."""
    real, real_again = grade.run_calibrated, grade.run_exercise
    again: list[float] = []

    def crowded(exercise, workspace, limits, **options):
        result = real(exercise, workspace, limits, **options)
        if options["files"] == amy_files:
            result.status, result.reason = "timed_out", "timeout"
            result.waited = result.seconds   # it waited for a processor all along
        else:
            result.waited = 0.0   # (whatever this machine's load: ben had his processor)
        return result

    def run_again(exercise, workspace, *, timeout, **options):
        again.append(timeout)
        return real_again(exercise, workspace, timeout=timeout, **options)
    submissions = small_class(tmp_path)
    (submissions / "ben" / LABELS_FILE).write_text("def resolve_labels(entries):\n"
                                                   "    while True:\n        pass\n")
    amy_files = grade.read_python_files(grade.learner_code(submissions / "amy"))
    monkeypatch.setattr(grade, "run_calibrated", crowded)
    monkeypatch.setattr(grade, "run_exercise", run_again)
    code, out, err = run_grade(str(submissions), "--out", str(tmp_path / "book"), "--lang", "en",
                               "-e", "resolve-labels", "--jobs", jobs, "--timeout", "2")
    assert code == 0, err
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    statuses = {row["learner"]: row["status"] for row in book["results"]}
    if jobs == "1":
        assert again == [] and "hung on" not in out
        assert statuses == {"amy": "timed_out", "ben": "timed_out"}
        return
    assert "1 run(s) hung on how busy the machine was" in out
    assert len(again) == 1 and again[0] >= 2
    assert statuses == {"amy": "passed", "ben": "timed_out"}


def test_a_run_crowded_again_runs_once_more_alone(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The re-runs run two at a time; one that is crowded again (a neighbour with many busy
    processes) runs once more, alone."""
    real = grade.run_exercise
    calls: list[str] = []

    def crowded_twice(exercise, workspace, *, timeout, **options):
        result = real(exercise, workspace, timeout=timeout, **options)
        calls.append(Path(workspace).name)
        if Path(workspace).name == "amy" and calls.count("amy") == 1:
            result.status, result.reason, result.waited = "timed_out", "timeout", result.seconds
        return result

    def crowded(exercise, workspace, limits, **options):
        result = real(exercise, workspace, timeout=limits.floor, **options)
        if Path(workspace).name == "amy":
            result.status, result.reason, result.waited = "timed_out", "timeout", result.seconds
        return result
    submissions = small_class(tmp_path)
    monkeypatch.setattr(grade, "run_calibrated", crowded)
    monkeypatch.setattr(grade, "run_exercise", crowded_twice)
    code, out, err = run_grade(str(submissions), "--out", str(tmp_path / "book"), "--lang", "en",
                               "-e", "resolve-labels", "--jobs", "2", "--timeout", "2")
    assert code == 0, err
    assert calls == ["amy", "amy"]
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    assert {row["learner"]: row["status"] for row in book["results"]}["amy"] == "passed"


def test_a_file_whose_import_stalls_is_judged_once_for_all_its_exercises(
        tmp_path: Path) -> None:
    """An attacker's review: a learner whose file never finishes importing cost a time limit
    per exercise, and again per exercise alone. Each exercise of that file is judged from
    the one run (the same verdict, the same line)."""
    submissions = tmp_path / "submissions"
    (submissions / "staller").mkdir(parents=True)
    (submissions / "staller" / LABELS_FILE).write_text(
        "import time\n\ntime.sleep(3600)\n", encoding="utf-8")
    code, _out, err = run_grade(str(submissions), "--out", str(tmp_path / "book"), "--lang",
                                "en", "-e", "state-at", "-e", "resolve-labels", "--jobs", "1",
                                "--timeout", "3")
    assert code == 0, err
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    rows = {row["exercise"]: row for row in book["results"]}
    assert {exercise: (row["status"], row["where"]) for exercise, row in rows.items()} == {
        "state-at": ("timed_out", "ch05_records_and_state.py:3 in <module>"),
        "resolve-labels": ("timed_out", "ch05_records_and_state.py:3 in <module>")}
    assert rows["resolve-labels"]["seconds"] == rows["state-at"]["seconds"]   # one run


def test_a_pass_on_a_grown_limit_is_judged_alone_on_a_limit_timed_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An attacker's review: busy processes beside the reference's timing made it look ten
    times slower; the grown limit let the attacker's own too-slow code pass. A pass that
    needed more than --timeout is judged again alone, on a limit whose reference was timed
    alone (here the first pass is made to look like one: amy's code sleeps 4 s, and alone
    the limit is --timeout, 2 s, as the reference is fast)."""
    real = grade.run_calibrated

    def on_a_grown_limit(exercise, workspace, limits, **options):
        result = real(exercise, workspace, limits, **options)
        if options["files"] == amy_files:
            result.status, result.reason, result.seconds = "passed", "", 4.5
        return result
    submissions = small_class(tmp_path)
    slow = (REFERENCE / LABELS_FILE).read_text(encoding="utf-8").replace(
        "def resolve_labels(", "import time\n\n\ndef resolve_labels(", 1).replace(
        "    labels: dict", "    time.sleep(4)\n    labels: dict", 1)
    assert "time.sleep(4)" in slow
    (submissions / "amy" / LABELS_FILE).write_text(slow, encoding="utf-8")
    amy_files = grade.read_python_files(grade.learner_code(submissions / "amy"))
    monkeypatch.setattr(grade, "run_calibrated", on_a_grown_limit)
    code, out, err = run_grade(str(submissions), "--out", str(tmp_path / "book"), "--lang", "en",
                               "-e", "resolve-labels", "--jobs", "2", "--timeout", "2")
    assert code == 0, err
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    statuses = {row["learner"]: row["status"] for row in book["results"]}
    assert statuses == {"amy": "timed_out", "ben": "passed"}, statuses
    assert "1 run(s) hung on how busy the machine was" in out
    assert book["reference_seconds"]["resolve-labels"] < 2   # timed alone, and used


def test_grading_refuses_to_run_without_the_sandbox(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grade.sandbox, "bwrap_path", lambda: None)
    code, out, err = run_grade(str(small_class(tmp_path)), "--out", str(tmp_path / "book"),
                               "--lang", "en", "-e", "resolve-labels")
    assert code == 2 and "bubblewrap" in err and "--no-sandbox" in err
    assert not (tmp_path / "book").exists()


def test_no_sandbox_says_what_it_gives_up(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grade.sandbox, "bwrap_path", lambda: None)
    code, out, err = run_grade(str(small_class(tmp_path)), "--out", str(tmp_path / "book"),
                               "--lang", "en", "-e", "resolve-labels", "--no-sandbox")
    assert code == 0
    assert "--no-sandbox" in err and "other learners' submissions" in err
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    assert book["sandbox"] == "rlimits"
    assert [row["status"] for row in book["results"]] == ["passed", "passed"]


def test_a_changed_course_stops_grading_and_names_the_submissions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = iter(range(1000))
    monkeypatch.setattr(grade, "course_fingerprint",
                        lambda: {"tests/targets.py": "before" if next(calls) == 0 else "after"})
    code, out, err = run_grade(str(small_class(tmp_path)), "--out", str(tmp_path / "book"),
                               "--lang", "en", "-e", "resolve-labels", "--jobs", "1")
    assert code == 3
    assert "Grading stopped" in err and "tests/targets.py" in err and "amy" in err
    assert not (tmp_path / "book").exists()   # no gradebook, and no empty folder made for it


def test_similar_solutions_get_a_note(graded: tuple) -> None:
    _code, _printed, _submissions, out = graded
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    alice = next(r for r in book["results"]
                 if (r["learner"], r["exercise"]) == ("alice", "resolve-labels"))
    assert "same as the reference solution" in alice["note"] and "judy" in alice["note"]
    bob = next(r for r in book["results"]
               if (r["learner"], r["exercise"]) == ("bob", "resolve-labels"))
    assert bob["note"] == "", "the untouched stub is nobody's solution"


LOOKUP_TABLE = '''
import os


class MemoryBackend:
    """An honest backend beside the table: it gets no note."""
    def __init__(self):
        self._items = []
    def append(self, obj):
        self._items.append(dict(obj))
    def read_all(self):
        return [dict(item) for item in self._items]


ANSWERS = {("c1", "c2"): {"n": 2}, ("c1", "c2", "c3"): {"n": 1},
           ("c1", "m", "c2", "c3"): {"items": ["a", "b"], "done": 1}}


def rebuild_extension_state(path_entries, custom_type):
    ids = tuple(entry.get("id") for entry in path_entries)
    return dict(ANSWERS.get(ids, {}))
'''


def test_answers_looked_up_from_the_tests_get_a_note() -> None:
    # (a teacher's review: a table keyed on the tests' entry ids passed extension-state.
    # Graded, such a table now fails the drawn inputs' test, tests/test_harness_drawn.py;
    # the note stays for a table that passes anyway, in an exercise without drawn inputs,
    # and is what this checks, with the statuses given as "passed")
    from learn_pi_lab.harness import similarity
    exercises = [catalog.get("memory-backend"), catalog.get("extension-state")]
    snapshots = {"mallory": {"ch08_design_your_own.py": LOOKUP_TABLE.encode()},
                 "alice": {"ch08_design_your_own.py": (REFERENCE / "ch08_design_your_own.py")
                           .read_bytes()}}
    statuses = {(learner, exercise.id): "passed" for learner in snapshots
                for exercise in exercises}
    notes = similarity.notes(exercises, snapshots, statuses, "en")
    assert "may be looked up, not computed" in notes[("mallory", "extension-state")]
    assert "'c1'" in notes[("mallory", "extension-state")]
    assert ("mallory", "memory-backend") not in notes    # its own code spells out none
    assert "looked up" not in notes.get(("alice", "extension-state"), "")


def test_no_honest_or_plausibly_wrong_solution_looks_looked_up() -> None:
    from learn_pi_lab.harness import similarity
    solutions = REPO / "tests" / "solutions"
    for exercise in catalog.exercises():
        from_tests = similarity.test_values(exercise)
        assert from_tests, exercise.id   # the tests spell out values of their own
        for folder in [REFERENCE, *(solutions / "wrong" / exercise.id).iterdir()]:
            source = (folder / exercise.filename).read_bytes()
            taken = similarity.constants(source, exercise.function) & from_tests
            assert len(taken) < similarity.LOOKED_UP, (exercise.id, folder.name, taken)


def test_an_int_too_long_to_write_does_not_stop_the_gradebook() -> None:
    """A teacher's review: ``0xfff…`` of 4,000 hex digits is a valid literal that Python
    cannot write back as digits; the notes (run for the whole class after grading) raised."""
    from learn_pi_lab.harness import similarity
    huge = "0x" + "f" * 4000
    exercise = catalog.get("path-to")
    reference = (REFERENCE / exercise.filename).read_text(encoding="utf-8")
    passed = reference.replace("    if leaf_id not in entries_by_id:\n",
                               f"    if leaf_id == {huge}:\n        pass\n"
                               "    if leaf_id not in entries_by_id:\n", 1)
    failed = f"def path_to(entries_by_id, leaf_id):\n    return ({huge},)\n"
    assert huge in passed and similarity.shape(passed, "path_to") is None   # no fingerprint
    snapshots = {"bob": {exercise.filename: passed.encode()},
                 "carol": {exercise.filename: failed.encode()}}
    statuses = {("bob", "path-to"): "passed", ("carol", "path-to"): "failed"}
    notes = similarity.notes([exercise], snapshots, statuses, "en")   # no ValueError
    assert isinstance(notes, dict)
    assert similarity.constants(failed, "path_to") == {hex(int(huge, 16))}


def test_shape_ignores_names_comments_and_formatting() -> None:
    from learn_pi_lab.harness.similarity import shape
    one = "def f(entries):\n    '''Doc.'''\n    total = 0  # sum\n    for e in entries:\n" \
          "        total += len(e)\n    return total\n"
    two = "def f(items):\n    acc=0\n    for x in items: acc += len(x)\n    return acc\n"
    other = "def f(items):\n    acc = 1\n    for x in items: acc += len(x)\n    return acc\n"
    assert shape(one, "f") == shape(two, "f") != shape(other, "f")
    assert shape("def f():\n    raise NotImplementedError\n", "f") is None


def test_a_folder_name_cannot_add_a_row_to_the_terminal_tables() -> None:
    """A learner folder named ``eve⏎zz-top  1/1 …`` once printed a forged row of its own."""
    forged = "eve\nzz-top-student  1/1  0  0  0  0\t\x1b[2J\u202e"
    line = {"passed": 0, "total": 1, "failed": 1, "timed_out": 0, "not_started": 0,
            "not_own_code": 0, "notes": "same as " + forged}
    printed = io.StringIO()
    with redirect_stdout(printed):
        grade.print_totals({forged: line, "honest": {**line, "notes": ""}}, "en")
    lines = printed.getvalue().splitlines()
    assert not any(text.startswith("zz-top") for text in lines), lines
    assert len(lines) == 4, lines   # header, rule, one row per learner
    assert "eve\\nzz-top-student" in lines[2] and "\\x1b[2J" in lines[2] and "\\u202e" in lines[2]
    assert grade.shown("学生 Anna-1") == "学生 Anna-1"


# ---- a teacher's review (2026-12-02): what an honest teacher's workflow met ----

@pytest.mark.parametrize("argv, said", [
    (["--timeout", "nan"], "--timeout must be a positive number"),
    (["--timeout", "inf"], "--timeout must be a positive number"),
    (["--timeout", "2200000"], "at most 86400 (a day), not 2200000"),   # "no limit", it broke
    (["--jobs", "-3"], "--jobs must be a whole number from 1 to 1024, not -3"),
    (["--jobs", "0"], "--jobs must be a whole number from 1 to 1024, not 0"),
    (["--memory-mb", "0"], "--memory-mb must be a whole number from 256 to 1048576, not 0"),
    (["--memory-mb", "-5"], "--memory-mb must be a whole number from 256"),
    (["--memory-mb", "17592186044416"], "--memory-mb must be a whole number from 256"),
    (["--cpu-seconds", "0"], "--cpu-seconds must be a whole number from 1 to 1000000"),
    (["--cpu-seconds", "99999999999999999999"], "--cpu-seconds must be a whole number from 1"),
    (["--processes", "0"], "--processes must be a whole number from 4 to 4096"),
    (["--open-files", "1"], "--open-files must be a whole number from 32 to 65536"),
    (["--file-size-mb", "0"], "--file-size-mb must be a whole number from 1 to 1048576"),
])
def test_unusable_numbers_are_one_line_before_anything_runs(tmp_path: Path, argv: list[str],
                                                            said: str) -> None:
    code, out, err = run_grade(str(small_class(tmp_path)), "--out", str(tmp_path / "book"),
                               "--lang", "en", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and said in err
    assert "Traceback" not in err and not (tmp_path / "book").exists()


def test_the_gradebook_folder_is_checked_before_grading(tmp_path: Path) -> None:
    submissions = small_class(tmp_path)
    (tmp_path / "a-file").write_text("x")
    code, out, err = run_grade(str(submissions), "--out", str(tmp_path / "a-file"), "--lang",
                               "en", "-e", "resolve-labels")
    assert code == 2 and out == "" and "is a file" in err
    code, out, err = run_grade(str(submissions), "--out", str(tmp_path / "a-file" / "book"),
                               "--lang", "en", "-e", "resolve-labels")
    assert code == 2 and out == "" and "Nothing was graded yet" in err
    # a gradebook already there is never overwritten (grading one exercise again used to
    # replace a whole class's gradebook without a word)
    book = tmp_path / "book"
    book.mkdir()
    (book / "gradebook.csv").write_text("the class's grades\n", encoding="utf-8")
    code, out, err = run_grade(str(submissions), "--out", str(book), "--lang", "en",
                               "-e", "resolve-labels")
    assert code == 2 and out == "" and "never overwrites" in err
    assert (book / "gradebook.csv").read_text(encoding="utf-8") == "the class's grades\n"


def test_links_and_nested_submissions_are_said_and_the_csv_opens_in_a_spreadsheet(
        tmp_path: Path) -> None:
    submissions = small_class(tmp_path)
    (submissions / "copycat").symlink_to(submissions / "amy", target_is_directory=True)
    nested = submissions / "zoe" / "learn-pi-lab-main" / "workspace"
    nested.mkdir(parents=True)
    shutil.copyfile(REFERENCE / LABELS_FILE, nested / LABELS_FILE)
    (submissions / ".alice").mkdir()                  # hidden: listed, not graded
    (submissions / "bob.zip").write_bytes(b"PK\x03\x04")   # a file: listed, not graded
    code, _out, err = run_grade(str(submissions), "--out", str(tmp_path / "book"), "--lang",
                                "en", "-e", "resolve-labels")
    assert code == 0
    assert "skipped these links" in err and "copycat" in err
    assert 'start with "."' in err and ".alice" in err
    assert "not folders" in err and "bob.zip" in err
    assert "zoe: no chNN_*.py files at the top of the folder" in err
    assert "learn-pi-lab-main/workspace" in err
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    assert book["learners"] == ["amy", "ben", "zoe"] and book["skipped_links"] == ["copycat"]
    assert book["skipped"] == {".alice": "hidden", "bob.zip": "not_folder", "copycat": "link"}
    assert book["nested_submissions"] == {"zoe": "learn-pi-lab-main/workspace"}
    assert (tmp_path / "book" / "gradebook.csv").read_bytes().startswith(b"\xef\xbb\xbflearner,")


def test_the_stack_of_a_timed_out_run_stays_out_of_the_gradebook() -> None:
    stopped = ("debugging\nTimeout (0:00:09)!\nCurrent thread 0x00007fc9595eeb80 (most recent "
               "call first):\n  File \"/tmp/x/workspace/ch05_records_and_state.py\", line 3 in "
               "resolve_labels\n")
    row = grade.Grade("amy", grade.ExerciseResult(exercise="resolve-labels", status="timed_out",
                                                  seconds=9.0, output=stopped)).row()
    assert row["output"].startswith("debugging") and "Current thread" not in row["output"]


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP"])
def test_a_closed_terminal_or_a_kill_stops_grading_like_ctrl_c(tmp_path: Path,
                                                               signal_name: str) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time
    if grade.sandbox.bwrap_path() is None and not os.environ.get("CI"):
        pytest.skip("bubblewrap is not installed (CI installs it: .ci/run)")
    submissions = tmp_path / "subs"
    (submissions / "amy").mkdir(parents=True)
    (submissions / "amy" / LABELS_FILE).write_text(
        "def resolve_labels(entries):\n    while True:\n        pass\n", encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "LANG": "C.UTF-8"}
    process = subprocess.Popen([sys.executable, "-m", "learn_pi_lab", "grade", str(submissions),
                                "--out", str(tmp_path / "book"), "--lang", "en",
                                "-e", "resolve-labels", "--timeout", "60"],
                               cwd=REPO, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert "Grading" in process.stdout.readline()
    deadline = time.monotonic() + 60
    while not any(scratch.glob("learn-pi-lab-*/workspace")) and time.monotonic() < deadline:
        time.sleep(0.1)   # the learner's copy is in place: the run has begun
    time.sleep(0.5)
    process.send_signal(getattr(signal, signal_name))
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "Interrupted: no results were written." in err
    assert "Traceback" not in err
    assert list(scratch.iterdir()) == []          # no copy of the learner's code left behind
    assert not (tmp_path / "book").exists()       # nor the empty gradebook folder it made


@pytest.mark.parametrize("where", ["python_starts", "read_python_files"])
def test_stopped_before_the_runs_begin_is_one_line_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    # (a second look by a reviewer: a signal while the sandbox was tried, or while the
    # submissions were read, printed a traceback or died silently and left --out behind)
    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt
    if where == "python_starts":
        monkeypatch.setattr(grade.sandbox, "python_starts", stopped)
    else:
        monkeypatch.setattr(grade, "read_python_files", stopped)
    code, _out, err = run_grade(str(small_class(tmp_path)), "--out", str(tmp_path / "book"),
                                "--lang", "en", "-e", "resolve-labels")
    assert code == 130 and err.strip() == "Interrupted: no results were written."
    assert not (tmp_path / "book").exists()


def test_eight_bit_controls_never_reach_a_teachers_terminal() -> None:
    """An attacker's review: CSI (U+009B), OSC, ST stayed raw in both gradebooks; some
    terminals obey them in UTF-8, so ``cat gradebook.csv`` could be redrawn."""
    from learn_pi_lab.harness import report
    forged = "zed\u009b2J\u009b31mALL PASSED\u009d0;owned\u009c"
    assert report.spreadsheet_safe(forged) == "zed2J31mALL PASSED0;owned"
    written = report.json_file_bytes({"learner": forged, "ok": "é 学生"})
    assert "\u009b" not in written.decode("utf-8") and "é 学生" in written.decode("utf-8")
    assert json.loads(written)["learner"] == forged   # the evidence, as escapes


def test_a_learner_copy_is_held_to_a_budget(tmp_path: Path) -> None:
    """An attacker's review: every learner's .py files are held in the grading process's
    memory at once (and written again for each run); a submission of thousands of 1 MiB files
    (a zip of a few megabytes) held gigabytes. Only ``MAX_SOURCES`` bytes are read, the
    exercises' own files at the top first."""
    from learn_pi_lab.harness import files
    learner = tmp_path / "mallory"
    (learner / "a").mkdir(parents=True)
    filler = b"# " + b"x" * (files.MAX_SOURCE - 3) + b"\n"
    count = files.MAX_SOURCES // files.MAX_SOURCE + 8
    for number in range(count):
        (learner / "a" / f"filler_{number:04}.py").write_bytes(filler)
    shutil.copyfile(REFERENCE / LABELS_FILE, learner / LABELS_FILE)
    snapshot = grade.read_python_files(grade.learner_code(learner))
    assert sum(map(len, snapshot.values())) <= files.MAX_SOURCES
    assert snapshot[LABELS_FILE] == (REFERENCE / LABELS_FILE).read_bytes()


def test_grade_and_verify_give_a_linked_exercise_file_the_same_status(tmp_path: Path) -> None:
    """An exercise's file that is a link is never read (it could point at a classmate's or
    the reference's file): both commands say ``linked-file``, with its target, looking at
    the learner's own folder (not at the teacher's ``workspace/``)."""
    submissions = tmp_path / "submissions"
    (submissions / "lin").mkdir(parents=True)
    (submissions / "lin" / LABELS_FILE).symlink_to(REFERENCE / LABELS_FILE)
    code, _out, _err = run_grade(str(submissions), "--out", str(tmp_path / "book"), "--lang",
                                 "en", "-e", "resolve-labels")
    assert code == 0
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    [graded] = book["results"]
    verified = runner.run_exercise(catalog.get("resolve-labels"), submissions / "lin")
    assert (graded["status"], graded["reason"]) == ("failed", "linked-file")
    assert (verified.status, verified.reason) == ("failed", "linked-file")
    assert graded["detail"] == verified.detail == str(REFERENCE / LABELS_FILE)
