"""The runner turns whatever a learner's code does into one of four statuses and a message.

Each test writes one small ``ch05_records_and_state.py`` into a temporary workspace and
grades the ``resolve-labels`` exercise (its tests are quick), so what is being checked is
the runner: crashes, endless loops, floods of output and ``sys.exit()`` become answers.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from learn_pi_lab.harness import catalog, report
from learn_pi_lab.harness.runner import (ExerciseResult, Finished, Sandbox, TimeLimits,
                                         classify, defines, run_calibrated, run_exercise,
                                         short_test_id, written_here)

ROOT = Path(__file__).resolve().parents[1]

EXERCISE = catalog.get("resolve-labels")
STUB = catalog.default_workspace() / EXERCISE.filename
GENEROUS = 120.0   # seconds: long enough that only a real endless loop can time out

CORRECT = """
def resolve_labels(entries):
    labels = {}
    for entry in entries:
        if entry.get("type") == "label":
            if entry.get("label"):
                labels[entry["targetId"]] = entry["label"]
            else:
                labels.pop(entry.get("targetId"), None)
    return labels
"""


def grade(tmp_path: Path, source: str, timeout: float = GENEROUS) -> ExerciseResult:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    (workspace / EXERCISE.filename).write_text(textwrap.dedent(source), encoding="utf-8")
    return run_exercise(EXERCISE, workspace, timeout=timeout, lang="en")


def explained(result: ExerciseResult) -> str:
    return "\n".join(report.explanation(EXERCISE, result, "en"))


def test_a_correct_solution_passes(tmp_path: Path) -> None:
    result = grade(tmp_path, CORRECT)
    assert (result.status, result.reason, result.test) == ("passed", None, None)


def test_a_solution_that_pickles_its_own_data_passes(tmp_path: Path) -> None:
    """While graded, a pickle may rebuild data (sets, bytes, dates, counters, exceptions, in
    protocols 0 and 5); only code is refused (``harness/unpickling.py``, and the cheat
    ``unpickles-the-lesson``)."""
    result = grade(tmp_path, CORRECT.replace("    return labels", """\
    import collections, datetime
    extra = [{1, 2}, b"xy", datetime.date(2026, 1, 1), collections.Counter("aab")]
    for protocol in (0, 5):
        again, more, error = pickle.loads(pickle.dumps([labels, extra, ValueError("v")],
                                                       protocol=protocol))
        assert (again, more, error.args) == (labels, extra, ("v",))
    return pickle.loads(pickle.dumps(labels, protocol=0))""").replace(
        "def resolve_labels", "import pickle\n\n\ndef resolve_labels"))
    assert (result.status, result.reason) == ("passed", None), explained(result)


def test_what_a_pickle_may_name_while_graded(tmp_path: Path) -> None:
    from learn_pi_lab.harness.unpickling import allowed
    for module, name in [("builtins", "set"), ("__builtin__", "set"), ("copy_reg", "_reconstructor"),
                         ("builtins", "ValueError"), ("collections", "OrderedDict"),
                         ("datetime", "date"), ("_codecs", "encode")]:
        assert allowed(module, name, tmp_path), (module, name)
    for module, name in [("marshal", "loads"), ("builtins", "exec"), ("builtins", "eval"),
                         ("__builtin__", "getattr"), ("builtins", "type"),
                         ("builtins", "object"), ("importlib", "import_module"),
                         ("types", "FunctionType"), ("os", "system"),
                         ("learn_pi_lab.pi.session", "resolve_labels"),
                         ("collections", "namedtuple"), ("subprocess", "run")]:
        assert not allowed(module, name, tmp_path), (module, name)
    import types
    helper = types.ModuleType("my_helpers")   # a helper module of the learner's workspace
    helper.__file__ = str(tmp_path / "my_helpers.py")
    elsewhere = types.ModuleType("not_mine")
    elsewhere.__file__ = str(tmp_path.parent / "not_mine.py")
    sys.modules.update(my_helpers=helper, not_mine=elsewhere)
    try:
        assert allowed("my_helpers", "Record", tmp_path)
        assert not allowed("not_mine", "Record", tmp_path)
    finally:
        del sys.modules["my_helpers"], sys.modules["not_mine"]


def test_the_untouched_stub_is_not_started(tmp_path: Path) -> None:
    result = grade(tmp_path, STUB.read_text(encoding="utf-8"))
    assert (result.status, result.reason) == ("not_started", "not-implemented")
    assert "exercise resolve-labels is not implemented yet" in result.detail
    assert result.where and result.where.startswith("ch05_records_and_state.py:")
    assert "Not started yet" in explained(result)
    assert "at ch05" not in explained(result), "the stub's own line is no news to the learner"


def test_a_failed_assertion_shows_the_test_authors_sentence(tmp_path: Path) -> None:
    result = grade(tmp_path, CORRECT.replace("if entry.get(\"label\"):",
                                             "if \"label\" in entry:"))
    assert (result.status, result.reason) == ("failed", "assertion")
    assert result.test == "ResolveLabelsTests.test_empty_label_clears"
    assert result.detail.startswith("a label entry with an empty label clears")
    assert "Traceback" not in result.detail and " : " not in result.detail.splitlines()[0]
    assert "Hint:" in explained(result)


def test_an_exception_in_the_learners_code_points_at_its_line(tmp_path: Path) -> None:
    result = grade(tmp_path, """
        def resolve_labels(entries):
            labels = {}
            for entry in entries:
                labels[entry["targetId"]] = entry["label"]
            return labels
    """)
    assert (result.status, result.reason) == ("failed", "error")
    assert result.detail.startswith("KeyError: ")
    assert result.where == "ch05_records_and_state.py:5 in resolve_labels"
    assert "Traceback" not in result.detail


def test_a_syntax_error_is_an_import_error_with_a_line(tmp_path: Path) -> None:
    result = grade(tmp_path, "def resolve_labels(entries)\n    return {}\n")
    assert (result.status, result.reason) == ("failed", "import-error")
    assert result.detail.startswith("SyntaxError")
    assert result.where == "ch05_records_and_state.py:1"
    assert "could not be imported" in explained(result)


def test_a_crash_while_importing_is_an_import_error(tmp_path: Path) -> None:
    result = grade(tmp_path, "import no_such_module_anywhere\n" + CORRECT)
    assert (result.status, result.reason) == ("failed", "import-error")
    assert "no_such_module_anywhere" in result.detail


def test_sys_exit_while_importing_is_graded(tmp_path: Path) -> None:
    result = grade(tmp_path, "import sys\nsys.exit(0)\n" + CORRECT)
    assert (result.status, result.reason) == ("failed", "import-error")
    assert result.detail == "SystemExit: 0"


def test_sys_exit_inside_the_function_is_graded(tmp_path: Path) -> None:
    result = grade(tmp_path, """
        import sys

        def resolve_labels(entries):
            sys.exit("bye")
    """)
    assert (result.status, result.reason) == ("failed", "error")
    message, called = result.detail.splitlines()
    assert message == "SystemExit: bye"
    assert called.startswith("What your function was given: resolve_labels([{")


def test_os_exit_is_a_crash_never_a_pass(tmp_path: Path) -> None:
    result = grade(tmp_path, """
        import os

        def resolve_labels(entries):
            os._exit(0)
    """)
    assert (result.status, result.reason) == ("failed", "crashed")
    assert "exit code 0" in explained(result)


def test_an_endless_loop_times_out(tmp_path: Path) -> None:
    result = grade(tmp_path, """
        def resolve_labels(entries):
            while True:
                pass
    """, timeout=2)
    assert (result.status, result.reason) == ("timed_out", "timeout")
    assert "endless loop" in explained(result)


def test_megabytes_of_output_are_stopped(tmp_path: Path) -> None:
    result = grade(tmp_path, """
        def resolve_labels(entries):
            while True:
                print("x" * 1000)
    """)
    assert (result.status, result.reason) == ("failed", "output-limit")
    assert len(result.output) <= 4000
    assert "remove the print calls" in explained(result)


def test_a_little_output_is_shown_with_the_failure(tmp_path: Path) -> None:
    result = grade(tmp_path, """
        def resolve_labels(entries):
            print("debug: got", len(list(entries)), "entries")
            return {"wrong": "answer"}
    """)
    assert result.status == "failed"
    assert "debug: got" in result.output
    assert "| debug: got" in explained(result)


def test_a_missing_file_is_not_started(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_exercise(EXERCISE, empty, timeout=GENEROUS, lang="en")
    assert (result.status, result.reason, result.detail) == \
        ("not_started", "missing-file", EXERCISE.filename)


def test_an_exercise_file_that_is_a_link_is_named_not_followed(tmp_path: Path) -> None:
    # (a teacher's review: a link to a classmate's file was "missing", and nobody was told)
    classmate, mine = tmp_path / "classmate", tmp_path / "mine"
    classmate.mkdir()
    mine.mkdir()
    (classmate / EXERCISE.filename).write_text(CORRECT, encoding="utf-8")
    (mine / EXERCISE.filename).symlink_to(Path("..") / "classmate" / EXERCISE.filename)
    result = run_exercise(EXERCISE, mine, timeout=GENEROUS, lang="en")
    assert (result.status, result.reason, result.detail) == \
        ("failed", "linked-file", f"../classmate/{EXERCISE.filename}")
    assert "is a link (to ../classmate/" in explained(result)


def test_no_bytecode_is_left_in_the_workspace(tmp_path: Path) -> None:
    grade(tmp_path, CORRECT)
    assert not list((tmp_path / "workspace").rglob("__pycache__"))


def test_the_tests_speak_the_learners_language(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "ch02_parent_pointers.py").write_text(textwrap.dedent("""
        def path_to(entries_by_id, leaf_id):
            path = []
            while leaf_id is not None:
                path.append(entries_by_id[leaf_id])
                leaf_id = path[-1].parent_id
            return tuple(path)
    """), encoding="utf-8")
    path_to = catalog.get("path-to")
    chinese = run_exercise(path_to, workspace, timeout=GENEROUS, lang="zh")
    english = run_exercise(path_to, workspace, timeout=GENEROUS, lang="en")
    assert "从根到叶" in chinese.detail
    assert "root first" in english.detail


# --------------------------------------------------------------------------------------
# The learner's own code, the sandbox's walls, the calibrated limit
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("source, own", [
    ("def resolve_labels(entries):\n    return {}\n", True),
    ("class resolve_labels:\n    pass\n", True),
    ("from learn_pi_lab.pi.session import resolve_labels\n", False),
    ("from learn_pi_lab.pi.session import resolve_labels as resolve_labels\n", False),
    ("from learn_pi_lab.pi.session import *\n\ndef resolve_labels(entries):\n    return {}\n",
     False),
    ("import learn_pi_lab.pi.session as s\nresolve_labels = s.resolve_labels\n", False),
    ("if True:\n    def resolve_labels(entries):\n        return {}\n", False),
    ("def resolve_labels(entries):\n    return {}\nresolve_labels = print\n", False),
    ("def helper():\n    resolve_labels = 1\n\ndef resolve_labels(entries):\n    return {}\n",
     True),
    ("x = 1\n", None),
    ("def resolve_labels(entries)\n", None),
    # bound at run time, out of the syntax tree's sight (tests/hostile_submissions too)
    ("def resolve_labels(entries):\n    return {}\nglobals()['resolve_labels'] = print\n", False),
    ("@cache\ndef resolve_labels(entries):\n    return {}\n", False),
    ("import builtins\ndef resolve_labels(entries):\n    return {}\n"
     "getattr(builtins, 'glob' + 'als')()['resolve_labels'] = print\n", False),
    ("import sys\ndef resolve_labels(entries):\n    return {}\n"
     "sys._getframe().f_globals['resolve_labels'] = print\n", False),
    ("def helper():\n    pass\ndef resolve_labels(entries):\n    return {}\n"
     "helper.__globals__['resolve_labels'] = print\n", False),
    ("class Backend:\n    def __init__(self, **kw):\n        for k, v in kw.items():\n"
     "            setattr(self, k, v)\ndef resolve_labels(entries):\n    return {}\n", True),
    # someone else's code under one's own def or class (found by a teacher's review)
    ("import learn_pi_lab.pi.session as s\ndef resolve_labels(entries):\n    return None\n"
     "resolve_labels.__code__ = s.state_at.__code__\n", False),
    ("def resolve_labels(entries, x=None):\n    return x\nresolve_labels.__defaults__ = (1,)\n",
     False),
    ("import learn_pi_lab.pi.session as s\ndef resolve_labels(entries):\n"
     "    return s.resolve_labels(entries)\n", False),
    ("import learn_pi_lab.pi.session as s\ndef resolve_labels(entries):\n"
     "    return getattr(s, 'resolve_labels')(entries)\n", False),
    ("def resolve_labels(entries):\n    return getattr(entries, 'copy')()\n", True),
    ("import importlib\ndef resolve_labels(entries):\n    return {}\n", False),
    ("from importlib import import_module\ndef resolve_labels(entries):\n    return {}\n",
     False),
    ("from learn_pi_lab.store import MemoryBackend as M\nclass resolve_labels(M):\n"
     "    mine = True\n", False),
    ("import learn_pi_lab.store\nclass resolve_labels(learn_pi_lab.store.MemoryBackend):\n"
     "    pass\n", False),
    ("class resolve_labels(metaclass=type):\n    pass\n", False),
    ("class resolve_labels:\n    def __init__(self, other):\n        self.__class__ = other\n",
     False),
    ("class resolve_labels:\n    def __repr__(self):\n        return self.__class__.__name__\n",
     True),
    ("class Base:\n    pass\nclass resolve_labels(Base):\n    pass\n", True),
    ("class resolve_labels(object):\n    pass\n", True),
    # the graded name imported under another name, or code run from another file (found
    # by an attacker's review)
    ("from learn_pi_lab.pi.session import resolve_labels as _r\ndef resolve_labels(entries):\n"
     "    return _r(entries)\n", False),
    ("def resolve_labels(entries):\n    from learn_pi_lab.pi.session import resolve_labels as r\n"
     "    return r(entries)\n", False),
    ("from learn_pi_lab.store import resolve_labels as R\nclass resolve_labels:\n"
     "    __init__ = R.__init__\n", False),
    ("import sys as s\ns.path.insert(0, '.')\ndef resolve_labels(entries):\n    return {}\n",
     False),
    ("from sys import path\ndef resolve_labels(entries):\n    return {}\n", False),
    ("import sys\nsys.path[0:0] = ['.']\ndef resolve_labels(entries):\n    return {}\n", False),
    ("import sys\nsys.path += ['.']\ndef resolve_labels(entries):\n    return {}\n", False),
    ("import sys\ndef resolve_labels(entries):\n    return {'n': len(sys.path)}\n", True),
    ("import ctypes\ndef resolve_labels(entries):\n    return {}\n", False),
    ("import os\ndef resolve_labels(entries):\n    return os.path.basename('x')\n", True),
    ("import functools, learn_pi_lab.pi.session as s\ndef resolve_labels(entries):\n"
     "    return functools.reduce(getattr, ['resolve' + '_labels'], s)(entries)\n", False),
    ("import learn_pi_lab.pi.session as s\ndef resolve_labels(entries):\n"
     "    return s.__getattribute__('resolve' + '_labels')(entries)\n", False),
    ("def resolve_labels(entries):\n    return {}\n"
     "len.__self__.globals()['resolve_labels'] = print\n", False),
    ("def resolve_labels(entries):\n    return getattr(entries, 'copy')()\n", True),
    # ordinary tools honest code uses (a teacher's review found each made a correct solution
    # not own code): what they could fetch from the package refuses when it runs instead
    *[(f"{head}\ndef resolve_labels(entries):\n    return {{}}\n", True) for head in (
        "import logging", "from operator import itemgetter", "from types import MappingProxyType",
        "import string", "import inspect", "import gc", "import pickle", "import doctest",
        "import pdb", "import copy, functools, dataclasses, pprint")],
    ("def _fields(o):\n    return vars(o)\ndef resolve_labels(entries):\n    return {}\n", True),
    ("class resolve_labels:\n    def as_dict(self):\n        return dict(self.__dict__)\n", True),
    ("def _get(o, n):\n    return getattr(o, n)\ndef resolve_labels(entries):\n    return {}\n",
     True),
    ("class resolve_labels:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n",
     True),
])
def test_defines_reads_the_syntax_tree(source: str, own: bool | None) -> None:
    assert defines(source, "resolve_labels") is own


M = "import learn_pi_lab.pi.session as m\n"
USE = "def resolve_labels(entries):\n    return _ref(entries)\n"


@pytest.mark.parametrize("source", [   # an attacker's review: each passed verify before
    M + "match m:\n    case object(resolve_labels=_ref):\n        pass\n" + USE,
    "from runpy import run_module as rm\n_ref = rm('learn_pi_lab.pi.session')['resolve_labels']\n"
    + USE,
    M + "from typing import get_type_hints\nclass _A:\n    x: 'm.resolve_labels'\n"
    "_ref = get_type_hints(_A)['x']\n" + USE,
    M + "def resolve_labels(entries):\n    return {}\ndef _setup():\n"
    "    global resolve_labels\n    resolve_labels = m.__dict__['resolve_labels']\n_setup()\n",
    M + "def resolve_labels(entries):\n    return {}\nmatch m:\n"
    "    case object(x=resolve_labels):\n        pass\n",
    "def resolve_labels(entries):\n    return {}\ndel resolve_labels\n",
    "from sys import modules as M\ndef resolve_labels(entries):\n    return {}\n"
    "self = M[__name__]\nsetattr(self, 'resolve_labels', print)\n",
    "from code import InteractiveInterpreter as I\n_d = {}\n"
    "I(_d).runsource('from learn_pi_lab.pi.session import resolve_labels as r')\n"
    "_ref = _d['r']\n" + USE,
    "from unittest import mock\n_ref = mock.patch('learn_pi_lab.pi.session.x')\n" + USE,
    "import unittest.mock\n" + USE,
    "B = len.__self__\nmatch B:\n    case object(exec=_x):\n        pass\n_d = {}\n"
    "_x('r = 1', _d)\n_ref = _d['r']\n" + USE,
    # classes: the whole chain of the file's own classes must be plain
    "from learn_pi_lab.store import MemoryBackend as R\nclass _Base(R):\n    pass\n"
    "class resolve_labels(_Base):\n    kind = 1\n",
    "class _Meta(type):\n    pass\nclass _Base(metaclass=_Meta):\n    pass\n"
    "class resolve_labels(_Base):\n    kind = 1\n",
    "class _Base:\n    def __init_subclass__(cls):\n        pass\n"
    "class resolve_labels(_Base):\n    kind = 1\n",
])
def test_ways_round_the_same_name_check_are_not_own_code(source: str) -> None:
    assert defines(source, "resolve_labels") is False


@pytest.mark.parametrize("source", [   # each passed verify before the package's answer refused
    M + "import string\n_ref = string.Formatter().get_field('0.resolve_labels', (m,), {})[0]\n"
    + USE,
    M + "from operator import attrgetter as ag\n_ref = ag('resolve_labels')(m)\n" + USE,
    "from logging.config import BaseConfigurator as B\n"
    "_ref = B({}).resolve('learn_pi_lab.pi.session.resolve_labels')\n" + USE,
    M + "def resolve_labels(entries):\n    return getattr(m, 'resolve' + '_labels')(entries)\n",
    M + "def resolve_labels(entries):\n    return vars(m)['resolve' + '_labels'](entries)\n",
    M + "def resolve_labels(entries):\n    return m.__dict__['resolve' + '_labels'](entries)\n",
    "import inspect, learn_pi_lab.pi.session as s\ndef resolve_labels(entries):\n"
    "    return dict(inspect.getmembers(s))['resolve' + '_labels'](entries)\n",
    "import pydoc\ndef resolve_labels(entries):\n"
    "    return pydoc.locate('learn_pi_lab.pi.session.resolve' + '_labels')(entries)\n",
])
def test_what_ordinary_tools_fetch_from_the_package_refuses_when_it_runs(
        tmp_path: Path, source: str) -> None:
    assert defines(source, "resolve_labels") is True   # nothing the syntax tree holds against it
    result = grade(tmp_path, source)
    assert (result.status, result.reason) == ("not_own_code", "package-solution-ran")


def test_a_construct_that_is_not_own_code_is_named_with_its_line(tmp_path: Path) -> None:
    result = grade(tmp_path, "def resolve_labels(entries):\n    return {}\n\n"
                             "globals()['resolve_labels'] = print\n")
    assert (result.status, result.reason) == ("not_own_code", "not-own-code")
    assert result.where == "ch05_records_and_state.py:4: globals()['resolve_labels'] = print"
    assert "at ch05_records_and_state.py:4: globals()['resolve_labels'] = print" \
        in explained(result)


HELPER_REBINDS = (b"import sys\nfrom learn_pi_lab.pi.session import resolve_labels\n\n"
                  b"def check_setup():\n"
                  b"    sys._getframe(1).f_globals['resolve_labels'] = resolve_labels\n")


@pytest.mark.parametrize("helpers, own", [
    ({"labelsupport.py": HELPER_REBINDS}, False),                       # imported: its code runs
    ({"support/__init__.py": b"", "support/tools.py": HELPER_REBINDS}, False),
    ({"labelsupport.py": b"from deeper import check_setup\n",          # through another helper
      "deeper.py": HELPER_REBINDS}, False),
    ({"labelsupport.py": b"def check_setup():\n    return None\n"}, True),   # a plain helper
    ({"labelsupport.py": b"def check_setup(:\n"}, True),                 # cannot be imported
])
def test_a_helper_the_graded_file_imports_is_checked_too(helpers: dict[str, bytes],
                                                          own: bool) -> None:
    top = next(iter(helpers)).split("/")[0].removesuffix(".py")
    graded = (f"import {top}\n\ndef resolve_labels(entries):\n    return {{}}\n").encode()
    files = {"ch05_records_and_state.py": graded, **helpers,
             "ch07_inspector.py": b"def inspect_session(path):\n    return vars()\n"}   # not imported
    assert written_here(files, "ch05_records_and_state.py", "resolve_labels") is own


def test_imported_code_is_not_own_code(tmp_path: Path) -> None:
    result = grade(tmp_path, "from learn_pi_lab.pi.session import resolve_labels\n")
    assert (result.status, result.reason) == ("not_own_code", "not-own-code")
    text = explained(result)
    assert "does not plainly define resolve_labels itself" in text
    assert "at ch05_records_and_state.py:1: from learn_pi_lab.pi.session import resolve_labels" \
        in text
    assert report.first_to_fix([result]) is result


def test_code_bound_behind_the_syntax_trees_back_is_not_own_code(tmp_path: Path) -> None:
    result = grade(tmp_path, """
        import learn_pi_lab.pi.session as reference
        globals()["resolve" + "_labels"] = reference.resolve_labels
    """)
    assert (result.status, result.reason) == ("not_own_code", "not-own-code")


def test_a_file_without_the_function_says_why(tmp_path: Path) -> None:
    result = grade(tmp_path, "x = 1\n")
    assert (result.status, result.reason) == ("failed", "import-error") or \
        (result.status, result.reason) == ("failed", "error")
    assert "resolve_labels" in result.detail


def test_the_walls_hold_without_bwrap_too(tmp_path: Path) -> None:
    """rlimits-only (a learner's laptop): memory is still limited, output still captured."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / EXERCISE.filename).write_text("BIG = bytearray(8 * 1024 ** 3)\n")
    result = run_exercise(EXERCISE, workspace, timeout=GENEROUS, lang="en",
                          walls=Sandbox("rlimits"))
    assert (result.status, result.reason) == ("failed", "memory-limit")


def test_a_slow_run_gets_the_calibrated_limit(tmp_path: Path) -> None:
    """A run that reaches the floor is run again with the exercise's calibrated limit (here a
    stand-in that says 120 s; the real one times the reference)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / EXERCISE.filename).write_text(textwrap.dedent(CORRECT) + textwrap.dedent("""
        import time
        _answer, _slow = resolve_labels, [3]


        def resolve_labels(entries):
            time.sleep(_slow.pop() if _slow else 0)   # the first call is slow
            return _answer(entries)
        """), encoding="utf-8")

    class Generous(TimeLimits):
        def of(self, exercise: catalog.Exercise) -> float:
            return GENEROUS
    assert run_exercise(EXERCISE, workspace, timeout=1.0, lang="en").status == "timed_out"
    result = run_calibrated(EXERCISE, workspace, Generous(1.0, lang="en"), lang="en")
    assert result.status == "passed"


def test_a_file_whose_import_takes_the_floor_gets_no_longer_limit(tmp_path: Path) -> None:
    """The calibrated limit is for a slow solution on a large input: an import that did not
    finish within the floor, with its processor, is not given more (a stall costs one limit)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / EXERCISE.filename).write_text(
        "import time\ntime.sleep(3)\n" + textwrap.dedent(CORRECT), encoding="utf-8")

    class Generous(TimeLimits):
        def of(self, exercise: catalog.Exercise) -> float:
            raise AssertionError("the reference is not timed for an import that stalls")
    result = run_calibrated(EXERCISE, workspace, Generous(1.0, lang="en"), lang="en")
    assert (result.status, result.at_import) == ("timed_out", True)
    assert result.where == f"{EXERCISE.filename}:2 in <module>"


