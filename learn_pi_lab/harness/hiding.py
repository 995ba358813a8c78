"""The package's own solutions, made to refuse while a learner's are graded.

The learner's file must not hand in the package's function under the graded name. The
syntax tree check (``runner.defines``) looks for every way it knows of reaching it; this
module makes the answer certain for the function itself, and for the package's other code
that computes the same answer (each exercise's ``same_job`` in ``exercises.json``). Two
layers, one rule (``refused_targets``: what refuses while one learner file is graded against
one package module):

* **in the worker's process** (``hide_the_reference``): before the learner's file is loaded,
  the code of each graded function, and of each method of a graded class, is replaced by
  code that raises ``errors.ReferenceHidden``. However the learner's code gets hold of one
  (an attribute, a re-export, ``match``, a name built at run time, or another function of
  the package that calls it, such as ``Session.labels``), calling it raises; before it
  raises it writes a line to the trusted side (``refusal``, on a pipe of its own), so the
  run is ``not_own_code`` (``package-solution-ran``) even when the learner's code catches
  the exception, or raises something else instead. What the learner's code raises is never
  read as that evidence: a class of theirs can claim any name and module;
* **in the sandbox's file system** (``refusing_sources``): each package module file holding
  refused code is replaced, read-only, by a copy whose refused bodies raise the same way, so
  a fresh Python the learner's code starts (``subprocess``, ``multiprocessing``) imports no
  solution either.

A learner can skip this module.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import signal
import types
from pathlib import Path
from typing import Any

from learn_pi_lab.harness.catalog import exercises

REFUSAL = "raise __import__('learn_pi_lab.harness.hiding', fromlist=['x']).refusal({name!r})"
"""The one statement a refusing body holds (it names nothing of the module it runs in)."""

REFUSALS_FD = 6
"""The worker's end of the pipe on which each refusal is reported (``proxy.Worker`` reads the
other end; 3 and 4 are the requests and the answers, 5 bwrap's options)."""

_channel: tuple[int, str] | None = None   # (the pipe's fd, this run's token) in the worker


def report_refusals_to(fd: int, token: str) -> None:
    """In the worker, before the learner's file is loaded: refusals are reported on ``fd``,
    each line starting with ``token`` (a secret of this run's trusted side)."""
    global _channel
    _channel = (fd, token)


def refusal(name: str) -> BaseException:
    """The exception a refusing body raises, once the refusal is on record: a line
    ``TOKEN NAME`` on the trusted side's pipe. A record that cannot be written (the learner's
    code closed the pipe) ends the process: the run is then a crash, never a pass. In a fresh
    Python the learner started (the sandbox's refusing copy of the module) there is no pipe:
    the refusal only raises, and that Python has no answer to give."""
    from learn_pi_lab.errors import ReferenceHidden
    if _channel is not None:
        fd, token = _channel
        try:
            os.write(fd, f"{token} {name}\n".encode("utf-8"))
        except OSError:
            os.kill(os.getpid(), signal.SIGKILL)
    return ReferenceHidden(name)


def graded_names(module: str, reference: str) -> list[str]:
    """The functions and classes graded in the learner's ``module`` against ``reference``."""
    return [exercise.function for exercise in exercises()
            if exercise.module == module and exercise.reference == reference]


def refused_targets(module: str, reference: str) -> dict[str, list[str]]:
    """Everything that refuses while ``module`` is graded against ``reference``, by package
    module: the graded names in ``reference``, and each exercise's ``same_job`` (the
    package's other code that computes the same answer). A name is a function, a class (all
    of its methods refuse) or ``Class.method``."""
    targets: dict[str, list[str]] = {reference: graded_names(module, reference)}
    for exercise in exercises():
        if exercise.module == module and exercise.reference == reference:
            for qualified in exercise.same_job:
                where, _, name = qualified.partition(":")
                targets.setdefault(where, []).append(name)
    return {where: names for where, names in targets.items() if names}


def refused_names(module: str, reference: str) -> set[str]:
    """The dotted names a refusal may carry for this file (``ReferenceHidden.name``)."""
    return {f"{where}.{name}" for where, names in refused_targets(module, reference).items()
            for name in names}


def hide_the_reference(module: str, reference: str) -> None:
    """Give the package's graded functions (and graded classes' methods), and the code that
    does the same job, refusing code."""
    for where, names in refused_targets(module, reference).items():
        package = importlib.import_module(where)
        for name in names:
            for function in _functions_of(package, name):
                _refuse(function, f"{where}.{name}")


def _functions_of(package: types.ModuleType, name: str) -> list[types.FunctionType]:
    """The code behind ``name`` in ``package``: a function, each method of a class, or one
    method (``Class.method``; static and class methods too)."""
    owner: Any = package
    *path, last = name.split(".")
    for part in path:
        owner = getattr(owner, part, None)
    target = vars(owner).get(last) if isinstance(owner, type) else getattr(owner, last, None)
    found = vars(target).values() if isinstance(target, type) else [target]
    functions = [getattr(value, "__func__", value) for value in found]
    return [function for function in functions if isinstance(function, types.FunctionType)]


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


def refusing_sources(module: str, reference: str) -> list[tuple[Path, str]]:
    """Each package module file that holds refused code, and its text with those bodies
    refusing (nothing for a module without a source file)."""
    found = []
    for where, names in refused_targets(module, reference).items():
        spec = importlib.util.find_spec(where)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        path = Path(spec.origin).resolve()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        wanted = set(names)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in wanted:
                node.body = _refusal(f"{where}.{node.name}")
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        continue
                    refused = node.name if node.name in wanted else f"{node.name}.{item.name}"
                    if refused in wanted:
                        item.body = _refusal(f"{where}.{refused}")
        found.append((path, ast.unparse(tree) + "\n"))
    return found


def _refusal(name: str) -> list[ast.stmt]:
    return ast.parse(REFUSAL.format(name=name)).body
