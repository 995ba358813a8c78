"""Run one exercise's tests against a workspace, safely, and say what happened.

Each exercise runs in two processes of its own:

* the **trusted** one (``learn_pi_lab.harness.child``) imports the tests, keeps the clock and
  writes the report on its stdout; it never imports the learner's file;
* the **worker** (``learn_pi_lab.harness.worker``), started by the first inside the sandbox
  (``sandbox``), imports the learner's file and runs each call the tests make; only plain
  data comes back (``wire``, ``proxy``).

The learner's files are copied first into a folder of the run's own, so the worker can write
nothing that outlives the run. Before anything runs, the trusted side reads the learner's
file: a graded function that is not defined there (imported from the package, say) is
``not_own_code`` and is not run at all.

An exercise ends in one of five statuses:

* ``passed``       every test passed;
* ``failed``       a test failed, the file did not import, the worker crashed, broke a limit,
                   printed too much or sent something that is not an answer;
* ``timed_out``    it was still running when the time limit struck (the report names the
                   test that was running);
* ``not_started``  the first failure is the stub's ``NotImplementedError`` (or the file is
                   missing);
* ``not_own_code`` the graded function or class is not defined in the learner's file.
"""

from __future__ import annotations

import ast
import json
import math
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Callable, Iterable, Iterator, TypeVar

from learn_pi_lab.harness import hiding, sandbox
from learn_pi_lab.harness.files import (link_target, read_python_files, remove_tree,
                                        too_large_to_read)
from learn_pi_lab.harness.catalog import REPO_ROOT, Exercise
from learn_pi_lab.harness.similarity import is_stub, parse_python
from learn_pi_lab.cli.terminal_text import shown

STATUSES = ("passed", "failed", "timed_out", "not_started", "not_own_code")
DEFAULT_TIMEOUT = 10.0             # seconds per exercise, at least (see ``time_limit``)
DEFAULT_OUTPUT_LIMIT = 1_000_000   # bytes of printed output before the run is stopped
OUTPUT_KEPT = 4000                 # characters of output kept to show the learner
REPORT_LIMIT = 4_000_000           # bytes of the trusted side's report
BACKSTOP = 30.0                    # seconds past the limit before the trusted side is killed
TARGET_ENV = "LEARN_PI_LAB_TARGET"
DRAWN_SEED_ENV = "LEARN_PI_LAB_DRAWN_SEED"   # the seed of the drawn inputs (tests/drawn.py)

CROWDED_SHARE = 0.2               # a run that waited this share of its time for a processor
                                  # was crowded: its time-out is run again (``grade``)

T = TypeVar("T")


def drawn_seed() -> str:
    """The seed of one run's drawn inputs (``tests/drawn.py``): ``LEARN_PI_LAB_DRAWN_SEED``
    when it is set, to run the same inputs again, else a fresh one nobody knew in advance.
    ``grade`` and ``verify`` take one per run and give it to every exercise run, the
    reference's timing included; the trusted side alone ever sees it (the worker's
    environment is made from nothing)."""
    given = os.environ.get(DRAWN_SEED_ENV, "").strip()
    return given if given else str(secrets.randbelow(10 ** 10))


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
    waited: float = 0.0       # seconds it waited, ready, for a processor (other work's share)
    at_import: bool = False   # it timed out while its file was being imported

    def to_json(self) -> dict:
        return {key: value for key, value in asdict(self).items()
                if key not in ("waited", "at_import")}   # (what grading decides with)

    def crowded(self) -> bool:
        """Did other work on the machine take much of its time? Then a time-out says little
        about the code (``CROWDED_SHARE``)."""
        return self.waited > CROWDED_SHARE * self.seconds


@dataclass
class Finished:
    """What the trusted side of a run left behind."""
    report: dict | None       # its JSON report, None if it never wrote one
    output: str
    returncode: int | None
    timed_out: bool
    too_much_output: bool
    seconds: float


@dataclass(frozen=True)
class Sandbox:
    """How the worker is walled in: ``bwrap`` (the real sandbox), ``rlimits`` (resource
    limits only: a learner's machine without bubblewrap) or ``none`` (``--no-sandbox``)."""
    mode: str = "bwrap"
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    hidden: tuple[str, ...] = ()      # folders the worker must not see (the submissions)


def default_sandbox() -> Sandbox:
    return Sandbox("bwrap" if sandbox.bwrap_path() else "rlimits")


