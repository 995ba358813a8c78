"""Notes for the teacher: a solution that is the reference's, or another learner's, renamed.

For each exercise the graded function (or class) is taken from each learner's file and
reduced to its *shape*: the syntax tree with docstrings dropped and every name the code
chooses itself (arguments, local variables, its own name) replaced by a number in order of
first use. Comments and formatting are not in a syntax tree at all. Two solutions with the
same shape are the same solution, whatever they are called.

This is a note, not a grade: two learners can honestly write the same five lines. The stub
(``raise NotImplementedError``) is left out, and so is any run that did not start.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import threading
from collections import defaultdict

from learn_pi_lab.harness import catalog
from learn_pi_lab.i18n import t

_PARSE_LOCK = threading.Lock()


def parse_python(source: str | bytes) -> ast.Module:
    """``ast.parse``, one thread at a time. CPython 3.11's parser is not safe to call from
    several threads at once (a ``SystemError``: "AST constructor recursion depth
    mismatch"), and ``grade`` looks at many learners' files on a pool of threads."""
    with _PARSE_LOCK:
        return ast.parse(source)

REFERENCE_SOLUTIONS = catalog.REPO_ROOT / "tests" / "solutions" / "reference"
KEPT_NAMES = set(dir(builtins)) | {"self", "cls"}


class _Renamer(ast.NodeTransformer):
    """Replace chosen names by ``v0``, ``v1``, ... in order of first appearance."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def rename(self, name: str) -> str:
        if name in KEPT_NAMES:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.rename(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.rename(node.arg)
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.rename(node.name)
        node.returns = None
        node.body = _without_docstring(node.body)
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self.rename(node.name)
        node.body = _without_docstring(node.body)
        self.generic_visit(node)
        return node


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        return body[1:] or [ast.Pass()]
    return body


def graded_definition(source: str | bytes, name: str) -> ast.AST | None:
    """The top-level ``def``/``class`` called ``name`` that is in effect when the module has
    been run: the last one (a second ``def`` replaces the first). ``None`` if there is none,
    or the file does not parse (or is nested too deeply to)."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return _last_definition(tree, name)


def _last_definition(tree: ast.Module, name: str) -> ast.AST | None:
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.name == name:
            found = node
    return found


def is_stub(source: str | bytes, name: str) -> bool:
    """Is the graded definition still the stub (or missing)? Such code cannot pass on its
    own: if it passes, the function came from somewhere else."""
    node = graded_definition(source, name)
    return node is None or _is_stub(node)


def shape(source: str | bytes, name: str) -> str | None:
    """A fingerprint of the graded definition of ``name`` (``graded_definition``); ``None``
    if there is none, or it is only a stub."""
    node = graded_definition(source, name)
    if node is None or _is_stub(node):
        return None
    try:
        normal = _Renamer().visit(node)
        dumped = ast.dump(normal, annotate_fields=False, include_attributes=False)
    except (RecursionError, MemoryError, ValueError):   # ValueError: an int of 5,000 digits
        return None
    return hashlib.sha256(dumped.encode("utf-8")).hexdigest()


def _is_stub(node: ast.AST) -> bool:
    """Only ``raise`` and ``pass`` in the body (for a class: in every method's body)."""
    body = _without_docstring(node.body)   # type: ignore[attr-defined]
    if isinstance(node, ast.ClassDef):
        methods = [statement for statement in body
                   if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))]
        return all(_is_stub(method) for method in methods) and all(
            isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Pass))
            for statement in body)
    return all(isinstance(statement, ast.Raise) or isinstance(statement, ast.Pass)
               for statement in body)


LOOKED_UP = 4
"""Values from an exercise's tests that neither its stub nor its reference solution holds:
this many in a learner's file earn the note ``harness.note.looked-up``."""


