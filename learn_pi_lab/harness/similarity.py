"""Notes for the teacher: a solution that is the reference's, or another learner's, in disguise.

For each exercise the graded function (or class) is taken from each learner's file, with the
helpers it calls that the learner wrote (in the same file or another file of their workspace:
a solution split into helpers is put back together), and **normalised**: docstrings,
comments, annotations and formatting are not in it; statements that do nothing are dropped
(``pass``, a bare value such as ``0`` or ``x``, ``x = x``, an assignment nobody reads, code
after a ``return``, ``if False:``); the statements of each block are put in one canonical
order; every name the code chooses is numbered. Two comparisons follow (``notes``):

* **the same normalised shape**, whatever its size: the reference's with only names,
  comments, formatting, no-op lines or the order of statements changed, or a classmate's;
* **a resemblance score** for a larger solution (at least ``MIN_FINGERPRINTS`` fingerprints,
  about 40 lines of code's worth of tokens): winnowing, as MOSS does, over the normalised
  token stream (every chosen name the same token, every string the same token), and the
  share of fingerprints the two solutions have in common, of the smaller one's; from
  ``NOTED_SCORE`` on, the note names who resembles whom, with the score.

This is a note, not a grade: two learners can honestly write the same five lines, and a short
function has too few tokens for a score to mean anything (so only its exact shape is
compared). The stub is left out, and so is any run that did not start.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import re
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterator

from learn_pi_lab.harness import catalog
from learn_pi_lab.i18n import t

_PARSE_LOCK = threading.Lock()


def parse_python(source: str | bytes) -> ast.Module:
    """``ast.parse``, one thread at a time. CPython 3.11's parser is not safe to call from
    several threads at once (a ``SystemError``: "AST constructor recursion depth
    mismatch"), and ``grade`` looks at many learners' files on a pool of threads."""
    with _PARSE_LOCK:
        return ast.parse(source)

REFERENCE_SOLUTIONS = catalog.LESSONS
KEPT_NAMES = set(dir(builtins)) | {"self", "cls"}
K_GRAM = 8             # tokens in one k-gram
WINDOW = 4             # k-grams in one winnowing window
MIN_FINGERPRINTS = 20  # below this a solution gets no score, only the exact-shape comparison
NOTED_SCORE = 0.8      # a score from here on is noted (tests/test_harness_similarity.py)
NAMED = 5              # classmates named in one note (then "and N more")


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


def shape(source: str | bytes, name: str, files: dict[str, bytes] | None = None) -> str | None:
    """A fingerprint of the graded definition of ``name``, normalised (see the module
    docstring); ``None`` if there is none, or it is only a stub. ``files``: the learner's
    other files, whose helpers the definition calls are put back into it."""
    found = normalised(source, name, files)
    return None if found is None else hashlib.sha256(" ".join(found.named).encode()).hexdigest()


@dataclass(frozen=True)
class Normalised:
    """One solution's normalised token stream: ``named`` numbers each chosen name in order
    of first use (the exact shape), ``plain`` writes every chosen name as ``V`` and every
    string as ``S`` (for the resemblance score)."""
    named: tuple[str, ...]
    plain: tuple[str, ...]

    def fingerprints(self) -> frozenset[int]:
        """Winnowing (MOSS): the smallest hash of every ``WINDOW`` consecutive k-grams."""
        tokens = self.plain
        hashes = [int.from_bytes(hashlib.blake2b(" ".join(tokens[i:i + K_GRAM]).encode(),
                                                 digest_size=8).digest(), "big")
                  for i in range(max(0, len(tokens) - K_GRAM + 1))]
        if len(hashes) <= WINDOW:
            return frozenset(hashes)
        return frozenset(min(hashes[i:i + WINDOW]) for i in range(len(hashes) - WINDOW + 1))


def normalised(source: str | bytes, name: str, files: dict[str, bytes] | None = None
               ) -> Normalised | None:
    """The graded definition of ``name`` in ``source``, with the helpers it calls from
    ``source`` and ``files``, as a ``Normalised`` token stream; ``None`` when there is no
    definition, it is a stub, or the file cannot be read (too deep, a number too long)."""
    try:
        tree = parse_python(source)
        node = _last_definition(tree, name)
        if node is None or _is_stub(node):
            return None
        helpers = _helpers(tree, files or {})
        node = _delegated_to(_Cleaner().visit(_copy(node)), helpers)
        writer = _Tokens(helpers)
        writer.emit(node)
        return Normalised(tuple(writer.named), tuple(writer.plain))
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        return None


def _delegated_to(node: ast.AST, helpers: dict[str, ast.AST]) -> ast.AST:
    """A graded function whose whole body hands its own arguments, in order, to a helper of
    the learner's (``return _impl(entries, leaf)``) is that helper: the solution is the
    helper's (cleaned), whatever the wrapper is called."""
    seen: set[str] = set()
    while isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(node.body) == 1:
        statement = node.body[0]
        call = statement.value if isinstance(statement, (ast.Return, ast.Expr)) else None
        parameters = [argument.arg for argument in node.args.args]
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in helpers and call.func.id not in seen and not call.keywords
                and [getattr(argument, "id", None) for argument in call.args] == parameters):
            break
        seen.add(call.func.id)
        node = _Cleaner().visit(_copy(helpers[call.func.id]))
    return node


