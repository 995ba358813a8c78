"""``learn-pi-lab hub-link --hub URL --repo URL``: the link a teacher hands out.

An nbgitpuller link is an address on the hub: the learner logs in, the hub starts their
server, and nbgitpuller (installed on the hub) clones the course into ``~/learn-pi-lab``, or,
when it is already there, brings the course's new commits in (below); then JupyterLab opens
chapter 00 of the edition::

    https://HUB/hub/user-redirect/git-pull?repo=REPO&branch=main&targetpath=learn-pi-lab
        &urlpath=lab/tree/learn-pi-lab/notebooks/zh/00-start-here.ipynb

**Clicked again**, the same link updates the course (nbgitpuller's documented merge, tested
in ``tests/test_classroom_update.py``): the learner's changes are committed in their copy,
then the course's new commits are merged, the learner's lines winning wherever both changed
the same lines (``git merge -Xours``). So answers in ``workspace/`` are never lost; a course
change to other lines of an answer file, or to any other file, arrives; a course change to
the very lines the learner edited does not (their version stays); a file the learner
deleted comes back as the course has it.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from urllib.parse import quote, urlencode, urlsplit

from learn_pi_lab.arguments import OneLineParser, UserError, parsed_or_said
from learn_pi_lab.course.lab import EDITIONS, landing_path
from learn_pi_lab.i18n import current_language, t

COURSE_FOLDER = "learn-pi-lab"   # the folder in each home (classroom/jupyterhub_config.py)
REPOSITORY_SCHEMES = ("https", "http", "git", "ssh")
FOLDER_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
BRANCH_NAME = re.compile(r"^[A-Za-z0-9._/-]+$")


def nbgitpuller_link(hub: str, repo: str, edition: str, *, branch: str = "main",
                     folder: str = COURSE_FOLDER) -> str:
    """The link for one edition; ``hub`` may carry a base path (``https://x.org/jupyter``)."""
    hub = checked_hub(hub)
    repo = checked_repository(repo)
    if edition not in EDITIONS:
        raise UserError("classroom.link.bad_edition", edition=edition)
    if not FOLDER_NAME.match(folder) or folder in (".", ".."):
        raise UserError("classroom.link.bad_folder", folder=folder)
    if not BRANCH_NAME.match(branch) or ".." in branch or branch.startswith(("-", "/")):
        raise UserError("classroom.link.bad_branch", branch=branch)
    query = urlencode({"repo": repo, "branch": branch, "targetpath": folder,
                       "urlpath": f"lab/tree/{folder}/{landing_path(edition)}"},
                      quote_via=quote, safe="")
    return f"{hub}/hub/user-redirect/git-pull?{query}"


def checked_hub(hub: str) -> str:
    """The hub's address without a trailing ``/``: http(s), a host, no query."""
    parts = urlsplit(hub.strip())
    if parts.scheme not in ("https", "http") or not parts.netloc or parts.query \
            or parts.fragment:
        raise UserError("classroom.link.bad_hub", hub=hub)
    path = parts.path.rstrip("/")
    if path.endswith("/hub"):   # https://x.org/hub/ names the hub's pages: the hub is above
        path = path[:-len("/hub")]
    return f"{parts.scheme}://{parts.netloc}{path}"


def checked_repository(repo: str) -> str:
    """A git URL nbgitpuller can clone on the hub, as each learner: served by a git server
    (https, http, git, ssh). Not a folder on the hub (a path or ``file://``): git refuses to
    read a repository another user owns ("dubious ownership"), so every learner would fail."""
    repo = repo.strip()
    parts = urlsplit(repo)
    if parts.scheme not in REPOSITORY_SCHEMES or not parts.netloc \
            or parts.query or parts.fragment or any(char.isspace() for char in repo):
        raise UserError("classroom.link.bad_repo", repo=repo)
    return repo


def branch_exists(repo: str, branch: str, timeout: float = 30.0) -> str | None:
    """``None`` when ``git ls-remote`` finds ``branch`` in ``repo``, else what went wrong."""
    try:
        done = subprocess.run(["git", "ls-remote", "--heads", "--", repo, branch],
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL,
                              env={"GIT_TERMINAL_PROMPT": "0", "PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error) or type(error).__name__
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
    if f"refs/heads/{branch}" not in done.stdout:
        return t("classroom.link.no_such_branch", None, branch=branch)
    return None


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="learn-pi-lab hub-link",
                           description="Print the nbgitpuller link that hands the course out "
                                       "on a JupyterHub (docs/teacher.md).")
    parser.add_argument("--hub", required=True, metavar="URL",
                        help="the hub's address, e.g. https://hub.example.org")
    parser.add_argument("--repo", required=True, metavar="URL",
                        help="the course's git repository, as the hub can clone it")
    parser.add_argument("--branch", default="main", help="the branch to hand out (main)")
    parser.add_argument("--edition", choices=(*EDITIONS, "both"), default="both",
                        help="zh, en, or both (default): which chapter 00 the link opens")
    parser.add_argument("--folder", default=COURSE_FOLDER, metavar="NAME",
                        help=f"the course's folder in each home ({COURSE_FOLDER})")
    parser.add_argument("--check", action="store_true",
                        help="first check with git that the repository has the branch")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the messages")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_said(parse_args, sys.argv[1:] if argv is None else argv)
    if args is None:
        return 2
    lang = current_language(args.lang)
    editions = EDITIONS if args.edition == "both" else (args.edition,)
    try:
        links = {edition: nbgitpuller_link(args.hub, args.repo, edition, branch=args.branch,
                                           folder=args.folder) for edition in editions}
    except UserError as error:
        print(t(error.key, lang, **error.fields), file=sys.stderr)
        return 2
    if args.check:
        problem = branch_exists(args.repo, args.branch)
        if problem:
            print(t("classroom.link.unreachable", lang, repo=args.repo, branch=args.branch,
                    problem=problem), file=sys.stderr)
            return 1
    if len(links) == 1:
        print(next(iter(links.values())))   # the link alone, for a script
        return 0
    for edition, link in links.items():
        print(t(f"classroom.link.edition.{edition}", lang))
        print(f"  {link}")
    print(t("classroom.link.how", lang, folder=args.folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
