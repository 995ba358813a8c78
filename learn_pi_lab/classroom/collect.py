"""``learn-pi-lab collect --out DIR``: every learner's ``workspace/``, copied for ``grade``.

Run by the teacher on the hub machine, as root (``sudo``): only root can read every home
folder. For each learner (the members of the group ``learners``, or ``--users``, or each
folder of ``--homes``) it copies ``~/learn-pi-lab/workspace/`` into ``DIR/<learner>/``, then
``learn-pi-lab grade DIR --out GRADES`` grades the class. A home folder belongs to its
learner, who may have put anything there, so the copy trusts nothing in it:

* **no link is followed**, at any depth: every folder and file is opened relative to the
  folder above it with ``O_NOFOLLOW``, so a link, or one swapped in while collecting, is
  refused, not followed to another learner's answers or to a system file; such a file is
  left out and listed;
* **only the learner's own files**: a file owned by anyone else (a hard link to a
  classmate's file, say) is left out and listed; only regular files are read, never a named
  pipe or a device (opened with ``O_NONBLOCK``, checked with ``fstat``);
* **sizes are capped**: per file, per learner and in number of files (the same caps as
  ``grade``'s reading), folders at most ``MAX_DEPTH`` deep; what is over is listed;
* **nothing is written into a home**: files are opened read-only (``O_NOATIME`` as root, so
  not even their access times change), and ``DIR`` may not be inside a learner's home;
* **the copy is yours**: run through ``sudo``, the files are written as the user who ran it
  (``--owner``), readable by that user alone: learners' work is personal;
* **learners who never opened the course** (no ``~/learn-pi-lab/workspace``) are listed,
  not copied; so is every learner skipped for another reason.

``DIR/.collected.json`` records all of it; ``class-report`` reads it to list the learners
who never started.
"""

from __future__ import annotations

import argparse
import errno
import grp
import json
import os
import pwd
import stat
import sys
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from learn_pi_lab.arguments import OneLineParser, UserError, parsed_or_said
from learn_pi_lab.classroom.link import COURSE_FOLDER
from learn_pi_lab.harness.files import MAX_SOURCE, MAX_SOURCES
from learn_pi_lab.i18n import current_language, t
from learn_pi_lab.terminal_text import shown

LEARNERS_GROUP = "learners"
MANIFEST = ".collected.json"
MAX_FILES = 500          # files copied per learner
MAX_DEPTH = 8            # folders inside workspace/
SKIPPED_NAMES = frozenset({"__pycache__", ".ipynb_checkpoints"})
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Caps:
    file_bytes: int = MAX_SOURCE       # one file
    learner_bytes: int = MAX_SOURCES   # one learner, all files
    files: int = MAX_FILES             # one learner, how many


@dataclass(frozen=True)
class Learner:
    name: str
    home: Path
    uid: int | None   # the account's uid; None for a folder of --homes (its owner counts)


