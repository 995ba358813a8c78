"""What the last course update did to the learner's ``workspace/`` (said by ``verify``).

On a hub the course reaches a learner's home through nbgitpuller, which keeps the learner's
work when the teacher updates the course (its documented merge): the learner's changes are
committed, then the course's branch is merged with ``-Xours``. So where the course changed a
file of ``workspace/`` the learner had changed too, the changes that do not touch each other
are both kept, and where they meet **the learner's lines win**: nothing of the learner's is
lost, but a line of the course's update can be. And a file the course adds with the name of
a file the learner made is kept by renaming the learner's (``name__20261203140501.py``).

This module finds both in the course's git history, without changing anything, so the
learner hears of it: ``verify`` prints one line per file, with the command that shows the
course's own version.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

WORKSPACE = "workspace"
RENAMED = re.compile(r"^(?P<stem>.+)__(?P<stamp>\d{14})(?P<suffix>\.[^./]*)?$")
GIT_SECONDS = 20


@dataclass(frozen=True)
class Merged:
    """A file both the learner and the course's update changed; where the two changes met,
    the learner's lines were kept. ``course`` is the update's commit (``git show
    course:path`` prints the course's version)."""
    path: str
    course: str


@dataclass(frozen=True)
class Renamed:
    """A file of the learner's, renamed so that the course's new file of that name fits."""
    path: str        # what it is called now
    original: str    # the course's file, with the learner's old name


def _git(root: Path, *args: str) -> str | None:
    """``git -C root ARGS``' output, or None when git is missing, fails or is slow."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                              text=True, timeout=GIT_SECONDS, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def merged_files(root: Path) -> list[Merged]:
    """The files of ``workspace/`` the last merge of the course into ``root`` found changed
    on both sides and that still differ from the course's version: ``[]`` when ``root`` is
    no git clone, or the last update was no merge (nothing of the learner's to keep)."""
    last = _git(root, "log", "-1", "--merges", "--format=%H %P", "HEAD")
    if not last or len(last.split()) != 3:
        return []
    _merge, mine, course = last.split()
    base = _git(root, "merge-base", mine, course)
    if base is None:
        return []
    base = base.strip()
    changed = []
    for side in (mine, course):
        names = _git(root, "diff", "--name-only", base, side, "--", WORKSPACE)
        changed.append(set((names or "").split()))
    both = sorted(changed[0] & changed[1])
    return [Merged(path, course) for path in both
            if _git(root, "diff", "--quiet", course, "--", path) is None]   # (differs: exit 1)


def renamed_files(root: Path) -> list[Renamed]:
    """The learner's files in ``workspace/`` that nbgitpuller renamed with a time stamp
    because the course added a file of the same name, and are not part of the course."""
    folder = root / WORKSPACE
    tracked = set((_git(root, "ls-files", "--", WORKSPACE) or "").split())
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*")):
        match = RENAMED.match(path.name)
        relative = path.relative_to(root).as_posix()
        if match and path.is_file() and relative not in tracked:
            original = path.with_name(match["stem"] + (match["suffix"] or ""))
            found.append(Renamed(relative, original.relative_to(root).as_posix()))
    return found
