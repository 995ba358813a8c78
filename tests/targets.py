"""Point a behavioural test at the reference model or at a learner's workspace.

One spec, two targets: the tests that prove ``learn_pi_lab.session_tree`` correct are the
same tests that grade a learner's ``path_to``. The environment variable
``LEARN_PI_LAB_TARGET`` chooses: ``reference`` (the default) imports the package module,
anything else is the path of a workspace folder whose ``chNN_*.py`` file is imported instead.

When the harness grades (``learn_pi_lab.harness.child``), the learner's file is never
imported here: ``load_target`` returns a proxy module whose functions run in the sandboxed
worker process (``learn_pi_lab.harness.proxy``), so the test and its verdict stay out of the
learner's reach. The reference goes through the same proxy then, and is timed the same way.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

ENV = "LEARN_PI_LAB_TARGET"


def target_name() -> str:
    return os.environ.get(ENV, "reference") or "reference"


def is_reference() -> bool:
    return target_name() == "reference"


def load_target(workspace_module: str, reference_module: str) -> ModuleType:
    """The module under test: the package's reference, or the learner's file of that name."""
    from learn_pi_lab.harness import proxy
    if proxy.active():
        return proxy.load(workspace_module, reference_module)
    if is_reference():
        return importlib.import_module(reference_module)
    path = Path(target_name()) / f"{workspace_module}.py"
    name = f"learner_workspace.{workspace_module}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def bytes_read_by_target() -> int | None:
    """How many bytes the code under test has read so far (Linux's ``rchar``), or None where
    the kernel does not count them (not Linux).

    Graded, the code runs in the worker process and what it starts (``proxy``): their counts
    are summed (a process already gone is in its parent's count). Otherwise it runs in this
    thread, whose own count is taken. Reads of any kind count: a file, a pipe, an import.
    """
    from learn_pi_lab.harness import proxy, sandbox
    if proxy.active():
        assert proxy.current is not None
        names = [f"/proc/{pid}/io" for pid in sandbox.process_tree(proxy.current.process.pid)]
    else:
        names = ["/proc/thread-self/io"]
    total = None
    for name in names:
        try:
            with open(name, "rb") as counters:
                for row in counters:
                    if row.startswith(b"rchar:"):
                        total = (total or 0) + int(row.split()[1])
        except OSError:
            continue
    return total
