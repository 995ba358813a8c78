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
    except (RecursionError, MemoryError):
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


def notes(exercises: list[catalog.Exercise], snapshots: dict[str, dict[str, bytes]],
          statuses: dict[tuple[str, str], str], lang: str | None = None
          ) -> dict[tuple[str, str], str]:
    """``{(learner, exercise id): note}`` for solutions identical to the reference
    solution or to another learner's, after renaming."""
    found: dict[tuple[str, str], str] = {}
    for exercise in exercises:
        reference_file = REFERENCE_SOLUTIONS / exercise.filename
        reference = (shape(reference_file.read_bytes(), exercise.function)
                     if reference_file.is_file() else None)
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
                    found[(learner, exercise.id)] = "; ".join(parts)
    return found

