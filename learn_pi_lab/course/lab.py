"""Open the workbook in JupyterLab: ``make lab`` runs ``python -m learn_pi_lab.course.lab``.

JupyterLab's root is the repository itself, so the file browser shows both editions
(``notebooks/zh``, ``notebooks/en``), the learner's ``workspace/`` and the ``docs/``, and the
relative links between them work. The browser lands on chapter 00 of the chosen edition,
and JupyterLab's own menus speak its language (the Chinese ones come from the official
language pack ``jupyterlab-language-pack-zh-CN``; a learner can still pick another in
Settings → Language, which JupyterLab then remembers for them).

    python -m learn_pi_lab.course.lab                   # zh edition, a free port, opens a browser
    python -m learn_pi_lab.course.lab --edition en --port 8890 --no-browser

The end-to-end browser test starts JupyterLab through this same module, so what it checks
is what ``make lab`` gives a learner.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from learn_pi_lab.course.paths import repo_root
from learn_pi_lab.i18n import EDITION_VARIABLE

EDITIONS = ("zh", "en")
FIRST_CHAPTER = "00-start-here.ipynb"
SETTINGS = Path(__file__).with_name("jupyterlab_settings")
"""One folder per edition holding JupyterLab's ``overrides.json``: the default settings the
course gives it, here only the interface language (``zh_CN`` or ``en``)."""


def landing_path(edition: str) -> str:
    """The notebook the learner sees first, relative to the root: ``notebooks/zh/00-...``."""
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")
    return f"notebooks/{edition}/{FIRST_CHAPTER}"


def settings_dir(edition: str) -> Path:
    """The folder of JupyterLab's default settings for ``edition`` (menus in its language)."""
    landing_path(edition)   # (the same check of the edition's name)
    return SETTINGS / edition


# Set by make for the commands it runs; a sub-make reads them (MAKELEVEL > 0 turns on -w)
MAKE_VARIABLES = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")


def running_as_root() -> bool:
    """Jupyter refuses to run as root without ``--allow-root`` (containers often are root)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def lab_command(root: Path, edition: str, *, port: int | None = None,
                open_browser: bool = True, extra: list[str] | None = None) -> list[str]:
    """The ``jupyter lab`` command line: root = the repository, landing on chapter 00."""
    command = [sys.executable, "-m", "jupyterlab",
               f"--ServerApp.root_dir={Path(root).resolve()}",
               f"--LabApp.default_url=/lab/tree/{landing_path(edition)}",
               "--ContentsManager.pre_save_hook=learn_pi_lab.course.lab.without_run_noise",
               f"--LabApp.app_settings_dir={settings_dir(edition)}"]
    if port is not None:
        command += ["--ip=127.0.0.1", f"--port={port}", "--port-retries=0"]
    if not open_browser:
        command.append("--no-browser")
    if running_as_root():
        command.append("--allow-root")
    return command + list(extra or [])


def without_run_noise(model: dict, path: str = "", contents_manager: Any = None,
                      **_: object) -> None:
    """JupyterLab's hook before it writes a notebook: a chapter the learner only opened or
    ran is written back as it is on disk; one whose cells they edited is written as usual.

    Running a chapter changes its outputs (timings, sizes, a figure's metadata, the widgets'
    ids) and a kernel adds its exact Python version as soon as it starts, so autosave
    changed files the learner never edited, and updating the course with ``git pull`` then
    met local changes (two reviews). What was run stays on screen; the file keeps what it
    had. The kernel's version is left out in any case (``editions.tidy_executed``).
    """
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    language = model["content"].get("metadata", {}).get("language_info")
    if isinstance(language, dict):
        language.pop("version", None)
    on_disk = _notebook_on_disk(contents_manager, path)
    if on_disk is not None and _cell_sources(on_disk) == _cell_sources(model["content"]):
        model["content"] = on_disk


def _notebook_on_disk(contents_manager: Any, path: str) -> Any:
    """The notebook as the file holds it now, or None (a new file, or one that cannot be read)."""
    if contents_manager is None or not path:
        return None
    try:
        return contents_manager.get(path, content=True, type="notebook")["content"]
    except Exception:   # (a hook that fails must not stop the save: JupyterLab logs it)
        return None


def _cell_sources(notebook: Any) -> list[tuple[str, str]]:
    """What the learner can edit: each cell's type and text, in order."""
    cells = notebook.get("cells", []) if isinstance(notebook, dict) else []
    return [(cell.get("cell_type", ""), "".join(cell.get("source", "")))
            for cell in cells if isinstance(cell, dict)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default=os.environ.get("LANG_EDITION", "zh"),
                        choices=EDITIONS, help="which edition to open first (default zh)")
    parser.add_argument("--root", type=Path, default=None,
                        help="the course folder to serve (default: this repository)")
    parser.add_argument("--port", type=int, default=None, help="serve on 127.0.0.1:PORT")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    args, extra = parser.parse_known_args(argv)
    root = args.root if args.root is not None else repo_root()
    command = lab_command(root, args.edition, port=args.port,
                          open_browser=not args.no_browser, extra=extra)
    # A terminal opened in this JupyterLab inherits the edition: `make verify` there reports
    # in the language the learner reads (learn_pi_lab.i18n.current_language).
    os.environ[EDITION_VARIABLE] = args.edition
    # `make lab` started this process: without make's own variables, `make verify` in a
    # terminal of this JupyterLab prints no "make[1]: Entering directory" lines around its
    # report and ends with "make: *** ... Error 1", as the report's note says (a fresh clone)
    for variable in MAKE_VARIABLES:
        os.environ.pop(variable, None)
    sys.stdout.flush()
    os.execv(command[0], command)   # JupyterLab takes over this process (Ctrl+C stops it)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
