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
  folder is not a folder, is skipped and listed with the reason;
* **only the learner's own files**: a file another user owns (a hard link to a classmate's
  or the teacher's file) is left out and said;
* **nothing is written into a home**: every file is opened read-only and without changing
  its access time (``O_NOATIME``), and ``--out`` inside a learner's home is refused;
* **the copies are the teacher's**: run through ``sudo``, they are written as the user who
  ran it (``--owner`` names another), readable by that user alone.

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
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from learn_pi_lab.cli.arguments import OneLineParser, UserError, parsed_or_said
from learn_pi_lab.classroom.link import COURSE_FOLDER
from learn_pi_lab.harness import report
from learn_pi_lab.i18n import current_language, t
from learn_pi_lab.cli.terminal_text import shown

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


def open_below(name: str, parent: int | None, flags: int) -> int:
    """``os.open`` relative to ``parent``, without changing the access time where that is
    allowed (``O_NOATIME``: root, or the file's owner), so reading a home writes nothing to
    it, not even a time."""
    try:
        return os.open(name, flags | os.O_NOATIME, dir_fd=parent)
    except PermissionError:
        return os.open(name, flags, dir_fd=parent)


def open_folder(name: str, parent: int | None) -> int:
    """A folder's descriptor, never through a link (``OSError`` otherwise: ``ELOOP`` or
    ``ENOTDIR`` for a link or a file, ``ENOENT`` for nothing there)."""
    return open_below(name, parent, FOLDER)


def copy_workspace(workspace: int, destination: Path, result: Collected,
                   owner: int | None = None, writer: "Writer | None" = None) -> None:
    """Copy the folder open at ``workspace`` into ``destination``, within the caps; with
    ``owner`` (the home's owner), only files that belong to that user."""
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
                with writing_as(writer):
                    (destination / relative / name).mkdir(mode=0o700, parents=True,
                                                          exist_ok=True)
                waiting.append((below, relative / name, depth + 1))
            elif stat.S_ISREG(info.st_mode):
                copy_file(name, folder, here, destination / relative / name, result, owner,
                          writer)
            else:
                kind = "link" if stat.S_ISLNK(info.st_mode) else "special"
                result.left_out.append(f"{here}: " + t(f"classroom.collect.{kind}", result.lang))
        if folder != workspace:
            os.close(folder)


def copy_file(name: str, folder: int, here: str, target: Path, result: Collected,
              owner: int | None = None, writer: "Writer | None" = None) -> None:
    try:
        handle = open_below(name, folder, FILE)
    except OSError:
        result.left_out.append(f"{here}: " + t("classroom.collect.unreadable", result.lang))
        return
    with os.fdopen(handle, "rb") as source:
        info = os.fstat(source.fileno())
        if not stat.S_ISREG(info.st_mode):
            result.left_out.append(f"{here}: " + t("classroom.collect.special", result.lang))
            return
        if owner is not None and info.st_uid != owner:
            # a hard link to a classmate's (or the teacher's) file is a file of theirs
            result.left_out.append(f"{here}: " + t("classroom.collect.not_theirs", result.lang))
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
    with writing_as(writer):   # the copy is the teacher's, readable by them alone
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with os.fdopen(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600),
                       "wb") as copy:
            copy.write(data)
    result.files += 1
    result.size += len(data)


def collect_one(user: str, home: Path, out: Path, folder: str, lang: str,
                writer: "Writer | None" = None) -> Collected | str:
    """One learner: their copy, or the reason (a message key) they were skipped."""
    try:
        home_fd = open_below(str(home), None, FOLDER)
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
                with writing_as(writer):
                    (out / user).mkdir(mode=0o700, parents=True)
                copy_workspace(workspace, out / user, result, os.fstat(home_fd).st_uid,
                               writer)
                return result
            finally:
                os.close(workspace)
        finally:
            os.close(course)
    finally:
        os.close(home_fd)


@dataclass(frozen=True)
class Writer:
    """The account the copies are written as (the teacher who ran ``sudo``)."""
    uid: int
    gid: int
    groups: tuple[int, ...]


def writer_for(name: str | None) -> Writer | None:
    """``--owner``, else, run through ``sudo``, the user who ran it (``SUDO_USER``); ``None``:
    the copies are written as whoever runs this (nothing to switch)."""
    name = name or (os.environ.get("SUDO_USER") if os.geteuid() == 0 else None)
    if not name:
        return None
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        raise UserError("classroom.collect.no_owner", user=name) from None
    if entry.pw_uid == os.geteuid():
        return None
    if os.geteuid() != 0:
        raise UserError("classroom.collect.owner_needs_root", user=name)
    return Writer(entry.pw_uid, entry.pw_gid, tuple(os.getgrouplist(name, entry.pw_gid)))


@contextmanager
def writing_as(writer: Writer | None) -> Iterator[None]:
    """Inside the block, files and folders are made as ``writer`` (``seteuid``): root reads
    the homes, but writes only what the teacher could have written. Root again after it."""
    if writer is None:
        yield
        return
    groups = os.getgroups()
    os.setgroups(list(writer.groups))
    os.setegid(writer.gid)
    os.seteuid(writer.uid)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)
        os.setgroups(groups)


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
    parser.add_argument("--owner", metavar="USER",
                        help="whose the copies are (default: the user who ran sudo)")
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
    except OSError as error:   # the copies' folder, written as the teacher
        print(t("classroom.collect.unwritable", lang, path=error.filename or str(args.out),
                detail=error.strerror or str(error)), file=sys.stderr)
        return 2


def collect_class(args: argparse.Namespace, lang: str) -> int:
    out = args.out
    writer = writer_for(args.owner)
    chosen = learners(args)
    for user, home in chosen:   # never a byte into a learner's home
        if out.resolve() == home.resolve() or home.resolve() in out.resolve().parents:
            raise UserError("classroom.collect.out_in_home", path=str(out), user=user)
    with writing_as(writer):
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UserError("classroom.collect.out_exists", path=str(out))
        out.mkdir(mode=0o700, parents=True, exist_ok=True)
    collected, skipped = [], []
    for user, home in chosen:
        if not user or set(user) - USER_NAME_OK or user.startswith("."):
            skipped.append((user, "classroom.collect.skip.odd_name"))
            continue
        outcome = collect_one(user, home, out, args.folder, lang, writer)
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
