"""What the last course update did to the learner's own changes (a course handed out by an
nbgitpuller link, ``learn_pi_lab.classroom.link``).

Clicking the link again commits the learner's changes, then merges the course's new commits
with ``git merge -Xours``: where the teacher and the learner changed the same lines, the
learner's lines win, without a word. That is what keeps answers safe, but it means a course
fix to those very lines did not arrive. ``kept_over_course`` finds those files (the same
merge done again without ``-Xours``, by ``git merge-tree``, which touches nothing), so
``make verify`` can say so (``note``), with the command that shows the course's version.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from learn_pi_lab.i18n import t

PULLER = "nbgitpuller"   # the committer nbgitpuller's merges are made by


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL)


def kept_over_course(repo: Path) -> list[str]:
    """The files in which the last nbgitpuller update kept the learner's lines over the
    course's own changes to the same lines; ``[]`` when there are none, when the course was
    never updated by nbgitpuller, or when git cannot tell (no git, not a repository)."""
    try:
        last = _git(repo, "log", "-1", "--merges", f"--committer={PULLER}", "--format=%P")
        parents = last.stdout.split()
        if last.returncode != 0 or len(parents) != 2:
            return []
        again = _git(repo, "merge-tree", "--write-tree", "--name-only", "--no-messages",
                     *parents)
    except (OSError, subprocess.SubprocessError):
        return []
    if again.returncode != 1:   # 0: the course's changes merged cleanly; else: cannot tell
        return []
    return [line for line in again.stdout.splitlines()[1:] if line]


def note(repo: Path, lang: str | None = None) -> str | None:
    """One line for the learner when ``kept_over_course`` found files, else None."""
    files = kept_over_course(repo)
    if not files:
        return None
    upstream = _git(repo, "rev-parse", "--abbrev-ref", "@{upstream}").stdout.strip()
    return t("classroom.update.kept_yours", lang, files=", ".join(files), first=files[0],
             course=upstream or "origin/main")
