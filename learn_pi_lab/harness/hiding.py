"""The package's own solutions, made to refuse while a learner's are graded.

The learner's file must not hand in the package's function under the graded name. The
syntax tree check (``runner.defines``) looks for every way it knows of reaching it; this
module makes the answer certain for the function itself. Two layers, one rule
(``graded_names``: the functions and classes graded in one learner file against one package
module):

* **in the worker's process** (``hide_the_reference``): before the learner's file is loaded,
  the code of each graded function, and of each method of a graded class, is replaced by
  code that raises ``errors.ReferenceHidden``. However the learner's code gets hold of one
  (an attribute, a re-export, ``match``, a name built at run time, or another function of
  the package that calls it, such as ``Session.labels``), calling it raises, and
  ``runner.classify`` calls the run ``not_own_code`` (``package-solution-ran``);
* **in the sandbox's file system** (``refusing_source``): the package module's file is
  replaced, read-only, by a copy whose graded bodies raise the same way, so a fresh Python
  the learner's code starts (``subprocess``, ``multiprocessing``) imports no solution either.

A learner can skip this module.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import types
from pathlib import Path
from typing import Any

from learn_pi_lab.harness.catalog import exercises

REFUSAL = "raise __import__('learn_pi_lab.errors', fromlist=['x']).ReferenceHidden({name!r})"
"""The one statement a refusing body holds (it names nothing of the module it runs in)."""


def graded_names(module: str, reference: str) -> list[str]:
    """The functions and classes graded in the learner's ``module`` against ``reference``."""
    return [exercise.function for exercise in exercises()
            if exercise.module == module and exercise.reference == reference]


def hide_the_reference(module: str, reference: str) -> None:
    """Give the package's graded functions (and graded classes' methods) refusing code."""
    package = importlib.import_module(reference)
    for name in graded_names(module, reference):
        target = getattr(package, name, None)
        functions = [target] if isinstance(target, types.FunctionType) else [
            getattr(value, "__func__", value) for value in vars(target).values()
        ] if isinstance(target, type) else []
        for function in functions:
            if isinstance(function, types.FunctionType):
                _refuse(function, f"{reference}.{name}")


def _refuse(function: types.FunctionType, name: str) -> None:
    """Give ``function`` code that only raises (a closure keeps its number of cells: a method
    that uses ``super()`` has one)."""
    free = function.__code__.co_freevars
    inner = "\n".join(f"    {variable} = None" for variable in free) or "    pass"
    uses = "".join(f"        {variable}\n" for variable in free)
    namespace: dict[str, Any] = {}
    exec(f"def outer():\n{inner}\n    def refusing(*args, **kwargs):\n{uses}"
         f"        {REFUSAL.format(name=name)}\n    return refusing\n", namespace)
    function.__code__ = namespace["outer"]().__code__


def refusing_source(module: str, reference: str) -> tuple[Path, str] | None:
    """The package module's file, and its text with the graded bodies refusing (None: nothing
    graded there, or no source file)."""
    names = set(graded_names(module, reference))
    spec = importlib.util.find_spec(reference)
    if not names or spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    path = Path(spec.origin).resolve()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            node.body = _refusal(f"{reference}.{node.name}")
        elif isinstance(node, ast.ClassDef) and node.name in names:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    item.body = _refusal(f"{reference}.{node.name}")
    return path, ast.unparse(tree) + "\n"


def _refusal(name: str) -> list[ast.stmt]:
    return ast.parse(REFUSAL.format(name=name)).body