def short_test_id(test_id: str) -> str:
    """``tests.test_04_session_tree.PathToTests.test_root_first`` -> ``PathToTests.test_root_first``
    (a sub-test keeps its ``(...)`` suffix)."""
    name, space, rest = test_id.partition(" ")
    return ".".join(name.split(".")[-2:]) + space + rest


# --------------------------------------------------------------------------------------
# Is it the learner's own code?
# --------------------------------------------------------------------------------------

# What this check is for: the graded name must be the file's own ``def`` (or ``class``),
# not a function from elsewhere bound under that name. The package's own answers refuse to
# run while a learner's file is graded (``harness.hiding``: the reference and each
# exercise's ``same_job``), however they are reached; so the check below only looks for
# what honest code for these exercises never needs: loaders that run code by a name or a
# string made at run time, writes into a namespace, swapped code, and the graded name
# reached or rebound elsewhere. Ordinary tools (``vars(obj)``, ``self.__dict__``,
# ``getattr(obj, name)``, ``operator``, ``inspect``, ``logging``, ``types``, ``doctest``,
# ``pdb``, ``pickle``) are the learner's own business. A construct that trips the check is
# named with its line (``not_own_reason``), so a learner or teacher sees exactly what did.

# Names that bind code at run time, out of the syntax tree's sight: a file using them could
# put someone else's function under the graded name after its own ``def``.
RUNTIME_BINDING = frozenset({"globals", "exec", "eval", "compile", "__import__",
                             "__builtins__"})
# Attributes that reach a module's or a frame's namespace (``f.__globals__[name] = ...``),
# or swap what a function or a class is made of (``mine.__code__ = theirs.__code__``).
NAMESPACE_ATTRIBUTES = frozenset({"__globals__", "modules", "f_globals", "f_locals",
                                  "f_builtins", "_getframe", "__code__", "__defaults__",
                                  "__kwdefaults__", "__bases__", "__getattribute__"})
# Functions that fetch or set an attribute by a name given at run time: passed around
# (``reduce(getattr, ...)``, ``partial(getattr, module)``) the name they will get is out of
# sight; called directly they are plain attribute access.
ATTRIBUTE_FUNCTIONS = frozenset({"getattr", "setattr", "delattr"})
# Evaluators hidden in ordinary modules: a string annotation becomes code.
EVALUATING_NAMES = frozenset({"get_type_hints", "__self__", "ForwardRef"})
# Modules that load code by a name or a string made at run time (``import_module``,
# ``runpy``, ``code``), or write anywhere (``ctypes``).
RUNTIME_IMPORTS = frozenset({"builtins", "importlib", "pkgutil", "imp", "zipimport", "ctypes",
                             "marshal", "code", "codeop", "runpy"})


@dataclass(frozen=True)
class NotOwn:
    """Where a file stops being plainly its own: the line and the construct found there."""
    line: int
    code: str

    def text(self, filename: str) -> str:
        return f"{filename}:{self.line}: {self.code}"


def _spotted(node: ast.AST) -> NotOwn:
    """The construct at ``node``, as one short line of the learner's own code."""
    try:
        code = " ".join(ast.unparse(node).split())
    except (ValueError, RecursionError):
        code = type(node).__name__
    if len(code) > 60:
        code = code[:57] + "..."
    return NotOwn(getattr(node, "lineno", 0), code)


def defines(source: str | bytes, name: str) -> bool | None:
    """Does the file define ``name`` itself: a top-level ``def`` or ``class`` of that name,
    undecorated (but for ``PLAIN_DECORATORS``), and never bound any other way (an import, an assignment, ``globals()``,
    ``exec``, ``builtins``, ``importlib``, ``setattr`` on a module, ``sys.modules``, a frame's
    or a function's globals, a swapped ``__code__``)? A class may only build on classes of
    the same file: a class whose base comes from elsewhere (the package's own solution, say)
    inherits its methods instead of writing them. Nor may the file reach an attribute of that
    name on anything (``reference.path_to``, ``getattr(reference, "path_to")``): that is
    someone else's code under the graded name.

    ``True``: yes. ``False``: the name is, or may be, bound some other way (someone else's
    code; ``not_own_reason`` says where). ``None``: the file does not parse (or is too deeply
    nested to), or never mentions the name at all; the run then says what is wrong (a syntax
    error, an ``AttributeError``), and if it passes anyway the code came from elsewhere:
    ``not_own_code`` after all."""
    looked = _looked_at(source, name)
    if looked is None:
        return None
    defined, found = looked
    if found is not None:
        return False
    return True if defined else None