def _copy(node: ast.AST) -> ast.AST:
    return ast.parse(ast.unparse(node)).body[0]


def _helpers(tree: ast.Module, files: dict[str, bytes]) -> dict[str, ast.AST]:
    """The functions and classes the learner wrote that a graded definition may call by
    name: the file's own top-level ones, and those it imports by name from another ``.py``
    file of the learner's (``from my_helpers import walk``)."""
    found: dict[str, ast.AST] = {}
    for statement in tree.body:
        if not isinstance(statement, ast.ImportFrom) or not statement.module \
                or statement.level:
            continue
        other = files.get(statement.module.replace(".", "/") + ".py")
        if other is None:
            continue
        try:
            other_tree = parse_python(other)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        wanted = {alias.name: alias.asname or alias.name for alias in statement.names}
        for definition in other_tree.body:
            if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and definition.name in wanted:
                found[wanted[definition.name]] = definition
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[statement.name] = statement
    return found


def _is_constant_false(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and not test.value


def _does_nothing(statement: ast.stmt) -> bool:
    """``pass``, a bare value (``0``, ``x``, ``x.y``, a string), ``x = x``."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, (
            ast.Constant, ast.Name, ast.Attribute)):
        return True
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], ast.Name) \
            and isinstance(statement.value, ast.Name) \
            and statement.targets[0].id == statement.value.id:
        return True
    return False


def _has_call(node: ast.AST) -> bool:
    return any(isinstance(inner, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom))
               for inner in ast.walk(node))


class _Cleaner(ast.NodeTransformer):
    """What a solution does, without what does nothing: docstrings, annotations, no-op
    statements, assignments nobody reads, code after ``return``/``raise``/``break``/
    ``continue``, ``if False:``; each block's statements in one canonical order."""

    def __init__(self) -> None:
        self.read: set[str] = set()

    def visit(self, node: ast.AST) -> ast.AST:
        if not self.read:
            self.read = {inner.id for inner in ast.walk(node)
                         if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load)}
        return super().visit(node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, self.block(block))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns, node.decorator_list = None, []
            for argument in ast.walk(node.args):
                if isinstance(argument, ast.arg):
                    argument.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        if node.value is None:
            return None
        return self.visit(ast.Assign(targets=[node.target], value=node.value, lineno=0))

    def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if _is_constant_false(node.test):
            return node.orelse or []
        return node

    def visit_While(self, node: ast.While) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        return node.orelse if _is_constant_false(node.test) else node

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        kept: list[ast.stmt] = []
        for index, statement in enumerate(statements):
            if index == 0 and isinstance(statement, ast.Expr) \
                    and isinstance(statement.value, ast.Constant) \
                    and isinstance(statement.value.value, str):
                continue   # a docstring
            if _does_nothing(statement) or self.unread(statement):
                continue
            kept.append(statement)
            if isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                break      # what follows never runs
        # one canonical order: statements that only bind names nobody else in the block
        # binds, and that call nothing, may be reordered without changing anything
        return _canonical_order(kept) or [ast.Pass()]

    def unread(self, statement: ast.stmt) -> bool:
        """An assignment to names nobody reads, of a value that calls nothing."""
        if not isinstance(statement, (ast.Assign, ast.AugAssign)) or _has_call(statement.value):
            return False
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        names = [target.id for target in targets if isinstance(target, ast.Name)]
        return len(names) == len(targets) and not set(names) & self.read


