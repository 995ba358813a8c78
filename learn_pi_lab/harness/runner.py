"""Run one exercise's tests against a workspace, safely, and say what happened.

Each exercise runs in its own subprocess (``learn_pi_lab.harness.child``, which is
``python -m unittest`` plus a small JSON report). The process runs with the repository's
tests and the learner's code: ``LEARN_PI_LAB_TARGET`` points ``tests/targets.py`` at the
workspace folder. A separate process per exercise means a crash, an endless loop or a
``sys.exit()`` in one exercise cannot touch the others, and a time limit and an output cap
turn "it hangs" and "it prints megabytes" into an answer instead of a frozen terminal.

An exercise ends in one of four statuses:

* ``passed``      every test passed;
* ``failed``      a test failed, the file did not import, the process crashed or printed
                  too much;
* ``timed_out``   it was still running when the time limit struck (an endless loop, or a
                  walk that is far slower than linear);
* ``not_started`` the first failure is the stub's ``NotImplementedError`` (or the file is
                  missing).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Mapping, TypeVar

from learn_pi_lab.harness.catalog import REPO_ROOT, Exercise

STATUSES = ("passed", "failed", "timed_out", "not_started")
DEFAULT_TIMEOUT = 10.0             # seconds per exercise
DEFAULT_OUTPUT_LIMIT = 1_000_000   # bytes of printed output before the run is stopped
OUTPUT_KEPT = 4000                 # characters of output kept to show the learner
TARGET_ENV = "LEARN_PI_LAB_TARGET"

T = TypeVar("T")


@dataclass
class ExerciseResult:
    exercise: str
    status: str               # one of STATUSES
    seconds: float
    reason: str | None = None # why it did not pass (see ``classify``); None when it passed
    test: str | None = None   # the first test that failed: "PathToTests.test_root_first"
    detail: str = ""          # that test's message, or "Type: message" for an exception
    where: str | None = None  # "ch02_parent_pointers.py:42 in path_to"
    output: str = ""          # the start of what the code printed

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Finished:
    """What a child process left behind."""
    report: dict | None       # the child's JSON report, None if it never wrote one
    output: str
    returncode: int | None
    timed_out: bool
    too_much_output: bool
    seconds: float


def short_test_id(test_id: str) -> str:
    """``tests.test_04_session_tree.PathToTests.test_root_first`` -> ``PathToTests.test_root_first``
    (a sub-test keeps its ``(...)`` suffix)."""
    name, space, rest = test_id.partition(" ")
    return ".".join(name.split(".")[-2:]) + space + rest


def child_environment(workspace: Path, lang: str | None,
                      extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env[TARGET_ENV] = str(workspace.resolve())
    paths = [str(REPO_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)   # `tests` and the package come from the repo
    env["PYTHONDONTWRITEBYTECODE"] = "1"         # leave no __pycache__ in the workspace
    env["PYTHONIOENCODING"] = "utf-8"
    if lang:
        env["LEARN_PI_LAB_LANG"] = lang          # the tests' messages in the learner's language
    env.update(extra or {})
    return env


_running: set[subprocess.Popen] = set()   # every child still alive, so Ctrl-C can stop them
_running_lock = threading.Lock()


def kill(process: subprocess.Popen) -> None:
    """Stop the child and anything it started (it leads its own process group on POSIX)."""
    if process.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


def run_child(test_ids: Iterable[str], *, workspace: Path, cwd: Path, scratch: Path,
              timeout: float, output_limit: int, lang: str | None,
              extra_env: Mapping[str, str] | None = None) -> Finished:
    report_path = scratch / "report.json"
    command = [sys.executable, "-m", "learn_pi_lab.harness.child", str(report_path), *test_ids]
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, env=child_environment(workspace, lang, extra_env),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=os.name == "posix")
    with _running_lock:
        _running.add(process)
    kept = bytearray()
    too_much = threading.Event()

    def drain() -> None:
        """Read the output as it comes (a full pipe would block the child) and stop the child
        once it has printed more than ``output_limit`` bytes."""
        total = 0
        assert process.stdout is not None
        while chunk := process.stdout.read1(65536):
            total += len(chunk)
            if len(kept) < OUTPUT_KEPT:
                kept.extend(chunk[:OUTPUT_KEPT - len(kept)])
            if total > output_limit:
                too_much.set()
                kill(process)
                return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    timed_out = False
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill(process)
        process.wait()
    reader.join(timeout=2)
    if reader.is_alive():  # something the child started still holds the pipe open
        kill(process)
    with _running_lock:
        _running.discard(process)
    seconds = time.monotonic() - start
    report = None
    if not timed_out and not too_much.is_set():
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            report = None
    return Finished(report=report, output=kept.decode("utf-8", errors="replace"),
                    returncode=process.returncode, timed_out=timed_out,
                    too_much_output=too_much.is_set(), seconds=seconds)


def classify(exercise: Exercise, finished: Finished) -> ExerciseResult:
    """Turn what the child left behind into a status, a reason and the first failure."""
    result = ExerciseResult(exercise=exercise.id, status="failed",
                            seconds=round(finished.seconds, 3), output=finished.output)
    if finished.timed_out:
        result.status, result.reason = "timed_out", "timeout"
        return result
    if finished.too_much_output:
        result.reason = "output-limit"
        return result
    if finished.report is None:
        result.reason = "crashed"
        result.detail = f"exit code {finished.returncode}"
        return result
    records = finished.report.get("tests", [])
    failures = [r for r in records if r["outcome"] in ("failed", "error", "import-error")]
    if not failures:
        if any(r["outcome"] == "passed" for r in records):
            result.status = "passed"
        else:
            result.reason = "no-tests"
        return result
    first = failures[0]
    if first["outcome"] != "import-error":   # then no test ran: the file itself is the problem
        result.test = short_test_id(first["id"])
    result.detail = first.get("message", "")
    result.where = first.get("where")
    if first.get("exception") == "NotImplementedError":
        result.status, result.reason = "not_started", "not-implemented"
    else:
        result.reason = {"failed": "assertion", "error": "error",
                         "import-error": "import-error"}[first["outcome"]]
    return result


def run_exercise(exercise: Exercise, workspace: Path, *, timeout: float = DEFAULT_TIMEOUT,
                 output_limit: int = DEFAULT_OUTPUT_LIMIT, lang: str | None = None,
                 cwd: Path = REPO_ROOT, extra_env: Mapping[str, str] | None = None
                 ) -> ExerciseResult:
    """Grade one exercise of the workspace folder ``workspace``."""
    if not (workspace / exercise.filename).is_file():
        return ExerciseResult(exercise=exercise.id, status="not_started", seconds=0.0,
                              reason="missing-file", detail=exercise.filename)
    with tempfile.TemporaryDirectory(prefix="learn-pi-lab-") as scratch:
        finished = run_child(exercise.tests, workspace=workspace, cwd=cwd, scratch=Path(scratch),
                             timeout=timeout, output_limit=output_limit, lang=lang,
                             extra_env=extra_env)
    return classify(exercise, finished)


def default_jobs() -> int:
    return max(2, os.cpu_count() or 2)


def run_in_parallel(jobs: Iterable[Callable[[], T]], *, workers: int | None = None,
                    on_result: Callable[[T], None] | None = None) -> list[T]:
    """Run independent jobs on a few threads (each one mostly waits for its subprocess).

    Results come back in the order the jobs were given; ``on_result`` hears about each one
    as soon as it finishes (a progress bar).
    """
    pool = ThreadPoolExecutor(max_workers=workers or default_jobs())
    try:
        futures = [pool.submit(job) for job in jobs]
        if on_result is not None:
            for future in futures:
                future.add_done_callback(lambda done: on_result(done.result()))
        return [future.result() for future in futures]
    except KeyboardInterrupt:  # Ctrl-C: the children have their own session, stop them here
        with _running_lock:
            for process in list(_running):
                kill(process)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_exercises(exercises: Iterable[Exercise], workspace: Path, *,
                  workers: int | None = None,
                  on_result: Callable[[ExerciseResult], None] | None = None,
                  **options: object) -> list[ExerciseResult]:
    """Every exercise of one workspace, in parallel; results in catalog order."""
    jobs = [partial(run_exercise, exercise, workspace, **options) for exercise in exercises]
    return run_in_parallel(jobs, workers=workers, on_result=on_result)
