"""Chapter 00's environment check: one [OK]/[FAIL] line per thing the workbook needs.

The report prints no version numbers and no local paths, so the stored output of chapter 00
is the same on every machine where the environment is complete; a [FAIL] line says how to
fix it.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

import learn_pi_lab

from learn_pi_lab.course.paths import repo_root, workspace_dir
from learn_pi_lab.i18n import current_language, t

MINIMUM_PYTHON = (3, 10)


@dataclass(frozen=True)
class Check:
    name_key: str          # message key of what is checked
    ok: bool
    fix_key: str           # message key of how to fix it (shown only on FAIL)


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _installed_from_checkout() -> bool:
    """The kernel imports ``learn_pi_lab`` from this repository (an editable install), so
    the notebooks run exactly the code you can read in ``learn_pi_lab/``."""
    return Path(learn_pi_lab.__file__).resolve().parent.parent == repo_root()


def _chinese_font_installed() -> bool:
    """A font with Chinese glyphs is installed, so the Chinese edition's figures can be drawn
    (Debian: fonts-noto-cjk; macOS and Windows ship one)."""
    if not _importable("matplotlib"):
        return False
    from learn_pi_lab.drawing.style import cjk_font
    return cjk_font() is not None


def environment_checks() -> list[Check]:
    """Everything the chapters rely on, in the order a learner would fix it."""
    data = repo_root() / "data"
    workspace = workspace_dir()
    return [
        Check("course.env.python", sys.version_info[:2] >= MINIMUM_PYTHON, "course.env.fix_python"),
        Check("course.env.package", _installed_from_checkout(), "course.env.fix_install"),
        Check("course.env.networkx", _importable("networkx"), "course.env.fix_install"),
        Check("course.env.matplotlib", _importable("matplotlib"), "course.env.fix_install"),
        Check("course.env.ipywidgets", _importable("ipywidgets"), "course.env.fix_install"),
        Check("course.env.cjk_font", _chinese_font_installed(), "course.env.fix_cjk_font"),
        Check("course.env.data", data.is_dir() and any(data.glob("*.jsonl")),
              "course.env.fix_data"),
        Check("course.env.workspace", workspace.is_dir() and any(workspace.glob("ch[0-9][0-9]_*.py")),
              "course.env.fix_workspace"),
    ]


def print_environment_report(lang: str | None = None) -> None:
    """Print the table, then one line that says whether everything is ready."""
    lang = current_language(lang)
    checks = environment_checks()
    for check in checks:
        line = f"{'[OK]  ' if check.ok else '[FAIL]'}  {t(check.name_key, lang)}"
        if not check.ok:
            line += f"  ->  {t(check.fix_key, lang)}"
        print(line)
    all_ok = all(check.ok for check in checks)
    print(t("course.env.all_ok" if all_ok else "course.env.some_failed", lang))
