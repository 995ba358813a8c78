"""End to end: a class on the project's own JupyterHub, from the link to the gradebook.

Real parts only: the course installed by ``classroom/install`` (JupyterHub from PyPI,
configurable-http-proxy from npm), the hub started with ``classroom/jupyterhub_config.py`` on
127.0.0.1, accounts made by ``classroom/add-users`` (three learners and a teacher: ordinary
system users, passwords checked by PAM), the course served by ``git daemon`` as a git server
serves it, Debian's chromium driven by Playwright. Then, as the people would:

* each of two learners logs in on the hub's login page, follows the nbgitpuller link
  (``learn-pi-lab hub-link``) and lands on chapter 00, whose environment check is all OK;
  in chapter 02 the check cell says "not started"; the learner writes ``path_to`` in
  ``workspace/`` in JupyterLab's editor (one right, one wrong answer) and the same check
  cell now says passed / failed; the first also runs chapter 03 and sees its playground;
* the second learner runs ``make verify`` in the hub's terminal (graded in bubblewrap as
  that user, no fallback) and cannot read the first learner's files, from the terminal or
  through the hub;
* the teacher updates the course; the first learner clicks the link again: the update
  arrives, the answer stays;
* the teacher collects (as root, the copies theirs), grades (as the teacher, in bubblewrap)
  and makes the class report: the gradebook, the HTML page and the LMS CSV show the two
  verdicts, and the third learner, who never opened the course, as not started.

Every process it starts (git daemon, the hub, its proxy and culler, the learners' servers,
chromium) is gone at the end, whatever happened; so are the accounts. Needs root (CI runs as
root) and what ``.ci/run`` installs; skipped with the reason elsewhere, failed under CI.
Screenshots and the hub's log go to ``artifacts/classroom/``.
"""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

import pytest

from learn_pi_lab.i18n import t
from tests import classroom_support as hub
from tests.browser_support import CHROMIUM, CHROMIUM_FLAGS, CLOSE, OPEN, REPO, run_notebook

pytestmark = pytest.mark.classroom

MISSING = hub.what_is_missing()
if MISSING:
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the classroom test, but this machine lacks: "
                           + ", ".join(MISSING) + " (.ci/run installs them)")
    pytest.skip("classroom test SKIPPED: needs " + ", ".join(MISSING), allow_module_level=True)

playwright = pytest.importorskip("playwright.sync_api")
from tests.test_browser_jupyterlab import (  # noqa: E402  (after the skip above)
    CELL_OUTPUT, LANDED_ON, NEW_TERMINAL, RUN_CELL, TERMINAL_TEXT, _status_of)

ARTIFACTS = REPO / "artifacts" / "classroom"
ANA, BO, CAI = "lpltest-ana", "lpltest-bo", "lpltest-cai"   # CAI never opens the course
TEACHER = "lpltest-wang"
CHAPTER_00 = "learn-pi-lab/notebooks/zh/00-start-here.ipynb"
CHAPTER_02 = "learn-pi-lab/notebooks/zh/02-parent-pointers.ipynb"
CHAPTER_03 = "learn-pi-lab/notebooks/zh/03-rewind-and-branch.ipynb"   # the tree playground
ANSWER_FILE = "learn-pi-lab/workspace/ch02_parent_pointers.py"
ANSWERS = {ANA: REPO / "tests" / "solutions" / "reference" / "ch02_parent_pointers.py",
           BO: REPO / "tests" / "solutions" / "wrong" / "path-to" / "leaf-to-root"
           / "ch02_parent_pointers.py"}
VERDICTS = {ANA: "passed", BO: "failed"}
COURSE_FIX = "教师更新：这一章的第一个例子改写了。"   # a line the teacher adds to chapter 02


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def run_cell(page, panel_id: str, needle: str, timeout_s: float = 120) -> str:
    index = page.evaluate(RUN_CELL, [panel_id, needle])
    assert index >= 0, f"no code cell contains {needle!r}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = page.evaluate(CELL_OUTPUT, [panel_id, index])
        if text:
            return text
        time.sleep(0.3)
    raise AssertionError(f"the cell with {needle!r} showed nothing within {timeout_s:.0f} s")


def wait_for_lab(page, timeout_ms: float = 90000) -> None:
    page.wait_for_function("window.jupyterapp && window.jupyterapp.started", timeout=timeout_ms)
    page.wait_for_selector(".jp-LabShell", timeout=timeout_ms)


