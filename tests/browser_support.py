"""Start JupyterLab and headless Debian chromium for the end-to-end browser test.

Kept apart from the test so each piece has one job: this module owns the processes (a
JupyterLab server on a free loopback port, the browser) and guarantees they stop; the test
owns what a learner would do and see.

Nothing here downloads anything: chromium is Debian's ``/usr/bin/chromium`` driven by
Playwright's ``executable_path``, and JupyterLab runs with its news and update checks off.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run",
]
ARTIFACTS = REPO / "artifacts" / "browser"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_config(home: Path) -> dict[str, str]:
    """A private Jupyter home: config, runtime, workspaces and lab settings in a temp folder.

    The learner's own Jupyter settings are never read or changed, and JupyterLab is told not
    to fetch news or look for updates (both would be requests to the internet).
    """
    config_dir, runtime_dir = home / "config", home / "runtime"
    settings_dir, workspaces_dir = home / "lab-settings", home / "lab-workspaces"
    for folder in (config_dir, runtime_dir, settings_dir, workspaces_dir):
        folder.mkdir(parents=True, exist_ok=True)
    (config_dir / "jupyter_server_config.py").write_text(
        "c.LabApp.news_url = None\n"
        "c.LabApp.check_for_updates_class = "
        "'jupyterlab.handlers.announcements.NeverCheckForUpdate'\n"
        "c.LabApp.expose_app_in_browser = True\n"
        "c.ServerApp.open_browser = False\n",
        encoding="utf-8",
    )
    notification = settings_dir / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True, exist_ok=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8")
    # JupyterLab 4 skips rendering cells outside the viewport (windowing mode
    # "contentVisibility"); an unrendered <option> has empty innerText and an off-screen image
    # is "not visible". Render every cell, as a learner scrolling through would see them.
    notebook = settings_dir / "@jupyterlab" / "notebook-extension"
    notebook.mkdir(parents=True, exist_ok=True)
    (notebook / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}), encoding="utf-8")
    env = dict(os.environ)
    env.update({
        "JUPYTER_CONFIG_DIR": str(config_dir),
        "JUPYTER_RUNTIME_DIR": str(runtime_dir),
        "JUPYTERLAB_SETTINGS_DIR": str(settings_dir),
        "JUPYTERLAB_WORKSPACES_DIR": str(workspaces_dir),
        "JUPYTER_PLATFORM_DIRS": "1",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    })
    return env


@contextmanager
def jupyterlab(root_dir: Path, home: Path, log_path: Path, edition: str = "zh") -> Iterator[str]:
    """Run JupyterLab on 127.0.0.1 for the ``with`` block, the way ``make lab`` does; yield its
    base URL.

    The server is started by the same launcher as ``make lab``
    (``python -m learn_pi_lab.course.lab``), on ``root_dir``: a copy of the repository, whose
    own package is put first on ``PYTHONPATH`` so the kernels' ``workspace/`` is the copy's.
    Only what a test needs is added: a fixed free port, no browser, no token.
    The server runs in its own process group, so stopping it also stops every kernel it
    started, whatever happened in the test.
    """
    port = free_port()
    env = _write_config(home)
    env["PYTHONPATH"] = os.pathsep.join([str(root_dir)] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    command = [
        sys.executable, "-m", "learn_pi_lab.course.lab", "--root", str(root_dir),
        "--edition", edition, f"--port={port}", "--no-browser",
        "--IdentityProvider.token=", "--ServerApp.password=",
    ]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("w", encoding="utf-8")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True, cwd=str(root_dir))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited early; see {log_path}")
            try:
                with urllib.request.urlopen(f"{url}/api/status", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"JupyterLab did not start in 90 s; see {log_path}")
            time.sleep(0.3)
        yield url
    finally:
        _stop_group(process)
        log.close()


def _stop_group(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=5)


def copy_repo(destination: Path) -> Path:
    """A throw-away copy of the course (every file git knows, as it is in the working tree):
    JupyterLab autosaves and the test edits a workspace file, the repository must not change."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, check=True, capture_output=True).stdout.decode("utf-8").split("\0")
    target = destination / "course"
    for name in filter(None, listed):
        source = REPO / name
        if not source.is_file() or ".ipynb_checkpoints" in source.parts:
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)
    return target
