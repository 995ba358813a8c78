"""The trusted side of one exercise run: the tests, the clock and the report.

``python -m learn_pi_lab.harness.child`` reads a JSON job on stdin (the tests to run, the
workspace, the time limit, the sandbox) and writes a JSON report on stdout. It never imports
the learner's file. It starts one *worker* (``learn_pi_lab.harness.worker``, in the sandbox)
and makes it the target of ``tests/targets.py``: the learner's module is a proxy whose calls
run in the worker (``proxy``). So the tests, the comparisons and this report stay out of the
learner's reach: a patched ``unittest``, a forged report file or an ``__eq__`` that always
says yes act on the worker's copy of the world, not on this one.

It still does what ``python -m unittest`` does, with what matters to a learner:

* an import that crashes (a ``SyntaxError``, a ``NameError``, ``sys.exit()``) becomes one
  recorded failure with the learner's line;
* one small record per test (outcome, exception type, a short message, the line in the
  learner's file) instead of a wall of traceback;
* it stops at the first failure (``failfast``): that is the message the learner reads;
* the clock is here: when the time is up the worker is killed and the report names the test
  that was running.
"""

from __future__ import annotations

import importlib
import json
import os
import reprlib
import sys
import tempfile
import time
import unittest
from pathlib import Path
from types import TracebackType
from typing import Any

from learn_pi_lab.harness import catalog, hiding, proxy, sandbox
from learn_pi_lab.harness.wire import RemoteObject
from learn_pi_lab.i18n import t

MESSAGE_CHARS = 1500   # enough for an assertion message, short enough to read
MESSAGE_LINES = 20

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def shorten(text: str) -> str:
    lines = text.strip().splitlines()
    if len(lines) > MESSAGE_LINES:
        lines = lines[:MESSAGE_LINES] + ["..."]
    text = "\n".join(lines)
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " ..."


def learner_location(error: BaseException) -> str | None:
    """``ch02_parent_pointers.py:42 in path_to``: found by the worker, in the learner's file."""
    return getattr(error, "learner_where", None)


def returned_line() -> str:
    """``\nWhat your function last returned: dict {1: 'corrupt-line'}``, or "" when none of
    the learner's calls has returned in this test. Short (``reprlib``), never the learner's
    own ``repr``: an object of theirs shows as the name of its class."""
    worker = proxy.current
    value = proxy.NOTHING_RETURNED if worker is None else worker.last_returned
    if value is proxy.NOTHING_RETURNED:
        return ""
    if isinstance(value, RemoteObject):
        return "\n" + t("harness.learner.returned", value=getattr(value, "_class_name", "?"))
    text = _SHORT.repr(value)
    kind = type(value).__name__   # said once: "TranscriptTree(5 entries, leaf='u1')"
    return "\n" + t("harness.learner.returned",
                    value=text if text.startswith(kind) else f"{kind} {text}")


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80   # a package object's whole repr, a string's start


def called_line() -> str:
    """``\nWhat your function was given: state_at([{'id': 'u1', 'message': {...}, ...}])``:
    the arguments of the test's latest call into the learner's code, or "" when there was
    none. Shown when that code raised: the line alone (``KeyError: 'provider'``) does not say
    which input it met (a learner's review). The arguments are the test's own values; an
    object of the learner's shows as the name of its class, never through its own ``repr``."""
    worker = proxy.current
    call = None if worker is None else getattr(worker, "last_call", None)
    if not call:
        return ""
    target, args, kwargs = call
    name = target[-1] if target and isinstance(target[-1], str) else "?"
    shown = [_ARGUMENTS.repr(arg) for arg in args]
    shown += [f"{key}={_ARGUMENTS.repr(value)}" for key, value in kwargs.items()]
    return "\n" + t("harness.learner.called", call=f"{name}({', '.join(shown)})")


QUIET_ERRORS = ("NotImplementedError", "ReferenceHidden")
"""The stub's own raise (no news) and the package's refusal (its message is read for the name
that refused, ``runner.refused_name``): no arguments after them."""

_ARGUMENTS = reprlib.Repr()   # an entry's keys and a few entries: enough to see which input
_ARGUMENTS.maxdict, _ARGUMENTS.maxlist, _ARGUMENTS.maxtuple = 6, 4, 4
_ARGUMENTS.maxstring, _ARGUMENTS.maxother, _ARGUMENTS.maxlevel = 40, 80, 4