def _canonical_order(statements: list[ast.stmt]) -> list[ast.stmt]:
    """Runs of consecutive simple statements that do not depend on each other (no one
    reads or writes what another writes, none calls anything) sorted by their text with
    every name the same: the order a learner wrote them in does not change the shape."""
    result: list[ast.stmt] = []
    run: list[ast.stmt] = []

    def flush() -> None:
        run.sort(key=lambda statement: _plain_text(statement))
        result.extend(run)
        run.clear()
    for statement in statements:
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)) \
                and not _has_call(statement) and not _touches(statement, run):
            run.append(statement)
            continue
        flush()
        result.append(statement)
    flush()
    return result


def _names(node: ast.AST, stored: bool) -> set[str]:
    return {inner.id for inner in ast.walk(node) if isinstance(inner, ast.Name)
            and isinstance(inner.ctx, ast.Store) == stored}


def _touches(statement: ast.stmt, run: list[ast.stmt]) -> bool:
    mine_written, mine_read = _names(statement, True), _names(statement, False)
    for other in run:
        written, read = _names(other, True), _names(other, False)
        if mine_written & (written | read) or mine_read & written:
            return True
    return False


def _plain_text(node: ast.AST) -> str:
    writer = _Tokens({})
    writer.emit(node)
    return " ".join(writer.plain)


class _Tokens:
    """A node's tokens: node types, operators, attribute names, constants; chosen names
    numbered (``named``) or all ``V`` (``plain``); a call of a learner's helper is replaced,
    the first time, by the helper's own tokens."""

    def __init__(self, helpers: dict[str, ast.AST]) -> None:
        self.helpers, self.inlined = helpers, set()
        self.numbers: dict[str, str] = {}
        self.named: list[str] = []
        self.plain: list[str] = []

    def add(self, named: str, plain: str | None = None) -> None:
        self.named.append(named)
        self.plain.append(named if plain is None else plain)

    def emit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name) or isinstance(node, ast.arg):
            name = node.id if isinstance(node, ast.Name) else node.arg
            if name in KEPT_NAMES:
                self.add(name)
            else:
                self.add(self.numbers.setdefault(name, f"v{len(self.numbers)}"), "V")
            return
        if isinstance(node, ast.Constant):
            value = node.value
            shown = f"{value:x}" if isinstance(value, int) and not isinstance(value, bool) \
                and abs(value) > 10 ** 30 else repr(value)
            self.add(shown, "S" if isinstance(value, (str, bytes)) else shown)
            return
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in self.helpers and node.func.id not in self.inlined:
            self.inlined.add(node.func.id)
            helper = self.helpers[node.func.id]
            self.add("Call")
            for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
                self.emit(argument)
            self.emit(_Cleaner().visit(_copy(helper)))
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.add(type(node).__name__)   # (its own name is the graded one, or a helper's)
        else:
            self.add(type(node).__name__)
        if isinstance(node, ast.Attribute):
            self.add("." + node.attr)
        for field, value in ast.iter_fields(node):
            if field == "ctx" or field in ("type_comment", "kind", "name") and not isinstance(
                    value, ast.AST):
                continue
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, ast.AST):
                    self.emit(item)
                elif isinstance(item, str) and field in ("attr",):
                    continue
                elif item is not None and not isinstance(item, str):
                    self.add(repr(item))
        self.add(")")


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


CARRIED_TEXT = 48
"""A string literal at least this long that holds a Python statement with a body (``for``,
``while``, ``if``, ``def``, ...), an import or a lambda carries code, not data."""
CARRIED_BYTES = 256
"""Bytes at least this long that are not text (compiled code, a pickle) carry code too."""
STRING_RUNNERS = frozenset({"timeit", "doctest", "pdb", "bdb", "subprocess", "multiprocessing",
                            "concurrent", "pty"})
