"""What runs inside the subprocess that grades one exercise.

``python -m learn_pi_lab.harness.child RESULT.json tests.test_x.SomeTests ...`` does what
``python -m unittest tests.test_x.SomeTests`` does, with two differences that matter to a
learner:

* it never lets the learner's code take the test run down with it: an import that crashes
  (a ``SyntaxError``, a ``NameError``, even ``sys.exit()``) becomes one recorded failure;
* it writes a small JSON report (each test's outcome, the exception type, a short message and
  the line in the learner's file) instead of a wall of traceback, so the parent can show the
  one sentence that helps;
* it stops at the first failure (``failfast``): that is the message the learner reads, and a
  later test that would loop forever cannot hide it behind a time-out.

The report is written last. If it is missing, the process died early (``os._exit``, a crash,
a kill): the parent treats that as a failure, never as a pass.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
import unittest
from pathlib import Path
from types import TracebackType
from typing import Any

MESSAGE_CHARS = 1500   # enough for an assertion message, short enough to read
MESSAGE_LINES = 20
FILE_SIZE_LIMIT = 64 * 1024 * 1024   # a runaway loop writing a file stops here

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def shorten(text: str) -> str:
    lines = text.strip().splitlines()
    if len(lines) > MESSAGE_LINES:
        lines = lines[:MESSAGE_LINES] + ["..."]
    text = "\n".join(lines)
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " ..."


def learner_location(error: BaseException) -> str | None:
    """``ch02_parent_pointers.py:42 in path_to``: the innermost line of the learner's code.

    Only lines inside the workspace folder count: a line in the test or in the standard
    library would send the learner to the wrong place.
    """
    workspace = os.environ.get("LEARN_PI_LAB_TARGET", "")
    if not workspace or workspace == "reference":
        return None
    root = Path(workspace).resolve()
    if isinstance(error, SyntaxError) and error.filename:
        if Path(error.filename).resolve().is_relative_to(root):
            return f"{Path(error.filename).name}:{error.lineno}"
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        if Path(frame.filename).resolve().is_relative_to(root):
            found = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
    return found


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

    def record(self, test_id: str, outcome: str, err: ExcInfo | None = None,
               *, assertion: bool = False) -> None:
        entry: dict[str, Any] = {"id": test_id, "outcome": outcome}
        if err is not None:
            error = err[1]
            entry.update(exception=type(error).__name__,
                         message=describe(error, assertion=assertion),
                         where=learner_location(error))
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
    """Import ``tests.module.Class`` and return its tests; an import that fails (usually the
    learner's file: it is imported by the test module) is recorded, not raised."""
    module_name, _, class_name = name.rpartition(".")
    try:
        test_class = getattr(importlib.import_module(module_name), class_name)
    except (Exception, SystemExit) as error:
        result.records.append({"id": name, "outcome": "import-error",
                               "exception": type(error).__name__,
                               "message": describe(error, assertion=False),
                               "where": learner_location(error)})
        return unittest.TestSuite()
    return unittest.defaultTestLoader.loadTestsFromTestCase(test_class)


def limit_file_size() -> None:
    try:
        import resource
    except ImportError:  # Windows: no rlimits, the time limit still applies
        return
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    soft = FILE_SIZE_LIMIT if hard == resource.RLIM_INFINITY else min(FILE_SIZE_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def main(argv: list[str]) -> int:
    result_path, names = Path(argv[0]), argv[1:]
    limit_file_size()
    # A failed assertion then reads as the test author's sentence alone (which says what was
    # expected and what came back), not a generated diff with the sentence at its end.
    unittest.TestCase.longMessage = False
    result = RecordingResult()
    result.failfast = True   # the first failure is the one worth reading; stop there
    suite = unittest.TestSuite(load(name, result) for name in names)
    if not result.records:   # nothing failed to import
        suite.run(result)
    partial = result_path.with_name(result_path.name + ".partial")
    partial.write_text(json.dumps({"tests": result.records}, ensure_ascii=False),
                       encoding="utf-8")
    os.replace(partial, result_path)   # the report appears whole or not at all
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
