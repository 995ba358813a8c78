"""``make bench``: how far one machine goes with a class (docs/teacher.md quotes these).

* ``classroom-grading``: ``grade`` on a class of ``CLASS_SIZE`` learners, half of them with
  reference-quality answers (``tests/solutions/reference``, every exercise passes), half with
  the untouched stubs (every exercise not started), in the sandbox, on this machine: learners
  per minute, and so how long a class of 30 or 300 takes. The verdicts are checked too (a
  fast grading that got them wrong would measure nothing).
* ``classroom-hub-memory``: the project's own hub (``classroom/install``, the same one the
  classroom test runs) with ``SERVERS`` learner accounts logged in through its login page:
  the memory (PSS: a page shared by several processes counts its share in each) of one idle
  learner server with JupyterLab loaded, then of the same server with one chapter's kernel
  that has imported the course's drawing stack, and of the hub with its proxy. Needs root (it
  makes system accounts, removed afterwards); elsewhere it says so and is not counted.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CLASS_SIZE = 20
SERVERS = 4
MB = 1024 * 1024
REFERENCE = ROOT / "tests" / "solutions" / "reference"
STUBS = ROOT / "workspace"
CHAPTER_IMPORTS = """
from learn_pi_lab.drawing import draw_roadmap
from learn_pi_lab.playground.widget import *  # noqa
import networkx, ipywidgets, anywidget, matplotlib.pyplot
figure = draw_roadmap("03")
figure.savefig("/dev/null", format="png")
"""
"""What a learner's kernel holds once a chapter is open: the course's figures, the tree
playground's widget, networkx, ipywidgets."""


def _result(name: str, value: str, target: str = "", passed: bool | None = None):
    from run import Result   # bench/run.py's (imported late: run imports this module)
    return Result(name, value, target, passed)


# --------------------------------------------------------------------------------------
# Grading throughput
# --------------------------------------------------------------------------------------

def measure_class_grading(scratch: Path, size: int = CLASS_SIZE) -> list:
    """Grading a class of reference-quality and stub submissions: learners per minute."""
    submissions = scratch / "class"
    for number in range(size):
        source = REFERENCE if number % 2 == 0 else STUBS
        shutil.copytree(source, submissions / f"learner{number:03d}",
                        ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    argv = [sys.executable, "-m", "learn_pi_lab", "grade", str(submissions),
            "--out", str(scratch / "grades"), "--lang", "en"]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return [_result(f"grade a class of {size}", f"failed (exit {done.returncode}): "
                        f"{(done.stderr or done.stdout).strip()[-300:]}", "", False)]
    book = json.loads((scratch / "grades" / "gradebook.json").read_text(encoding="utf-8"))
    wrong = [row for row in book["results"] if row["status"] != (
        "passed" if int(row["learner"][-3:]) % 2 == 0 else "not_started")]
    per_minute = size / seconds * 60
    exercises = len(book["exercises"])
    return [
        _result(f"grade {size} learners x {exercises} exercises ({size // 2 + size % 2} "
                f"reference-quality, {size // 2} stubs; {os.cpu_count()} CPUs, "
                f"sandbox {book['sandbox']})",
                f"{seconds:.0f} s = {per_minute:.1f} learners/minute "
                f"({seconds / size:.1f} s per learner); verdicts "
                + ("all as expected" if not wrong else f"{len(wrong)} WRONG"),
                "every verdict right", not wrong),
        _result("  so, at this rate", f"a class of 30: {30 / per_minute:.1f} min; "
                f"of 300: {300 / per_minute:.0f} min"),
    ]


# --------------------------------------------------------------------------------------
# Memory per learner server
# --------------------------------------------------------------------------------------

class Learner:
    """One learner in a browser-less session: the hub's login page and cookies, as a
    browser keeps them."""

    def __init__(self, url: str, name: str, password: str) -> None:
        self.url, self.name = url, name
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.password = password

    def get(self, path: str, timeout: float = 60) -> tuple[int, str]:
        with self.opener.open(self.url + path, timeout=timeout) as answer:
            return answer.status, answer.geturl()

    def xsrf(self) -> str:
        """The XSRF token of the learner's own server (the hub keeps one of its own)."""
        return next((cookie.value for cookie in self.jar if cookie.name == "_xsrf"
                     and cookie.path.startswith(f"/user/{self.name}")), "")

    def log_in(self) -> None:
        """Log in on the hub's login page and wait until JupyterLab is served."""
        self.get("/hub/login")
        hub_xsrf = next((cookie.value for cookie in self.jar if cookie.name == "_xsrf"), "")
        form = urllib.parse.urlencode({"_xsrf": hub_xsrf, "username": self.name,
                                       "password": self.password}).encode()
        self.opener.open(urllib.request.Request(self.url + "/hub/login", data=form),
                         timeout=120).read()
        deadline = time.monotonic() + 120
        while True:
            status, where = self.get(f"/user/{self.name}/lab")
            if status == 200 and f"/user/{self.name}/lab" in where:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}'s server did not start: at {where}")
            time.sleep(1)

    def cookies(self) -> str:
        return "; ".join(f"{cookie.name}={cookie.value}" for cookie in self.jar)

    def start_kernel(self) -> str:
        request = urllib.request.Request(
            f"{self.url}/user/{self.name}/api/kernels", data=b"{}", method="POST",
            headers={"X-XSRFToken": self.xsrf(), "Content-Type": "application/json"})
        with self.opener.open(request, timeout=120) as answer:
            return json.loads(answer.read())["id"]

    def run(self, kernel: str, code: str, timeout: float = 180) -> str:
        """Run ``code`` in the kernel (Jupyter's messaging over the server's websocket);
        its status: ``ok`` or ``error``."""
        import asyncio

        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        async def talk() -> str:
            ws_url = (self.url.replace("http", "ws", 1)
                      + f"/user/{self.name}/api/kernels/{kernel}/channels")
            connection = await websocket_connect(HTTPRequest(
                ws_url, headers={"Cookie": self.cookies(), "X-XSRFToken": self.xsrf()}))
            message_id = uuid.uuid4().hex
            connection.write_message(json.dumps({
                "header": {"msg_id": message_id, "msg_type": "execute_request",
                           "username": self.name, "session": uuid.uuid4().hex,
                           "version": "5.3", "date": ""},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": code, "silent": False, "store_history": False,
                            "user_expressions": {}, "allow_stdin": False}}))
            while True:
                message = json.loads(await connection.read_message())
                if message.get("parent_header", {}).get("msg_id") == message_id and \
                        message.get("msg_type") == "execute_reply":
                    connection.close()
                    return message["content"]["status"]
        return asyncio.run(asyncio.wait_for(talk(), timeout))