def test_the_reference_is_timed_once_per_exercise() -> None:
    limits = TimeLimits(1.0, lang="en")
    first = limits.of(EXERCISE)
    assert first >= 1.0 and limits.of(EXERCISE) == first
    assert list(limits.reference_seconds) == [EXERCISE.id]


# --------------------------------------------------------------------------------------
# classify: the decision itself, on what a child process could leave behind
# --------------------------------------------------------------------------------------

def finished(report_: dict | None, **changes: object) -> Finished:
    fields = dict(report=report_, output="", returncode=0, timed_out=False,
                  too_much_output=False, seconds=0.5)
    fields.update(changes)
    return Finished(**fields)  # type: ignore[arg-type]


def record(outcome: str, exception: str | None = None, name: str = "test_a") -> dict:
    entry = {"id": f"tests.test_05_state.ResolveLabelsTests.{name}", "outcome": outcome}
    if exception:
        entry.update(exception=exception, message=f"{exception}: boom", where=None)
    return entry


@pytest.mark.parametrize("records, status, reason", [
    ([record("passed"), record("passed", name="test_b")], "passed", None),
    ([record("error", "NotImplementedError")], "not_started", "not-implemented"),
    ([record("passed"), record("failed", "AssertionError", "test_b")], "failed", "assertion"),
    ([record("error", "ValueError"), record("error", "NotImplementedError", "test_b")],
     "failed", "error"),
    ([record("import-error", "SyntaxError")], "failed", "import-error"),
    ([record("skipped")], "failed", "no-tests"),
    ([], "failed", "no-tests"),
])
def test_classify_reads_the_first_failure(records: list, status: str, reason: str | None) -> None:
    result = classify(EXERCISE, finished({"tests": records}))
    assert (result.status, result.reason) == (status, reason)