def not_own_reason(source: str | bytes, name: str) -> NotOwn | None:
    """The first construct that makes ``defines`` say False (None when it does not)."""
    looked = _looked_at(source, name)
    return None if looked is None else looked[1]


@lru_cache(maxsize=256)
def _looked_at(source: str | bytes, name: str) -> tuple[bool, NotOwn | None] | None:
    """``_defines`` of the file's text, or None when it does not parse. Kept per text: every
    run of every exercise asks again (twice for a run graded again alone), and a file made
    to be slow to look at must cost its time once, not once per run (an attacker's review)."""
    try:
        return _defines(parse_python(source), name)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defines(tree: ast.Module, name: str) -> tuple[bool, NotOwn | None]:
    """Whether the file has a top-level definition of ``name``, and the first construct that
    binds or reaches other code (None: nothing does)."""
    defined, other = False, []
    own_classes = _plain_own_classes(tree) - {name}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if statement.name == name:
                defined = True
                unknown = [decorator for decorator in statement.decorator_list
                           if not _plain_decorator(decorator, tree)]
                if unknown:   # a decorator can return anything: only the standard ones
                    other.append(unknown[0])
                if isinstance(statement, ast.ClassDef) \
                        and not _builds_on_own_classes(statement, own_classes):
                    other.append(statement)
            continue
        for node in ast.walk(statement):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if any((alias.asname or alias.name.split(".")[0]) == name or alias.name == "*"
                       for alias in node.names):
                    other.append(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                if node.id == name:
                    other.append(node)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
                other.append(node)    # defined inside an if/try: not a plain definition
    reached = _reaches_other_code(tree, name)
    if reached is not None:
        other.append(reached)
    first = min(other, key=lambda node: getattr(node, "lineno", 0), default=None)
    return defined, None if first is None else _spotted(_statement_of(tree, first))


PLAIN_DECORATORS = frozenset({"dataclasses.dataclass", "functools.total_ordering",
                              "functools.lru_cache", "functools.cache", "typing.final"})
"""Decorators an honest solution uses that return the code they are given (a class made
into a dataclass, a function with a cache), so the graded definition stays the file's own."""


def _plain_decorator(decorator: ast.expr, tree: ast.Module) -> bool:
    """Is ``decorator`` one of ``PLAIN_DECORATORS``, by the name the file imported it under
    and bound no other way (``@dataclass`` after ``from dataclasses import dataclass``,
    ``@dataclasses.dataclass(frozen=True)`` after ``import dataclasses``), called, if at all,
    with constants only?"""
    if isinstance(decorator, ast.Call):
        if not all(isinstance(value, ast.Constant)
                   for value in [*decorator.args, *(k.value for k in decorator.keywords)]):
            return False
        decorator = decorator.func
    if isinstance(decorator, ast.Name):
        imported = _only_binding(tree, decorator.id)
        return isinstance(imported, ast.ImportFrom) and imported.level == 0 and any(
            (alias.asname or alias.name) == decorator.id
            and f"{imported.module}.{alias.name}" in PLAIN_DECORATORS
            for alias in imported.names)
    if isinstance(decorator, ast.Attribute) and isinstance(decorator.value, ast.Name):
        imported = _only_binding(tree, decorator.value.id)
        return isinstance(imported, ast.Import) and any(
            (alias.asname or alias.name) == decorator.value.id
            and f"{alias.name}.{decorator.attr}" in PLAIN_DECORATORS
            for alias in imported.names)
    return False


def _only_binding(tree: ast.Module, name: str) -> ast.AST | None:
    """The one statement that binds ``name`` anywhere in the file, or None when there are
    none or several (an assignment, a ``def``, a loop, ``global``... besides an import)."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found += [node for alias in node.names
                      if (alias.asname or alias.name.split(".")[0]) == name or alias.name == "*"]
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found += [node] if node.id == name else []
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found += [node] if node.name == name else []
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found += [node] if name in node.names else []
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
            found += [node] if node.name == name else []
        elif isinstance(node, ast.ExceptHandler):
            found += [node] if node.name == name else []
        elif isinstance(node, ast.arg):
            found += [node] if node.arg == name else []
    return found[0] if len(found) == 1 else None


def _statement_of(tree: ast.Module, node: ast.AST) -> ast.AST:
    """The simple statement ``node`` is part of (``globals()[name] = f``, not just
    ``globals``), or ``node`` itself inside a compound one (a ``def``, an ``if``)."""
    line = getattr(node, "lineno", None)
    holding = [statement for statement in ast.walk(tree) if isinstance(statement, ast.stmt)
               and line is not None
               and statement.lineno <= line <= (statement.end_lineno or statement.lineno)]
    innermost = max(holding, key=lambda statement: statement.lineno, default=None)
    if innermost is None or hasattr(innermost, "body"):
        return node
    return innermost


def _reaches_other_code(tree: ast.Module, name: str) -> ast.AST | None:
    """The first node of a file, anywhere in it (functions too: they may be called at
    import), that binds or loads code at run time out of the syntax tree's sight, or reaches
    an attribute of the graded name on anything or imports it from elsewhere under any name
    (``from learn_pi_lab.pi.session import resolve_labels as _mine``), or changes where
    imports are found (``sys.path``); None when there is none."""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    in_functions: set[int] = set()   # each node walked once, however deep defs nest
    for function in ast.walk(tree):   # (an attacker's review: 99 nested defs took 27 s)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and id(function) not in in_functions:
            in_functions.update(map(id, ast.walk(function)))
    reaching = NAMESPACE_ATTRIBUTES | RUNTIME_BINDING | EVALUATING_NAMES | {name}
    sys_names = _sys_names(tree)   # once: a file of many ``.append(`` must not walk it each time
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(alias.name in reaching
                                                     for alias in node.names):
            return node     # the graded name, or from sys import modules, under any name
        if isinstance(node, ast.MatchClass) and set(node.kwd_attrs) & reaching:
            return node     # case object(resolve_labels=found): an attribute read by a pattern
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == name:
            return node     # case object(x=resolve_labels): the pattern binds the graded name
        if isinstance(node, ast.MatchMapping) and node.rest == name:
            return node
        if _reaches_mock(node):
            return node     # mock.patch("learn_pi_lab.pi.session.resolve_labels"): by name
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return node     # a function that rebinds the graded name
        if isinstance(node, ast.Delete) and any(
                isinstance(target, ast.Name) and target.id == name for target in node.targets):
            return node     # del resolve_labels: then served from elsewhere
        if isinstance(node, (ast.Name, ast.Attribute)) and (
                node.id if isinstance(node, ast.Name) else node.attr) in EVALUATING_NAMES:
            return node
        if isinstance(node, ast.Name) and node.id in ATTRIBUTE_FUNCTIONS \
                and id(node) not in called:
            return node     # reduce(getattr, ["resolve_labels"], module): a name out of sight
        if isinstance(node, ast.Attribute) and node.attr in RUNTIME_BINDING:
            return node     # len.__self__.globals(): builtins reached through an attribute
        if isinstance(node, ast.Name) and node.id in RUNTIME_BINDING:
            return node
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.name if isinstance(node, ast.Import) else node.module or "")
                .split(".")[0] in RUNTIME_IMPORTS for alias in node.names):
            return node     # import_module("learn_pi_lab..." + name): loaded unseen
        if isinstance(node, ast.Attribute) and (
                node.attr in NAMESPACE_ATTRIBUTES or node.attr == name):
            return node     # reference.path_to: someone else's function of that name
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and node.attr in ("__class__", "__dict__"):
            return node     # self.__class__ = Theirs: reading either is fine, swapping is not
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
                and not (node.args and isinstance(node.args[0], ast.Name)
                         and node.args[0].id == "self" and id(node) in in_functions)):
            return node     # setattr on anything but the learner's own instance, in a method
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "getattr" and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant) and node.args[1].value == name):
            return node     # getattr(reference, "path_to")
        if isinstance(node, ast.ImportFrom) and node.module == "sys" and any(
                alias.name == "path" for alias in node.names):
            return node     # from sys import path: then path.insert(0, ...)
        if _changes_sys_path(node, sys_names):
            return node     # sys.path.insert(0, folder): a helper module of one's own
    return None


_LIST_CHANGES = frozenset({"insert", "append", "extend", "__setitem__", "__iadd__"})


def _changes_sys_path(node: ast.AST, sys_names: set[str]) -> bool:
    """``sys.path.insert(...)`` (or append, extend), ``sys.path = ...``, ``sys.path[0:0] =
    ...``, ``sys.path += ...``; reading ``sys.path`` is fine. ``sys_names``: ``_sys_names``."""
    def is_sys_path(target: ast.AST) -> bool:
        while isinstance(target, ast.Subscript):
            target = target.value
        return (isinstance(target, ast.Attribute) and target.attr == "path"
                and isinstance(target.value, ast.Name) and target.value.id in sys_names)
    if isinstance(node, ast.Attribute) and node.attr in _LIST_CHANGES:
        return is_sys_path(node.value)
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(is_sys_path(target) for target in targets)
    return False


def _reaches_mock(node: ast.AST) -> bool:
    """``unittest.mock`` imported or reached, in any spelling (plain ``unittest`` is fine)."""
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        return module.startswith("unittest.mock") or (
            module == "unittest" and any(alias.name == "mock" for alias in node.names))
    if isinstance(node, ast.Import):
        return any(alias.name.startswith("unittest.mock") for alias in node.names)
    return isinstance(node, ast.Attribute) and node.attr == "mock"


def _sys_names(tree: ast.Module) -> set[str]:
    """The names ``sys`` is known by in the file (``import sys``, ``import sys as s``)."""
    return {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
            for alias in node.names if alias.name == "sys"}


def written_here(files: dict[str, bytes], filename: str, name: str) -> bool | None:
    """``defines`` for the graded file, and no helper of the learner's it imports (another
    ``.py`` of the workspace, and whatever that one imports) reaches other code at run time
    or fetches the graded name: a helper could put the package's function under the graded
    name after the graded file's own ``def`` (``sys._getframe(1).f_globals[name] = ...``).
    ``True``, ``False`` or ``None`` as ``defines``."""
    own = defines(files[filename], name)
    if own is False:
        return False
    return False if _helper_reaching(files, filename, name) is not None else own


def not_own_where(files: dict[str, bytes], filename: str, name: str) -> str:
    """Where ``written_here`` found other code, as ``file:line: code`` ("" when it did not)."""
    found = not_own_reason(files[filename], name)
    if found is not None:
        return found.text(filename)
    helper = _helper_reaching(files, filename, name)
    return "" if helper is None else helper[1].text(helper[0])


def _helper_reaching(files: dict[str, bytes], filename: str, name: str
                     ) -> tuple[str, NotOwn] | None:
    """The first helper ``filename`` imports that reaches other code, and where."""
    for helper in _helpers_imported(files, filename):
        reached = _helper_reaches(files[helper], name)
        if reached is not None:
            return helper, reached
    return None


@lru_cache(maxsize=256)
def _helper_reaches(source: str | bytes, name: str) -> NotOwn | None:
    """Where a helper's text reaches other code (None: nowhere, or it does not parse, and
    then it cannot be imported either: the run says so). Kept per text, as ``_looked_at``."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    reached = _reaches_other_code(tree, name)
    return None if reached is None else _spotted(_statement_of(tree, reached))