def pss_of(pids: list[int]) -> int:
    from learn_pi_lab.harness.sandbox import memory_used
    return memory_used(pids, 1 << 62)


def measure_hub_memory(scratch: Path) -> list:
    """Memory per idle learner server on the project's hub (real accounts, real logins)."""
    from tests import classroom_support as hub
    missing = hub.what_is_missing()
    missing = [thing for thing in missing if thing != "chromium"]   # no browser needed here
    if missing:
        return [_result("memory per learner server", "not measured: needs "
                        + ", ".join(missing))]
    with hub.one_at_a_time(), hub.shared_folder() as shared:
        bare = hub.course_repository(shared / "git")
        names = [f"{hub.ACCOUNT_PREFIX}mem{number}" for number in range(SERVERS)]
        with hub.installed_hub(hub.HUB_PREFIX, str(bare)), \
                hub.accounts(hub.HUB_PREFIX / "course", names, []) as passwords, \
                hub.jupyterhub(hub.HUB_PREFIX, shared / "state", scratch / "hub.log") as url:
            learners = [Learner(url, name, passwords[name]) for name in names]
            for learner in learners:
                learner.log_in()
            time.sleep(5)   # idle: JupyterLab loaded, nothing running
            uid = {name: hub.home(name).stat().st_uid for name in names}
            idle = [pss_of(hub.processes_of({uid[name]})) for name in names]
            statuses = []
            for learner in learners:
                statuses.append(learner.run(learner.start_kernel(), CHAPTER_IMPORTS))
            time.sleep(3)
            with_kernel = [pss_of(hub.processes_of({uid[name]})) for name in names]
            hub_pids = [pid for pid in hub.processes_of({0})
                        if str(hub.HUB_PREFIX).encode() in hub._cmdline(pid)]
            hub_memory = pss_of(hub_pids)
    ok = all(status == "ok" for status in statuses)
    idle_mb = statistics.mean(idle) / MB
    kernel_mb = statistics.mean(with_kernel) / MB
    return [
        _result(f"idle learner server, JupyterLab loaded (mean of {SERVERS}, PSS)",
                f"{idle_mb:.0f} MB"),
        _result("  the same with one chapter's kernel (course, figures, playground imported)",
                f"{kernel_mb:.0f} MB" + ("" if ok else f" (the imports failed: {statuses})"),
                "the chapter's imports run", ok),
        _result("  the hub itself (JupyterHub, proxy, idle culler)", f"{hub_memory / MB:.0f} MB"),
        _result("  so, per GiB of memory", f"{1024 / kernel_mb:.1f} learners with a chapter "
                f"open; 24 GiB: about {int((24 * 1024 - hub_memory / MB) / kernel_mb)}"),
    ]


MEASUREMENTS = {
    "classroom-grading": measure_class_grading,
    "classroom-hub-memory": measure_hub_memory,
}