def test_classify_without_a_report() -> None:
    assert classify(EXERCISE, finished(None, returncode=-9)).reason == "crashed"
    assert classify(EXERCISE, finished(None, timed_out=True)).status == "timed_out"
    assert classify(EXERCISE, finished(None, too_much_output=True)).reason == "output-limit"
    passed_then_timed_out = finished({"tests": [record("passed")]}, timed_out=True)
    assert classify(EXERCISE, passed_then_timed_out).status == "timed_out"


def test_short_test_ids() -> None:
    assert short_test_id("tests.test_04_session_tree.PathToTests.test_root_first") == \
        "PathToTests.test_root_first"
    assert short_test_id("tests.test_x.Cls.test_y (case=1)") == "Cls.test_y (case=1)"


def test_results_are_json_ready(tmp_path: Path) -> None:
    result = grade(tmp_path, CORRECT)
    assert json.loads(json.dumps(result.to_json()))["status"] == "passed"


def test_a_few_short_lived_processes_are_fine(tmp_path: Path) -> None:
    """The process count ends a run with too many processes (hostile case forks-50), not one
    that starts a few and waits for them."""
    result = grade(tmp_path, textwrap.dedent("""
        import os
        for _ in range(3):
            child = os.fork()
            if child == 0:
                os._exit(0)
            os.waitpid(child, 0)
    """) + CORRECT)
    assert result.status == "passed", result