def _helpers_imported(files: dict[str, bytes], filename: str) -> list[str]:
    """The workspace's other files that ``filename`` imports, directly or through each other."""
    found: list[str] = []
    waiting = [filename]
    while waiting:
        for top in _imported_names(files[waiting.pop()]):
            for relative in files:
                if relative not in found and relative != filename and (
                        relative == f"{top}.py" or relative.startswith(f"{top}/")):
                    found.append(relative)
                    waiting.append(relative)
    return found


@lru_cache(maxsize=256)
def _imported_names(source: str | bytes) -> tuple[str, ...]:
    """The top-level names of the modules a file's text imports, in order (kept per text)."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names += ([node.module.split(".")[0]] if node.module
                      else [alias.name.split(".")[0] for alias in node.names])
    return tuple(names)


def _plain_own_classes(tree: ast.Module) -> set[str]:
    """The file's top-level classes that build, all the way down, only on ``object`` and on
    each other, with no metaclass and no ``__init_subclass__`` (either can make a subclass
    into someone else's class)."""
    classes = {statement.name: statement for statement in tree.body
               if isinstance(statement, ast.ClassDef)}
    plain: set[str] = set()
    changed = True
    while changed:
        changed = False
        for class_name, statement in classes.items():
            if class_name not in plain and _builds_on_own_classes(statement, plain) and not any(
                    isinstance(item, ast.FunctionDef) and item.name == "__init_subclass__"
                    for item in statement.body):
                plain.add(class_name)
                changed = True
    return plain


def _builds_on_own_classes(statement: ast.ClassDef, own_classes: set[str]) -> bool:
    """Every base of the class is ``object`` or a class defined in the same file, and no
    ``metaclass=`` (or other keyword) changes how it is made."""
    return not statement.keywords and all(
        isinstance(base, ast.Name) and (base.id in own_classes or base.id == "object")
        for base in statement.bases)


# --------------------------------------------------------------------------------------
# One run
# --------------------------------------------------------------------------------------

def write_files(files: dict[str, bytes], target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


_running: set[subprocess.Popen] = set()   # every child still alive, so Ctrl-C can stop them
_running_lock = threading.Lock()


def kill(process: subprocess.Popen) -> None:
    """Stop the child and anything it started (it leads its own process group)."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_child(job: dict) -> Finished:
    """Start the trusted side, hand it the job, read its report. The trusted side keeps the time limit; ``BACKSTOP`` is only for a
    trusted side that itself got stuck."""
    env = dict(os.environ)
    env.update(PYTHONPATH=os.pathsep.join([str(REPO_ROOT)] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
        PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8",
        HOME=str(Path(job["scratch"]).parent))
    env.pop(TARGET_ENV, None)
    start = time.monotonic()
    # cwd: the run's folder, which the worker cannot write (only its two sub-folders)
    process = subprocess.Popen([sys.executable, "-m", "learn_pi_lab.harness.child"],
                               cwd=Path(job["scratch"]).parent, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    with _running_lock:
        _running.add(process)
    timed_out = False
    try:
        out, err = process.communicate(json.dumps(job).encode("utf-8"),
                                       timeout=job["timeout"] + BACKSTOP)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill(process)
        out, err = process.communicate()
    finally:
        with _running_lock:
            _running.discard(process)
    report = None
    if not timed_out and len(out) <= REPORT_LIMIT:
        try:
            report = json.loads(out.decode("utf-8"))
        except ValueError:
            report = None
    output = report.get("output", "") if isinstance(report, dict) else ""
    if report is None and err:   # the trusted side itself failed: keep its words
        output = err.decode("utf-8", errors="replace")[-OUTPUT_KEPT:]
    return Finished(report=report, output=str(output)[:OUTPUT_KEPT],
                    returncode=process.returncode, timed_out=timed_out,
                    too_much_output=False, seconds=time.monotonic() - start)


OUTCOME_REASONS = {"failed": "assertion", "error": "error", "import-error": "import-error",
                   "timeout": "timeout", "output-limit": "output-limit", "crashed": "crashed",
                   "protocol": "protocol", "process-limit": "process-limit",
                   "disk-limit": "disk-limit", "memory-limit": "memory-limit"}
LIMIT_ERRORS = {"MemoryError": "memory-limit", "BlockingIOError": "process-limit"}


def classify(exercise: Exercise, finished: Finished) -> ExerciseResult:
    """Turn what the trusted side reported into a status, a reason and the first failure."""
    result = ExerciseResult(exercise=exercise.id, status="failed",
                            seconds=round(finished.seconds, 3), output=finished.output)
    if finished.timed_out:   # the trusted side itself was stopped: nothing is known
        result.status, result.reason = "timed_out", "timeout"
        result.waited = result.seconds
        return result
    if finished.too_much_output:
        result.reason = "output-limit"
        return result
    if finished.report is None:
        result.reason = "crashed"
        result.detail = f"exit code {finished.returncode}"
        return result
    waited = finished.report.get("waited")
    result.waited = float(waited) if type(waited) in (int, float) else 0.0
    refusals = finished.report.get("refusals") or []
    if refusals:   # on record with the trusted side: whatever the learner's code did next
        result.status, result.reason = "not_own_code", "package-solution-ran"   # (hiding.py)
        result.detail = refused_name(exercise, " ".join(map(str, refusals)))
        return result
    records = finished.report.get("tests", [])
    failures = [r for r in records if r["outcome"] in OUTCOME_REASONS]
    if not failures:
        if any(r["outcome"] == "passed" for r in records):
            result.status = "passed"
        else:
            result.reason = "no-tests"
        return result
    first = failures[0]
    if first["outcome"] != "import-error" and first.get("during") != "import":
        result.test = short_test_id(first["id"])
    result.detail = first.get("message", "") or ""
    result.where = first.get("where")
    result.reason = OUTCOME_REASONS[first["outcome"]]
    # (a class of the learner's own, whatever its name, is just an error: "learner_class")
    exception = None if first.get("learner_class") else first.get("exception")
    if exception == "NotImplementedError":
        result.status, result.reason = "not_started", "not-implemented"
    elif first["outcome"] == "timeout":
        result.status = "timed_out"
        result.at_import = first.get("during") == "import"
    elif exception in LIMIT_ERRORS and first["outcome"] != "failed":
        result.reason = LIMIT_ERRORS[exception]
    return result


def refused_name(exercise: Exercise, message: str) -> str:
    """Which of the package's answers refused (``hiding``), read from the refusal records
    but only ever one of the names the trusted side refuses for this exercise (the worker's
    words never reach the gradebook); the exercise's own name when none is named."""
    names = sorted(hiding.refused_names(exercise.module, exercise.reference), key=len,
                   reverse=True)
    return next((name for name in names if name in message),
                f"{exercise.reference}.{exercise.function}")


def not_own_code(exercise: Exercise, where: str = "") -> ExerciseResult:
    """``where``: the construct that showed it (``file:line: code``), when one did."""
    return ExerciseResult(exercise=exercise.id, status="not_own_code", seconds=0.0,
                          reason="not-own-code", detail=exercise.function, where=where or None)


def run_exercise(exercise: Exercise, workspace: Path | str, *, timeout: float = DEFAULT_TIMEOUT,
                 output_limit: int = DEFAULT_OUTPUT_LIMIT, lang: str | None = None,
                 files: dict[str, bytes] | None = None, walls: Sandbox | None = None,
                 seed: str | None = None) -> ExerciseResult:
    """Grade one exercise of the workspace folder ``workspace`` (``files``: its ``.py``
    files already read; ``"reference"``: the package's own solution, to time it; ``seed``:
    the drawn inputs' seed, ``drawn_seed()`` when not given)."""
    walls = walls or default_sandbox()
    seed = seed or drawn_seed()
    reference = workspace == "reference"
    own = None
    if not reference:
        if files is None:
            if not (Path(workspace) / exercise.filename).is_file():
                files = {}
            else:
                files = read_python_files(Path(workspace))
        if exercise.filename not in files:
            if os.path.islink(Path(workspace) / exercise.filename):   # never followed
                return ExerciseResult(exercise=exercise.id, status="failed", seconds=0.0,
                                      reason="linked-file",
                                      detail=shown(link_target(Path(workspace)
                                                               / exercise.filename)))
            if too_large_to_read(Path(workspace) / exercise.filename):
                return ExerciseResult(exercise=exercise.id, status="failed", seconds=0.0,
                                      reason="file-too-large", detail=exercise.filename)
            return ExerciseResult(exercise=exercise.id, status="not_started", seconds=0.0,
                                  reason="missing-file", detail=exercise.filename)
        own = written_here(files, exercise.filename, exercise.function)
        if own is False:
            return not_own_code(exercise, not_own_where(files, exercise.filename,
                                                        exercise.function))
    root = Path(tempfile.mkdtemp(prefix="learn-pi-lab-"))
    try:
        copy, scratch = root / "workspace", root / "tmp"
        if not reference:
            write_files(files or {}, copy)
        scratch.mkdir()
        job = {"exercise": exercise.id, "tests": list(exercise.tests), "timeout": timeout,
               "output_limit": output_limit,
               "lang": lang, "workspace": "reference" if reference else str(copy),
               "scratch": str(scratch), "sandbox": walls.mode,
               "limits": walls.limits.to_json(), "hidden": list(walls.hidden),
               "drawn_seed": seed}
        finished = run_child(job)
    finally:
        remove_tree(root)
    result = classify(exercise, finished)
    if not reference and result.status == "passed" and (
            own is None or is_stub(files[exercise.filename], exercise.function)):
        return not_own_code(exercise)   # it passed without being (really) written in the file
    return result


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
            for future in futures:   # (a job cancelled by Ctrl-C has no result to hear of)
                future.add_done_callback(
                    lambda done: None if done.cancelled() or done.exception() is not None
                    else on_result(done.result()))
        return [future.result() for future in futures]
    except KeyboardInterrupt:  # Ctrl-C: the children have their own session, stop them here
        with _running_lock:
            for process in list(_running):
                kill(process)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def stopped_like_ctrl_c() -> Iterator[None]:
    """A terminal closed (``SIGHUP``) or a ``kill`` (``SIGTERM``) stops grading as Ctrl-C
    does: every child stopped, every temporary copy of a learner's code removed."""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {number: signal.signal(number, interrupt)
             for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


LONGEST_TIMEOUT = 86_400.0   # seconds: a day (the clocks that time a run take no more)


def usable_timeout(seconds: float) -> bool:
    """A positive number of seconds, at most ``LONGEST_TIMEOUT`` (nan, inf and 25 days
    broke the clocks mid-run: a teacher's ``--timeout 2200000`` for "no limit")."""
    return math.isfinite(seconds) and 0 < seconds <= LONGEST_TIMEOUT


REFERENCE_FACTOR = 4.0   # a correct solution may take this many times the reference's time


class TimeLimits:
    """Each exercise's time limit: ``floor``, or ``REFERENCE_FACTOR`` times the reference's own
    time when that is more. The reference is timed in the same run, the same way (sandbox,
    proxy), on the same machine: a busy machine slows both alike, so a correct linear solution
    still passes, while a quadratic one (thousands of times slower on a long chain) does not.

    The reference is timed only when a run reaches ``floor`` (``run_calibrated``): stubs,
    wrong answers and quick solutions never wait for it. Thread-safe, once per exercise."""

    def __init__(self, floor: float, *, lang: str | None = None,
                 walls: Sandbox | None = None, seed: str | None = None) -> None:
        self.floor, self.lang, self.walls, self.seed = floor, lang, walls, seed
        self.known: dict[str, float] = {}
        self.reference_seconds: dict[str, float] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def of(self, exercise: Exercise) -> float:
        with self._lock:
            lock = self._locks.setdefault(exercise.id, threading.Lock())
        with lock:
            if exercise.id not in self.known:
                timed = run_exercise(exercise, "reference", timeout=max(self.floor, 60.0) * 3,
                                     lang=self.lang, walls=self.walls, seed=self.seed)
                self.reference_seconds[exercise.id] = timed.seconds
                self.known[exercise.id] = round(max(self.floor,
                                                    REFERENCE_FACTOR * timed.seconds), 1)
            return self.known[exercise.id]


def run_calibrated(exercise: Exercise, workspace: Path | str, limits: TimeLimits,
                   **options: object) -> ExerciseResult:
    """``run_exercise`` with ``limits.floor``; a run that times out there is run again with the
    exercise's calibrated limit, when that is longer."""
    result = run_exercise(exercise, workspace, timeout=limits.floor, **options)  # type: ignore[arg-type]
    if result.status == "timed_out" and not (result.at_import and not result.crowded()):
        # (a file whose import alone takes the floor, with its processor, needs no more: the
        # calibrated limit is for a slow solution on a large input, not for an import)
        limit = limits.of(exercise)
        if limit > limits.floor:
            result = run_exercise(exercise, workspace, timeout=limit, **options)  # type: ignore[arg-type]
    return result


def run_exercises(exercises: Iterable[Exercise], workspace: Path, *,
                  workers: int | None = None,
                  on_result: Callable[[ExerciseResult], None] | None = None,
                  timeout: float = DEFAULT_TIMEOUT, calibrate: bool = True,
                  **options: object) -> list[ExerciseResult]:
    """Every exercise of one workspace, in parallel; results in catalog order. With
    ``calibrate`` a run that reaches ``timeout`` gets the calibrated limit (``TimeLimits``).
    Every run, the reference's timing included, draws its inputs from one seed
    (``options["seed"]``, else ``drawn_seed()`` once here)."""
    options["seed"] = options.get("seed") or drawn_seed()
    if calibrate:
        limits = TimeLimits(timeout, lang=options.get("lang"),  # type: ignore[arg-type]
                            walls=options.get("walls"),  # type: ignore[arg-type]
                            seed=options["seed"])  # type: ignore[arg-type]
        jobs = [partial(run_calibrated, exercise, workspace, limits, **options)
                for exercise in exercises]
    else:
        jobs = [partial(run_exercise, exercise, workspace, timeout=timeout, **options)
                for exercise in exercises]
    return run_in_parallel(jobs, workers=workers, on_result=on_result)