def describe(error: BaseException, *, assertion: bool) -> str:
    """A failed assertion is its message; any other exception is ``Type: message``."""
    if assertion:
        return shorten(str(error))
    text = str(error)
    return shorten(f"{type(error).__name__}: {text}" if text else type(error).__name__)


class RecordingResult(unittest.TestResult):
    """A ``TestResult`` that keeps one small record per test, in the order they ran."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict[str, Any]] = []
        self.running: str | None = None

    def startTest(self, test: unittest.TestCase) -> None:
        super().startTest(test)
        self.running = test.id()
        if proxy.current is not None:
            proxy.current.new_test()

    def record(self, test_id: str, outcome: str, err: ExcInfo | None = None,
               *, assertion: bool = False) -> None:
        entry: dict[str, Any] = {"id": test_id, "outcome": outcome}
        if err is not None:
            error = err[1]
            if isinstance(error, proxy.WorkerGone):   # (a timeout knows where it stopped)
                entry.update(outcome=error.reason, message=error.detail,
                             where=learner_location(error))
            else:
                where = learner_location(error)
                message = describe(error, assertion=assertion)
                if not assertion and where is None:   # raised in the test, not the learner's
                    message += returned_line()        # code: show what the test was using
                elif not assertion and type(error).__name__ not in QUIET_ERRORS:
                    message += called_line()          # raised in the learner's code: the input
                entry.update(exception=type(error).__name__, message=message, where=where)
                if isinstance(error, proxy.LearnerException):
                    # a stand-in: the learner's own class, whatever its name (runner.classify
                    # must not read a class named NotImplementedError or ReferenceHidden as
                    # the stub's or the package's refusal)
                    entry["learner_class"] = True
        self.records.append(entry)

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self.record(test.id(), "passed")

    def addFailure(self, test: unittest.TestCase, err: ExcInfo) -> None:
        super().addFailure(test, err)
        self.record(test.id(), "failed", err, assertion=True)

    def addError(self, test: unittest.TestCase, err: ExcInfo) -> None:
        super().addError(test, err)
        self.record(test.id(), "error", err)

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase,
                   err: ExcInfo | None) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self.record(subtest.id(), "failed" if failed else "error", err, assertion=failed)

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self.records.append({"id": test.id(), "outcome": "skipped", "message": reason})

    def addExpectedFailure(self, test: unittest.TestCase, err: ExcInfo) -> None:
        super().addExpectedFailure(test, err)
        self.record(test.id(), "passed")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self.records.append({"id": test.id(), "outcome": "failed",
                             "message": "unexpected success"})


def load(name: str, result: RecordingResult) -> unittest.TestSuite:
    """Import ``tests.module.Class`` and return its tests. Importing the test module loads the
    learner's file in the worker; a failure there is recorded, not raised."""
    module_name, _, class_name = name.rpartition(".")
    try:
        test_class = getattr(importlib.import_module(module_name), class_name)
    except proxy.WorkerGone as gone:
        result.records.append({"id": name, "outcome": gone.reason, "message": gone.detail,
                               "during": "import", "where": learner_location(gone)})
        return unittest.TestSuite()
    except (Exception, SystemExit) as error:
        result.records.append({"id": name, "outcome": "import-error",
                               "exception": type(error).__name__,
                               "message": describe(error, assertion=False),
                               "where": learner_location(error)})
        return unittest.TestSuite()
    return in_written_order(test_class)


def in_written_order(test_class: type) -> unittest.TestSuite:
    """The class's tests in the order they are written, not alphabetical: a test file
    starts with the basic case, so the first failure a learner reads is the most basic one
    their code gets wrong (a learner's review: an edge case named ``test_before_follows…``
    was shown before the plain ``test_before_user_message…``)."""
    def written_at(name: str) -> int:
        code = getattr(getattr(test_class, name, None), "__code__", None)
        return code.co_firstlineno if code is not None else 0
    names = unittest.defaultTestLoader.getTestCaseNames(test_class)
    return unittest.TestSuite(map(test_class, sorted(names, key=written_at)))


def refusing_files(job: dict) -> list[tuple[Path, Path]]:
    """The package modules whose refused code refuses (``hiding.refusing_sources``), written
    beside the run's folders, where the learner's code cannot write: (ours, the package's)."""
    if job["workspace"] == "reference" or "exercise" not in job:
        return []
    exercise = catalog.get(job["exercise"])
    pairs: list[tuple[Path, Path]] = []
    # the modules' compiled copies hold the solutions too (a new Python could load one with
    # marshal): each is an empty file in the sandbox, which Python ignores and compiles ours
    empty = Path(job["scratch"]).parent / "empty.pyc"
    empty.write_bytes(b"")
    for original, text in hiding.refusing_sources(exercise.module, exercise.reference):
        dotted = "-".join(original.with_suffix("").parts[-3:])
        ours = Path(job["scratch"]).parent / f"refusing-{dotted}.py"
        ours.write_text(text, encoding="utf-8")
        cached = sorted((original.parent / "__pycache__").glob(f"{original.stem}.*.pyc"))
        pairs += [(ours, original), *((empty, compiled) for compiled in cached)]
    return pairs


