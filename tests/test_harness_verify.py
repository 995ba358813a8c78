"""``verify`` on the command line and ``check`` in a notebook: what the learner sees.

The runs here use the ``resolve-labels`` exercise (quick tests) against the shipped stub and
the model answer, and check the promises of ``verify``: one clear line and exit 2 for a
mistake in the command, a table and the first failure's message and hint in the learner's
language, ``.verify/results.json``, and exit 0 only when everything passes.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from learn_pi_lab.harness import catalog, notebook, report, verify
from learn_pi_lab.harness.runner import ExerciseResult

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "learn_pi_lab" / "lessons"
STUBS = catalog.default_workspace()
GENEROUS = "120"


def run_verify(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = verify.main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def results_file(tmp_path: Path) -> Path:
    return tmp_path / "results.json"


def test_unknown_exercise_is_one_line_and_exit_2(results_file: Path) -> None:
    code, out, err = run_verify("--exercise", "walk_to_root", "--lang", "en",
                                "--results", str(results_file))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "'walk_to_root'" in err and "path-to" in err
    assert not results_file.exists()


def test_the_function_a_chapter_names_works_as_the_exercise(results_file: Path) -> None:
    # (a learner's review: the README's table shows read_jsonl_tolerant, verify wanted the id)
    code, out, _ = run_verify("--workspace", str(REFERENCE), "--exercise", "read_jsonl_tolerant",
                              "--lang", "en", "--results", str(results_file))
    assert code == 0 and "tolerant-reader" in out
    code, _out, err = run_verify("--exercise", "read_jsonl_tolerent", "--lang", "en",
                                 "--results", str(results_file))
    assert code == 2 and "extension-state. Did you mean tolerant-reader?" in err


def test_missing_workspace_is_exit_2(tmp_path: Path, results_file: Path) -> None:
    code, out, err = run_verify("--workspace", str(tmp_path / "nowhere"), "--lang", "en",
                                "--results", str(results_file))
    assert code == 2 and out == "" and "nowhere" in err


def test_a_non_positive_timeout_is_exit_2(results_file: Path) -> None:
    code, _out, err = run_verify("--timeout", "0", "--results", str(results_file))
    assert code == 2 and "--timeout" in err


def test_not_started_in_english(results_file: Path) -> None:
    code, out, _err = run_verify("--exercise", "resolve-labels", "--workspace", str(STUBS),
                                 "--lang", "en", "--results", str(results_file),
                                 "--timeout", GENEROUS)
    assert code == 1
    assert "resolve-labels" in out and "· not started" in out
    assert "Look at this one first: resolve-labels (chapter 05)" in out
    assert "Hint: " + catalog.get("resolve-labels").hint["en"] in out
    assert "make verify EX=resolve-labels" in out
    saved = json.loads(results_file.read_text(encoding="utf-8"))
    assert [(r["exercise"], r["status"]) for r in saved["results"]] == \
        [("resolve-labels", "not_started")]
    assert saved["lang"] == "en" and saved["workspace"] == str(STUBS.resolve())


def test_under_make_the_report_says_what_makes_error_line_means(
        results_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (a learner's review: in a terminal of `make lab`, `make verify` ended its Chinese report
    # with make's own "make: *** [Makefile:39: verify] Error 1", which reads like a breakdown)
    arguments = ("--exercise", "resolve-labels", "--lang", "zh", "--results", str(results_file),
                 "--timeout", GENEROUS)
    monkeypatch.setenv("MAKELEVEL", "1")
    code, out, _err = run_verify("--workspace", str(STUBS), *arguments)
    assert code == 1
    last = out.rstrip().splitlines()[-1]
    assert "Error 1" in last and "还有练习没通过" in last and "make verify EX=" not in last
    code, out, _err = run_verify("--workspace", str(REFERENCE), *arguments)
    assert code == 0 and "Error 1" not in out   # nothing to explain when make says nothing
    monkeypatch.delenv("MAKELEVEL")
    code, out, _err = run_verify("--workspace", str(STUBS), *arguments)
    assert code == 1 and "Error 1" not in out   # not run by make: make prints no such line


def test_the_language_comes_from_lang_when_not_given(results_file: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEARN_PI_LAB_LANG", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, out, _err = run_verify("--exercise", "resolve-labels", "--workspace", str(STUBS),
                                 "--results", str(results_file), "--timeout", GENEROUS)
    assert code == 1
    assert "未开始" in out and "先看这个：resolve-labels" in out
    assert "提示：" + catalog.get("resolve-labels").hint["zh"] in out


def test_passing_exercises_exit_0(results_file: Path) -> None:
    code, out, _err = run_verify("-e", "resolve-labels", "-e", "state-at",
                                 "--workspace", str(REFERENCE), "--lang", "en",
                                 "--results", str(results_file), "--timeout", GENEROUS)
    assert code == 0
    assert "All 2 exercise(s) pass" in out
    rows = [line for line in out.splitlines() if "✔ passed" in line]
    assert [row.split()[1] for row in rows] == ["state-at", "resolve-labels"]  # course order


def test_the_module_runs_on_its_own(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "learn_pi_lab.harness.verify", "--exercise", "nope",
               "--lang", "en", "--results", str(tmp_path / "r.json")]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("There is no exercise called 'nope'")
    assert "Traceback" not in done.stderr


def test_the_course_command_reaches_verify(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "learn_pi_lab", "verify", "--exercise", "resolve-labels",
               "--workspace", str(REFERENCE), "--lang", "en",
               "--results", str(tmp_path / "r.json"), "--timeout", GENEROUS]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Exercise resolve-labels passes" in done.stdout
    # (a learner's review: after `make verify EX=...` passed, nothing said what comes next)
    assert "Next: make verify checks every exercise" in done.stdout


# --------------------------------------------------------------------------------------
# In a notebook
# --------------------------------------------------------------------------------------

def test_notebook_check_of_a_chapter() -> None:
    shown = notebook.check("05", workspace=REFERENCE, lang="en", timeout=float(GENEROUS))
    assert shown.passed
    assert [e.id for e in shown.exercises] == ["state-at", "resolve-labels"]
    text = str(shown)
    assert text.startswith("Chapter 05 exercises") and "All 2 exercise(s) pass" in text
    if __import__("learn_pi_lab.harness.sandbox", fromlist=["x"]).bwrap_path():
        assert "bubblewrap" not in text   # the sandbox works: nothing to say about it
    html = shown._repr_html_()
    assert "<table>" in html and "✔ passed" in html and "state-at" in html


def test_notebook_check_explains_the_first_problem_in_chinese() -> None:
    shown = notebook.check(5, workspace=STUBS, lang="zh", timeout=float(GENEROUS))
    assert not shown.passed
    assert "未开始" in repr(shown) and "提示：" in repr(shown)
    assert "<pre" in shown._repr_html_() and "&lt;" not in shown.exercises[0].hint["zh"]


@pytest.mark.parametrize("installed, says", [
    (None, "bubblewrap not found"), ("/usr/bin/bwrap", "bubblewrap is installed, but")])
def test_notebook_check_says_when_it_runs_without_the_sandbox(installed, says,
                                                               monkeypatch) -> None:
    """A hub on Kubernetes or Binder refuses bubblewrap its namespaces: the check cell says
    so, as make verify does (and says nothing where the sandbox works)."""
    from learn_pi_lab.harness import sandbox
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    monkeypatch.setattr(report.shutil, "which", lambda name: installed)
    shown = notebook.check("05", workspace=REFERENCE, lang="en", timeout=float(GENEROUS))
    assert shown.passed and says in str(shown) and says in shown._repr_html_()


def test_notebook_check_of_a_chapter_without_exercises() -> None:
    shown = notebook.check("00", lang="en")
    assert shown.passed and str(shown) == "Chapter 00 has no graded exercises."
    assert shown._repr_html_() == "<p>Chapter 00 has no graded exercises.</p>"


@pytest.mark.parametrize("chapter", [2, "2", "02", "ch02"])
def test_chapter_spellings(chapter: object) -> None:
    assert notebook.chapter_number(chapter) == 2  # type: ignore[arg-type]


def test_a_bad_chapter_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        notebook.chapter_number("two")


# --------------------------------------------------------------------------------------
# The report itself
# --------------------------------------------------------------------------------------

def result(exercise: str, status: str) -> ExerciseResult:
    return ExerciseResult(exercise=exercise, status=status, seconds=0.1)


def test_the_first_real_failure_comes_before_an_unstarted_exercise() -> None:
    results = [result("tolerant-reader", "passed"), result("path-to", "not_started"),
               result("state-at", "failed"), result("build-context", "timed_out")]
    assert report.first_to_fix(results).exercise == "state-at"
    assert report.first_to_fix(results[:2]).exercise == "path-to"
    assert report.first_to_fix(results[:1]) is None


def test_tables_stay_aligned_with_chinese_text() -> None:
    assert report.display_width("从叶子 ab") == 9
    table = report.text_table(["章节", "练习"], [["02", "从叶子走回根"], ["3", "abc"]])
    header, rule, first, second = table.splitlines()
    starts = [report.display_width(line[:line.index(cell)])
              for line, cell in ((header, "练习"), (first, "从叶子"), (second, "abc"))]
    assert starts == [6, 6, 6]   # "章节" is four columns wide, then two spaces
    assert rule == "----  ------------"


def test_a_misspelt_exercise_gets_a_did_you_mean(results_file: Path) -> None:
    code, _out, err = run_verify("--exercise", "path-too", "--lang", "en",
                                 "--results", str(results_file))
    assert code == 2 and "Did you mean path-to?" in err
    code, _out, err = run_verify("--exercise", "zzz", "--lang", "en",
                                 "--results", str(results_file))
    assert code == 2 and "Did you mean" not in err


def test_one_exercise_merges_into_the_results_file(results_file: Path) -> None:
    run_verify("--workspace", str(REFERENCE), "--exercise", "resolve-labels",
               "--exercise", "state-at", "--lang", "en", "--results", str(results_file))
    run_verify("--workspace", str(REFERENCE), "--exercise", "resolve-labels", "--lang", "en",
               "--results", str(results_file))
    saved = json.loads(results_file.read_text(encoding="utf-8"))
    assert [r["exercise"] for r in saved["results"]] == ["state-at", "resolve-labels"]
    assert (saved["passed"], saved["total"]) == (2, 2)
    # another workspace starts afresh
    run_verify("--workspace", str(STUBS), "--exercise", "resolve-labels", "--lang", "en",
               "--results", str(results_file))
    saved = json.loads(results_file.read_text(encoding="utf-8"))
    assert [(r["exercise"], r["status"]) for r in saved["results"]] == \
        [("resolve-labels", "not_started")]


def test_without_bwrap_verify_says_so_in_one_line(results_file: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from learn_pi_lab.harness import report, sandbox
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    monkeypatch.setattr(report.shutil, "which", lambda name: None)
    code, out, err = run_verify("--workspace", str(REFERENCE), "--exercise", "resolve-labels",
                                "--lang", "en", "--results", str(results_file))
    assert code == 0, out
    assert err.count("\n") == 1 and "bubblewrap not found" in err


def test_a_machine_that_refuses_bwrap_is_named_as_the_reason(results_file: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """bwrap installed, but its trial run fails (a container, a hub on Kubernetes, Binder):
    the fallback says that, not that bubblewrap is missing."""
    from learn_pi_lab.harness import report, sandbox
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    monkeypatch.setattr(report.shutil, "which", lambda name: "/usr/bin/bwrap")
    code, out, err = run_verify("--workspace", str(REFERENCE), "--exercise", "resolve-labels",
                                "--lang", "en", "--results", str(results_file))
    assert code == 0, out
    assert err.count("\n") == 1 and "bubblewrap is installed, but this machine" in err


needs_bwrap = pytest.mark.skipif(
    __import__("learn_pi_lab.harness.sandbox", fromlist=["x"]).bwrap_path() is None
    and not os.environ.get("CI"), reason="bubblewrap is not installed (CI installs it: .ci/run)")


@needs_bwrap
def test_a_sandbox_that_cannot_start_python_grades_nothing(results_file: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    # (a teacher's review: a Python the sandbox could not see made every learner "crashed")
    from learn_pi_lab.harness import sandbox
    monkeypatch.setattr(sandbox, "python_starts", lambda: "bwrap: execvp /x/python: No such file")
    code, out, err = run_verify("--workspace", str(REFERENCE), "--exercise", "resolve-labels",
                                "--lang", "en", "--results", str(results_file))
    assert code == 2 and "crashed" not in out and not results_file.exists()
    assert err.startswith("The sandbox cannot start Python on this machine, so nothing was "
                          "graded") and "execvp /x/python" in err


@needs_bwrap
def test_python_starts_says_why_it_cannot(monkeypatch: pytest.MonkeyPatch) -> None:
    from learn_pi_lab.harness import sandbox
    sandbox.python_starts.cache_clear()
    monkeypatch.setattr(sys, "executable", "/no/such/course/.venv/bin/python")
    try:
        assert "/no/such/course/.venv/bin/python" in sandbox.python_starts()
    finally:
        sandbox.python_starts.cache_clear()
    monkeypatch.undo()
    assert sandbox.python_starts() == ""


@needs_bwrap
def test_a_course_reached_through_a_link_is_graded(tmp_path: Path) -> None:
    # the Python is run by a name that goes through a link (a symlinked course folder, /home
    # linked to /var/home): the sandbox must know it by that name too
    if REPO not in Path(sys.executable).parents:
        pytest.skip("this Python does not live in the course folder")
    link = tmp_path / "course-link"
    link.symlink_to(REPO, target_is_directory=True)
    python = link / Path(sys.executable).relative_to(REPO)
    done = subprocess.run([str(python), "-m", "learn_pi_lab", "verify", "--lang", "en",
                           "--workspace", str(REFERENCE), "--exercise", "resolve-labels",
                           "--results", str(tmp_path / "results.json")],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "LANG": "C.UTF-8"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_progress_bar_draws_on_a_terminal_behind_the_safe_stream() -> None:
    # (a learner's review: the command line's SafeTerminal hid the bar the README promises)
    from learn_pi_lab.cli.terminal_text import SafeTerminal

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True
    terminal = Terminal()
    bar = report.ProgressBar(2, SafeTerminal(terminal), width=4)
    bar.advance("amy\x1b[2J resolve-labels")   # a folder name cannot clear the screen
    assert terminal.getvalue().startswith("\r[##--] 1/2 amy")
    assert "\x1b" not in terminal.getvalue() and "\\x1b" in terminal.getvalue()


def test_verify_draws_its_progress_bar_in_a_real_terminal(tmp_path: Path) -> None:
    import pty
    leader, follower = pty.openpty()
    done = subprocess.run([sys.executable, "-m", "learn_pi_lab", "verify", "--lang", "en",
                           "--workspace", str(REFERENCE), "-e", "resolve-labels",
                           "--results", str(tmp_path / "results.json")],
                          cwd=REPO, stdout=follower, stderr=subprocess.PIPE, timeout=300,
                          env={**os.environ, "LANG": "C.UTF-8"})
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert done.returncode == 0
    assert b"\r[########################] 1/1 resolve-labels" in shown
