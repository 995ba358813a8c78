"""The course in a classroom, with real parts: JupyterHub, nbgitpuller, system users, chromium.

What a class does, end to end (``make test-classroom``; ``make test`` includes it):

1. the hub is installed by the project's own ``classroom/hub/install.sh`` (JupyterHub from
   PyPI, configurable-http-proxy from npm) and started with ``classroom/hub/jupyterhub_config.py``
   on 127.0.0.1; the learners and the teacher are real system users of one group, with
   private homes; the course is a git repository served by ``git daemon``, as a hub pulls
   from a real host;
2. each learner logs in through the hub's login page in headless Debian chromium, follows the
   nbgitpuller link (``python -m learn_pi_lab link``) and lands on chapter 00; writes an
   answer in ``workspace/`` (alice a right one, bob a wrong one), opens chapter 02 and runs
   its check cell; runs ``make verify`` as herself (bubblewrap as an ordinary user); cannot
   read the other's files;
3. the teacher runs ``collect`` and ``grade``: the gradebook, the class report and the LMS
   table show the two verdicts;
4. the teacher updates the course; alice follows the link again: the update arrives, her
   answer is kept, and ``make verify`` says what the merge did to the file both changed.

Every process it starts is stopped and every user, group and folder it made is removed at
the end, whatever happened. It needs root (CI runs as root), node and npm, bubblewrap, the
system's ``python3`` with ``venv`` and chromium; under ``CI`` a missing one is a failure.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from learn_pi_lab.classroom.link import pull_link
from learn_pi_lab.i18n import t
from tests.browser_support import CHROMIUM, CHROMIUM_FLAGS, CLOSE, OPEN, run_cell, run_notebook
from tests.hub_support import ARTIFACTS, PREFIX, REPO, Class, cmdline, missing, run

pytestmark = [pytest.mark.classroom]
playwright = pytest.importorskip("playwright.sync_api")

REFERENCE = REPO / "learn_pi_lab" / "lessons" / "ch02_parent_pointers.py"
WRONG = (REPO / "tests" / "solutions" / "wrong" / "path-to" / "leaf-to-root"
         / "ch02_parent_pointers.py")
EXERCISE_FILE = "ch02_parent_pointers.py"


if missing():
    if os.environ.get("CI"):
        raise RuntimeError(f"CI must run the classroom test, but {missing()} (.ci/run installs "
                           "what it needs)")
    pytest.skip(f"classroom test SKIPPED: {missing()}", allow_module_level=True)


@pytest.fixture(scope="module")
def classroom() -> Iterator[dict]:
    the_class = Class()
    try:
        the_class.install()
        the_class.make_users()
        repo = the_class.serve_course()
        url = the_class.start_hub()
        with playwright.sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM),
                                             args=CHROMIUM_FLAGS, headless=True)
            try:
                yield {"class": the_class, "url": url, "repo": repo, "browser": browser,
                       "pages": {}}
            finally:
                browser.close()
    finally:
        the_class.stop()
    # nothing it started outlives it: no process runs from the hub's installation (the hub,
    # its proxy and idle culler, a learner's server or kernel), none of the class's users
    left = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc")))
            if str(PREFIX).encode() in cmdline(pid)]
    assert left == [], f"still running after the class: {left}"


# -- what a learner does, in the page ---------------------------------------------------------

SAVE = """
async ([path, text]) => {
  await window.jupyterapp.serviceManager.contents.save(path, {type: 'file', format: 'text', content: text});
  return true;
}
"""

# Run code in the notebook's kernel (the learner's own process, with the hub's environment)
# and return what it printed.
RUN_IN_KERNEL = """
async ([panelId, code]) => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.id === panelId);
  const future = panel.sessionContext.session.kernel.requestExecute({code, store_history: false});
  let out = '';
  future.onIOPub = (msg) => {
    const c = msg.content;
    if (c.text) out += c.text;
    if (c.ename) out += c.ename + ': ' + c.evalue + '\\n';
  };
  await future.done;
  return out;
}
"""

LANDED_PATH = """() => {
  const widget = window.jupyterapp.shell.currentWidget;
  return widget && widget.context ? widget.context.path : null;
}"""


def log_in_and_follow(classroom: dict, user: str, edition: str) -> object:
    """A learner's first visit: the link, the hub's login page, then JupyterLab."""
    the_class = classroom["class"]
    link = pull_link(classroom["url"], classroom["repo"], edition=edition)
    page = classroom["browser"].new_context(viewport={"width": 1300, "height": 900}).new_page()
    page.goto(link)
    page.wait_for_selector("#username_input", timeout=30000)
    page.fill("#username_input", user)
    page.fill("#password_input", the_class.passwords[user])
    page.click("#login_submit")
    wait_for_lab(page)
    classroom["pages"][user] = page
    return page


def wait_for_lab(page) -> None:
    page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=120000)
    page.wait_for_selector(".jp-LabShell", timeout=60000)
    page.wait_for_function(f"({LANDED_PATH})() !== null", timeout=60000)


def in_kernel(page, panel: str, code: str) -> str:
    return page.evaluate(RUN_IN_KERNEL, [panel, code])


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


# -- the class, in order --------------------------------------------------------------------

def test_learners_log_in_follow_the_link_and_land_on_chapter_00(classroom: dict) -> None:
    the_class = classroom["class"]
    for user, edition in ((the_class.alice, "zh"), (the_class.bob, "en")):
        page = log_in_and_follow(classroom, user, edition)
        assert page.evaluate(LANDED_PATH) == f"learn-pi-lab/notebooks/{edition}/00-start-here.ipynb"
        assert (the_class.home(user) / "learn-pi-lab" / "workspace" / EXERCISE_FILE).is_file()
        shot(page, f"{edition}-landed")
    assert oct(the_class.home(the_class.alice).stat().st_mode & 0o777) == "0o700"


def test_each_learner_answers_and_the_check_cell_grades_their_own_file(classroom: dict) -> None:
    the_class = classroom["class"]
    answers = {the_class.alice: (REFERENCE.read_text(encoding="utf-8"), "zh", "passed"),
               the_class.bob: (WRONG.read_text(encoding="utf-8"), "en", "failed")}
    for user, (text, edition, wanted) in answers.items():
        page = classroom["pages"][user]
        page.evaluate(SAVE, [f"learn-pi-lab/workspace/{EXERCISE_FILE}", text])
        panel = page.evaluate(OPEN, f"learn-pi-lab/notebooks/{edition}/02-parent-pointers.ipynb")
        output = run_cell(page, panel, 'check("02")', timeout_s=180)
        shot(page, f"{edition}-check-02")
        row = next(line for line in output.splitlines() if "path-to" in line)
        assert t(f"harness.status.{wanted}", edition) in row, output
        classroom.setdefault("panels", {})[user] = panel


def test_chapter_00_and_the_playground_run_for_a_learner(classroom: dict) -> None:
    """Chapter 00's environment check and chapter 03's playground, run top to bottom by a
    learner who is an ordinary user: every check [OK], the playground drawn."""
    the_class = classroom["class"]
    page = classroom["pages"][the_class.alice]
    panel = run_notebook(page, "learn-pi-lab/notebooks/zh/00-start-here.ipynb", 180)
    text = page.evaluate(PANEL_TEXT, panel)
    assert "[OK]" in text and "[FAIL]" not in text, text[-3000:]
    shot(page, "zh-00-environment-check")
    page.evaluate(CLOSE, panel)
    panel = run_notebook(page, "learn-pi-lab/notebooks/zh/03-rewind-and-branch.ipynb", 180)
    page.wait_for_selector(".lpl-playground svg", timeout=30000)
    shot(page, "zh-03-playground")
    page.evaluate(CLOSE, panel)


PANEL_TEXT = """(panelId) => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.id === panelId);
  return panel.content.node.innerText;
}"""


def test_make_verify_runs_as_the_learner_in_bubblewrap(classroom: dict) -> None:
    the_class = classroom["class"]
    page = classroom["pages"][the_class.alice]
    panel = classroom["panels"][the_class.alice]
    printed = in_kernel(page, panel, (
        "import os, subprocess\n"
        "done = subprocess.run(['make', 'verify', 'EX=path-to'], capture_output=True, "
        "text=True, cwd=os.path.expanduser('~/learn-pi-lab'))\n"
        "print(os.getuid(), done.returncode)\nprint(done.stdout)\nprint(done.stderr)\n"))
    uid = int(printed.split()[0])
    assert uid == int(run("id", "-u", the_class.alice).stdout), printed
    assert printed.split()[1] == "0", printed   # every exercise asked for passed
    for fallback in ("harness.verify.no_sandbox", "harness.verify.sandbox_refused"):
        assert t(fallback, "zh") not in printed, "bubblewrap as the learner"
    assert ".venv" not in printed, "the hub's environment, no .venv made in the home"


def test_make_verify_in_the_hubs_terminal(classroom: dict) -> None:
    """What a learner types: File -> New -> Terminal in their JupyterLab on the hub, then
    make verify; bob's wrong answer is reported, in the sandbox, nothing installed."""
    from tests.test_browser_jupyterlab import NEW_TERMINAL, TERMINAL_TEXT
    the_class = classroom["class"]
    page = classroom["pages"][the_class.bob]
    terminal = page.evaluate(NEW_TERMINAL)
    command = "cd ~/learn-pi-lab && make verify EX=path-to LANG_EDITION=en; echo exit=$?"
    try:
        page.locator(f'[id="{terminal}"] .xterm-screen').first.click()
        page.keyboard.type(command)
        page.keyboard.press("Enter")
        deadline, text = time.monotonic() + 180, ""
        while not re.search(r"exit=\d", text):   # (the typed command may wrap anywhere)
            assert time.monotonic() < deadline, f"make verify did not finish:\n{text}"
            time.sleep(0.5)
            text = page.evaluate(TERMINAL_TEXT, terminal) or ""
        shot(page, "en-terminal-make-verify")
    finally:
        page.evaluate("""async (id) => {
          const w = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.id === id);
          if (w) { await w.content.session.shutdown(); w.dispose(); }
        }""", terminal)
    assert "path-to" in text and t("harness.status.failed", "en") in text, text
    assert "exit=2" in text and "bubblewrap" not in text, text
    assert not (the_class.home(the_class.bob) / "learn-pi-lab" / ".venv").exists()