def start_worker(job: dict) -> proxy.Worker:
    """The worker for this run, inside the sandbox the job asks for (``bwrap``; ``rlimits``:
    the resource limits alone; ``none``: nothing, for ``--no-sandbox``)."""
    scratch = Path(job["scratch"])
    command = proxy.worker_command(job["workspace"])
    mode = job.get("sandbox", "bwrap")
    writable = [scratch] + ([Path(job["workspace"])] if job["workspace"] != "reference"
                            else [])
    if mode == "bwrap":
        sandbox.hand_over(writable)   # as root, the worker is ``nobody``: its folders are its
        command = sandbox.command(command, writable=writable,
                                  hidden=[Path(path) for path in job.get("hidden", [])],
                                  workdir=scratch, replaced=refusing_files(job))
    setup, limits = None, sandbox.Limits(**job.get("limits", {}))
    if mode != "none":
        setup = sandbox.preexec(limits)
    return proxy.Worker(command, env=sandbox.worker_environment(scratch, job.get("lang")),
                        cwd=scratch, deadline=time.monotonic() + job["timeout"],
                        output_limit=job["output_limit"], preexec=setup,
                        max_processes=limits.processes if mode != "none" else None,
                        writable=writable, max_disk=limits.disk if mode != "none" else None,
                        max_memory=limits.memory if mode != "none" else None,
                        shared=scratch / "shared", hand_over=mode == "bwrap",
                        learner_folder=None if job["workspace"] == "reference"
                        else str(Path(job["workspace"]).resolve()))


def run(job: dict) -> dict:
    # A failed assertion then reads as the test author's sentence alone (which says what was
    # expected and what came back), not a generated diff with the sentence at its end.
    unittest.TestCase.longMessage = False
    shared = Path(job["scratch"]) / "shared"   # the tests' temporary files: the worker sees
    shared.mkdir(exist_ok=True)                # them at the same path; only regular files
                                               # may appear there (``Worker.check_shared_files``)
    tempfile.tempdir = str(shared)
    if job.get("lang"):
        os.environ["LEARN_PI_LAB_LANG"] = job["lang"]
    os.environ["LEARN_PI_LAB_TARGET"] = job["workspace"]   # tests/targets.py: is_reference()
    if job.get("drawn_seed"):   # tests/drawn.py: the run's drawn inputs (never the worker's)
        os.environ["LEARN_PI_LAB_DRAWN_SEED"] = str(job["drawn_seed"])
    proxy.current = worker = start_worker(job)
    result = RecordingResult()
    result.failfast = True   # the first failure is the one worth reading; stop there
    started = time.monotonic()
    try:
        suite = unittest.TestSuite(load(name, result) for name in job["tests"])
        if not result.records:   # nothing failed to import
            suite.run(result)
    finally:
        output = worker.close()
    return {"tests": result.records, "output": output, "refusals": worker.refusals,
            "waited": round(worker.waited, 3),
            "seconds": round(time.monotonic() - started, 3)}


TRUSTED_MEMORY = 4 * 1024 ** 3   # this process's own ceiling: a worker's answer cannot make it
                                 # take the teacher's machine down


def limit_own_memory() -> None:
    try:
        import resource
    except ImportError:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > TRUSTED_MEMORY:
        resource.setrlimit(resource.RLIMIT_AS, (TRUSTED_MEMORY, hard))


def forget_the_working_folder() -> None:
    """``python -m`` puts the working folder first on ``sys.path``. Nothing may be imported
    from a folder the worker could write into (a planted ``difflib.py`` would run here, on
    the trusted side, the first time ``unittest`` imports it)."""
    here = os.path.realpath(os.getcwd())
    sys.path[:] = [entry for entry in sys.path
                   if entry and os.path.realpath(entry) != here]


def main() -> int:
    forget_the_working_folder()
    limit_own_memory()
    job = json.loads(sys.stdin.read())
    report = run(job)
    sys.stdout.write(json.dumps(report))   # ASCII: a lone surrogate in a message crosses too
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
