"""``python -m learn_pi_lab collect --out DIR``: each learner's ``workspace/``, for ``grade``.

Run by the teacher on the hub machine (as root: the learners' homes are theirs alone). For
every learner, ``~/learn-pi-lab/workspace/`` is copied into ``DIR/<user>/``; ``grade DIR``
then grades the class. The learners' homes are only read, never written, and what a learner
keeps there is treated as a learner may have made it:

* **no link is followed**: every folder on the way (the home, the course, ``workspace``) and
  every file is opened relative to its parent, refusing a symbolic link (``O_NOFOLLOW``), so
  a link planted anywhere, or swapped in while the copy runs, reads nothing outside the
  learner's own folder; only regular files are read (a named pipe would block for ever);
* **sizes are capped**: a file of more than ``MAX_FILE`` bytes, folders deeper than
  ``MAX_DEPTH``, more than ``MAX_ENTRIES`` entries or ``MAX_TOTAL`` bytes in all are left
  out, and said;
* a learner who **never opened the course** (no ``learn-pi-lab`` folder), or whose course
  folder is not a folder, is skipped and listed with the reason.

Which learners: ``--users a,b``, or the members of ``--group`` (the hub's group), or every
folder of ``--homes`` (default ``/home``).
"""

from __future__ import annotations

import argparse
import errno
import grp
import os
import pwd
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from learn_pi_lab.arguments import OneLineParser, UserError, parsed_or_said
from learn_pi_lab.classroom.link import COURSE_FOLDER
from learn_pi_lab.harness import report
from learn_pi_lab.i18n import current_language, t
from learn_pi_lab.terminal_text import shown

MAX_FILE = 1024 * 1024          # bytes of one file (grading reads .py files up to this too)
MAX_TOTAL = 16 * 1024 * 1024    # bytes of one learner's workspace
MAX_ENTRIES = 5000              # files and folders of one learner's workspace
MAX_DEPTH = 12                  # folders below workspace/
SKIPPED_NAMES = frozenset({"__pycache__", ".ipynb_checkpoints"})
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK


@dataclass
class Collected:
    """One learner's copy: files and bytes written, and what was left out (and why)."""
    user: str
    lang: str
    files: int = 0
    size: int = 0
    left_out: list[str] = field(default_factory=list)   # "path: why"


def open_folder(name: str, parent: int | None) -> int:
    """A folder's descriptor, never through a link (``OSError`` otherwise: ``ELOOP`` or
    ``ENOTDIR`` for a link or a file, ``ENOENT`` for nothing there)."""
    return os.open(name, FOLDER, dir_fd=parent)


def copy_workspace(workspace: int, destination: Path, result: Collected) -> None:
    """Copy the folder open at ``workspace`` into ``destination``, within the caps."""
    waiting: list[tuple[int, Path, int]] = [(workspace, Path(""), 0)]
    entries = 0
    while waiting:
        folder, relative, depth = waiting.pop()
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            names = []
        for name in names:
            here = (relative / name).as_posix()
            if name in SKIPPED_NAMES:
                continue
            entries += 1
            if entries > MAX_ENTRIES:
                result.left_out.append(t("classroom.collect.too_many", result.lang, entries=MAX_ENTRIES))
                waiting.clear()
                break
            try:
                info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if depth + 1 > MAX_DEPTH:
                    result.left_out.append(f"{here}/: " + t("classroom.collect.too_deep", result.lang))
                    continue
                try:
                    below = open_folder(name, folder)
                except OSError:
                    continue   # (swapped for a link meanwhile: not followed)
                (destination / relative / name).mkdir(parents=True, exist_ok=True)
                waiting.append((below, relative / name, depth + 1))
            elif stat.S_ISREG(info.st_mode):
                copy_file(name, folder, here, destination / relative / name, result)
            else:
                kind = "link" if stat.S_ISLNK(info.st_mode) else "special"
                result.left_out.append(f"{here}: " + t(f"classroom.collect.{kind}", result.lang))
        if folder != workspace:
            os.close(folder)