def test_a_learner_cannot_read_another_learners_files(classroom: dict) -> None:
    the_class = classroom["class"]
    page = classroom["pages"][the_class.alice]
    panel = classroom["panels"][the_class.alice]
    bobs = the_class.home(the_class.bob) / "learn-pi-lab" / "workspace" / EXERCISE_FILE
    printed = in_kernel(page, panel, f"print(open({str(bobs)!r}).read()[:40])")
    assert "PermissionError" in printed, printed
    printed = in_kernel(page, panel, f"import os; print(os.listdir({str(bobs.parents[2])!r}))")
    assert "PermissionError" in printed, printed


def test_the_teacher_collects_grades_and_gets_the_report(classroom: dict) -> None:
    the_class = classroom["class"]
    out = the_class.root / "submissions"
    collected = subprocess.run([sys.executable, "-m", "learn_pi_lab", "collect", "--out",
                                str(out), "--group", the_class.group, "--lang", "en"],
                               capture_output=True, text=True, cwd=REPO)
    assert collected.returncode == 0, collected.stderr
    assert sorted(path.name for path in out.iterdir()) == sorted([the_class.alice,
                                                                  the_class.bob])
    assert f"skipped {the_class.teacher}: never opened the course" in collected.stdout
    grades = the_class.root / "grades"
    graded = subprocess.run([sys.executable, "-m", "learn_pi_lab", "grade", str(out), "--out",
                             str(grades), "--lang", "en", "-e", "path-to"],
                            capture_output=True, text=True, cwd=REPO)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    book = json.loads((grades / "gradebook.json").read_text(encoding="utf-8"))
    verdicts = {row["learner"]: row["status"] for row in book["results"]}
    assert verdicts == {the_class.alice: "passed", the_class.bob: "failed"}, verdicts
    page = (grades / "report.html").read_text(encoding="utf-8")
    assert the_class.alice in page and the_class.bob in page and "<svg" in page
    with (grades / "lms.csv").open(encoding="utf-8-sig") as handle:
        table = list(csv.reader(handle))
    assert table[0] == ["learner", "path-to", "total"]
    assert sorted(table[1:]) == sorted([[the_class.alice, "1", "1"], [the_class.bob, "0", "0"]])
    shutil.copyfile(grades / "report.html", ARTIFACTS / "report.html")


