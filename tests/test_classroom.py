"""The classroom's parts, each on its own (the whole, on a real hub: test_classroom_hub.py).

* ``link``: the nbgitpuller link, and a clear line for every wrong input;
* ``collect``: a class of homes with every trap a learner could lay (links out of the home, a
  linked course or workspace, a named pipe, a huge file, a deep tree), read and never written;
* the class report and the LMS table, on a gradebook whose learner names and messages are
  hostile (HTML, a spreadsheet formula);
* ``updates``: what nbgitpuller's real merge did, found and said;
* the hub's configuration, and Binder's (read by ``jupyter-repo2docker --no-build``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import stat
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from learn_pi_lab.cli.arguments import UserError
from learn_pi_lab.classroom import class_report, collect, link, updates
from learn_pi_lab.harness import files
from learn_pi_lab.i18n import t

REPO = Path(__file__).resolve().parents[1]


def run_main(main, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# -- link ---------------------------------------------------------------------------------

def test_the_link_puts_the_course_in_the_home_and_opens_chapter_00() -> None:
    made = link.pull_link("https://hub.example.edu/", "https://example.edu/course.git",
                          edition="en")
    parts = urlsplit(made)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "hub.example.edu",
                                                        "/hub/user-redirect/git-pull")
    assert parse_qs(parts.query) == {
        "repo": ["https://example.edu/course.git"], "branch": ["main"],
        "targetPath": ["learn-pi-lab"],
        "urlpath": ["lab/tree/learn-pi-lab/notebooks/en/00-start-here.ipynb"]}


@pytest.mark.parametrize("hub, repo, options, key", [
    ("hub.example.edu", "r", {}, "classroom.link.bad_hub"),
    ("ftp://hub", "r", {}, "classroom.link.bad_hub"),
    ("https://hub", " ", {}, "classroom.link.no_repo"),
    ("https://hub", "r", {"branch": ""}, "classroom.link.no_branch"),
    ("https://hub", "r", {"edition": "fr"}, "classroom.link.bad_edition"),
    ("https://hub", "r", {"folder": "../etc"}, "classroom.link.bad_folder"),
])
def test_a_wrong_link_input_is_one_clear_line(hub: str, repo: str, options: dict,
                                              key: str) -> None:
    with pytest.raises(UserError) as wrong:
        link.pull_link(hub, repo, **options)
    assert wrong.value.key == key
    assert t(key, "zh", **wrong.value.fields) and t(key, "en", **wrong.value.fields)


def test_the_link_command_prints_both_editions_or_says_what_is_wrong() -> None:
    code, out, err = run_main(link.main, ["--hub", "https://hub", "--repo", "r", "--lang", "en"])
    assert code == 0 and err == ""
    assert [line.split(":")[0] for line in out.splitlines()] == ["zh edition", "en edition"]
    code, out, err = run_main(link.main, ["--hub", "hub", "--repo", "r", "--lang", "zh"])
    assert (code, out) == (2, "") and err.strip() == t("classroom.link.bad_hub", "zh", hub="hub")


# -- collect ------------------------------------------------------------------------------

def make_homes(root: Path) -> Path:
    """A class's homes, with a trap in each but the first."""
    homes = root / "home"
    teacher_secret = root / "secret.txt"
    teacher_secret.write_text("the teacher's", encoding="utf-8")
    good = homes / "amy" / "learn-pi-lab" / "workspace"
    (good / "helpers").mkdir(parents=True)
    (good / "ch02_parent_pointers.py").write_text("def path_to(e, l):\n    return []\n")
    (good / "helpers" / "walk.py").write_text("X = 1\n")
    (good / "__pycache__").mkdir()
    (good / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (homes / "ben").mkdir(parents=True)                             # never opened the course
    (homes / "cat" / "learn-pi-lab").mkdir(parents=True)            # workspace is a link
    (homes / "cat" / "learn-pi-lab" / "workspace").symlink_to(good)
    (homes / "dan").mkdir(parents=True)                             # the course is a link
    (homes / "dan" / "learn-pi-lab").symlink_to(homes / "amy" / "learn-pi-lab")
    trapped = homes / "eve" / "learn-pi-lab" / "workspace"
    trapped.mkdir(parents=True)
    (trapped / "ch05_records_and_state.py").write_text("x = 1\n")
    (trapped / "passwd.py").symlink_to(teacher_secret)              # a link out of the home
    os.mkfifo(trapped / "pipe.py")                                  # would block an open
    (trapped / "big.py").write_bytes(b"#" * (collect.MAX_FILE + 1))
    deep = trapped
    for _ in range(collect.MAX_DEPTH + 2):
        deep = deep / "d"
    deep.mkdir(parents=True)
    return homes


def test_collect_copies_each_workspace_and_follows_no_link(tmp_path: Path) -> None:
    homes = make_homes(tmp_path)
    before = files.fingerprint(homes)
    out = tmp_path / "submissions"
    code, printed, err = run_main(collect.main, ["--out", str(out), "--homes", str(homes),
                                                 "--lang", "en"])
    assert code == 0, err
    assert files.fingerprint(homes) == before, "the homes are only read"
    assert sorted(path.name for path in out.iterdir()) == ["amy", "eve"]
    assert sorted(path.relative_to(out / "amy").as_posix()
                  for path in (out / "amy").rglob("*") if path.is_file()) == [
        "ch02_parent_pointers.py", "helpers/walk.py"]
    eve = sorted(path.relative_to(out / "eve").as_posix()
                 for path in (out / "eve").rglob("*") if path.is_file())
    assert eve == ["ch05_records_and_state.py"], "no link, pipe, huge file or deep folder"
    assert "the teacher's" not in "".join(path.read_text(errors="replace")
                                          for path in out.rglob("*") if path.is_file())
    for line in ("skipped ben: never opened the course",
                 "skipped cat: workspace/ is not a folder (a link or a file): not followed",
                 "skipped dan: the course folder is not a folder (a link or a file): not followed",
                 "eve: passwd.py: a link: not followed",
                 "eve: pipe.py: not a regular file",
                 f"eve: big.py: larger than {collect.MAX_FILE // 1024} KiB",
                 "folders nested too deep"):
        assert line in printed, (line, printed)


def test_collect_never_writes_into_a_folder_that_holds_something(tmp_path: Path) -> None:
    homes = make_homes(tmp_path)
    out = tmp_path / "submissions"
    (out / "earlier").mkdir(parents=True)
    code, printed, err = run_main(collect.main, ["--out", str(out), "--homes", str(homes),
                                                 "--lang", "en"])
    assert (code, printed) == (2, "") and "never overwrites" in err
    assert sorted(path.name for path in out.iterdir()) == ["earlier"]


ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="changing owners and access times needs root")


