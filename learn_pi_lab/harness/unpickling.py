"""While a learner's file is graded, ``pickle`` may rebuild data but never run code.

``pickle.loads`` calls any function a pickle names, with the arguments it holds: a pickle
of ``marshal.loads(<the lesson's compiled code>)`` is ``exec`` by another name, and the
syntax tree check (``runner.not_own_reason``) cannot see inside a string of bytes (an
attacker's review handed in a model answer so). Python raises the audit event
``pickle.find_class`` for every name a pickle asks for, in the C and the Python unpickler
alike, and an audit hook cannot be taken back; ``refuse_code_in_pickles`` adds one to the
worker before the learner's file is loaded. A name passes when it only makes data: the
built-in types and exceptions, ``copyreg``'s rebuilders, the data classes of ``collections``,
``datetime``, ``decimal`` and ``fractions``, and the learner's own classes (a module loaded
from the workspace). Anything else (``marshal``, ``builtins.exec``, ``importlib``, a function
of the package) raises ``pickle.UnpicklingError`` naming it. The exercises never need to
unpickle at all; a learner who pickles their own data is unaffected.

A learner can skip this module.
"""

from __future__ import annotations

import _compat_pickle
import builtins
import pickle
import sys
from pathlib import Path

DATA_MODULES = frozenset({"collections", "datetime", "decimal", "fractions"})
"""Modules whose every class only holds data (no class there runs a string as code)."""

REBUILDERS = frozenset({("copyreg", "_reconstructor"), ("copyreg", "__newobj__"),
                        ("copyreg", "__newobj_ex__"), ("_codecs", "encode")})
"""What protocols 0 to 5 name to rebuild plain objects (``_codecs.encode``: bytes, protocol
0 to 2)."""

NOT_DATA = frozenset({"type", "object", "super", "classmethod", "staticmethod", "property",
                      "memoryview", "BaseException"})
"""Built-in classes a pickle of data never needs whole (``object`` and ``type`` make new
classes; the rest wrap functions or memory)."""

_installed = False


def allowed(module: str, name: str, workspace: Path) -> bool:
    """May a pickle ask for ``module.name`` while the learner's file in ``workspace`` is
    graded? Only names that make data, and the learner's own classes. (Protocols 0 to 2
    write Python 2's names, ``__builtin__.set``: read as Python 3 reads them.)"""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    module = _compat_pickle.IMPORT_MAPPING.get(module, module)
    if (module, name) in REBUILDERS:
        return True
    if module == "builtins":
        value = getattr(builtins, name, None)
        return isinstance(value, type) and name not in NOT_DATA
    if module in DATA_MODULES:
        return isinstance(getattr(sys.modules.get(module), name, None), type)
    loaded = sys.modules.get(module)
    where = getattr(loaded, "__file__", None)
    return where is not None and Path(where).resolve().is_relative_to(workspace)


def refuse_code_in_pickles(workspace: Path) -> None:
    """From now on in this process, a pickle that names anything but data raises (once per
    process; the workspace is the first one given)."""
    global _installed
    if _installed:
        return
    _installed = True
    folder = workspace.resolve()

    def hook(event: str, args: tuple) -> None:
        if event == "pickle.find_class" and not allowed(str(args[0]), str(args[1]), folder):
            raise pickle.UnpicklingError(
                f"pickle may not load {args[0]}.{args[1]} while your code is graded: it "
                f"would run code that is not in your file (only data may be unpickled)")

    sys.addaudithook(hook)
