"""A class on a real JupyterHub, for the classroom test and the bench: the hub installed by
``classroom/hub/install.sh`` and started with ``classroom/hub/jupyterhub_config.py``, system
users of one group with private homes, the course served by ``git daemon``. ``Class.stop``
removes every process, user, group and folder it made, whatever happened.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.browser_support import CHROMIUM, copy_repo, free_port

REPO = Path(__file__).resolve().parents[1]
INSTALL = REPO / "classroom" / "hub" / "install.sh"
CONFIG = REPO / "classroom" / "hub" / "jupyterhub_config.py"
PREFIX = Path(os.environ.get("LEARN_PI_LAB_HUB_TEST_PREFIX", "/opt/learn-pi-lab-test"))
ARTIFACTS = REPO / "artifacts" / "classroom"


def missing() -> str | None:
    """What this machine lacks for the test, or None."""
    if os.geteuid() != 0:
        return "it creates system users: run as root (CI does)"
    for command in ("node", "npm", "git", "bwrap", "useradd", "runuser"):
        if shutil.which(command) is None:
            return f"{command} is not installed"
    if not CHROMIUM.exists():
        return "/usr/bin/chromium is not installed"
    if subprocess.run(["/usr/bin/python3", "-c", "import venv, ensurepip"],
                      capture_output=True).returncode != 0:
        return "the system's python3 with venv (Debian: python3-venv) is not installed"
    return None


def run(*command: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run(list(command), check=True, capture_output=True, text=True, **options)


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:   # (not up yet)
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer within {seconds} s")


class Class:
    """The users, the course's repository and the hub of one test run; ``stop`` removes
    them all."""

    def __init__(self) -> None:
        tag = secrets.token_hex(3)
        self.group = f"lpl{tag}"
        self.teacher, self.alice, self.bob = (f"lpl{tag}-{name}" for name in
                                              ("teacher", "alice", "bob"))
        self.passwords = {name: secrets.token_urlsafe(12)
                          for name in (self.teacher, self.alice, self.bob)}
        self.root = Path(tempfile.mkdtemp(prefix="lpl-classroom-"))
        self.processes: list[subprocess.Popen] = []
        self.users_made: list[str] = []
        self.group_made = False

    # -- setting up -------------------------------------------------------------------------

    def install(self) -> None:
        done = subprocess.run(["sh", str(INSTALL), str(PREFIX)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr

    def make_users(self, learners: int = 0) -> None:
        """The teacher, alice and bob, and ``learners`` more (``lpl...-l01``...)."""
        for number in range(1, learners + 1):
            self.passwords[f"{self.group}-l{number:02d}"] = secrets.token_urlsafe(12)
        run("groupadd", self.group)
        self.group_made = True
        for name, password in self.passwords.items():
            run("useradd", "--create-home", "-K", "HOME_MODE=0700", "--shell", "/bin/bash",
                "--groups", self.group, name)
            self.users_made.append(name)
            run("chpasswd", input=f"{name}:{password}\n")

    def serve_course(self) -> str:
        """The course as a git repository served by ``git daemon``: its URL."""
        self.root.chmod(0o755)   # learners' processes read the served repository's copy
        source = copy_repo(self.root / "source")
        for command in (["init", "-q", "-b", "main"], ["add", "-A"],
                        ["-c", "user.email=teacher@example.edu", "-c", "user.name=teacher",
                         "commit", "-q", "-m", "the course"]):
            run("git", *command, cwd=source)
        self.served = self.root / "served"
        self.served.mkdir()
        run("git", "clone", "-q", "--bare", str(source), str(self.served / "course.git"))
        self.source = source
        port = free_port()
        self.start([  # (git:// as a real host would serve it; no file:// ownership checks)
            "git", "daemon", "--reuseaddr", "--export-all", f"--base-path={self.served}",
            f"--listen=127.0.0.1", f"--port={port}", str(self.served)], "git-daemon.log")
        time.sleep(0.5)
        return f"git://127.0.0.1:{port}/course.git"

    def update_course(self, change: dict[str, str]) -> None:
        """The teacher's update: files changed in the course and pushed to the served copy."""
        for name, text in change.items():
            (self.source / name).write_text(text, encoding="utf-8")
        run("git", "-c", "user.email=teacher@example.edu", "-c", "user.name=teacher",
            "commit", "-q", "-am", "an update of the course", cwd=self.source)
        run("git", "push", "-q", str(self.served / "course.git"), "main", cwd=self.source)

    def start_hub(self, service_token: str | None = None) -> str:
        """Start the hub; ``service_token``: an admin service's token, for the hub's REST API
        (the bench starts servers with it)."""
        port, api, proxy_api = free_port(), free_port(), free_port()
        extra = self.root / "extra_config.py"
        service = "" if service_token is None else (
            "c.JupyterHub.services = [{'name': 'bench', 'api_token': %r}]\n"
            "c.JupyterHub.load_roles = [{'name': 'bench', 'services': ['bench'], "
            "'scopes': ['admin:users', 'admin:servers', 'access:servers']}]\n" % service_token)
        extra.write_text(
            f"c.JupyterHub.hub_bind_url = 'http://127.0.0.1:{api}'\n"
            f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{proxy_api}'\n"
            # (the test drives JupyterLab through its own objects, as the browser test does)
            "c.Spawner.args.append('--LabApp.expose_app_in_browser=True')\n" + service,
            encoding="utf-8")
        env = dict(os.environ, LEARN_PI_LAB_HUB_PREFIX=str(PREFIX),
                   LEARN_PI_LAB_HUB_STATE=str(self.root / "hub-state"),
                   LEARN_PI_LAB_HUB_GROUP=self.group, LEARN_PI_LAB_HUB_TEACHERS=self.teacher,
                   LEARN_PI_LAB_HUB_URL=f"http://127.0.0.1:{port}",
                   LEARN_PI_LAB_HUB_EXTRA=str(extra))
        self.start([str(PREFIX / "venv" / "bin" / "jupyterhub"), "-f", str(CONFIG)],
                   "jupyterhub.log", env=env, cwd=self.root)
        url = f"http://127.0.0.1:{port}"
        wait_for(f"{url}/hub/login")
        return url

    def start(self, command: list[str], log: str, **options) -> None:
        handle = (self.root / log).open("wb")
        self.processes.append(subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT,
                                               stdin=subprocess.DEVNULL,
                                               start_new_session=True, **options))

    # -- tearing down, whatever happened ----------------------------------------------------

    def stop(self) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        from learn_pi_lab.harness.sandbox import process_tree
        for process in reversed(self.processes):   # the hub first: it stops the servers
            if process.poll() is None:
                # what it started in sessions of their own (the proxy, the idle culler), in
                # case it cannot stop them in time
                started = {pid: cmdline(pid) for pid in process_tree(process.pid)}
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=40)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=5)
                for pid, command in started.items():
                    if command and cmdline(pid) == command:   # still that process
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
        for log in self.root.glob("*.log"):
            shutil.copyfile(log, ARTIFACTS / log.name)
        for name in self.users_made:   # every process left of theirs, then the user
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
        time.sleep(0.3)
        for name in self.users_made:
            subprocess.run(["userdel", "--remove", "--force", name], capture_output=True)
        if self.group_made:
            subprocess.run(["groupdel", self.group], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)

    def home(self, user: str) -> Path:
        return Path("/home") / user


def cmdline(pid: int) -> bytes:
    """A process's command line (b"" once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""