def times_and_owners(folder: Path) -> dict[str, tuple]:
    """Every entry's mode, size, owner and times, nothing read (a read would move atime)."""
    return {str(path.relative_to(folder)): (info.st_mode, info.st_size, info.st_uid,
                                            info.st_mtime_ns, info.st_atime_ns)
            for path in sorted(folder.rglob("*")) for info in [path.lstat()]}


@needs_root
def test_collect_does_not_even_move_an_access_time(tmp_path: Path) -> None:
    homes = make_homes(tmp_path)
    for path in homes.rglob("*"):   # atime at mtime: a plain read would move it (relatime)
        if not path.is_symlink() and not stat.S_ISFIFO(path.lstat().st_mode):
            info = path.stat()
            os.utime(path, ns=(info.st_mtime_ns - 10**9, info.st_mtime_ns))
    before = times_and_owners(homes)
    code, _, err = run_main(collect.main, ["--out", str(tmp_path / "submissions"),
                                           "--homes", str(homes), "--lang", "en"])
    assert code == 0, err
    assert times_and_owners(homes) == before


@needs_root
def test_collect_leaves_out_a_file_that_is_not_the_learners_own(tmp_path: Path) -> None:
    """A hard link to a classmate's or the teacher's file is a file another user owns."""
    homes = make_homes(tmp_path)
    foreign = homes / "amy" / "learn-pi-lab" / "workspace" / "ch05_records_and_state.py"
    foreign.write_text("CLASSMATE = True\n")
    os.chown(foreign, 12345, 12345)
    out = tmp_path / "submissions"
    code, printed, err = run_main(collect.main, ["--out", str(out), "--homes", str(homes),
                                                 "--lang", "en"])
    assert code == 0, err
    assert not (out / "amy" / "ch05_records_and_state.py").exists()
    assert "amy: ch05_records_and_state.py: belongs to another user, not the learner" in printed