def copy_file(name: str, folder: int, here: str, target: Path, result: Collected) -> None:
    try:
        handle = os.open(name, FILE, dir_fd=folder)
    except OSError:
        result.left_out.append(f"{here}: " + t("classroom.collect.unreadable", result.lang))
        return
    with os.fdopen(handle, "rb") as source:
        info = os.fstat(source.fileno())
        if not stat.S_ISREG(info.st_mode):
            result.left_out.append(f"{here}: " + t("classroom.collect.special", result.lang))
            return
        if info.st_size > MAX_FILE:
            result.left_out.append(f"{here}: " + t("classroom.collect.too_large", result.lang,
                                                   limit=MAX_FILE // 1024))
            return
        if result.size + info.st_size > MAX_TOTAL:
            result.left_out.append(f"{here}: " + t("classroom.collect.over_total", result.lang,
                                                   limit=MAX_TOTAL // (1024 * 1024)))
            return
        data = source.read(MAX_FILE + 1)[:MAX_FILE]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    result.files += 1
    result.size += len(data)


def collect_one(user: str, home: Path, out: Path, folder: str, lang: str) -> Collected | str:
    """One learner: their copy, or the reason (a message key) they were skipped."""
    try:
        home_fd = os.open(home, FOLDER)
    except OSError:
        return "classroom.collect.skip.no_home"
    try:
        try:
            course = open_folder(folder, home_fd)
        except OSError as error:
            return ("classroom.collect.skip.never_opened" if error.errno == errno.ENOENT
                    else "classroom.collect.skip.course_not_a_folder")
        try:
            try:
                workspace = open_folder("workspace", course)
            except OSError as error:
                return ("classroom.collect.skip.no_workspace" if error.errno == errno.ENOENT
                        else "classroom.collect.skip.workspace_not_a_folder")
            try:
                result = Collected(user, lang)
                (out / user).mkdir(parents=True)
                copy_workspace(workspace, out / user, result)
                return result
            finally:
                os.close(workspace)
        finally:
            os.close(course)
    finally:
        os.close(home_fd)


def learners(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """(user, home) of every learner asked for."""
    if args.users:
        names = [name.strip() for name in args.users.split(",") if name.strip()]
    elif args.group:
        try:
            group = grp.getgrnam(args.group)
        except KeyError:
            raise UserError("classroom.collect.no_group", group=args.group) from None
        names = sorted(set(group.gr_mem) | {entry.pw_name for entry in pwd.getpwall()
                                            if entry.pw_gid == group.gr_gid})
    else:
        try:
            names = sorted(entry.name for entry in os.scandir(args.homes)
                           if entry.is_dir(follow_symlinks=False))
        except OSError:
            raise UserError("classroom.collect.no_homes", homes=str(args.homes)) from None
    found = []
    for name in names:
        try:
            home = Path(pwd.getpwnam(name).pw_dir)
        except KeyError:
            home = Path(args.homes) / name
        found.append((name, home))
    return found


USER_NAME_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="python3 -m learn_pi_lab collect",
                           description="Copy each learner's workspace/ out of their home.")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="a new folder: one sub-folder per learner, for grade")
    choose = parser.add_mutually_exclusive_group()
    choose.add_argument("--users", metavar="A,B", help="these learners only")
    choose.add_argument("--group", metavar="GROUP", help="the members of this Unix group")
    parser.add_argument("--homes", type=Path, default=Path("/home"), metavar="DIR",
                        help="where the homes are, when no --users or --group (/home)")
    parser.add_argument("--folder", default=COURSE_FOLDER,
                        help=f"the course's folder in each home ({COURSE_FOLDER})")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the summary")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_said(parse_args, sys.argv[1:] if argv is None else argv)
    if args is None:
        return 2
    lang = current_language(args.lang)
    try:
        return collect_class(args, lang)
    except UserError as wrong:
        print(t(wrong.key, lang, **wrong.fields), file=sys.stderr)
        return 2


def collect_class(args: argparse.Namespace, lang: str) -> int:
    out = args.out
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError("classroom.collect.out_exists", path=str(out))
    out.mkdir(parents=True, exist_ok=True)
    collected, skipped = [], []
    for user, home in learners(args):
        if not user or set(user) - USER_NAME_OK or user.startswith("."):
            skipped.append((user, "classroom.collect.skip.odd_name"))
            continue
        outcome = collect_one(user, home, out, args.folder, lang)
        if isinstance(outcome, str):
            skipped.append((user, outcome))
        else:
            collected.append(outcome)
    rows = [[shown(one.user), str(one.files), f"{one.size / 1024:.0f} KiB",
             str(len(one.left_out))] for one in collected]
    headers = [t(f"classroom.collect.col.{name}", lang)
               for name in ("learner", "files", "size", "left_out")]
    if rows:
        print(report.text_table(headers, rows))
    for one in collected:
        for line in one.left_out:
            print(t("classroom.collect.left_out_line", lang, user=shown(one.user),
                    what=shown(line)))
    for user, why in skipped:
        print(t("classroom.collect.skipped_line", lang, user=shown(user), why=t(why, lang)))
    print(t("classroom.collect.done", lang, collected=len(collected), skipped=len(skipped),
            out=str(out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