def log_in(browser, url: str, name: str, password: str):
    """The hub's login page, as a learner fills it in; returns the page once their own
    JupyterLab is up (the hub started their server as their system user)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{url}/hub/login", wait_until="domcontentloaded")
    page.fill("#username_input", name)
    page.fill("#password_input", password)
    shot(page, f"{name}-login")
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{name}/lab**", timeout=120000)
    wait_for_lab(page)
    return page


def follow_link(page, link: str, name: str, shot_name: str) -> None:
    """The nbgitpuller link: the course is pulled, JupyterLab opens chapter 00 (zh)."""
    page.goto(link, wait_until="domcontentloaded")
    page.wait_for_url(f"**/user/{name}/lab/tree/{CHAPTER_00}", timeout=120000)
    wait_for_lab(page)
    landed = page.evaluate(LANDED_ON)
    shot(page, shot_name)
    assert landed == CHAPTER_00, f"the link opened {landed}, not {CHAPTER_00}"


def write_answer(page, name: str) -> None:
    """Open the exercise file in JupyterLab's editor, replace its text, save."""
    answer = ANSWERS[name].read_text(encoding="utf-8")
    editor_id = page.evaluate(
        "async (path) => (await window.jupyterapp.commands.execute('docmanager:open',"
        " {path, factory: 'Editor'})).id", ANSWER_FILE)
    editor = page.locator(f'[id="{editor_id}"] .cm-content').first
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(answer)   # like a paste
    page.keyboard.press("Control+s")
    on_disk = hub.home(name) / ANSWER_FILE
    deadline = time.monotonic() + 30
    while on_disk.read_text(encoding="utf-8").strip() != answer.strip():
        assert time.monotonic() < deadline, "saving the answer did not write it to disk"
        time.sleep(0.2)
    assert on_disk.stat().st_uid == hub.home(name).stat().st_uid, "saved as someone else"
    shot(page, f"{name}-answer-written")
    page.evaluate("(id) => Array.from(window.jupyterapp.shell.widgets('main'))"
                  ".find(w => w.id === id).dispose()", editor_id)


def check_chapter_02(page, name: str, shot_name: str) -> str:
    panel = page.evaluate(OPEN, CHAPTER_02)
    try:
        output = run_cell(page, panel, 'check("02")')
        shot(page, shot_name)
    finally:
        page.evaluate(CLOSE, panel)
    return _status_of(output, "path-to")


def terminal(page, command: str, done_marker: str, shot_name: str,
             timeout_s: float = 180) -> str:
    """Type ``command`` in a new terminal of JupyterLab (File -> New -> Terminal); the text
    the terminal shows once ``done_marker`` appears in it."""
    terminal_id = page.evaluate(NEW_TERMINAL)
    try:
        page.locator(f'[id="{terminal_id}"] .xterm-screen').first.click()
        page.keyboard.type(command)
        page.keyboard.press("Enter")
        deadline, text = time.monotonic() + timeout_s, ""
        while done_marker not in text.replace(command, ""):
            assert time.monotonic() < deadline, f"{command!r} did not finish:\n{text}"
            time.sleep(0.5)
            text = page.evaluate(TERMINAL_TEXT, terminal_id) or ""
        shot(page, shot_name)
        return text
    finally:
        page.evaluate("""async (id) => {
          const w = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.id === id);
          if (w) { await w.content.session.shutdown(); w.dispose(); }
        }""", terminal_id)


def learner_visit(browser, url: str, name: str, password: str, link: str) -> object:
    """One learner's lesson: log in, follow the link, check the environment, do path_to."""
    page = log_in(browser, url, name, password)
    follow_link(page, link, name, f"{name}-landed-on-chapter-00")
    panel = page.evaluate(OPEN, CHAPTER_00)
    try:
        report = run_cell(page, panel, "print_environment_report")
        shot(page, f"{name}-environment-check")
    finally:
        page.evaluate(CLOSE, panel)
    assert "[FAIL]" not in report and t("course.env.all_ok", "zh") in report, report
    assert check_chapter_02(page, name, f"{name}-check-before") == \
        t("harness.status.not_started", "zh")
    write_answer(page, name)
    verdict = check_chapter_02(page, name, f"{name}-check-after")
    assert verdict == t(f"harness.status.{VERDICTS[name]}", "zh"), verdict
    return page


def playground_runs(page, name: str) -> None:
    """Chapter 03 top to bottom without an error, its tree playground drawn (the widget's
    own behaviour is tests/test_browser_playground.py's)."""
    panel = run_notebook(page, CHAPTER_03, 180,
                         after_run=lambda page, failed: shot(page, f"{name}-chapter-03"))
    try:
        widget = page.locator(".lpl-playground").first
        widget.scroll_into_view_if_needed()
        widget.locator("g.lpl-node").first.wait_for(timeout=30000)
        shot(page, f"{name}-playground")
    finally:
        page.evaluate(CLOSE, panel)