@needs_root
def test_collect_through_sudo_gives_the_copies_to_the_teacher_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pwd
    import tempfile
    homes = make_homes(tmp_path)
    teacher = pwd.getpwnam("nobody")
    shared = Path(tempfile.mkdtemp(prefix="lpl-collect-"))   # pytest's folders are root's
    try:
        shared.chmod(0o755)
        place = shared / "teacher"
        place.mkdir()
        os.chown(place, teacher.pw_uid, teacher.pw_gid)
        monkeypatch.setenv("SUDO_USER", "nobody")
        out = place / "submissions"
        code, _, err = run_main(collect.main, ["--out", str(out), "--homes", str(homes),
                                               "--lang", "en"])
        assert code == 0, err
        made = [out, *out.rglob("*")]
        assert {path.stat().st_uid for path in made} == {teacher.pw_uid}
        assert {oct(path.stat().st_mode & 0o777) for path in made} <= {"0o700", "0o600"}
        assert os.geteuid() == 0 and os.getegid() == 0   # root again afterwards
        # where the teacher may not write, neither does collect
        code, printed, err = run_main(collect.main, ["--out", str(shared / "root-only"),
                                                     "--homes", str(homes), "--lang", "en"])
        assert code == 2 and "Cannot write" in err and not (shared / "root-only").exists()
    finally:
        shutil.rmtree(shared)


def test_collect_never_writes_into_a_learners_home(tmp_path: Path) -> None:
    homes = make_homes(tmp_path)
    inside = homes / "amy" / "collected"
    code, printed, err = run_main(collect.main, ["--out", str(inside), "--homes", str(homes),
                                                 "--lang", "en"])
    assert (code, printed) == (2, "") and "is inside learner amy's home" in err
    assert not inside.exists()


def test_collect_of_the_users_asked_for_and_an_unknown_group(tmp_path: Path) -> None:
    homes = make_homes(tmp_path)
    out = tmp_path / "submissions"
    code, printed, _ = run_main(collect.main, ["--out", str(out), "--homes", str(homes),
                                               "--users", "amy,ben", "--lang", "en"])
    assert code == 0 and sorted(path.name for path in out.iterdir()) == ["amy"]
    code, _, err = run_main(collect.main, ["--out", str(tmp_path / "o2"), "--group",
                                           "no-such-group-lpl", "--lang", "en"])
    assert code == 2 and "no group called no-such-group-lpl" in err


# -- the class report and the LMS table -----------------------------------------------------

HOSTILE = '<script>alert("x")</script>'


def gradebook() -> dict:
    rows = []
    for learner, statuses in (
            ("amy", ("passed", "passed")), (HOSTILE, ("failed", "not_started")),
            ("=HYPERLINK(\"x\")", ("not_started", "not_started")),
            ("bob", ("timed_out", "not_own_code"))):
        for exercise, status in zip(("path-to", "resolve-labels"), statuses):
            rows.append({"learner": learner, "exercise": exercise, "status": status,
                         "test": "PathToTests.test_root_first" if status == "failed" else None,
                         "reason": "timeout" if status == "timed_out" else None,
                         "detail": f"got {HOSTILE}" if status == "failed" else "", "note": ""})
    return {"learners": ["amy", HOSTILE, "=HYPERLINK(\"x\")", "bob"],
            "exercises": ["path-to", "resolve-labels"], "results": rows,
            "drawn_seed": "1", "sandbox": "bwrap"}


