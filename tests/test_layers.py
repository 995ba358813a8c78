"""The house's layer rules (docs/architecture.md), read from the package's own imports.

* the core (the tree, the file layer, Pi's rules, the inspector, the store) imports only the
  core and the standard library;
* the lessons (``learn_pi_lab/lessons``, each chapter's idea and model answer) import only
  the core, and nothing in the package imports a lesson (the grading sandbox hides them);
* no module imports a private name (``_name``) of another;
* no import circle, counting imports inside functions (only ``if TYPE_CHECKING:`` blocks,
  which never run, are left out).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "learn_pi_lab"
CORE = ("learn_pi_lab.session_tree", "learn_pi_lab.entry_text", "learn_pi_lab.errors",
        "learn_pi_lab.session_inspector", "learn_pi_lab.store", "learn_pi_lab.collector",
        "learn_pi_lab.jsonl", "learn_pi_lab.pi")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def is_core(name: str) -> bool:
    return any(name == core or name.startswith(core + ".") for core in CORE)


def _runs(node: ast.AST) -> list[ast.AST]:
    """Every node that can run: the whole tree but the bodies of ``if TYPE_CHECKING:``."""
    found, todo = [], [node]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) \
                and node.test.id == "TYPE_CHECKING":
            todo.extend(node.orelse)
            continue
        found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def imports_of(path: Path) -> list[tuple[str, list[str], int]]:
    """``(module, names, line)`` for each import of the package in ``path``."""
    out = []
    for node in _runs(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module \
                and node.module.startswith("learn_pi_lab"):
            out.append((node.module, [alias.name for alias in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            out.extend((alias.name, [], node.lineno) for alias in node.names
                       if alias.name.startswith("learn_pi_lab"))
    return out


def imported_modules(path: Path) -> set[str]:
    found = set()
    for module, names, _ in imports_of(path):
        submodules = {f"{module}.{name}" for name in names} & MODULES.keys()
        found |= submodules or ({module} & MODULES.keys())
    return found


GRAPH = {name: imported_modules(path) for name, path in MODULES.items()}


def test_the_graph_is_read() -> None:
    """The reading itself: a known import is seen, one under TYPE_CHECKING is not."""
    assert "learn_pi_lab.jsonl.reader" in GRAPH["learn_pi_lab.pi.session"]
    assert "learn_pi_lab.playground.levels" in GRAPH["learn_pi_lab.playground.model"]
    assert "learn_pi_lab.playground.model" not in GRAPH["learn_pi_lab.playground.levels"]
    assert len(MODULES) > 60


def test_the_core_imports_only_the_core() -> None:
    wrong = {name: sorted(other for other in GRAPH[name]
                          if not is_core(other) and other != "learn_pi_lab")
             for name in GRAPH if is_core(name)}
    assert {name: others for name, others in wrong.items() if others} == {}


def is_lesson(name: str) -> bool:
    return name == "learn_pi_lab.lessons" or name.startswith("learn_pi_lab.lessons.")


def test_the_lessons_import_only_the_core_and_nothing_imports_them() -> None:
    lessons = [name for name in GRAPH if is_lesson(name)]
    assert len(lessons) == 9, lessons   # the package's __init__ and eight chapters
    assert {name: sorted(other for other in GRAPH[name] if not is_core(other))
            for name in lessons if any(not is_core(o) for o in GRAPH[name])} == {}
    assert sorted(name for name in GRAPH if not is_lesson(name)
                  and any(is_lesson(other) for other in GRAPH[name])) == []


def test_no_private_name_crosses_a_module() -> None:
    private = [f"{module_name(path)}:{line} imports {module}.{name}"
               for path in MODULES.values()
               for module, names, line in imports_of(path)
               for name in names if name.startswith("_") and not name.startswith("__")]
    assert private == []


def test_no_import_circle() -> None:
    circles: set[tuple[str, ...]] = set()

    def walk(name: str, stack: list[str], seen: set[str]) -> None:
        for other in sorted(GRAPH[name]):
            if other in stack:
                loop = stack[stack.index(other):]
                start = loop.index(min(loop))
                circles.add(tuple(loop[start:] + loop[:start]))
            elif other not in seen:
                seen.add(other)
                walk(other, stack + [other], seen)

    for name in GRAPH:
        walk(name, [name], {name})
    assert sorted(circles) == []


def test_the_top_exports_the_chapters_names_loaded_on_first_use() -> None:
    """``from learn_pi_lab import path_to`` gives the module's own object; ``import
    learn_pi_lab`` alone loads no module of the package (the command line starts as fast)."""
    import importlib
    import subprocess
    import sys

    import learn_pi_lab
    from learn_pi_lab.harness import catalog

    for name in learn_pi_lab.__all__:
        if name == "__version__":
            continue
        home = learn_pi_lab._HOME[name]
        assert getattr(learn_pi_lab, name) is getattr(importlib.import_module(home), name)
    graded = {exercise.function for exercise in catalog.exercises()
              if is_core(exercise.reference)}
    assert graded - set(learn_pi_lab.__all__) == set()
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, learn_pi_lab; "
         "print(sorted(m for m in sys.modules if m.startswith('learn_pi_lab.')))"],
        capture_output=True, text=True, check=True, cwd=REPO).stdout.strip()
    assert loaded == "[]"
    try:
        learn_pi_lab.no_such_name
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_every_test_file_is_listed_once_in_the_tests_readme() -> None:
    import re

    text = (REPO / "tests" / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"`((?:hostile/)?test_\w+\.py)`", text)
    files = sorted(path.relative_to(REPO / "tests").as_posix()
                   for path in (REPO / "tests").rglob("test_*.py"))
    assert sorted(set(listed)) == files
    assert sorted(listed) == sorted(set(listed)), "a file listed twice"
