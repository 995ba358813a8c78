"""Reading folders the trusted side does not trust: submissions and the tests' scratch folders.

A submission is whatever a learner handed in, and a scratch folder is whatever the learner's
code left behind, so every walk here is written for the worst case:

* **iterative**, never recursive: a folder 10,000 levels deep is just a long walk (Python's
  ``os.walk`` and ``shutil.rmtree`` recurse, and a deep tree ends them with ``RecursionError``);
* **links are never followed**, and only regular files are opened: a symbolic link could point
  at the teacher's files or at another learner's submission, a named pipe would block ``open``
  for ever, a device could be endless;
* **bounded**: files are hashed in chunks, and only up to a size; source files above a size
  are not read; a walk stops after ``MAX_ENTRIES`` entries.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Iterator

MAX_ENTRIES = 1_000_000          # entries one walk visits at most
MAX_HASHED = 64 * 1024 * 1024    # bytes of one file hashed in full (the sandbox's file limit)
MAX_SOURCE = 1024 * 1024         # bytes of one learner .py file read for grading
MAX_SOURCES = 16 * 1024 * 1024   # bytes of one learner's .py files read in all
SKIPPED_FOLDERS = frozenset({"__pycache__"})


def entries(folder: Path, *, skip_hidden: bool = False) -> Iterator[tuple[str, os.stat_result]]:
    """``(relative path, lstat)`` for everything under ``folder``, depth first, without
    following links; ``__pycache__`` (and, with ``skip_hidden``, names starting with a dot)
    left out. At most ``MAX_ENTRIES``."""
    waiting, seen = [Path(folder)], 0
    while waiting:
        current = waiting.pop()
        try:
            with os.scandir(current) as listing:
                found = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in found:
            if entry.name in SKIPPED_FOLDERS or (skip_hidden and entry.name.startswith(".")):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            seen += 1
            if seen > MAX_ENTRIES:
                return
            yield os.path.relpath(entry.path, folder), info
            if stat.S_ISDIR(info.st_mode):
                waiting.append(Path(entry.path))


def digest(path: Path, info: os.stat_result) -> str:
    """What identifies one entry: a regular file's sha256 (read in chunks; above
    ``MAX_HASHED`` bytes its size and modification time), a link's target, or the kind of a
    special file. Nothing is ever opened that is not a regular file."""
    if stat.S_ISLNK(info.st_mode):
        try:
            return "link:" + os.readlink(path)
        except OSError as error:
            return f"unreadable:{error.errno}"
    if not stat.S_ISREG(info.st_mode):
        return f"special:{stat.S_IFMT(info.st_mode):o}"
    if info.st_size > MAX_HASHED:
        return f"large:{info.st_size}:{info.st_mtime_ns}"
    hasher = hashlib.sha256()
    try:
        with open(path, "rb", opener=_no_follow) as handle:
            while chunk := handle.read(1 << 20):
                hasher.update(chunk)
    except OSError as error:
        return f"unreadable:{error.errno}"
    return hasher.hexdigest()


def fingerprint(folder: Path) -> dict[str, str]:
    """``{relative path: digest}`` for every entry under ``folder`` that is not a folder
    (a link to a folder counts, as its target), caches left out."""
    return {relative: digest(Path(folder) / relative, info)
            for relative, info in entries(folder) if not stat.S_ISDIR(info.st_mode)}


def special_entries(folder: Path) -> Iterator[str]:
    """The relative paths of everything under ``folder`` that is neither a regular file nor a
    folder (a link, a pipe, a socket, a device)."""
    for relative, info in entries(folder):
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            yield relative


def read_python_files(folder: Path) -> dict[str, bytes]:
    """Every ``.py`` file under ``folder``, read into memory: ``{relative path: content}``.

    Regular files of at most ``MAX_SOURCE`` bytes, outside hidden folders; never through a
    link (a link could point anywhere). Keeping the copy in memory rather than on disk means
    no learner's code, whatever it writes, can reach it. At most ``MAX_SOURCES`` bytes in
    all, the files at the top (the exercises' own) first: every learner's copy is held at
    once while a class is graded and written again for each run, and a submission of a few
    thousand files of 1 MiB (a zip of a few megabytes) held gigabytes of the grading
    process's memory (an attacker's review). A file past the budget is left out, as a
    larger one is.
    """
    found = [(relative, info.st_size) for relative, info in entries(folder, skip_hidden=True)
             if relative.endswith(".py") and stat.S_ISREG(info.st_mode)
             and info.st_size <= MAX_SOURCE]
    found.sort(key=lambda item: os.sep in item[0])   # the top first, else the walk's order
    files: dict[str, bytes] = {}
    total = 0
    for relative, size in found:
        if total + size > MAX_SOURCES:
            continue
        try:
            with open(Path(folder) / relative, "rb", opener=_no_follow) as handle:
                files[relative] = handle.read(MAX_SOURCE + 1)[:MAX_SOURCE]
        except OSError:
            continue
        total += len(files[relative])
    return files


def too_large_to_read(path: Path) -> bool:
    """A regular file (not through a link) larger than ``MAX_SOURCE``: there, but not read
    (the learner hears why, rather than that the file is missing)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size > MAX_SOURCE


def link_target(path: Path) -> str:
    """Where a link points, as written in it (never followed), or ``?`` when it cannot be read:
    an exercise's file that is a link is named with its target, not called missing."""
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def learner_code(folder: Path) -> Path:
    """The folder holding the learner's ``chNN_*.py`` files: the folder itself, or its
    ``workspace/`` when someone handed in the whole course repository. A ``workspace`` that
    is a link is not the learner's (it could point at a classmate's folder or the reference
    solutions)."""
    nested = Path(folder) / "workspace"
    if not any(Path(folder).glob("ch[0-9][0-9]_*.py")) and nested.is_dir() \
            and not nested.is_symlink():
        return nested
    return Path(folder)


def remove_tree(root: Path) -> None:
    """Delete a run's folder, however deep the learner's code made it (``shutil.rmtree``
    recurses: a tree a few thousand levels deep ends it with ``RecursionError``)."""
    try:
        shutil.rmtree(root, ignore_errors=True)
    except RecursionError:
        pass
    if os.path.lexists(root):
        subprocess.run(["rm", "-rf", "--one-file-system", "--", str(root)],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)


def _no_follow(path: str, flags: int) -> int:
    """``open`` that refuses a link and never blocks on a pipe."""
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
