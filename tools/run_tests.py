"""Run every test the way CI does, and refuse to call "no tests ran" a success.

Two steps, both run even when the first fails, so one CI log shows everything:

1. one pytest, on both cores (pytest-xdist, each file whole on one worker): the tests of
   ``tests/`` (models, grading, editions, the browser tests) and nbval over
   ``notebooks/zh`` and ``notebooks/en`` (and the teachers' ``classroom/class-report-*``
   notebooks), which executes each notebook once and compares
   every cell's text output with the stored one (cells tagged ``nbval-ignore-output`` only
   have to run; an error fails). Each kernel runs as ``tools/build_notebooks.py`` ran it,
   its edition's language read from the notebook's folder. nbval does not compare images
   (its default), so a figure is checked by its text line only;
2. ``tests.test_04_session_tree`` and ``tests.test_11_projects`` under plain unittest (the
   seed names that command), left out of the pytest step so they run once.

pytest exits 5 when it collected nothing; that must fail loudly, not pass. The browser test
needs Debian's chromium: when it is missing the run says so plainly (CI installs it).

The tests read ``workspace/`` as the shipped stubs. A learner who has written answers there
and runs ``make test`` (chapter 00 shows both commands) is told so, before the run and again
after a failure, in the learner's language: the failures that follow from their answers say
nothing about their code, and ``make verify`` is what checks it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from learn_pi_lab.course.editions import (  # noqa: E402  (needs the repo on sys.path first)
    CELL_TIMEOUT_SECONDS, LANGUAGES, kernel_environment)
from learn_pi_lab.i18n import current_language, t  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
WORKERS = 2   # pytest-xdist processes: CI's machine has two cores; each test file stays whole
              # on one of them (--dist loadfile), so a module's fixture is made once
TEACHER_NOTEBOOKS = ("classroom/class-report-zh.ipynb", "classroom/class-report-en.ipynb")
UNITTEST_MODULES = ("tests.test_04_session_tree", "tests.test_11_projects")
"""The seed names this command for these two modules; they run under it, once, and not again
under pytest."""
UNITTEST_ONLY_IGNORED = [f"--ignore={name.replace('.', '/')}.py" for name in UNITTEST_MODULES]


def notebook_environment() -> dict[str, str]:
    """The run's environment: every notebook's kernel as the builder runs it (inline figures,
    a fixed hash seed), each edition's language from its own folder (``i18n.notebook_edition``:
    nbval starts a kernel in the notebook's folder), so both editions run in one pytest."""
    env = kernel_environment("zh")
    del env["LEARN_PI_LAB_LANG"]
    return env


def run_step(name: str, command: list[str], env: dict[str, str] | None = None) -> bool:
    print(f"\n=== {name} ===", flush=True)
    code = subprocess.call(command, cwd=REPO, env=env)
    if code == 5:
        print(f"FAIL: {name}: pytest collected no tests.", file=sys.stderr)
    elif code != 0:
        print(f"FAIL: {name} (exit code {code})", file=sys.stderr)
    return code == 0


def changed_exercise_files(repo: Path = REPO) -> list[str]:
    """The files of ``workspace/`` that differ from the commit's stubs (``git diff HEAD``),
    as paths from the repository's root; [] when there are none or git cannot tell."""
    try:
        done = subprocess.run(["git", "diff", "--name-only", "HEAD", "--", "workspace"],
                              cwd=repo, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line for line in done.stdout.splitlines() if line] if done.returncode == 0 else []


def workspace_note(repo: Path = REPO) -> str | None:
    """What to tell a learner whose answers are in ``workspace/``, or None."""
    changed = changed_exercise_files(repo)
    if not changed:
        return None
    return t("course.test.workspace_changed", current_language(), files=", ".join(changed))


def main() -> int:
    note = workspace_note()
    if note:
        print(note, flush=True)
    if shutil.which("chromium") is None:
        print("NOTE: /usr/bin/chromium not found: the browser test will be SKIPPED "
              "(apt-get install chromium, or run .ci/run, to include it).", flush=True)
    if os.geteuid() != 0:
        print("NOTE: not root: the classroom test (a real JupyterHub with system accounts) will "
              "be SKIPPED (CI runs as root; `sudo make test-classroom` runs it).", flush=True)
    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    results = [run_step("pytest tests and nbval notebooks/zh, notebooks/en", pytest + [
        "-n", str(WORKERS), "--dist", "loadfile", "tests", *UNITTEST_ONLY_IGNORED,
        "--nbval", "--nbval-kernel-name", "python3",
        "--nbval-cell-timeout", str(CELL_TIMEOUT_SECONDS),
        *[f"notebooks/{lang}" for lang in LANGUAGES], *TEACHER_NOTEBOOKS],
        env=notebook_environment())]
    results.append(run_step("unittest " + " / ".join(UNITTEST_MODULES), [
        sys.executable, "-m", "unittest", *UNITTEST_MODULES, "-v"]))
    if note and not all(results):
        print("\n" + note, file=sys.stderr)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