@dataclass
class Collected:
    """What was taken from one learner: the files (relative path -> bytes) and what was
    left out (relative path, reason)."""
    learner: str
    files: dict[str, bytes] = field(default_factory=dict)
    left_out: list[tuple[str, str]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(len(data) for data in self.files.values())


class Skipped(Exception):
    """A learner not collected at all: ``reason`` is a message key's last part."""

    def __init__(self, reason: str, **fields: object) -> None:
        super().__init__(reason)
        self.reason, self.fields = reason, fields


# --------------------------------------------------------------------------------------
# Who the learners are
# --------------------------------------------------------------------------------------

def group_members(group: str) -> list[Learner]:
    """The accounts in ``group``: listed members and those whose primary group it is."""
    try:
        entry = grp.getgrnam(group)
    except KeyError:
        raise UserError("classroom.collect.no_group", group=group) from None
    names = set(entry.gr_mem) | {user.pw_name for user in pwd.getpwall()
                                 if user.pw_gid == entry.gr_gid}
    return [account(name) for name in sorted(names)]


def account(name: str) -> Learner:
    try:
        user = pwd.getpwnam(name)
    except KeyError:
        raise UserError("classroom.collect.no_user", user=name) from None
    return Learner(name, Path(user.pw_dir), user.pw_uid)


def homes_in(folder: Path) -> list[Learner]:
    """Each sub-folder of ``folder`` is one learner's home, named by the folder (homes
    mounted from elsewhere, as on Zero to JupyterHub: docs/teacher.md). Links are not
    homes."""
    if not folder.is_dir():
        raise UserError("classroom.collect.no_homes", path=str(folder))
    return [Learner(entry.name, Path(entry.path), None)
            for entry in sorted(os.scandir(folder), key=lambda entry: entry.name)
            if entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")]


# --------------------------------------------------------------------------------------
# Reading one home, trusting nothing in it
# --------------------------------------------------------------------------------------

def open_below(folder_fd: int, name: str, flags: int) -> int:
    """``name`` inside the open folder, never through a link (``O_NOFOLLOW``), read-only,
    without changing its access time where that is allowed (root, or the owner)."""
    try:
        return os.open(name, flags | os.O_NOATIME, dir_fd=folder_fd)
    except PermissionError:   # O_NOATIME is only for the file's owner (or root)
        return os.open(name, flags, dir_fd=folder_fd)


def workspace_fd(learner: Learner) -> tuple[int, int]:
    """The learner's ``~/learn-pi-lab/workspace`` opened, and the uid whose files count as
    theirs. ``Skipped`` says why there is none."""
    # an account's home is where the system says (a link there is the administrator's); a
    # folder of --homes is never reached through a link
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (os.O_NOFOLLOW if learner.uid is None
                                                           else 0)
    try:
        home = os.open(learner.home, flags)
    except FileNotFoundError:
        raise Skipped("no_home", home=str(learner.home)) from None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Skipped("course_not_a_folder", path=str(learner.home)) from None
        raise Skipped("unreadable", detail=error.strerror or str(error)) from None
    try:
        owner = os.fstat(home).st_uid
        if learner.uid is not None and owner != learner.uid:
            raise Skipped("home_not_theirs", home=str(learner.home))
        opened = home
        for part in (COURSE_FOLDER, "workspace"):
            try:
                below = open_below(opened, part, FOLDER_FLAGS)
            except FileNotFoundError:
                raise Skipped("not_started") from None
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise Skipped("course_not_a_folder", path=f"~/{COURSE_FOLDER}/workspace")
                raise Skipped("unreadable", detail=error.strerror or str(error)) from None
            finally:
                if opened != home:
                    os.close(opened)
            opened = below
        return opened, owner
    finally:
        os.close(home)


def read_workspace(learner: Learner, caps: Caps) -> Collected:
    """The learner's files, read as described in the module's docstring."""
    top, owner = workspace_fd(learner)
    taken = Collected(learner.name)
    waiting: list[tuple[int, str, int]] = [(top, "", 0)]   # (open folder, its path, depth)
    try:
        while waiting:
            folder, prefix, depth = waiting.pop()
            try:
                with os.scandir(folder) as listing:
                    names = sorted(entry.name for entry in listing)
            except OSError as error:
                taken.left_out.append((prefix or ".", "unreadable:" + (error.strerror or "")))
                os.close(folder)
                continue
            for name in names:
                path = f"{prefix}{name}"
                if name in SKIPPED_NAMES or name.startswith("."):
                    continue
                try:
                    info = os.stat(name, dir_fd=folder, follow_symlinks=False)
                except OSError:
                    continue   # gone meanwhile
                if stat.S_ISLNK(info.st_mode):
                    taken.left_out.append((path, "link"))
                elif stat.S_ISDIR(info.st_mode):
                    if depth + 1 > MAX_DEPTH:
                        taken.left_out.append((path + "/", "too_deep"))
                        continue
                    try:
                        waiting.append((open_below(folder, name, FOLDER_FLAGS), path + "/",
                                        depth + 1))
                    except OSError:
                        taken.left_out.append((path + "/", "link"))   # swapped for a link
                elif not stat.S_ISREG(info.st_mode):
                    taken.left_out.append((path, "special"))
                else:
                    reason = read_one(folder, name, path, owner, caps, taken)
                    if reason:
                        taken.left_out.append((path, reason))
            os.close(folder)
    finally:
        for folder, _, _ in waiting:
            os.close(folder)
    return taken


def read_one(folder: int, name: str, path: str, owner: int, caps: Caps,
             taken: Collected) -> str | None:
    """Read one file into ``taken``; the reason it was left out, or None."""
    if len(taken.files) >= caps.files:
        return "too_many"
    try:
        handle = open_below(folder, name, READ_FLAGS)
    except OSError as error:
        return "link" if error.errno == errno.ELOOP else "unreadable:" + (error.strerror or "")
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            return "special"
        if info.st_uid != owner:
            return "not_theirs"
        data = file.read(caps.file_bytes + 1)
    if len(data) > caps.file_bytes:
        return "too_large"
    if taken.size + len(data) > caps.learner_bytes:
        return "over_total"
    taken.files[path] = data
    return None


# --------------------------------------------------------------------------------------
# Writing the copies, as the teacher
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Owner:
    uid: int
    gid: int
    groups: tuple[int, ...]


def owner_for(name: str | None) -> Owner | None:
    """Whose the copies are: ``--owner``, else the user who ran ``sudo`` (``SUDO_USER``),
    else whoever runs this (``None``: nothing to switch)."""
    name = name or (os.environ.get("SUDO_USER") if os.geteuid() == 0 else None)
    if not name:
        return None
    try:
        user = pwd.getpwnam(name)
    except KeyError:
        raise UserError("classroom.collect.no_user", user=name) from None
    if user.pw_uid == os.geteuid():
        return None
    if os.geteuid() != 0:
        raise UserError("classroom.collect.owner_needs_root", user=name)
    return Owner(user.pw_uid, user.pw_gid, tuple(os.getgrouplist(name, user.pw_gid)))


@contextmanager
def acting_as(owner: Owner | None) -> Iterator[None]:
    """Inside the block, files are made (and folders checked) as ``owner``: root only reads
    the homes; what it writes, the owner could have written. Back to root after it."""
    if owner is None:
        yield
        return
    saved_groups = os.getgroups()
    os.setgroups(list(owner.groups))
    os.setegid(owner.gid)
    os.seteuid(owner.uid)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)
        os.setgroups(saved_groups)


def write_copy(out: Path, taken: Collected) -> None:
    """``out/<learner>/<path>`` for every file taken, the folders made on the way."""
    folder = out / taken.learner
    folder.mkdir(mode=0o700)
    for path, data in taken.files.items():
        target = folder / path
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(target, "xb") as handle:   # never over an existing file
            handle.write(data)


def ready_out(out: Path, learners: list[Learner]) -> None:
    """``out`` must be new (or an empty folder) and outside every learner's home."""
    resolved = out.resolve()
    for learner in learners:
        home = learner.home.resolve()
        if resolved == home or home in resolved.parents:
            raise UserError("classroom.collect.out_in_home", path=str(out),
                            learner=learner.name)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError("classroom.collect.out_not_empty", path=str(out))
    out.mkdir(mode=0o700, parents=True, exist_ok=True)


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------

def parse_args(argv: list[str]) -> argparse.Namespace:
    caps = Caps()
    parser = OneLineParser(prog="learn-pi-lab collect",
                           description="Copy each learner's workspace/ from their home folder "
                                       "into DIR/<learner>/, ready for grade (as root).")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="a new folder for the copies (then: grade DIR --out GRADES)")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--group", default=LEARNERS_GROUP,
                     help=f"collect every member of this group (default {LEARNERS_GROUP})")
    who.add_argument("--users", nargs="+", metavar="NAME", help="collect these accounts")
    who.add_argument("--homes", type=Path, metavar="FOLDER",
                     help="each sub-folder is one learner's home (e.g. mounted volumes)")
    parser.add_argument("--owner", metavar="USER",
                        help="whose the copies are (default: the user who ran sudo)")
    parser.add_argument("--max-file-kb", type=int, default=caps.file_bytes // 1024,
                        metavar="KB", help="largest file copied")
    parser.add_argument("--max-learner-mb", type=int,
                        default=caps.learner_bytes // (1024 * 1024), metavar="MB",
                        help="what is copied from one learner, all files together")
    parser.add_argument("--max-files", type=int, default=caps.files, metavar="N",
                        help="files copied from one learner")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the messages")
    return parser.parse_args(argv)