"""Modules that run code held in a string, or start a fresh Python that can: honest
solutions of these exercises need none of them."""
OS_RUNNERS = re.compile(r"system|popen|exec[lv]p?e?|spawn[lv]?p?e?|posix_spawnp?|fork")
"""``os`` functions that start a program (``os`` itself is ordinary: ``os.path``, ``fsync``)."""


def carried_code(source: str | bytes | ast.Module | None) -> int:
    """The size of the largest literal of the file that carries code: a string of at least
    ``CARRIED_TEXT`` characters that parses as Python (a docstring's ``>>>`` examples too)
    with a statement that has a body, an import or a lambda in it, or bytes of at least
    ``CARRIED_BYTES`` that are not UTF-8 text; 0 when there is none. Literals joined by
    ``+`` in the file count as one. (``source``: the file's text, or its syntax tree.)"""
    tree = _parsed(source)
    if tree is None:
        return 0
    largest = 0
    for value in _literals(tree):
        if len(value) > largest and _is_carried_code(value):
            largest = len(value)
    return largest


def code_runners(source: str | bytes | ast.Module | None) -> list[str]:
    """The modules and ``os`` functions of the file that run code held in a string
    (``STRING_RUNNERS``, ``OS_RUNNERS``), in the order first met (``source``: the file's
    text, or its syntax tree)."""
    tree = _parsed(source)
    if tree is None:
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + ([f"os.{alias.name}" for alias in node.names
                                      if OS_RUNNERS.fullmatch(alias.name)]
                                     if node.module == "os" else [])
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "os" and OS_RUNNERS.fullmatch(node.attr):
            names = [f"os.{node.attr}"]
        for name in names:
            if (name.split(".")[0] in STRING_RUNNERS or name.startswith("os.")) \
                    and name not in found:
                found.append(name)
    return found


def _parsed(source: str | bytes | ast.Module | None) -> ast.Module | None:
    """The file's syntax tree (``parse_python``), or None for a file that does not parse."""
    if source is None or isinstance(source, ast.Module):
        return source
    try:
        return parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _literals(tree: ast.AST) -> Iterator[str | bytes]:
    """Every str or bytes literal, those joined by ``+`` as one."""
    joined: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and id(node) not in joined:
            parts = _added(node)
            if parts is not None:
                joined.update(id(inner) for inner in ast.walk(node))
                yield parts
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) \
                and id(node) not in joined:
            yield node.value


def _added(node: ast.AST) -> str | bytes | None:
    """The value of ``"a" + "b" + ...`` made of literals of one kind only, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _added(node.left), _added(node.right)
        if left is not None and right is not None and type(left) is type(right):
            return left + right
    return None


def _is_carried_code(value: str | bytes) -> bool:
    if isinstance(value, bytes):
        if len(value) < CARRIED_BYTES:
            return False
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return True
        if any(ord(char) < 32 and char not in "\t\n\r" for char in value):
            return True
    if len(value) < CARRIED_TEXT:
        return False
    candidates = [value]
    if ">>>" in value:   # a docstring's examples, which doctest runs
        import doctest
        try:
            examples = doctest.DocTestParser().get_examples(value)
        except ValueError:
            examples = []
        candidates.append("".join(example.source for example in examples))
    for text in candidates:
        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if any(isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With,
                                 ast.AsyncWith, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef, ast.Lambda, ast.Import, ast.ImportFrom,
                                 ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp))
               for node in ast.walk(tree)):
            return True
    return False


def constants(source: str | bytes | ast.Module | None, name: str | None = None) -> set[str]:
    """The literal strings and numbers a file spells out (``repr``; ``None``, booleans, and
    the numbers -1 to 9 and one-letter strings left out: every program has those). With
    ``name``: only those of the graded definition and of the top-level statements that bind
    a name it uses (a table beside it, a helper), not of the file's other exercises."""
    tree = _parsed(source)
    if tree is None:
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


def resemblance(one: frozenset[int], other: frozenset[int]) -> float | None:
    """The share of fingerprints two solutions have in common, of the smaller one's; None
    when either is too small for a score to mean anything (``MIN_FINGERPRINTS``)."""
    if min(len(one), len(other)) < MIN_FINGERPRINTS:
        return None
    return len(one & other) / min(len(one), len(other))


