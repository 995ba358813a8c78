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


def require_chromium() -> None:
    """Skip the calling test module, with a message, when Debian's chromium is absent; under CI
    (``CI`` set) a missing browser is a failure instead, since ``.ci/run`` installs it."""
    import pytest

    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser test, but /usr/bin/chromium is missing "
                           "(.ci/run installs the Debian package 'chromium')")
    pytest.skip("browser test SKIPPED: /usr/bin/chromium not found "
                "(apt-get install chromium to run it)", allow_module_level=True)


LOCAL_ONLY = r"^(https?|wss?)://127\.0\.0\.1:\d+/|^(data|blob|about):"


@contextmanager
def chromium_page(driver, start_url: str, viewport: dict[str, int]) -> Iterator[dict]:
    """Headless chromium on JupyterLab's ``start_url``, once the app has started.

    Yields ``{"page", "outside", "console_errors"}``: every request that left 127.0.0.1 and
    every console error, recorded from the first page load on.
    """
    import re

    browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS,
                                     headless=True)
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        outside: list[str] = []
        console_errors: list[str] = []
        allowed = re.compile(LOCAL_ONLY)
        page.on("request", lambda request: None if allowed.match(request.url)
                else outside.append(request.url))
        page.on("console", lambda message: console_errors.append(message.text)
                if message.type == "error" else None)
        page.goto(start_url, wait_until="domcontentloaded")
        page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=60000)
        page.wait_for_selector(".jp-LabShell", timeout=60000)
        yield {"page": page, "outside": outside, "console_errors": console_errors}
    finally:
        context.close()
        browser.close()


# --- Scripts run in the page, through JupyterLab's own objects (LabApp.expose_app_in_browser) --

# Open a notebook and wait until it is ready for a learner's first click: its kernel is
# connected and ipywidgets' manager for that kernel has finished restoring.
#
# Why the second wait: ipywidgets attaches its manager to a notebook in a promise chain of its
# own after the kernel is ready, then asks the kernel which widgets already exist. Cells that
# create widgets before that has finished race it: their comms open before the comm target is
# registered ("Exception opening new comm") or their models are dropped by the restore ("widget
# model not found"). A person never clicks that fast; a test does. The manager is reached the
# one way the page offers it: a widget renderer made by the notebook's own registry is handed
# the notebook's manager as soon as there is one.
OPEN = """
async (path) => {
  const app = window.jupyterapp;
  // A notebook closed earlier (a link followed, then closed) may still have its session on
  // the server for a moment; opening the path again would join that old kernel, whose widget
  // comms then have no manager. So unless the notebook is open right now, no session of this
  // path may be left running first.
  const openNow = Array.from(app.shell.widgets('main')).some(w => w.context && w.context.path === path);
  if (!openNow) {
    const sessions = app.serviceManager.sessions;
    await sessions.refreshRunning();
    for (const model of Array.from(sessions.running())) {
      if (model.path === path) { await sessions.shutdown(model.id); }
    }
  }
  const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  await panel.context.ready;
  await panel.sessionContext.ready;
  app.shell.activateById(panel.id);
  const mime = 'application/vnd.jupyter.widget-view+json';
  const pause = ms => new Promise(resolve => setTimeout(() => resolve(null), ms));
  const deadline = Date.now() + 60000;
  let seen = 'no kernel';
  while (Date.now() < deadline) {
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    const renderer = panel.content.rendermime.createRenderer(mime);
    const manager = renderer._manager ? await Promise.race([renderer._manager.promise, pause(100)])
                                      : null;
    renderer.dispose();
    seen = !kernel ? 'no kernel' : kernel.connectionStatus !== 'connected'
      ? 'kernel ' + kernel.connectionStatus : !manager ? 'no widget manager yet'
      : !manager.restoredStatus ? 'widget manager restoring' : 'ready';
    if (seen === 'ready') return panel.id;
    await pause(100);
  }
  throw new Error(path + ' was not ready for widgets within 60 s: ' + seen);
}
"""

# Start running every cell of an open notebook (returns at once; PROGRESS says how far it got).
RUN_ALL = """
async (panelId) => {
  const app = window.jupyterapp;
  app.shell.activateById(panelId);
  await app.commands.execute('notebook:run-all-cells');
}
"""

# How far a notebook got: done when the kernel is idle and either every code cell has run or
# one raised (run-all stops at the first error).
PROGRESS = """
(panelId) => {
  const app = window.jupyterapp;
  const panel = Array.from(app.shell.widgets('main')).find(w => w.id === panelId);
  if (!panel) return {missing: true};
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const status = kernel ? kernel.status : 'none';
  let total = 0, done = 0; const errors = [];
  panel.content.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    total += 1;
    if (cell.model.executionCount !== null) done += 1;
    for (const output of cell.model.outputs.toJSON()) {
      if (output.output_type === 'error') {
        errors.push({cell: index, ename: output.ename, evalue: output.evalue});
      }
    }
  });
  return {status, total, done, errors};
}
"""

