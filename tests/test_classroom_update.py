"""A course update through the nbgitpuller link keeps the learner's answers (nbgitpuller's
real merge, ``GitPuller``, the code the hub runs when a learner clicks the link).

The course here is the real one (this working tree's files); the learner and the teacher are
two clones of it. What ``learn_pi_lab.classroom.link`` promises, each case checked:

* a learner's answer in ``workspace/`` and a course change to another file both survive;
* a course change to *other* lines of the learner's answer file arrives, the answer stays;
* a course change to the *same* lines the learner changed does not arrive: the learner's
  version stays, as nbgitpuller documents (``-Xours``), and ``make verify`` says so
  (``classroom.updates.note``) with the command that shows the course's version;
* a learner's own new file is kept, even one the course later adds under the same name
  (nbgitpuller renames the learner's, so nothing is lost); a file the learner deleted comes
  back.
"""

from __future__ import annotations

import os
import sys
import subprocess
from pathlib import Path

import pytest

from learn_pi_lab.classroom import updates
from learn_pi_lab.i18n import t
from tests.browser_support import copy_repo

nbgitpuller = pytest.importorskip("nbgitpuller.pull")

IDENTITY = {"GIT_AUTHOR_NAME": "teacher", "GIT_AUTHOR_EMAIL": "teacher@example.org",
            "GIT_COMMITTER_NAME": "teacher", "GIT_COMMITTER_EMAIL": "teacher@example.org"}
ANSWER_FILE = "workspace/ch02_parent_pointers.py"
STUB = ('    raise NotImplementedError(\n'
        '        "练习 path-to 还没有完成 / exercise path-to is not implemented yet: "\n'
        '        "write path_to in workspace/ch02_parent_pointers.py")')
STUB_MESSAGE = '"练习 path-to 还没有完成 / exercise path-to is not implemented yet: "'


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                          env={**os.environ, **IDENTITY})
    assert done.returncode == 0, done.stderr
    return done.stdout


def pull(remote: Path, learner: Path) -> list[str]:
    """What clicking the link does in the learner's server: ``GitPuller(...).pull()``."""
    return list(nbgitpuller.GitPuller(f"file://{remote}", str(learner), branch="main",
                                      depth=1).pull())


@pytest.fixture
def course(tmp_path: Path) -> dict[str, Path]:
    """The course on a git server (a bare repository), the teacher's clone, and a learner
    who followed the link once."""
    work = copy_repo(tmp_path / "start")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "the course")
    remote = tmp_path / "course.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(remote)], check=True)
    teacher = tmp_path / "teacher"
    subprocess.run(["git", "clone", "-q", str(remote), str(teacher)], check=True)
    learner = tmp_path / "learner" / "learn-pi-lab"
    pull(remote, learner)
    assert (learner / ANSWER_FILE).is_file()
    return {"remote": remote, "teacher": teacher, "learner": learner}


def teacher_pushes(teacher: Path, change) -> None:
    change(teacher)
    git(teacher, "add", "-A")
    git(teacher, "commit", "-q", "-m", "a course update")
    git(teacher, "push", "-q", "origin", "main")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


MY_ANSWER = "    return ()  # my answer"
COURSE_FIXED_MESSAGE = '"练习 path-to 还没有完成（课程修订）/ path-to is not implemented yet (course fix): "'
COURSE_FIX = "教师修订：这一章的例子改写了。"