def test_a_timeout_keeps_the_test_and_what_was_printed(tmp_path: Path) -> None:
    result = grade(tmp_path, """
        def resolve_labels(entries):
            print("thinking hard ...", flush=True)
            while True:
                pass
    """, timeout=3.0)
    assert (result.status, result.reason) == ("timed_out", "timeout")
    assert result.test and result.test.startswith("ResolveLabelsTests.")
    assert "thinking hard" in result.output
    text = explained(result)
    assert result.test in text and "thinking hard" in text


def test_a_file_too_large_to_read_says_so_not_missing(tmp_path: Path) -> None:
    """More than 1 MiB (data pasted in by mistake): it is there, just not read."""
    result = grade(tmp_path, CORRECT + "\n# " + "x" * (1024 * 1024) + "\n")
    assert (result.status, result.reason) == ("failed", "file-too-large")
    assert "larger than 1 MiB" in explained(result)
    assert "超过 1 MiB" in "\n".join(report.explanation(EXERCISE, result, "zh"))


HIDING = """
import learn_pi_lab.drawing.snapshot as snapshot
from learn_pi_lab.errors import ReferenceHidden
from learn_pi_lab.harness import worker
from learn_pi_lab.pi import session
from learn_pi_lab import store
worker.hide_the_reference("ch05_records_and_state", "learn_pi_lab.pi.session")
worker.hide_the_reference("ch08_design_your_own", "learn_pi_lab.store")
refused = []
from learn_pi_lab.course import rewrite_stores
for call in (lambda: session.resolve_labels([]), lambda: snapshot.resolve_labels([]),
             lambda: session.label_entries_in_force([]),
             lambda: store.FileBackend("x.jsonl"), lambda: store.MemoryBackend(),
             lambda: rewrite_stores.AtomicRewriteStore("x.json")):
    try:
        call()
    except ReferenceHidden as error:
        refused.append(error.name)
print(refused)
print(session.session_from_text(TEXT).name(), session.state_at if False else "state_at fine")
"""