# Shut a document's kernel down (a notebook's), close it, and wait until the server has no
# session left for its path, so that nothing of it reaches the next test.
CLOSE = """
async (panelId) => {
  const app = window.jupyterapp;
  const panel = Array.from(app.shell.widgets('main')).find(w => w.id === panelId);
  if (!panel) return;
  const path = panel.context ? panel.context.path : null;
  const pause = ms => new Promise(resolve => setTimeout(() => resolve(null), ms));
  if (panel.sessionContext) {
    // A notebook opened by a link a moment ago may still be starting its kernel; shutting
    // down before it is ready does nothing, and the session would start after the panel is
    // gone. So wait (bounded) until it is ready, then shut it down.
    await Promise.race([panel.sessionContext.ready, pause(60000)]);
    await panel.sessionContext.shutdown();
  }
  panel.dispose();
  if (!path) return;
  const sessions = app.serviceManager.sessions;
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    await sessions.refreshRunning();
    const left = Array.from(sessions.running()).filter(model => model.path === path);
    if (left.length === 0) return;
    // A session the panel no longer knows about (it started as the panel closed): end it.
    for (const model of left) { await sessions.shutdown(model.id).catch(() => null); }
    await pause(100);
  }
  throw new Error('the session of ' + path + ' was still running 30 s after it was shut down');
}
"""


def run_notebook(page, path: str, timeout_s: float, after_run=None) -> str:
    """Open ``path`` in JupyterLab, run every cell, wait until it has really finished (idle and
    staying idle), and return the panel's id. ``after_run(page, failed)`` is called once the
    run is over (e.g. for a screenshot). A notebook that raised or did not finish in
    ``timeout_s`` is then closed (it must not linger into the next test) and the test fails
    with what the notebook reached."""
    panel_id = page.evaluate(OPEN, path)
    page.evaluate(RUN_ALL, panel_id)
    deadline = time.monotonic() + timeout_s
    progress: dict = {}
    idle_since = None
    while time.monotonic() < deadline:
        progress = page.evaluate(PROGRESS, panel_id)
        finished = progress.get("status") == "idle" and (
            progress.get("done") == progress.get("total") or progress.get("errors"))
        if finished:
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since > 0.5:  # idle and stays idle: really finished
                break
        else:
            idle_since = None
        time.sleep(0.25)
    problem = None
    if progress.get("errors"):
        problem = f"{path}: cells raised errors: {progress['errors']}"
    elif not progress.get("total") or progress.get("done") != progress.get("total"):
        problem = f"{path}: not every cell finished within {timeout_s:.0f} s: {progress}"
    if after_run is not None:
        after_run(page, problem is not None)
    if problem:
        page.evaluate(CLOSE, panel_id)
        raise AssertionError(problem)
    return panel_id


# Runs in the page: run the one code cell whose source contains `needle`, as a learner does
# (select it, Shift+Enter's command); its old output is cleared first so a stale one never counts.
RUN_CELL = """
async ([panelId, needle]) => {
  const app = window.jupyterapp;
  const panel = Array.from(app.shell.widgets('main')).find(w => w.id === panelId);
  app.shell.activateById(panelId);
  const index = panel.content.widgets.findIndex(
    c => c.model.type === 'code' && c.model.sharedModel.getSource().includes(needle));
  if (index < 0) return -1;
  panel.content.widgets[index].model.outputs.clear();
  panel.content.activeCellIndex = index;
  await app.commands.execute('notebook:run-cell');
  return index;
}
"""

# Runs in the page: what the learner sees under that cell (rendered text) once it has run.
CELL_OUTPUT = """
([panelId, index]) => {
  const app = window.jupyterapp;
  const panel = Array.from(app.shell.widgets('main')).find(w => w.id === panelId);
  const cell = panel.content.widgets[index];
  const kernel = panel.sessionContext.session.kernel;
  if (kernel.status !== 'idle' || cell.model.outputs.length === 0) return null;
  return cell.outputArea.node.innerText;
}
"""


def run_cell(page, panel_id: str, needle: str, timeout_s: float = 90) -> str:
    index = page.evaluate(RUN_CELL, [panel_id, needle])
    assert index >= 0, f"no code cell contains {needle!r}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = page.evaluate(CELL_OUTPUT, [panel_id, index])
        if text:
            return text
        time.sleep(0.3)
    raise AssertionError(f"the cell with {needle!r} showed nothing within {timeout_s} s")