def test_answers_and_course_changes_elsewhere_both_survive(course):
    learner, teacher = course["learner"], course["teacher"]
    edit(learner / ANSWER_FILE, STUB, MY_ANSWER)
    (learner / "workspace" / "notes.md").write_text("my notes\n", encoding="utf-8")
    (learner / "notebooks" / "zh" / "05-record-types-and-state.ipynb").unlink()

    def fix(work: Path) -> None:
        edit(work / "README.md", "# learn-pi-lab", "# learn-pi-lab\n\n" + COURSE_FIX)
        edit(work / ANSWER_FILE, "检查 / check:", "检查（课程修订）/ check:")   # other lines
        (work / "docs" / "news.md").write_text("# News\n", encoding="utf-8")
    teacher_pushes(teacher, fix)
    pull(course["remote"], learner)

    answer = (learner / ANSWER_FILE).read_text(encoding="utf-8")
    assert MY_ANSWER in answer, "the update lost the learner's answer"
    assert "检查（课程修订）/ check:" in answer, "the course's change to other lines is missing"
    assert COURSE_FIX in (learner / "README.md").read_text(encoding="utf-8")
    assert (learner / "docs" / "news.md").is_file()
    assert (learner / "workspace" / "notes.md").read_text(encoding="utf-8") == "my notes\n"
    assert (learner / "notebooks" / "zh" / "05-record-types-and-state.ipynb").is_file(), \
        "a file the learner deleted comes back with the next click"
    assert updates.kept_over_course(learner) == []
    assert updates.note(learner, "en") is None


def test_a_course_change_to_the_lines_the_learner_changed_keeps_the_learner_and_says_so(course):
    learner, teacher = course["learner"], course["teacher"]
    edit(learner / ANSWER_FILE, STUB, MY_ANSWER)
    teacher_pushes(teacher, lambda work: edit(work / ANSWER_FILE, STUB_MESSAGE,
                                              COURSE_FIXED_MESSAGE))
    pull(course["remote"], learner)

    answer = (learner / ANSWER_FILE).read_text(encoding="utf-8")
    assert MY_ANSWER in answer and "(course fix)" not in answer   # -Xours: the learner wins
    assert "<<<<<<<" not in answer                                # and no conflict markers
    assert updates.kept_over_course(learner) == [ANSWER_FILE]
    said = updates.note(learner, "en")
    assert said == t("classroom.update.kept_yours", "en", files=ANSWER_FILE,
                     first=ANSWER_FILE, course="origin/main")
    shown = subprocess.run(["git", "-C", str(learner), "show", f"origin/main:{ANSWER_FILE}"],
                           capture_output=True, text=True, check=True).stdout
    assert "(course fix)" in shown, "the command the note gives does not show the course's version"


def test_a_learner_file_the_course_later_adds_is_renamed_not_lost(course):
    learner, teacher = course["learner"], course["teacher"]
    mine = learner / "workspace" / "helpers.py"
    mine.write_text("def mine(): return 1\n", encoding="utf-8")
    teacher_pushes(teacher, lambda work: (work / "workspace" / "helpers.py").write_text(
        "COURSE = True\n", encoding="utf-8"))
    pull(course["remote"], learner)

    assert mine.read_text(encoding="utf-8") == "COURSE = True\n"
    renamed = [path for path in (learner / "workspace").glob("helpers*.py") if path != mine]
    assert [path.read_text(encoding="utf-8") for path in renamed] == ["def mine(): return 1\n"]


def test_make_verify_says_what_the_last_update_kept(course, tmp_path):
    """The note reaches the learner: ``verify`` on a course copy whose last update kept the
    learner's lines prints it (the copy's own package, as on the hub)."""
    learner, teacher = course["learner"], course["teacher"]
    edit(learner / ANSWER_FILE, STUB, MY_ANSWER)
    teacher_pushes(teacher, lambda work: edit(work / ANSWER_FILE, STUB_MESSAGE,
                                              COURSE_FIXED_MESSAGE))
    pull(course["remote"], learner)
    done = subprocess.run(
        [sys.executable, "-m", "learn_pi_lab", "verify",
         "--exercise", "validate", "--lang", "en", "--results", str(tmp_path / "r.json")],
        cwd=learner, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(learner)})
    assert "At the last course update the teacher changed lines you had changed too" \
        in done.stdout, done.stdout + done.stderr
