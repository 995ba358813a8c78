"""The walls around the learner's code: bubblewrap, resource limits and a process count.

``command(...)`` wraps the worker's command line in ``bwrap`` (Debian's ``bubblewrap``):

* a file system **built from nothing**, read-only: the system folders (``/usr``), the Python
  that runs the worker and the package ``learn_pi_lab/`` without its ``lessons/`` (the model
  answers); nothing else of the machine is there (not the course's ``tests/``, not its
  ``.git``, not another copy of the course, not the teacher's files);
* the teacher's home, ``/tmp``, the class's submissions folder and the gradebook folder
  **hidden** behind empty folders (``--tmpfs``) wherever one of them lies inside a folder
  that had to be shown, so other learners' code, their sandboxes and the teacher's files are
  not there to read. A ``tmpfs`` lives in the machine's memory, outside the worker's own
  address-space limit, so each has a size (``TMP_SIZE``, ``HIDING_SIZE``) and is read-only
  to the worker (without both, a submission that wrote files into ``/tmp`` held gigabytes of
  the machine's memory until its run ended);
* writable: this run's copy of the learner's files and its scratch folder (its working
  folder, ``HOME`` and ``TMPDIR``), nothing else;
* its own network (none), process, IPC and host-name namespaces (``--unshare-all``): no
  socket reaches anything, and when the worker's process ends every process it started ends
  with it (``--die-with-parent`` and the pid namespace);
* resource limits (``Limits``, set just before ``exec``): address space (1 GiB: an endless
  ``append`` hits ``MemoryError``), CPU seconds, file size and open files;
* **never the host's root** (``WORKER_UID``): when grading runs as root (here, in CI, a
  teacher on a hub machine), bwrap runs without a user namespace and the worker becomes the
  unprivileged user ``nobody`` (``setpriv``) before the learner's code runs. Inside a user
  namespace the worker would be uid 0 *mapped to the host's root*, and the kernel lets that
  uid write host-wide settings under ``/proc/sys`` even with every capability dropped (an
  attacker's review appended to ``kernel.core_pattern``). As ``nobody`` every such file is
  refused. Its writable folders are handed to that user (``hand_over``), and so are the files
  a test writes for it (``proxy.Worker``). When grading runs as an ordinary user, bwrap's
  user namespace keeps that user's own uid, which writes nothing host-wide either;
* **its command line hidden**: bwrap reads its options from a file descriptor (``--args``),
  so ``/proc/1/cmdline`` inside shows no host path.

**Processes.** ``RLIMIT_NPROC`` counts the processes of a *user* across the machine (all the
workers of a class share ``nobody``), and the kernel does not apply it to root at all. So the
trusted side counts the worker's processes itself (``count_processes``) and ends the run past
``Limits.processes``; the pid namespace then ends every one of them.

Without ``bwrap`` (a learner's laptop) ``verify`` falls back to the resource limits alone
and says so in one line; ``grade`` refuses unless the teacher passes ``--no-sandbox``.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from learn_pi_lab.harness.catalog import LESSONS, REPO_ROOT

MiB = 1024 * 1024
TMP_SIZE = 1 * MiB       # the sandbox's /tmp (a tmpfs: the machine's memory), which holds
                         # only the folders made for mounts: read-only to the worker, whose
                         # TMPDIR is its scratch folder
HIDING_SIZE = 64 * 1024  # an empty tmpfs laid over a folder the worker must not see
SHM_SIZE = 1 * MiB       # the worker's /dev/shm (``bwrap --dev`` made it, and /dev, without
                         # a size: half the machine's memory each, counted by no limit)


@dataclass(frozen=True)
class Limits:
    memory: int = 1024 * MiB     # address space of each process, bytes
    cpu_seconds: int = 60        # CPU time of each process (the wall clock is the timeout)
    processes: int = 32          # processes alive at once (counted: see ``count_processes``)
    file_size: int = 64 * MiB    # largest file it may write
    open_files: int = 256
    disk: int = 256 * MiB        # what it may keep in the folders it can write (counted: see
                                 # ``disk_used``), all files together

    def apply(self) -> None:
        """Set the limits on the current process (called in the child before ``exec``)."""
        import resource
        wanted = [(resource.RLIMIT_AS, self.memory), (resource.RLIMIT_CPU, self.cpu_seconds),
                  (resource.RLIMIT_FSIZE, self.file_size),
                  (resource.RLIMIT_NOFILE, self.open_files)]
        for limit, value in wanted:
            _, hard = resource.getrlimit(limit)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(limit, (value, value))

    def to_json(self) -> dict:
        return {"memory": self.memory, "cpu_seconds": self.cpu_seconds,
                "processes": self.processes, "file_size": self.file_size,
                "open_files": self.open_files, "disk": self.disk}


FILES_COUNTED = 100_000
"""``disk_used`` stops counting here: so many files are over any limit (and a walk of more
would cost the trusted side more than a poll may)."""


def disk_used(folders: list[Path], limit: int) -> int:
    """The bytes the files under ``folders`` take on disk (their blocks: a sparse file's hole
    costs nothing), counted until ``limit`` is passed; more than ``FILES_COUNTED`` files and
    folders count as past it. ``RLIMIT_FSIZE`` bounds one file, not how many: a submission
    wrote thirty files of 60 MiB into its scratch folder (an attacker's review), and the
    writable folders are on the machine's disk, so the trusted side counts them itself
    (``proxy.Worker``), as it counts processes. Links are not followed."""
    used, seen, waiting = 0, 0, list(folders)
    while waiting:
        try:
            listing = os.scandir(waiting.pop())
        except OSError:
            continue
        with listing:
            for item in listing:
                seen += 1
                if seen > FILES_COUNTED:
                    return limit + 1
                try:
                    if item.is_dir(follow_symlinks=False):
                        waiting.append(item.path)
                    else:
                        used += item.stat(follow_symlinks=False).st_blocks * 512
                except OSError:
                    continue
                if used > limit:
                    return used
    return used


def held_unlinked(pids: list[int], limit: int) -> int:
    """The bytes (blocks) of regular files that the processes ``pids`` hold open or mapped
    but that no folder holds any more, counted until ``limit`` is passed. A file removed
    while it is open keeps its blocks until its last holder ends, and ``disk_used``'s walk of
    the folders never finds it: a submission kept 24 such files of 16 MiB (and a
    ``memfd_create`` file, which is the same in memory) past the disk limit unseen (an
    attacker's review, ``hides-the-disk-in-deleted-files``). Each file is counted once
    (several processes may hold it); only ``stat`` is used, nothing is opened."""
    used, seen = 0, set()
    for pid in pids:
        for kind in ("fd", "map_files"):
            try:
                names = os.listdir(f"/proc/{pid}/{kind}")
            except OSError:
                continue
            for name in names:
                try:
                    info = os.stat(f"/proc/{pid}/{kind}/{name}")
                except OSError:
                    continue
                key = (info.st_dev, info.st_ino)
                if not stat.S_ISREG(info.st_mode) or info.st_nlink or key in seen:
                    continue
                seen.add(key)
                used += info.st_blocks * 512
                if used > limit:
                    return used
    return used


def memory_used(pids: list[int], limit: int) -> int:
    """The memory the processes ``pids`` hold, in bytes: each one's proportional share
    (``Pss`` of ``/proc/PID/smaps_rollup``: a page two processes share counts half in each,
    so a fork's copy of its parent costs nothing until it is written), counted until
    ``limit`` is passed; the resident size where the kernel has no ``smaps_rollup``. The
    address-space limit holds each process, not how many there are: three processes of
    400 MiB held 1.2 GiB under a 1 GiB limit, and thirty-two could hold 32 GiB (an
    attacker's review, ``spreads-memory-over-processes``), so the trusted side adds them up
    (``proxy.Worker``), as it counts processes and disk."""
    used = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
                rollup = handle.read()
            line = next(line for line in rollup.splitlines() if line.startswith(b"Pss:"))
            used += int(line.split()[1]) * 1024
        except (OSError, StopIteration, ValueError, IndexError):
            try:
                with open(f"/proc/{pid}/statm", "rb") as handle:
                    used += int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, ValueError, IndexError):
                continue   # ended meanwhile
        if used > limit:
            return used
    return used


def process_tree(root_pid: int) -> list[int]:
    """``root_pid`` and every process below it (Linux: each thread's ``/proc/PID/task/TID/
    children``; ``[]`` when the process is gone or ``/proc`` cannot be read). A process that
    ends while the tree is read is simply not in it."""
    found, waiting = [], [root_pid]
    while waiting:
        pid = waiting.pop()
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        found.append(pid)
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                    waiting.extend(int(child) for child in handle.read().split())
            except (OSError, ValueError):
                continue
    return found


def count_processes(root_pid: int) -> int:
    """How many processes ``root_pid`` and its descendants are. Root is not held by
    ``RLIMIT_NPROC`` and grading runs as root here, so the trusted side counts the sandbox's
    processes itself (``proxy.Worker``) and ends the run when there are more than
    ``Limits.processes``; the pid namespace then ends them all. Each thread counts, as
    ``RLIMIT_NPROC`` counts it: a thread takes one of the machine's process ids as a process
    does, and one process under the address-space limit started 757 of them (thirty-two
    such processes could use up ``kernel.pid_max``, and nothing on the machine could start
    a process any more: ``starts-200-threads``)."""
    return thread_count(process_tree(root_pid))


def waited_seconds(pids: list[int]) -> float:
    """How long the threads of the processes ``pids`` have waited, ready to run, for a
    processor (the second number of each thread's ``/proc/PID/task/TID/schedstat``), in
    seconds: what other work on the machine took from them. ``0.0`` where the kernel keeps no
    such numbers."""
    waited = 0
    for pid in pids:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as handle:
                    waited += int(handle.read().split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return waited / 1e9


def thread_count(pids: list[int]) -> int:
    """How many threads the processes ``pids`` run (``count_processes`` of a known tree)."""
    count = 0
    for pid in pids:
        try:
            count += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            continue   # ended meanwhile
    return count


def _state(pid: int) -> str:
    """A process's one-letter state (``T``: stopped), ``""`` when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return ""
    return stat[stat.rfind(b")") + 2:][:1].decode("ascii", "replace")


def freeze(root_pid: int, patience: float = 2.0) -> bool:
    """Stop every process of the worker (``SIGSTOP``, which no process can catch or ignore)
    and return once all of them are stopped: ``False`` if that took longer than ``patience``.

    While the trusted side works (a test writing its files, reading the answer), nothing the
    learner started may run: a thread left behind by the learner's code could otherwise swap
    a file the test is about to write for a link to any file the teacher can write. A stopped
    process cannot fork, so once one reading of the tree finds every process stopped, the
    tree is complete."""
    deadline = time.monotonic() + patience
    while True:
        tree = process_tree(root_pid)
        running = [pid for pid in tree if _state(pid) not in ("T", "t", "Z", "X", "")]
        if not running:
            return True
        for pid in running:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0005)


def thaw(root_pid: int) -> None:
    """Let every process of the worker run again (``SIGCONT``)."""
    for pid in process_tree(root_pid):
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass


WORKER_UID = 65534
"""Who the worker is when grading runs as root: ``nobody``, which owns nothing on the host
(no file it could change, no process it could signal: the pid namespace hides them all)."""


def as_root() -> bool:
    """Does grading run as the host's root? Then the worker must become ``WORKER_UID``."""
    return os.geteuid() == 0


def worker_uid() -> int | None:
    """The uid the worker runs as in bwrap, when it is not the caller's own: ``WORKER_UID``
    for root, ``None`` for anyone else (bwrap's user namespace keeps the caller's uid)."""
    return WORKER_UID if as_root() else None


def namespaces() -> list[str]:
    """bwrap's namespace options. As root: everything but a user namespace, whose uid 0
    would be the host's root (see the module docstring); the worker then leaves root by
    ``setpriv``, for which bwrap keeps just the two capabilities that change a uid."""
    if not as_root():
        return ["--unshare-all"]
    return ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try"]


def capabilities() -> list[str]:
    keep = ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"] if as_root() else []
    return ["--cap-drop", "ALL", *keep]


def leave_root() -> list[str]:
    """The words put before the worker's command: become ``WORKER_UID`` with no group, no
    capability left to regain (``[]`` when grading does not run as root)."""
    if not as_root():
        return []
    uid = str(WORKER_UID)
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--"]


SETPRIV = "/usr/bin/setpriv"   # util-linux, in every Debian and most Linux systems


def hand_over(folders: list[Path]) -> None:
    """Make the worker the owner of ``folders`` and of what they hold (never through a link),
    when it runs as ``WORKER_UID``: its own writable folders, and the files a test writes
    for it. Only what it does not own yet is changed."""
    uid = worker_uid()
    if uid is None:
        return
    from learn_pi_lab.harness.files import entries   # (files has no harness imports)
    for folder in folders:
        try:
            if os.lstat(folder).st_uid != uid:
                os.chown(folder, uid, uid, follow_symlinks=False)
                os.chmod(folder, 0o755)   # bwrap, root with no capability, enters it too
        except OSError:
            continue
        for relative, info in entries(folder):
            if info.st_uid != uid:
                try:
                    os.chown(os.path.join(folder, relative), uid, uid, follow_symlinks=False)
                except OSError:
                    continue


def hidden_options(argv: list[str]) -> tuple[list[str], bytes]:
    """``bwrap OPTIONS -- COMMAND`` as ``bwrap --args FD -- COMMAND`` and the options to write
    on ``FD`` (NUL-separated), so that ``/proc/1/cmdline`` (bwrap, in the worker's pid
    namespace) names no host path; the ``FD`` in the list is ``ARGS_FD``. bwrap closes it
    once read, so the worker finds no copy either."""
    end = argv.index("--")
    options = b"".join(part.encode("utf-8", "surrogateescape") + b"\0"
                       for part in argv[1:end])
    return [argv[0], "--args", str(ARGS_FD), *argv[end:]], options


def start(command: list[str], *, fds: dict[int, int] | None = None,
          then: Callable[[], None] | None = None, **popen: object) -> subprocess.Popen:
    """``subprocess.Popen(command)`` with ``fds`` ({its number in the new process: ours})
    put in place, then ``then`` run, just before ``exec``; a bwrap command gets its options
    through ``ARGS_FD`` (``hidden_options``)."""
    wanted = dict(fds or {})
    options_fd = None
    if os.path.basename(command[0]) == "bwrap" and "--" in command:
        command, options = hidden_options(command)
        options_fd = os.memfd_create("bwrap-options")
        os.write(options_fd, options)
        os.lseek(options_fd, 0, os.SEEK_SET)
        wanted[ARGS_FD] = options_fd

    def setup() -> None:
        # (through high numbers first: a wanted number may be one of the sources)
        high = {target: os.dup2(source, 200 + index)
                for index, (target, source) in enumerate(sorted(wanted.items()))}
        for target, source in high.items():
            os.dup2(source, target)
        if then is not None:
            then()
    try:
        return subprocess.Popen(command, pass_fds=tuple(sorted(wanted)), preexec_fn=setup,
                                **popen)  # type: ignore[call-overload]
    finally:
        if options_fd is not None:
            os.close(options_fd)


ARGS_FD = 5   # (3 and 4 are the worker's request and answer pipes: ``proxy.Worker``)


@lru_cache(maxsize=1)
def bwrap_path() -> str | None:
    """The ``bwrap`` command, if it is installed *and* works here (a container may forbid the
    namespaces it needs; as root, ``setpriv`` must be there to leave root): one quick trial
    run, once per process."""
    found = shutil.which("bwrap")
    if found is None or (as_root() and not os.access(SETPRIV, os.X_OK)):
        return None
    trial = [found, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             "--size", str(TMP_SIZE), "--tmpfs", "/tmp",
             *namespaces(), "--die-with-parent", "--new-session", *capabilities(),
             "--", *leave_root(), "/bin/true"]
    try:
        works = subprocess.run(trial, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        works = False
    return found if works else None


SYSTEM_FOLDERS = ("/usr", "/bin", "/lib", "/lib32", "/lib64", "/sbin")
SYSTEM_FILES = ("/etc/ld.so.cache",)


COURSE_DATA = (REPO_ROOT / "data", REPO_ROOT / "pyproject.toml")
"""Shown read-only besides the package: the course's public session files, and the file
that marks the course's folder, so ``course.paths.data_file("linear.jsonl")`` works in a
learner's file as it does in the notebooks (a learner's own check at the bottom of the file
runs when the file is imported for grading). Neither holds an answer."""


def needed_paths() -> list[Path]:
    """What the worker must see: the package (only ``learn_pi_lab/``, never the course's
    ``tests/``, ``.git`` or anything else beside it) and the Python that runs it (a virtual
    environment may live in a home folder). A folder that holds the whole course (an entry
    of ``sys.path`` such as the course's root or a folder above it) is replaced by the
    package folder."""
    package = REPO_ROOT / "learn_pi_lab"
    paths = {package, Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix),
             Path(sys.executable).resolve().parent}
    paths.update(Path(entry) for entry in sys.path if entry and Path(entry).is_dir())
    shown = set()
    for path in (path.resolve() for path in paths if path.exists()):
        shown.add(package if path == REPO_ROOT or path in REPO_ROOT.parents else path)
    return sorted(shown)


def other_package_copies(places: list[Path] | None = None) -> list[Path]:
    """Every other copy of the package a fresh Python in the sandbox could import: a
    ``learn_pi_lab`` folder in a site-packages folder of the worker's Python or of the
    system's. A classroom hub installs the course into its virtual environment and grades
    with ``PYTHONPATH`` on the course folder; that installed copy holds the lessons (the
    model answers) and modules whose code does not refuse, so a learner's ``python -I``
    could import it (an attacker's review). Each is hidden behind an empty folder; the
    package the worker uses is never among them."""
    if places is None:
        import site
        places = [Path(entry) for entry in sys.path if entry]
        places += [Path(entry) for entry in site.getsitepackages()]
        for pattern in ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages"):
            places += [Path(found) for found in sorted(glob.glob(pattern))]
    ours = (REPO_ROOT / "learn_pi_lab").resolve()
    copies = {(place / "learn_pi_lab").resolve() for place in places
              if (place / "learn_pi_lab").is_dir()}
    return sorted(copy for copy in copies if copy != ours)


def needed_aliases() -> list[tuple[Path, Path]]:
    """(the real folder, the name Python is run by) where the two differ: a virtual
    environment reached through a link (a course folder that is a symlink, ``/home`` that
    links to ``/var/home``). The worker is started by the name ``sys.executable`` has, and
    Python finds its environment from that name, so it must exist inside the sandbox too."""
    aliases = set()
    for named in (Path(sys.prefix), Path(sys.exec_prefix), Path(sys.executable).parent):
        named = Path(os.path.abspath(named))
        if named.exists() and named.resolve() != named:
            aliases.add((named.resolve(), named))
    return sorted(aliases)


def command(worker: list[str], *, writable: list[Path], hidden: list[Path],
            workdir: Path, replaced: list[tuple[Path, Path]] = ()) -> list[str]:
    """``bwrap ... worker``: see the module docstring for each wall.

    The worker's file system is built from nothing: the system folders (``/usr`` and its
    links), the Python that runs it and the package, all read-only (``needed_paths``), then
    its writable folders; nothing else of the machine exists in it (other copies of the
    course, ``.git``, the teacher's files). On top of that, always hidden: the home folder,
    ``/tmp``, the course's ``tests/`` (the tests and the hostile cases), the package's
    ``lessons/`` (the model answers), every other installed copy of the package
    (``other_package_copies``), and the folders the caller names (the submissions, the
    gradebook). Mounts apply in order, so a hidden folder inside a folder that had to be shown (the course inside a
    home folder, a submissions folder inside the course) is hidden once more after it.
    ``replaced``: (a file of ours, a file the worker sees) pairs, read-only: the package
    modules whose refused code refuses (``hiding.refusing_sources``). The folders bwrap
    makes on the way to a mount are open to read (``--perms 0755``: as root it would make
    them root's alone, and the worker, ``nobody`` then, could not reach its own Python)."""
    hidden_set = sorted({Path.home().resolve(), Path("/tmp"), REPO_ROOT / "tests",
                         REPO_ROOT / ".git", LESSONS.resolve(), *other_package_copies(),
                         *(path.resolve() for path in hidden)})
    hidden_set = [path for path in hidden_set if path.is_dir() and path != Path("/")]
    args = [bwrap_path() or "bwrap"]
    mounted: list[Path] = []   # the binds: no folder is made inside one (it is read-only)
    made: set[Path] = set()

    def mount(option: str, source: Path | str, target: Path | str) -> None:
        for folder in reversed(Path(target).parents[:-1]):   # from the top, "/" left out
            if folder not in made and not any(folder == m or m in folder.parents
                                               for m in mounted):
                args.extend(["--perms", "0755", "--dir", str(folder)])
                made.add(folder)
        args.extend([option, str(source), str(target)])
        mounted.append(Path(target))

    for folder in SYSTEM_FOLDERS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            mount("--ro-bind", folder, folder)
    for name in SYSTEM_FILES:
        mount("--ro-bind-try", name, name)
    # /dev and its /dev/shm are file systems in the machine's memory that no limit counted (an
    # attacker's review kept 288 MiB there, ``fills-dev-shm``): /dev read-only (its devices
    # still work), /dev/shm small
    args += ["--dev", "/dev", "--perms", "1777", "--size", str(SHM_SIZE), "--tmpfs",
             "/dev/shm", "--remount-ro", "/dev"]
    args += ["--proc", "/proc", "--size", str(TMP_SIZE), "--tmpfs", "/tmp"]
    made.update({Path("/dev"), Path("/proc"), Path("/tmp")})   # (folders made in /tmp are fine)
    shown = needed_paths()
    for path in shown:
        mount("--ro-bind", path, path)
    for real, named in needed_aliases():
        mount("--ro-bind", real, named)
    for shared in COURSE_DATA:   # public session files a learner's own checks may read
        if shared.exists():
            mount("--ro-bind", shared, shared)
    for path in hidden_set:
        if any(path == again or again in path.parents for again in shown):
            args += ["--size", str(HIDING_SIZE), "--tmpfs", str(path)]
    for ours, seen in replaced:
        args += ["--ro-bind", str(ours), str(seen)]
    for path in writable:
        mount("--bind", path, path)
    # read-only too: the folders bwrap made for the mounts, and /tmp with the ones made there
    # (a course cloned under /tmp is reached through them: its folder must refuse a write as
    # it does anywhere else). The worker's own temporary files go to its scratch folder
    # (``TMPDIR``), counted by the disk limit.
    args += ["--remount-ro", "/tmp", "--remount-ro", "/"]
    args += ["--chdir", str(workdir), *namespaces(), "--die-with-parent", "--new-session",
             *capabilities(), "--"]
    return args + leave_root() + worker


WORKER_TIME_ZONE = "CST-8"   # POSIX: UTC+8, read without any time zone files


WORKER_PATH = "/usr/bin:/bin"   # the system's commands only: not the teacher's PATH, which
                               # names their home's folders (an attacker's review)


def worker_environment(scratch: Path, lang: str | None) -> dict[str, str]:
    """The worker's whole environment: nothing of the teacher's (no tokens, no HOME, no
    PATH of theirs)."""
    env = {"PATH": WORKER_PATH, "HOME": str(scratch),
           "TMPDIR": str(scratch), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(REPO_ROOT),
           "PYTHONUNBUFFERED": "1",
           # One time zone on every machine, and not UTC: code that reads Pi's "…Z"
           # timestamps as local time is wrong everywhere, so it fails everywhere (a
           # learner's review: it passed on UTC machines and failed on a learner's in China).
           "TZ": WORKER_TIME_ZONE}
    if lang:
        env["LEARN_PI_LAB_LANG"] = lang
    return env


@lru_cache(maxsize=1)
def python_starts() -> str:
    """Whether the worker's Python starts inside the sandbox, tried once per process with the
    walls a real run has: "" when it does, else the first line it printed. A machine where it
    cannot (a Python the sandbox cannot see) would otherwise charge every learner a crash."""
    with tempfile.TemporaryDirectory(prefix="learn-pi-lab-trial-") as folder:
        hand_over([Path(folder)])
        trial = command([sys.executable, "-c", "import learn_pi_lab.harness.worker"],
                        writable=[Path(folder)], hidden=[], workdir=Path(folder))
        try:
            process = start(trial, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=worker_environment(Path(folder), None),
                            cwd=folder)
            _, errors = process.communicate(timeout=60)
        except subprocess.TimeoutExpired as error:
            process.kill()
            process.wait()
            return str(error)
        except OSError as error:
            return str(error) or type(error).__name__
    if process.returncode == 0:
        return ""
    lines = errors.decode("utf-8", "replace").strip().splitlines()
    return lines[0][:300] if lines else f"exit code {process.returncode}"


def preexec(limits: Limits) -> Callable[[], None]:
    """What runs in the worker's process just before ``exec``: the limits."""
    def setup() -> None:
        limits.apply()
    return setup