def learners_of(args: argparse.Namespace) -> list[Learner]:
    if args.homes is not None:
        return homes_in(args.homes)
    if args.users:
        return [account(name) for name in args.users]
    return group_members(args.group)


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_said(parse_args, sys.argv[1:] if argv is None else argv)
    if args is None:
        return 2
    lang = current_language(args.lang)
    try:
        return collect(args, lang)
    except UserError as error:
        print(t(error.key, lang, **error.fields), file=sys.stderr)
        return 2
    except OSError as error:   # the copies' folder (written as the teacher)
        print(t("classroom.collect.unwritable", lang, path=error.filename or str(args.out),
                detail=error.strerror or str(error)), file=sys.stderr)
        return 2


def collect(args: argparse.Namespace, lang: str) -> int:
    if min(args.max_file_kb, args.max_learner_mb, args.max_files) < 1:
        raise UserError("classroom.collect.bad_cap")
    caps = Caps(args.max_file_kb * 1024, args.max_learner_mb * 1024 * 1024, args.max_files)
    learners = learners_of(args)
    if os.geteuid() != 0 and args.homes is None:
        print(t("classroom.collect.not_root", lang), file=sys.stderr)
    if not learners:
        raise UserError("classroom.collect.nobody", group=args.group)
    owner = owner_for(args.owner)
    with acting_as(owner):
        ready_out(args.out, learners)
    report: dict = {"collected_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "course_folder": f"{COURSE_FOLDER}/workspace", "caps": asdict(caps),
                    "learners": {}, "not_started": [], "skipped": {}}
    for learner in learners:
        try:
            taken = read_workspace(learner, caps)
        except Skipped as skipped:
            if skipped.reason == "not_started":
                report["not_started"].append(learner.name)
            else:
                report["skipped"][learner.name] = t(
                    f"classroom.collect.skipped.{skipped.reason}", lang, **skipped.fields)
            continue
        with acting_as(owner):
            write_copy(args.out, taken)
        report["learners"][learner.name] = {
            "files": len(taken.files), "bytes": taken.size,
            "left_out": [{"path": path, "reason": reason} for path, reason in taken.left_out]}
    with acting_as(owner):
        with open(args.out / MANIFEST, "x", encoding="utf-8") as handle:
            json.dump(report, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
    say_what_happened(report, args.out, lang)
    return 0


def say_what_happened(report: dict, out: Path, lang: str) -> None:
    collected = report["learners"]
    print(t("classroom.collect.done", lang, count=len(collected), out=str(out)))
    if report["not_started"]:
        print(t("classroom.collect.not_started", lang, count=len(report["not_started"]),
                names=", ".join(map(shown, report["not_started"]))))
    for name, reason in report["skipped"].items():
        print(t("classroom.collect.skipped", lang, learner=shown(name), reason=reason))
    for name, line in collected.items():
        for left in line["left_out"]:
            reason_key = "classroom.collect.left_out." + left["reason"].split(":")[0]
            print(t("classroom.collect.left_out", lang, learner=shown(name),
                    path=shown(left["path"]), reason=t(reason_key, lang)))
    print(t("classroom.collect.next", lang, out=str(out)))


if __name__ == "__main__":
    sys.exit(main())
