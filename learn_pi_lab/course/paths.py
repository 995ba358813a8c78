"""Where things are, from inside a notebook.

Notebooks run with the working directory ``notebooks/<lang>/``, but a learner may also
start a kernel somewhere else. These helpers find the repository from the installed package,
so ``data_file("linear.jsonl")`` works from anywhere. ``show_path`` prints paths relative to
the repository, so a stored output reads the same on every machine.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import learn_pi_lab
from learn_pi_lab.i18n import notebook_edition, t

SCRATCH_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


def _looks_like_repo(folder: Path) -> bool:
    return (folder / "pyproject.toml").is_file() and (folder / "learn_pi_lab").is_dir()


def repo_root() -> Path:
    """The learn-pi-lab checkout: the package's parent folder (editable install), else the
    nearest folder above the working directory that holds ``pyproject.toml`` and the package."""
    package_parent = Path(learn_pi_lab.__file__).resolve().parent.parent
    if _looks_like_repo(package_parent):
        return package_parent
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if _looks_like_repo(folder):
            return folder
    raise FileNotFoundError(t("course.paths.no_repo", cwd=str(here)))


def data_file(name: str) -> Path:
    """``data/<name>``; a clear error (not a later crash) when the file is missing."""
    path = repo_root() / "data" / name
    if not path.is_file():
        raise FileNotFoundError(t("course.paths.no_data", path=show_path(path)))
    return path


def workspace_dir() -> Path:
    """The learner's own folder of exercise stubs (the course never overwrites it)."""
    return repo_root() / "workspace"


def scratch_dir(name: str) -> Path:
    """A fresh, empty folder ``notebooks/.scratch/<edition>/<name>`` for files a chapter
    damages (``<edition>``: ``zh`` or ``en``, the notebook's own folder, so both editions of
    a chapter can run at once without touching each other's files; left out when the code
    runs outside an edition).

    "Fresh" means whatever an earlier run left there is deleted first, so running a chapter
    twice gives the same results. The folder is git-ignored.
    """
    if not isinstance(name, str) or not SCRATCH_NAME.match(name):
        raise ValueError(t("course.paths.bad_scratch_name", name=repr(name)))
    edition = notebook_edition()
    folder = repo_root() / "notebooks" / ".scratch" / (edition or "") / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder


def show_path(path: str | Path) -> str:
    """The path as a learner should read it: relative to the repository, with ``/``.

    A path outside the repository is shown from ``~`` when it is under the home folder,
    otherwise as it is.
    """
    resolved = Path(path).expanduser().resolve()
    root = repo_root()
    if resolved.is_relative_to(root):
        return resolved.relative_to(root).as_posix()
    home = Path.home().resolve()
    if resolved.is_relative_to(home):
        return "~/" + resolved.relative_to(home).as_posix()
    return resolved.as_posix()
