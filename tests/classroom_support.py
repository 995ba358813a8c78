"""The real parts of the classroom test: accounts, a git server, the hub, and their ends.

Kept apart from the test so each piece has one job: this module owns what it starts (system
accounts, ``git daemon``, JupyterHub with its proxy and the learners' servers) and guarantees
that all of it is gone afterwards, whatever happened; the test owns what the teacher and the
learners do and see (``tests/test_classroom_hub.py``).

Everything is installed the way a teacher installs it: ``classroom/install`` into a prefix
(``LEARN_PI_LAB_HUB_PREFIX``, default ``/var/cache/learn-pi-lab/hub-test``: kept between runs,
so a second run only clones the course again), ``classroom/add-users`` for the accounts.
"""

from __future__ import annotations

import os
import pwd
import grp
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from tests.browser_support import REPO, copy_repo, free_port

HUB_PREFIX = Path(os.environ.get("LEARN_PI_LAB_HUB_PREFIX", "/var/cache/learn-pi-lab/hub-test"))
ACCOUNT_PREFIX = "lpltest-"          # every account the test makes starts so
ACCOUNT_COMMENT = "learn-pi-lab"     # ... and carries add-users' comment
GROUPS = ("learners", "teachers")
GIT = {"GIT_AUTHOR_NAME": "teacher", "GIT_AUTHOR_EMAIL": "teacher@example.org",
       "GIT_COMMITTER_NAME": "teacher", "GIT_COMMITTER_EMAIL": "teacher@example.org"}


def what_is_missing() -> list[str]:
    """What this machine lacks for the classroom test (``.ci/run`` installs all of it)."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root (the test makes system accounts and runs the hub as root)")
    for command in ("useradd", "userdel", "runuser", "bwrap", "node", "npm", "git"):
        if shutil.which(command) is None:
            missing.append(command)
    if not Path("/usr/bin/chromium").exists():
        missing.append("chromium")
    if not Path("/usr/lib/git-core/git-daemon").exists():
        missing.append("git-daemon (Debian: git)")
    venv = subprocess.run(["/usr/bin/python3", "-c", "import ensurepip, venv"],
                          capture_output=True) if Path("/usr/bin/python3").exists() else None
    if venv is None or venv.returncode != 0:
        missing.append("/usr/bin/python3 with venv (Debian: python3-venv)")
    return missing


@contextmanager
def shared_folder() -> Iterator[Path]:
    """A temporary folder every account can read (pytest's own are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="lpl-classroom-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(command: list[str], **options) -> subprocess.CompletedProcess:
    """A command that must succeed; its output in the error when it does not."""
    options.setdefault("capture_output", True)
    options.setdefault("text", True)
    done = subprocess.run(command, **options)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, command))} exited {done.returncode}:\n"
                             f"{done.stdout}\n{done.stderr}")
    return done


def git(folder: Path, *args: str) -> str:
    return run(["git", "-C", str(folder), *args], env={**os.environ, **GIT}).stdout


def course_repository(folder: Path) -> Path:
    """The course as this working tree has it, as a bare repository on branch ``main``
    (``folder/course.git``): what a teacher pushes to the repository the link names."""
    work = copy_repo(folder / "work")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "the course")
    bare = folder / "course.git"
    run(["git", "clone", "-q", "--bare", str(work), str(bare)])
    run(["chmod", "-R", "a+rX", str(folder)])
    return bare


def teacher_commit(bare: Path, folder: Path, change) -> None:
    """A course update: ``change(work_tree)`` committed and pushed to ``bare``."""
    work = folder / "teacher-update"
    if not work.exists():
        run(["git", "clone", "-q", str(bare), str(work)])
    change(work)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "a course update")
    git(work, "push", "-q", "origin", "main")


@contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """``git daemon`` serving the repositories under ``base`` on 127.0.0.1, read-only, as a
    git server serves them (the learners' accounts clone from it); yields ``git://...``."""
    port = free_port()
    process = subprocess.Popen(
        ["git", "daemon", "--export-all", f"--base-path={base}", "--reuseaddr",
         "--listen=127.0.0.1", f"--port={port}", str(base)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_port(port, process, "git daemon")
        yield f"git://127.0.0.1:{port}"
    finally:
        stop_group(process)


def wait_for_port(port: int, process: subprocess.Popen, name: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited early ({process.returncode})")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not listen on {port} within {seconds:.0f} s")
        time.sleep(0.1)


def stop_group(process: subprocess.Popen, patience: float = 10) -> None:
    """End ``process`` and its process group: SIGTERM, then SIGKILL."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=patience)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


@contextmanager
def one_at_a_time(prefix: Path = HUB_PREFIX, patience: float = 1200) -> Iterator[None]:
    """Hold the machine's one classroom run: the installation and the ``lpltest-`` accounts
    are shared by every checkout on the machine, so a second run (another worktree's
    ``make test``, ``make bench``) waits here for the first, up to ``patience`` seconds."""
    import fcntl
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with open(prefix.parent / f"{prefix.name}.lock", "w") as lock:
        deadline = time.monotonic() + patience
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"another classroom run held {lock.name} for "
                                       f"{patience:.0f} s") from None
                time.sleep(1)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@contextmanager
def installed_hub(prefix: Path, repository: str) -> Iterator[Path]:
    """A teacher's installation: the course cloned into ``prefix/course`` from
    ``repository``, then its ``classroom/install``; yields the hub's environment. The
    installation stays for the next run (a second install is quick); the groups it made
    (``learners``, ``teachers``) are removed afterwards."""
    groups_before = {group for group in GROUPS if _group_exists(group)}
    prefix.mkdir(mode=0o755, parents=True, exist_ok=True)
    course = prefix / "course"
    shutil.rmtree(course, ignore_errors=True)
    try:
        run(["git", "clone", "-q", repository, str(course)])
        done = subprocess.run([str(course / "classroom" / "install"), "--prefix", str(prefix)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"classroom/install failed:\n{done.stdout}\n{done.stderr}")
        yield prefix / "env"
    finally:
        for group in GROUPS:
            if group not in groups_before and _group_exists(group):
                subprocess.run(["groupdel", group], capture_output=True)


# --------------------------------------------------------------------------------------
# Accounts
# --------------------------------------------------------------------------------------

def ours(name: str) -> bool:
    """An account this test made (by its name and add-users' comment), so removable."""
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return False
    return name.startswith(ACCOUNT_PREFIX) and entry.pw_gecos.startswith(ACCOUNT_COMMENT)


def processes_of(uids: set[int]) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="utf-8") as handle:
                uid_line = next(line for line in handle if line.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        if int(uid_line.split()[1]) in uids:
            found.append(int(entry))
    return found


def end_processes_of(uids: set[int], patience: float = 10) -> list[int]:
    """SIGKILL every process of the accounts ``uids`` (by pid); what is still alive after
    ``patience`` seconds (nothing, normally)."""
    deadline = time.monotonic() + patience
    while True:
        left = processes_of(uids)
        if not left or time.monotonic() > deadline:
            return left
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


def remove_account(name: str) -> None:
    if ours(name):
        end_processes_of({pwd.getpwnam(name).pw_uid})
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        try:   # add-users' --user-group made a group of the same name
            if not grp.getgrnam(name).gr_mem:
                subprocess.run(["groupdel", name], capture_output=True)
        except KeyError:
            pass


@contextmanager
def accounts(course: Path, learners: list[str], teachers: list[str]) -> Iterator[dict[str, str]]:
    """System accounts made by ``classroom/add-users``: ``{name: password}``. Afterwards every
    process of theirs is ended, the accounts and their homes removed."""
    names = learners + teachers
    assert all(name.startswith(ACCOUNT_PREFIX) for name in names)
    for name in names:   # left over from a run that was killed
        remove_account(name)
    passwords: dict[str, str] = {}
    try:
        for group, members in (("learners", learners), ("teachers", teachers)):
            if not members:
                continue
            made = run([str(course / "classroom" / "add-users"), group, *members])
            for line in made.stdout.splitlines():
                name, password = line.split("\t")
                passwords[name] = password
        assert sorted(passwords) == sorted(names), passwords
        yield passwords
    finally:
        for name in names:
            remove_account(name)


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def home(name: str) -> Path:
    return Path(pwd.getpwnam(name).pw_dir)


def as_user(name: str, command: list[str], **options) -> subprocess.CompletedProcess:
    """``command`` run as the account ``name`` (``runuser``), in its home, with a login's
    ``HOME``, ``USER`` and a plain ``PATH``."""
    environment = {"HOME": str(home(name)), "USER": name, "LOGNAME": name,
                   "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                   **options.pop("env", {})}
    return subprocess.run(["runuser", "-u", name, "--", "env", "-i",
                           *(f"{key}={value}" for key, value in environment.items()),
                           *command], cwd=options.pop("cwd", home(name)),
                          capture_output=True, text=True, **options)


def lab_settings(name: str) -> None:
    """JupyterLab settings a test needs in the learner's home (their own settings, as
    JupyterLab keeps them): render every cell of a notebook, so an output far down a
    chapter is there to read (JupyterLab 4 skips cells outside the viewport)."""
    folder = home(name) / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
    as_user(name, ["mkdir", "-p", str(folder)])
    as_user(name, ["sh", "-c", f"printf '%s' '{{\"windowingMode\": \"none\"}}' > "
                               f"'{folder}/tracker.jupyterlab-settings'"])


# --------------------------------------------------------------------------------------
# The hub
# --------------------------------------------------------------------------------------

@contextmanager
def jupyterhub(prefix: Path, state: Path, log_path: Path) -> Iterator[str]:
    """JupyterHub as ``classroom/learn-pi-lab-hub.service`` runs it (as root, the project's
    config), on 127.0.0.1 ports of its own; yields its URL. Afterwards the hub, its proxy,
    its idle-culler and every learner server are gone (the hub stops what it started; what
    is left is ended by pid)."""
    port, hub_port, api_port = free_port(), free_port(), free_port()
    env_dir = prefix / "env"
    environment = {**os.environ, "LEARN_PI_LAB_HUB_STATE": str(state),
                   "LEARN_PI_LAB_HUB_URL": f"http://127.0.0.1:{port}",
                   "PATH": f"{env_dir / 'bin'}:/usr/local/bin:/usr/bin:/bin"}
    command = [str(env_dir / "bin" / "jupyterhub"),
               "-f", str(prefix / "course" / "classroom" / "jupyterhub_config.py"),
               f"--JupyterHub.hub_bind_url=http://127.0.0.1:{hub_port}",
               f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{api_port}",
               # the test drives JupyterLab through its own objects (window.jupyterapp)
               "--Spawner.args=--LabApp.expose_app_in_browser=True"]
    state.mkdir(mode=0o700, parents=True, exist_ok=True)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(command, env=environment, cwd=state, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 90
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"JupyterHub exited early; see {log_path}")
                try:
                    with urllib.request.urlopen(f"{url}/hub/login", timeout=2) as answer:
                        if answer.status == 200:
                            break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterHub did not answer in 90 s; see {log_path}")
                time.sleep(0.3)
            yield url
        finally:
            stop_hub(process, state)


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2:].split()[1]) == pid:
                found.append(int(entry))
    return found


def stop_hub(process: subprocess.Popen, state: Path) -> None:
    """The hub's own shutdown (it stops the learners' servers and its proxy), quickened:
    its idle-culler service is ended first (the hub waits up to half a minute for it)."""
    proxy_pid = _pid_in(state / "jupyterhub-proxy.pid")
    for child in children_of(process.pid):
        if b"jupyterhub_idle_culler" in _cmdline(child):
            try:
                os.kill(child, signal.SIGTERM)
            except ProcessLookupError:
                pass
    stop_group(process, patience=40)
    if proxy_pid and b"configurable-http-proxy" in _cmdline(proxy_pid):   # still the proxy
        try:
            os.kill(proxy_pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None