def test_the_report_says_where_the_class_struggles_and_who_has_not_started() -> None:
    summary = {item["exercise"]: item for item in class_report.exercise_summary(gradebook())}
    assert summary["path-to"]["counts"] == {"passed": 1, "failed": 1, "timed_out": 1,
                                            "not_started": 1, "not_own_code": 0}
    assert summary["path-to"]["pass_rate"] == 0.25
    assert summary["path-to"]["common_test"] in ("PathToTests.test_root_first", "timeout")
    assert class_report.not_started(gradebook()) == ['=HYPERLINK("x")']


def test_the_report_page_shows_every_text_and_runs_none(tmp_path: Path) -> None:
    page = class_report.report_html(gradebook(), "en")
    assert HOSTILE not in page and html_escaped(HOSTILE) in page
    assert "<svg" in page and "http://" not in page.split("<svg", 1)[0]
    assert t("classroom.report.by_exercise", "en") in page
    zh = class_report.report_html(gradebook(), "zh")
    assert t("classroom.report.by_exercise", "zh") in zh and 'lang="zh-CN"' in zh


def html_escaped(text: str) -> str:
    import html
    return html.escape(text)


def test_the_lms_table_has_a_column_of_points_per_exercise_and_a_total(tmp_path: Path) -> None:
    class_report.write_lms_csv(gradebook(), tmp_path / "lms.csv")
    with (tmp_path / "lms.csv").open(encoding="utf-8-sig") as handle:
        table = list(csv.reader(handle))
    assert table[0] == ["learner", "path-to", "resolve-labels", "total"]
    assert table[1] == ["amy", "1", "1", "2"] and table[4] == ["bob", "0", "0", "0"]
    assert table[3][0] == "'=HYPERLINK(\"x\")", "a learner's name is text to a spreadsheet"


def test_the_report_command_writes_both_from_a_gradebook_and_refuses_anything_else(
        tmp_path: Path) -> None:
    (tmp_path / "gradebook.json").write_text(json.dumps(gradebook()), encoding="utf-8")
    code, printed, err = run_main(class_report.main, [str(tmp_path), "--lang", "en"])
    assert code == 0, err
    assert (tmp_path / "report.html").is_file() and (tmp_path / "lms.csv").is_file()
    code, _, err = run_main(class_report.main, [str(tmp_path / "nothing"), "--lang", "en"])
    assert code == 2 and "is not a gradebook written by grade" in err


# -- updates: nbgitpuller's own merge ---------------------------------------------------------

def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), "-c", "user.email=t@example.edu",
                           "-c", "user.name=teacher", *args], check=True,
                          capture_output=True, text=True).stdout


def pull(remote: Path, home: Path) -> None:
    from nbgitpuller.pull import GitPuller
    for _ in GitPuller(str(remote), str(home / "learn-pi-lab"), branch="main").pull():
        pass