def add_course_fix(work: Path) -> None:
    """The teacher fixes chapter 02 (a markdown line) and adds a file."""
    notebook_path = work / "notebooks" / "zh" / "02-parent-pointers.ipynb"
    notebook = json.loads(notebook_path.read_text(encoding="utf-8"))
    first_markdown = next(cell for cell in notebook["cells"] if cell["cell_type"] == "markdown")
    first_markdown["source"] = [COURSE_FIX + "\n\n", *first_markdown["source"]]
    notebook_path.write_text(json.dumps(notebook, ensure_ascii=False, indent=1) + "\n",
                             encoding="utf-8")
    (work / "docs" / "news.md").write_text("# News\n\nChapter 02 was revised.\n",
                                           encoding="utf-8")


def fingerprint_of(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file under ``folder`` with its size, modification time and bytes."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            info = path.stat()
            found[str(path.relative_to(folder))] = (info.st_size, info.st_mtime_ns,
                                                    path.read_bytes())
    return found


def test_a_class_on_the_hub_from_the_link_to_the_gradebook():
    started = time.monotonic()
    env = hub.HUB_PREFIX / "env"
    tool = str(env / "bin" / "learn-pi-lab")
    uids: set[int] = set()
    groups_before = {group for group in hub.GROUPS if hub._group_exists(group)}
    with hub.one_at_a_time(), hub.shared_folder() as shared:
        bare = hub.course_repository(shared / "git")
        with hub.git_daemon(shared / "git") as git_url:
            repository = f"{git_url}/{bare.name}"
            course = hub.HUB_PREFIX / "course"
            with hub.installed_hub(hub.HUB_PREFIX, repository), \
                    hub.accounts(course, [ANA, BO, CAI], [TEACHER]) as passwords:
                uids = {hub.home(name).stat().st_uid for name in passwords}
                for name in (ANA, BO):
                    hub.lab_settings(name)
                with hub.jupyterhub(hub.HUB_PREFIX, shared / "hub-state",
                                    ARTIFACTS / "jupyterhub.log") as url, \
                        playwright.sync_playwright() as driver:
                    link = hub.run([tool, "hub-link", "--hub", url, "--repo", repository,
                                    "--edition", "zh", "--check"]).stdout.strip()
                    browser = driver.chromium.launch(executable_path=str(CHROMIUM),
                                                     args=CHROMIUM_FLAGS, headless=True)
                    try:
                        lesson(browser, url, link, passwords, shared, bare)
                        teacher_afterwards(browser, tool, shared)
                    finally:
                        browser.close()
    # Everything the test started has ended with it: no process of the accounts, none run
    # from the hub's installation (hub, proxy, culler, servers, kernels), no account left.
    assert hub.processes_of(uids) == []
    leftovers = [pid for pid in hub.processes_of({0})
                 if str(hub.HUB_PREFIX).encode() in hub._cmdline(pid)]
    assert leftovers == [], leftovers
    assert not any(hub.ours(name) for name in (ANA, BO, CAI, TEACHER))
    assert {group for group in hub.GROUPS if hub._group_exists(group)} <= groups_before
    print(f"classroom test: {time.monotonic() - started:.0f} s")


def lesson(browser, url: str, link: str, passwords: dict[str, str], shared: Path,
           bare: Path) -> None:
    ana = learner_visit(browser, url, ANA, passwords[ANA], link)
    playground_runs(ana, ANA)
    bo = learner_visit(browser, url, BO, passwords[BO], link)

    # make verify in the hub's terminal: the hub's environment, graded in bubblewrap as BO
    text = terminal(bo, "cd ~/learn-pi-lab && make verify EX=path-to; echo exit=$?", "exit=",
                    f"{BO}-terminal-make-verify")
    assert t("harness.status.failed", "zh") in text and "exit=2" in text, text
    assert "bubblewrap" not in text, f"make verify fell back from the sandbox:\n{text}"
    assert "pip install" not in text and ".venv" not in text, text   # nothing installed
    assert not (hub.home(BO) / "learn-pi-lab" / ".venv").exists()

    # BO cannot read ANA's work: not from a terminal (the home folder is private) ...
    others = f"/home/{ANA}/{ANSWER_FILE}"
    text = terminal(bo, f"cat {others}; echo rc=$?", "rc=", f"{BO}-cannot-read-{ANA}")
    assert "Permission denied" in text and "rc=1" in text, text
    # ... nor through the hub (ANA's server refuses BO's login)
    answer = bo.context.request.get(f"{url}/user/{ANA}/api/contents/{ANSWER_FILE}",
                                    max_redirects=5)
    assert answer.status in (403, 404) or "def path_to" not in answer.text(), answer.status
    assert "def path_to" not in answer.text()

    # The teacher updates the course; ANA clicks the same link again
    hub.teacher_commit(bare, shared, add_course_fix)
    follow_link(ana, link, ANA, f"{ANA}-after-update")
    mine = (hub.home(ANA) / ANSWER_FILE).read_text(encoding="utf-8")
    assert mine == ANSWERS[ANA].read_text(encoding="utf-8"), "the update changed the answer"
    chapter = (hub.home(ANA) / CHAPTER_02).read_text(encoding="utf-8")
    assert COURSE_FIX in chapter, "the course's fix of chapter 02 did not arrive"
    assert (hub.home(ANA) / "learn-pi-lab" / "docs" / "news.md").is_file()
    for page in (ana, bo):
        page.context.close()


def teacher_afterwards(browser, tool: str, shared: Path) -> None:
    """Collect (root, copies for the teacher), grade and report (as the teacher)."""
    class_folder = hub.home(TEACHER) / "class"
    submissions, grades, report = (class_folder / "submissions", class_folder / "grades",
                                   class_folder / "report")
    hub.as_user(TEACHER, ["mkdir", "-p", str(class_folder)])
    # what collect reads (the learners' servers still run and write their own files)
    workspaces = {name: hub.home(name) / "learn-pi-lab" / "workspace" for name in (ANA, BO)}
    homes_before = {name: fingerprint_of(folder) for name, folder in workspaces.items()}
    collected = hub.run([tool, "collect", "--out", str(submissions), "--owner", TEACHER,
                         "--lang", "en"])
    assert "Collected the workspace/ of 2 learner(s)" in collected.stdout, collected.stdout
    assert f"never opened the course (no learn-pi-lab/workspace in their home): {CAI}" \
        in collected.stdout, collected.stdout
    for name, folder in workspaces.items():   # read, never written: not even a time changed
        assert fingerprint_of(folder) == homes_before[name], name
    teacher_uid = hub.home(TEACHER).stat().st_uid
    assert {path.stat().st_uid for path in submissions.rglob("*")} == {teacher_uid}
    path = {"PATH": f"{hub.HUB_PREFIX / 'env' / 'bin'}:/usr/local/bin:/usr/bin:/bin"}
    graded = hub.as_user(TEACHER, [tool, "grade", str(submissions), "--out", str(grades),
                                   "--exercise", "path-to", "--exercise", "validate",
                                   "--lang", "zh"], env=path)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    book = json.loads((grades / "gradebook.json").read_text(encoding="utf-8"))
    assert book["sandbox"] == "bwrap", book["sandbox"]
    verdicts = {row["learner"]: row["status"] for row in book["results"]
                if row["exercise"] == "path-to"}
    assert verdicts == VERDICTS, verdicts

    made = hub.as_user(TEACHER, [tool, "class-report", str(grades), "--submissions",
                                 str(submissions), "--out", str(report), "--lang", "zh"],
                       env=path)
    assert made.returncode == 0, made.stdout + made.stderr
    with (report / "lms.csv").open(encoding="utf-8") as handle:
        rows = {row["username"]: row for row in csv.DictReader(handle)}
    assert {name: rows[name]["path-to"] for name in (ANA, BO, CAI)} == \
        {ANA: "1", BO: "0", CAI: "0"}, rows
    assert rows[ANA]["total"] == "2" and rows[CAI]["total"] == "0", rows
    page_text = (report / "report.html").read_text(encoding="utf-8")
    failing = next(row for row in book["results"]
                   if row["learner"] == BO and row["exercise"] == "path-to")
    assert failing["test"] and failing["test"] in page_text, failing
    notebook = json.loads((report / "class-report.ipynb").read_text(encoding="utf-8"))
    outputs = [output for cell in notebook["cells"] for output in cell.get("outputs", [])]
    assert any("image/png" in output.get("data", {}) for output in outputs), outputs
    assert not any(output.get("output_type") == "error" for output in outputs), outputs

    page = browser.new_context(viewport={"width": 1300, "height": 1400}).new_page()
    page.goto((report / "report.html").as_uri())
    shot(page, "teacher-class-report")
    rows_shown = page.locator("table.learners tbody tr")
    assert rows_shown.count() == 3
    ana_row = page.locator(f"table.learners tr:has-text('{ANA}') .st").first
    assert ana_row.get_attribute("class") == "st passed"
    bo_row = page.locator(f"table.learners tr:has-text('{BO}') .st").first
    assert bo_row.get_attribute("class") == "st failed"
    assert CAI in page.locator("h2 + p").nth(1).inner_text() or CAI in page_text
    page.context.close()