def test_a_course_update_arrives_and_keeps_the_learners_answer(classroom: dict) -> None:
    the_class = classroom["class"]
    stub = (the_class.source / "workspace" / EXERCISE_FILE).read_text(encoding="utf-8")
    readme = (the_class.source / "README.md").read_text(encoding="utf-8")
    # the teacher fixes the stub's first line (alice rewrote that file) and the README
    first, rest = stub.split("\n", 1)
    the_class.update_course({f"workspace/{EXERCISE_FILE}": first + " (updated)\n" + rest,
                             "README.md": readme + "\nAn update of the course.\n"})
    page = classroom["pages"][the_class.alice]
    page.goto(pull_link(classroom["url"], classroom["repo"], edition="zh"))
    wait_for_lab(page)
    home = the_class.home(the_class.alice) / "learn-pi-lab"
    assert (home / "README.md").read_text(encoding="utf-8").endswith("An update of the course.\n")
    mine = (home / "workspace" / EXERCISE_FILE).read_text(encoding="utf-8")
    assert "def path_to" in mine and REFERENCE.read_text(encoding="utf-8").split(
        "def path_to", 1)[1][:200] in mine, "alice's answer is kept"
    panel = page.evaluate(OPEN, "learn-pi-lab/notebooks/zh/02-parent-pointers.ipynb")
    printed = in_kernel(page, panel, (
        "import os, subprocess\n"
        "done = subprocess.run(['make', 'verify', 'EX=path-to'], capture_output=True, "
        "text=True, cwd=os.path.expanduser('~/learn-pi-lab'))\nprint(done.stdout)\n"))
    said = t("harness.verify.update_merged", "zh", path=f"workspace/{EXERCISE_FILE}",
             commit="COMMIT").split("COMMIT")[0]
    assert said in printed, printed
    shot(page, "zh-after-update")