def test_updates_says_what_nbgitpullers_merge_did_to_the_workspace(tmp_path: Path) -> None:
    teacher = tmp_path / "teacher"
    (teacher / "workspace").mkdir(parents=True)
    stub = "# chapter 02\n\n\ndef path_to(entries, leaf):\n    raise NotImplementedError\n"
    (teacher / "workspace" / "ch02.py").write_text(stub)
    (teacher / "README.md").write_text("the course\n")
    git(teacher, "init", "-q", "-b", "main")
    git(teacher, "add", "-A")
    git(teacher, "commit", "-q", "-m", "course")
    remote = tmp_path / "course.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(teacher), str(remote)], check=True)
    home = tmp_path / "home"
    pull(remote, home)
    course = home / "learn-pi-lab"
    assert updates.merged_files(course) == [] and updates.renamed_files(course) == []
    # the learner answers, and makes a file the course will add too
    answer = "# my chapter 02\n\n\ndef path_to(entries, leaf):\n    return [leaf]\n"
    (course / "workspace" / "ch02.py").write_text(answer)
    (course / "workspace" / "notes.py").write_text("mine\n")
    # the teacher changes the same first line, the README, and adds workspace/notes.py
    (teacher / "workspace" / "ch02.py").write_text(stub.replace("# chapter 02", "# Chapter 02"))
    (teacher / "README.md").write_text("the course, updated\n")
    (teacher / "workspace" / "notes.py").write_text("the course's\n")
    git(teacher, "add", "-A")
    git(teacher, "commit", "-q", "-m", "update")
    git(teacher, "push", "-q", str(remote), "main")
    pull(remote, home)
    assert (course / "README.md").read_text() == "the course, updated\n"
    assert (course / "workspace" / "ch02.py").read_text() == answer, "the learner's lines win"
    [merged] = updates.merged_files(course)
    assert merged.path == "workspace/ch02.py"
    assert git(course, "show", f"{merged.course}:workspace/ch02.py").startswith("# Chapter 02")
    [renamed] = updates.renamed_files(course)
    assert renamed.original == "workspace/notes.py" and renamed.path.startswith(
        "workspace/notes__")
    assert (course / renamed.path).read_text() == "mine\n"