def constants(source: str | bytes | None, name: str | None = None) -> set[str]:
    """The literal strings and numbers a file spells out (``repr``; ``None``, booleans, and
    the numbers -1 to 9 and one-letter strings left out: every program has those). With
    ``name``: only those of the graded definition and of the top-level statements that bind
    a name it uses (a table beside it, a helper), not of the file's other exercises."""
    if source is None:
        return set()
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    parts: list[ast.AST] = [tree]
    if name is not None:
        graded = _last_definition(tree, name)   # (the tree parsed once)
        if graded is None:
            return set()
        used = {node.id for node in ast.walk(graded) if isinstance(node, ast.Name)}
        parts = [graded, *(statement for statement in tree.body
                           if statement is not graded and _binds(statement) & used)]
    found = set()
    for part in parts:
        for node in ast.walk(part):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and len(value) >= 2 or \
                    type(value) in (int, float) and not -1 <= value <= 9:
                found.add(_spelled(value))
    return found


def _spelled(value: str | int | float) -> str:
    """``repr(value)``; an int too long for Python to write as digits (``0xfff…`` of 4,000
    hex digits is a valid literal) is named by its hex digits instead."""
    try:
        return repr(value)
    except ValueError:
        return hex(value)   # type: ignore[arg-type]


def _binds(statement: ast.stmt) -> set[str]:
    """The names a top-level statement gives a value to."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    targets = (statement.targets if isinstance(statement, ast.Assign) else
               [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign))
               else [])
    return {node.id for target in targets for node in ast.walk(target)
            if isinstance(node, ast.Name)}


def test_values(exercise: catalog.Exercise) -> set[str]:
    """What the exercise's tests spell out and an honest solution has no reason to: the
    tests' literals less those of its stub and of its reference solution."""
    spelled: set[str] = set()
    for name in exercise.tests:
        module = catalog.REPO_ROOT / (name.rsplit(".", 1)[0].replace(".", "/") + ".py")
        spelled |= constants(module.read_bytes() if module.is_file() else None)
    for honest in (REFERENCE_SOLUTIONS / exercise.filename,
                   catalog.default_workspace() / exercise.filename):
        spelled -= constants(honest.read_bytes() if honest.is_file() else None)
    return spelled


def notes(exercises: list[catalog.Exercise], snapshots: dict[str, dict[str, bytes]],
          statuses: dict[tuple[str, str], str], lang: str | None = None
          ) -> dict[tuple[str, str], str]:
    """``{(learner, exercise id): note}`` for solutions identical to the reference
    solution or to another learner's, after renaming, and for files that spell out many of
    the tests' own values (answers looked up, not computed: a teacher's review)."""
    found: dict[tuple[str, str], str] = {}
    for exercise in exercises:
        reference_file = REFERENCE_SOLUTIONS / exercise.filename
        reference = (shape(reference_file.read_bytes(), exercise.function)
                     if reference_file.is_file() else None)
        from_tests = test_values(exercise)
        for learner, files in snapshots.items():
            if statuses.get((learner, exercise.id)) != "passed":
                continue
            taken = sorted(constants(files.get(exercise.filename), exercise.function)
                           & from_tests)
            if len(taken) >= LOOKED_UP:
                found[(learner, exercise.id)] = t("harness.note.looked-up", lang,
                                                  count=len(taken),
                                                  examples=", ".join(taken[:3]))
        by_shape: dict[str, list[str]] = defaultdict(list)
        for learner, files in snapshots.items():
            if statuses.get((learner, exercise.id)) in (None, "not_started", "not_own_code"):
                continue
            source = files.get(exercise.filename)
            fingerprint = shape(source, exercise.function) if source is not None else None
            if fingerprint is not None:
                by_shape[fingerprint].append(learner)
        for fingerprint, learners in by_shape.items():
            for learner in learners:
                parts = []
                if fingerprint == reference:
                    parts.append(t("harness.note.reference", lang))
                others = [other for other in learners if other != learner]
                if others:
                    parts.append(t("harness.note.learners", lang, learners=", ".join(others)))
                if parts:
                    earlier = found.get((learner, exercise.id))
                    found[(learner, exercise.id)] = "; ".join([*parts, *filter(None, [earlier])])
    return found

