"""``learn-pi-lab hub-link``: the nbgitpuller link a teacher hands out.

What nbgitpuller reads from the link (its ``repo``, ``branch``, ``targetpath`` and
``urlpath`` parameters) is read back here with the standard library, as the hub's
``git-pull`` handler reads it; that a real hub follows the link and lands on chapter 00 is
the end-to-end test's job (``tests/test_classroom_hub.py``).
"""

from __future__ import annotations

import subprocess
import sys
from urllib.parse import parse_qs, urlsplit

import pytest

from learn_pi_lab.arguments import UserError
from learn_pi_lab.classroom import link
from tests.browser_support import REPO


def parameters(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    return {key: values[0] for key, values in parse_qs(parts.query).items()}


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_the_link_clones_the_course_and_opens_chapter_00_of_the_edition(edition):
    url = link.nbgitpuller_link("https://hub.example.org/", "https://github.com/a/learn-pi-lab",
                                edition)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == \
        ("https", "hub.example.org", "/hub/user-redirect/git-pull")
    assert parameters(url) == {
        "repo": "https://github.com/a/learn-pi-lab", "branch": "main",
        "targetpath": "learn-pi-lab",
        "urlpath": f"lab/tree/learn-pi-lab/notebooks/{edition}/00-start-here.ipynb"}
    assert (REPO / "notebooks" / edition / "00-start-here.ipynb").is_file()


def test_a_hub_under_a_path_a_branch_and_a_folder_of_ones_own():
    url = link.nbgitpuller_link("https://school.example.org/jupyter/hub/", "git://g/c.git",
                                "en", branch="spring-2026", folder="pi-course")
    assert url.startswith("https://school.example.org/jupyter/hub/user-redirect/git-pull?")
    assert parameters(url)["branch"] == "spring-2026"
    assert parameters(url)["urlpath"] == "lab/tree/pi-course/notebooks/en/00-start-here.ipynb"


@pytest.mark.parametrize("hub, repo, options", [
    ("hub.example.org", "https://github.com/a/b", {}),                # no scheme
    ("ftp://hub", "https://github.com/a/b", {}),
    ("https://hub/?x=1", "https://github.com/a/b", {}),
    ("https://hub", "/srv/course", {}),                               # a folder on the hub
    ("https://hub", "file:///srv/course.git", {}),
    ("https://hub", "https://github.com/a/b?x", {}),
    ("https://hub", "https://github.com/a/b", {"folder": "../etc"}),
    ("https://hub", "https://github.com/a/b", {"branch": "-x"}),
    ("https://hub", "https://github.com/a/b", {"branch": "a b"}),
])
def test_a_link_that_could_not_work_is_refused(hub, repo, options):
    with pytest.raises(UserError):
        link.nbgitpuller_link(hub, repo, "zh", **options)


def run_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "learn_pi_lab", "hub-link", *args],
                          capture_output=True, text=True, cwd=REPO)


def test_the_command_prints_both_editions_or_just_the_link():
    both = run_command("--hub", "https://hub.example.org", "--repo", "https://g.org/a/b",
                       "--lang", "zh")
    assert both.returncode == 0, both.stderr
    assert "中文版" in both.stdout and "英文版" in both.stdout
    assert both.stdout.count("/hub/user-redirect/git-pull?") == 2
    alone = run_command("--hub", "https://hub.example.org", "--repo", "https://g.org/a/b",
                        "--edition", "en")
    assert alone.stdout.count("\n") == 1 and "notebooks%2Fen%2F00-start-here" in alone.stdout
    wrong = run_command("--hub", "hub.example.org", "--repo", "https://g.org/a/b",
                        "--lang", "en")
    assert wrong.returncode == 2 and wrong.stdout == ""
    assert wrong.stderr.count("\n") == 1 and "--hub takes the hub's address" in wrong.stderr


def test_check_asks_git_whether_the_branch_is_there(tmp_path):
    course = tmp_path / "course"
    subprocess.run(["git", "init", "-q", "-b", "main", str(course)], check=True)
    subprocess.run(["git", "-C", str(course), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    assert link.branch_exists(str(course), "main") is None
    assert "no branch spring" in link.branch_exists(str(course), "spring")
    missing = run_command("--hub", "https://hub", "--repo", "https://127.0.0.1:9/none.git",
                          "--check", "--lang", "en")
    assert missing.returncode == 1 and "Check failed" in missing.stderr
    assert missing.stdout == ""