def notes(exercises: list[catalog.Exercise], snapshots: dict[str, dict[str, bytes]],
          statuses: dict[tuple[str, str], str], lang: str | None = None
          ) -> dict[tuple[str, str], str]:
    """``{(learner, exercise id): note}`` for solutions whose normalised shape is the
    reference solution's or another learner's, or that resemble one by ``NOTED_SCORE`` or
    more, and for files that spell out many of the tests' own values (answers looked up,
    not computed: a teacher's review)."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for exercise in exercises:
        reference_file = REFERENCE_SOLUTIONS / exercise.filename
        reference = (normalised(reference_file.read_bytes(), exercise.function,
                                {path.name: path.read_bytes()
                                 for path in REFERENCE_SOLUTIONS.glob("*.py")})
                     if reference_file.is_file() else None)
        from_tests = test_values(exercise)
        solutions: dict[str, Normalised] = {}
        for learner, files in snapshots.items():
            status = statuses.get((learner, exercise.id))
            source = files.get(exercise.filename)
            if status == "passed":
                tree = _parsed(source)   # (parsed once for the three looks below)
                taken = sorted(constants(tree, exercise.function) & from_tests)
                if len(taken) >= LOOKED_UP:
                    found[(learner, exercise.id)].append(t(
                        "harness.note.looked-up", lang, count=len(taken),
                        examples=", ".join(taken[:3])))
                carried = carried_code(tree)
                if carried:
                    found[(learner, exercise.id)].append(t(
                        "harness.note.carried-code", lang, size=carried))
                runners = code_runners(tree)
                if runners:
                    found[(learner, exercise.id)].append(t(
                        "harness.note.code-runners", lang, names=", ".join(runners)))
            if status in (None, "not_started", "not_own_code") or source is None:
                continue
            solution = normalised(source, exercise.function, files)
            if solution is not None:
                solutions[learner] = solution
        for learner, text in _resemblances(solutions, reference, lang).items():
            found[(learner, exercise.id)].insert(0, text)
    return {key: "; ".join(parts) for key, parts in found.items()}


def _resemblances(solutions: dict[str, Normalised], reference: Normalised | None,
                  lang: str | None) -> dict[str, str]:
    """Per learner, the note on whom their solution is, or resembles: the reference, then
    classmates (most alike first). Fingerprints are indexed, so only solutions that share
    some are compared (a class of 300 is a fraction of a second per exercise)."""
    prints = {learner: solution.fingerprints() for learner, solution in solutions.items()}
    shapes = {learner: solution.named for learner, solution in solutions.items()}
    reference_prints = reference.fingerprints() if reference is not None else frozenset()
    index: dict[int, list[str]] = defaultdict(list)
    for learner, fingerprints in prints.items():
        for fingerprint in fingerprints:
            index[fingerprint].append(learner)
    notes: dict[str, str] = {}
    for learner, fingerprints in prints.items():
        parts = []
        if reference is not None and shapes[learner] == reference.named:
            parts.append(t("harness.note.reference", lang))
        elif reference is not None:
            score = resemblance(fingerprints, reference_prints)
            if score is not None and score >= NOTED_SCORE:
                parts.append(t("harness.note.reference_score", lang, score=round(100 * score)))
        shared = Counter(other for fingerprint in fingerprints for other in index[fingerprint]
                         if other != learner)
        same = sorted(other for other in prints if other != learner
                      and shapes[other] == shapes[learner])
        alike = []
        for other in shared:
            if other in same:
                continue
            score = resemblance(fingerprints, prints[other])
            if score is not None and score >= NOTED_SCORE:
                alike.append((score, other))
        if same:
            named = ", ".join(same[:NAMED])
            if len(same) > NAMED:
                named += t("harness.note.more", lang, count=len(same) - NAMED)
            parts.append(t("harness.note.learners", lang, learners=named))
        for score, other in sorted(alike, key=lambda item: (-item[0], item[1]))[:NAMED]:
            parts.append(t("harness.note.learner_score", lang, learner=other,
                           score=round(100 * score)))
        if parts:
            notes[learner] = "; ".join(parts)
    return notes