def test_updates_in_a_folder_that_is_no_git_clone_say_nothing(tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir()
    assert updates.merged_files(tmp_path) == [] and updates.renamed_files(tmp_path) == []


# -- the hub's configuration, and Binder's -------------------------------------------------

def test_the_hub_configuration_reads_its_settings_from_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from traitlets.config import Config
    config = Config()
    monkeypatch.setenv("LEARN_PI_LAB_HUB_PREFIX", "/opt/x")
    monkeypatch.setenv("LEARN_PI_LAB_HUB_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("LEARN_PI_LAB_HUB_GROUP", "class-a")
    monkeypatch.setenv("LEARN_PI_LAB_HUB_TEACHERS", "ms-li, mr-wu")
    monkeypatch.setenv("LEARN_PI_LAB_HUB_EDITION", "en")
    extra = tmp_path / "extra.py"
    extra.write_text("c.JupyterHub.hub_bind_url = 'http://127.0.0.1:9999'\n")
    monkeypatch.setenv("LEARN_PI_LAB_HUB_EXTRA", str(extra))

    def load_subconfig(path: str) -> None:
        exec(Path(path).read_text(), {"c": config, "get_config": lambda: config})
    source = (REPO / "classroom" / "hub" / "jupyterhub_config.py").read_text(encoding="utf-8")
    exec(compile(source, "jupyterhub_config.py", "exec"),
         {"get_config": lambda: config, "load_subconfig": load_subconfig})
    assert config.PAMAuthenticator.allowed_groups == {"class-a"}
    assert config.Authenticator.admin_users == {"ms-li", "mr-wu"}
    assert config.Spawner.cmd == ["/opt/x/venv/bin/jupyterhub-singleuser"]
    assert config.ConfigurableHTTPProxy.command == [
        "/opt/x/proxy/node_modules/.bin/configurable-http-proxy"]
    assert any(arg.endswith("jupyterlab_settings/en") for arg in config.Spawner.args)
    assert config.JupyterHub.hub_bind_url == "http://127.0.0.1:9999"
    environment = config.Spawner.environment
    assert environment["LEARN_PI_LAB_PYTHON"] == "/opt/x/venv/bin/python"

    class Spawner:   # what the environment's callable is given
        class user:
            name = "root"
    assert environment["PYTHONPATH"](Spawner) == "/root/learn-pi-lab"
    assert oct((tmp_path / "state").stat().st_mode & 0o777) == "0o700"
    [culler] = config.JupyterHub.services
    assert culler["command"][:3] == ["/opt/x/venv/bin/python", "-m", "jupyterhub_idle_culler"]
    assert culler["command"][3] == "--timeout=3600"
    assert [role["services"] for role in config.JupyterHub.load_roles] == [["idle-culler"]]


def test_the_hub_makes_a_learners_home_private_before_their_server_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from traitlets.config import Config
    config = Config()
    monkeypatch.setenv("LEARN_PI_LAB_HUB_STATE", str(tmp_path / "state"))
    source = (REPO / "classroom" / "hub" / "jupyterhub_config.py").read_text(encoding="utf-8")
    exec(compile(source, "jupyterhub_config.py", "exec"),
         {"get_config": lambda: config, "load_subconfig": lambda path: None})
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)   # Debian's useradd -m without HOME_MODE
    logged = []

    class Spawner:
        class user:
            name = "learner"

        class log:
            info = staticmethod(lambda *args: logged.append(args))

    class Entry:
        pw_dir = str(home)
    monkeypatch.setattr("pwd.getpwnam", lambda name: Entry)
    config.Spawner.pre_spawn_hook(Spawner)
    assert oct(home.stat().st_mode & 0o777) == "0o700" and logged
    logged.clear()
    config.Spawner.pre_spawn_hook(Spawner)   # already private: left as it is, nothing said
    assert oct(home.stat().st_mode & 0o777) == "0o700" and not logged


def node_admits(version: tuple[int, ...], wanted: str) -> bool:
    """Whether Node ``version`` satisfies an ``engines.node`` range of the forms npm packages
    use here: ``*``, ``>=A.B.C``, ``^A``, alternatives joined by ``||``."""
    def parse(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.strip().lstrip("v").split(".") if part)
    for choice in wanted.split("||"):
        choice = choice.strip()
        if choice in ("*", ""):
            return True
        if choice.startswith(">="):
            if version >= parse(choice[2:]):
                return True
        elif choice.startswith("^"):
            if version[0] == parse(choice[1:])[0] and version >= parse(choice[1:]):
                return True
        elif version[:len(parse(choice))] == parse(choice):
            return True
    return False


def test_the_pinned_proxy_runs_on_the_node_debian_and_ubuntu_ship() -> None:
    """docs/teacher.md installs Debian's (and Ubuntu 24.04's) nodejs, Node 18.19: every
    package of the proxy's lockfile must accept it. (configurable-http-proxy 5.3.0 needs
    commander 15, an ES module for Node >= 22.12: on Node 18 the hub could not start.)"""
    lock = json.loads((REPO / "classroom" / "hub" / "package-lock.json").read_text())
    refused = {name: package["engines"]["node"] for name, package in lock["packages"].items()
               if name and "node" in package.get("engines", {})
               and not node_admits((18, 19, 0), package["engines"]["node"])}
    assert refused == {}
    assert node_admits((18, 19, 0), ">= 18") and not node_admits((18, 19, 0), ">=22.12.0")
    assert node_admits((18, 19, 0), "^16 || ^18 || >=20") and not node_admits((18, 1), "^20")


def test_binder_and_zero_to_jupyterhub_build_from_the_same_recipe() -> None:
    r2d = shutil.which("jupyter-repo2docker") or str(Path(sys.executable).parent
                                                        / "jupyter-repo2docker")
    done = subprocess.run([r2d, "--no-build", "--debug", "--user-id", "1000",
                           "--user-name", "jovyan", str(REPO)],
                          capture_output=True, text=True, timeout=120)
    dockerfile = done.stdout + done.stderr
    assert done.returncode == 0, dockerfile[-2000:]
    assert "bubblewrap fonts-noto-cjk git make" in dockerfile
    assert "Building conda environment for python=3.11" in dockerfile
    assert "./binder/postBuild" in dockerfile and "binder/start" in dockerfile
    post = (REPO / "binder" / "postBuild").read_text(encoding="utf-8")
    assert 'pip install --no-cache-dir -e ".[workbook]"' in post and "pre_save_hook" in post
    values = (REPO / "classroom" / "z2jh" / "values.yaml").read_text(encoding="utf-8")
    assert "PYTHONPATH: /home/jovyan/learn-pi-lab" in values and "--target-repo-dir" in values