def test_the_package_solution_refuses_to_run_while_the_learners_is_graded() -> None:
    # in a process of its own: the hiding changes the package's functions for good
    text = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n'
    done = subprocess.run([sys.executable, "-c", f"TEXT = {text!r}\n" + HIDING], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    refused, other = done.stdout.splitlines()
    assert refused == str(["learn_pi_lab.pi.session.resolve_labels"] * 2
                          + ["learn_pi_lab.pi.session.label_entries_in_force",
                             "learn_pi_lab.store.FileBackend", "learn_pi_lab.store.MemoryBackend",
                             "learn_pi_lab.course.rewrite_stores.NaiveRewriteStore"])   # inherited
    assert other == "None state_at fine"   # what is not graded here still works


@pytest.mark.parametrize("refusals, named", [
    (["learn_pi_lab.pi.session.label_entries_in_force"],
     "learn_pi_lab.pi.session.label_entries_in_force"),
    (["learn_pi_lab.pi.session.resolve_labels"], "learn_pi_lab.pi.session.resolve_labels"),
    # only a name the trusted side refuses for this exercise is ever shown
    (["learn_pi_lab.teacher.says_full_marks"], "learn_pi_lab.pi.session.resolve_labels"),
])
def test_a_run_that_called_the_package_solution_is_not_own_code(refusals: list[str],
                                                                 named: str) -> None:
    """The evidence is the refusal's record with the trusted side (``hiding.refusal``),
    whatever the learner's code raised afterwards: here a NotImplementedError, the stub's."""
    exercise = catalog.get("resolve-labels")
    records = [{"id": "tests.test_05_state.ResolveLabelsTests.test_x", "outcome": "error",
                "exception": "NotImplementedError", "message": "not started, honestly",
                "where": "ch05.py:3 in f"}]
    result = classify(exercise, Finished(report={"tests": records, "refusals": refusals},
                                         output="", returncode=0, timed_out=False,
                                         too_much_output=False, seconds=1.0))
    assert (result.status, result.reason, result.detail) == (
        "not_own_code", "package-solution-ran", named)
    assert f"it called {named}, the package's own answer" in explained(result)
    assert "teacher" not in explained(result)


def test_an_exception_that_calls_itself_the_refusal_is_only_an_error() -> None:
    """A class of the learner's own can claim ``learn_pi_lab.errors.ReferenceHidden`` (the
    trusted side then rebuilds the real class): without a record it is no evidence."""
    exercise = catalog.get("resolve-labels")
    records = [{"id": "tests.test_05_state.ResolveLabelsTests.test_x", "outcome": "error",
                "exception": "ReferenceHidden",
                "message": "learn_pi_lab.pi.session.resolve_labels is the package's own ...",
                "where": "ch05.py:3 in f"}]
    result = classify(exercise, Finished(report={"tests": records, "refusals": []},
                                         output="", returncode=0, timed_out=False,
                                         too_much_output=False, seconds=1.0))
    assert (result.status, result.reason) == ("failed", "error")


def test_the_sandboxs_copy_of_the_module_refuses_and_keeps_the_rest() -> None:
    import ast
    from learn_pi_lab.harness.hiding import refusing_sources
    (original, text), (inspector, _) = refusing_sources("ch05_records_and_state",
                                                         "learn_pi_lab.pi.session")
    assert original.name == "session.py" and inspector.name == "session_inspector.py"
    compile(text, "session.py", "exec")   # the copy is still a module Python can load

    def functions(source: str) -> dict[str, str]:
        found = {}
        for node in ast.parse(source).body:
            for item in [node, *(node.body if isinstance(node, ast.ClassDef) else [])]:
                if isinstance(item, ast.FunctionDef):
                    name = item.name if item is node else f"{node.name}.{item.name}"
                    found[name] = ast.dump(ast.Module(item.body, []))
        return found
    mine, theirs = functions(text), functions(original.read_text(encoding="utf-8"))
    assert "refusal" in mine["resolve_labels"]
    assert {name for name in mine if mine[name] != theirs[name]} == {
        "resolve_labels", "label_entries_in_force"}   # the exercise, and its same_job
    store_texts = dict(refusing_sources("ch08_design_your_own", "learn_pi_lab.store"))
    assert [path.name for path in store_texts] == ["store.py", "rewrite_stores.py"]
    store_text, stores_text = store_texts.values()
    assert store_text.count("refusal('learn_pi_lab.store.FileBackend')") >= 2
    assert stores_text.count(
        "refusal('learn_pi_lab.course.rewrite_stores.NaiveRewriteStore')") >= 2
    # one method of a class (Session.branch, for path-to), the rest of the class untouched
    [(_, session_text)] = [found for found in refusing_sources("ch02_parent_pointers",
                                                               "learn_pi_lab.session_tree")
                           if found[0].name == "session.py"]
    changed = functions(session_text)
    assert {name for name in changed if changed[name] != theirs[name]} == {"Session.branch"}
    assert refusing_sources("ch05_records_and_state", "learn_pi_lab.store") == []


def test_the_modules_compiled_copies_are_emptied_in_the_sandbox(tmp_path: Path) -> None:
    import py_compile
    from learn_pi_lab.harness import child
    from learn_pi_lab.pi import session
    compiled = Path(py_compile.compile(session.__file__))   # as a user's Python leaves it
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    pairs = child.refusing_files({"workspace": str(tmp_path / "workspace"),
                                  "exercise": "resolve-labels", "scratch": str(scratch)})
    seen = {str(theirs): ours for ours, theirs in pairs}
    assert Path(seen[str(Path(session.__file__).resolve())]).read_text().count("refusal(")
    assert seen[str(compiled.resolve())].read_bytes() == b""
    assert child.refusing_files({"workspace": "reference", "exercise": "resolve-labels",
                                 "scratch": str(scratch)}) == []


def test_a_job_that_fails_or_is_cancelled_is_not_reported_as_a_result(
        caplog: pytest.LogCaptureFixture) -> None:
    # (a teacher's review: Ctrl-C printed "exception calling callback" for every cancelled
    # job, 1,727 lines of tracebacks before the one-line message)
    from learn_pi_lab.harness.runner import run_in_parallel
    heard = []

    def fails() -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_in_parallel([lambda: 1, fails, *[lambda: 2] * 20], workers=1, on_result=heard.append)
    assert "exception calling callback" not in caplog.text
    assert set(heard) <= {1, 2}


def test_a_learners_own_check_may_read_the_course_data(tmp_path: Path) -> None:
    # (a learner's review: chapter 00 teaches data_file; a check at the bottom of the file
    # runs on import, and in the sandbox the course's data was not there)
    result = grade(tmp_path, CORRECT + "\nfrom learn_pi_lab.course.paths import data_file\n"
                   "assert data_file('linear.jsonl').read_text(encoding='utf-8')\n")
    assert (result.status, result.reason) == ("passed", None)


def test_a_file_made_to_be_slow_to_look_at_costs_one_look(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """An attacker's review: 99 nested defs around a long list took the not-own-code check
    27 s per run (every def walked its whole inside again), and every run of every exercise,
    twice when graded again alone, looked again."""
    from learn_pi_lab.harness import runner
    body = "x = [" + "0," * 20_000 + "]\n"
    source = ""
    for depth in range(99):
        source += "    " * depth + f"def f{depth}():\n"
    source += "    " * 99 + body + "def state_at(path):\n    return path\n"
    nodes = sum(1 for _ in __import__("ast").walk(__import__("ast").parse(source)))
    walked, parsed = [0], [0]
    real_walk, real_parse = runner.ast.walk, runner.parse_python

    def counting_walk(node):
        for inner in real_walk(node):
            walked[0] += 1
            yield inner

    def counting_parse(text):
        parsed[0] += 1
        return real_parse(text)
    monkeypatch.setattr(runner.ast, "walk", counting_walk)
    monkeypatch.setattr(runner, "parse_python", counting_parse)
    files = {"ch05_records_and_state.py": ("import h1\n" + source).encode(),
             "h1.py": source.encode()}
    for _ in range(3):
        assert runner.written_here(files, "ch05_records_and_state.py", "state_at") is True
    assert walked[0] < 20 * nodes, (walked[0], nodes)   # linear, not nesting x size
    assert parsed[0] <= 4, parsed[0]   # each text looked at once (its imports, its check)


# Ordinary Python is the learner's own (a teacher's review: an honest @dataclass backend and
# a helper module of the learner's were not_own_code, or could not be imported).

def test_a_solution_split_into_a_helper_module_of_the_learners_passes(tmp_path: Path) -> None:
    reference = (ROOT / "learn_pi_lab" / "lessons" / EXERCISE.filename).read_text(
        encoding="utf-8")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "label_rules.py").write_text(
        reference.replace("def resolve_labels(", "def fold_labels("), encoding="utf-8")
    (workspace / EXERCISE.filename).write_text(
        "from label_rules import fold_labels\n\n\n"
        "def resolve_labels(entries):\n    return fold_labels(entries)\n", encoding="utf-8")
    result = run_exercise(EXERCISE, workspace, timeout=GENEROUS, lang="en")
    assert result.status == "passed", explained(result)


@pytest.mark.parametrize("decorator, own", [
    ("from dataclasses import dataclass\n@dataclass", True),
    ("import dataclasses\n@dataclasses.dataclass(frozen=False, eq=True)", True),
    ("from functools import total_ordering\n@total_ordering", True),
    ("from dataclasses import dataclass\ndataclass = lambda cls: cls\n@dataclass", False),
    ("from dataclasses import dataclass\nEQ = True\n@dataclass(eq=EQ)", False),
    ("from learn_pi_lab.store import FileBackend as dataclass\n@dataclass", False),
    ("import functools\n@functools.wraps(print)", False),
])
def test_a_standard_decorator_keeps_a_class_the_learners_own(decorator: str, own: bool
                                                             ) -> None:
    source = f"{decorator}\nclass MemoryBackend:\n    lines: list = None\n"
    assert defines(source, "MemoryBackend") is own


def test_an_honest_dataclass_backend_passes(tmp_path: Path) -> None:
    exercise = catalog.get("memory-backend")
    stub = (catalog.default_workspace() / exercise.filename).read_text(encoding="utf-8")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / exercise.filename).write_text(stub + textwrap.dedent("""

        import copy as _copy
        from dataclasses import dataclass, field


        @dataclass
        class MemoryBackend:
            objects: list = field(default_factory=list)

            def append(self, obj):
                self.objects.append(_copy.deepcopy(obj))

            def read_all(self):
                return _copy.deepcopy(self.objects)
        """), encoding="utf-8")
    result = run_exercise(exercise, workspace, timeout=GENEROUS, lang="en")
    assert result.status == "passed", "\n".join(report.explanation(exercise, result, "en"))
