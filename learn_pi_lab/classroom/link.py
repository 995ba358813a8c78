"""``python -m learn_pi_lab link --hub URL --repo URL``: the link a teacher hands out.

A learner who follows it logs in to the hub, nbgitpuller puts the course into
``~/learn-pi-lab`` (a clone the first time, a merge of the course's updates every time after:
the learner's own changes are kept, see ``updates``) and JupyterLab opens chapter 00 of the
chosen edition. The link is plain nbgitpuller: ``/hub/user-redirect/git-pull`` with the
repository, its branch, the folder in the home and the page to open.
"""

from __future__ import annotations

import argparse
import re
import sys
from urllib.parse import urlencode, urlsplit

from learn_pi_lab.cli.arguments import OneLineParser, UserError, parsed_or_said
from learn_pi_lab.course.lab import EDITIONS, FIRST_CHAPTER
from learn_pi_lab.i18n import current_language, t

COURSE_FOLDER = "learn-pi-lab"   # where the course lands in each home (the hub's PYTHONPATH)
FOLDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def pull_link(hub: str, repo: str, *, branch: str = "main", edition: str = "zh",
              folder: str = COURSE_FOLDER) -> str:
    """The nbgitpuller link to ``repo`` (its ``branch``) on ``hub``, landing on chapter 00 of
    ``edition`` in ``~/folder``. A hub address that is not http(s), an empty repository or
    branch, an unknown edition or a folder name with a slash is a ``UserError``."""
    parts = urlsplit(hub.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UserError("classroom.link.bad_hub", hub=hub)
    if not repo.strip():
        raise UserError("classroom.link.no_repo")
    if not branch.strip():
        raise UserError("classroom.link.no_branch")
    if edition not in EDITIONS:
        raise UserError("classroom.link.bad_edition", edition=edition,
                        editions=", ".join(EDITIONS))
    if not FOLDER_NAME.fullmatch(folder) or folder in (".", ".."):
        raise UserError("classroom.link.bad_folder", folder=folder)
    base = hub.strip().rstrip("/")
    query = urlencode({"repo": repo.strip(), "branch": branch.strip(), "targetPath": folder,
                       "urlpath": f"lab/tree/{folder}/notebooks/{edition}/{FIRST_CHAPTER}"})
    return f"{base}/hub/user-redirect/git-pull?{query}"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="python3 -m learn_pi_lab link",
                           description="The nbgitpuller link that hands the course out on a hub.")
    parser.add_argument("--hub", required=True, metavar="URL",
                        help="the hub's address, e.g. https://hub.example.edu")
    parser.add_argument("--repo", required=True, metavar="URL",
                        help="the course's git repository, as the hub reaches it")
    parser.add_argument("--branch", default="main", help="the branch to hand out (main)")
    parser.add_argument("--edition", default="both", choices=(*EDITIONS, "both"),
                        help="the edition the link opens: zh, en or both links (both)")
    parser.add_argument("--folder", default=COURSE_FOLDER,
                        help=f"the folder in each home ({COURSE_FOLDER})")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the lines printed")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_said(parse_args, sys.argv[1:] if argv is None else argv)
    if args is None:
        return 2
    lang = current_language(args.lang)
    editions = EDITIONS if args.edition == "both" else (args.edition,)
    try:
        links = [(edition, pull_link(args.hub, args.repo, branch=args.branch, edition=edition,
                                     folder=args.folder)) for edition in editions]
    except UserError as wrong:
        print(t(wrong.key, lang, **wrong.fields), file=sys.stderr)
        return 2
    for edition, link in links:
        print(t("classroom.link.line", lang, edition=edition, link=link))
    return 0


if __name__ == "__main__":
    sys.exit(main())
