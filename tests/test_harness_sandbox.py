"""The sandbox's walls against the host: who the worker is, what of the host it may write,
what of the teacher's setup it can read (``harness.sandbox``).

The end-to-end cheats are ``tests/hostile_submissions/writes-host-settings`` and
``reads-the-sandbox-command``; here the same walls are checked directly, with the command and
the start the worker gets, so a failure names the wall."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn_pi_lab.harness import sandbox

pytestmark = pytest.mark.skipif(sandbox.bwrap_path() is None and not os.environ.get("CI"),
                                reason="bubblewrap is not installed (CI installs it)")

# Files the kernel opens to every user on the host, and which are not host-wide (see
# ``writes-host-settings``): the sandbox's own pid namespace, and a trigger on an open file.
EVERY_USERS = {"/proc/sys/kernel/ns_last_pid", "/proc/pressure/io", "/proc/pressure/cpu",
               "/proc/pressure/memory", "/proc/pressure/irq"}

PROBE = r"""
import json, os
writable = []
for top in ("/proc", "/sys"):
    for folder, folders, names in os.walk(top):
        if folder == "/proc":
            folders[:] = [n for n in folders if not n.isdigit() and n not in ("self", "thread-self")]
        writable += [os.path.join(folder, n) for n in names
                     if os.access(os.path.join(folder, n), os.W_OK)]
with open("/proc/1/cmdline", "rb") as handle:
    init = handle.read().decode("utf-8", "replace").split("\0")
print(json.dumps({"uid": os.getuid(), "euid": os.geteuid(), "groups": os.getgroups(),
                  "writable": writable, "init": init, "path": os.environ.get("PATH"),
                  "home_file": os.access(os.getcwd(), os.W_OK)}))
"""


def probe(tmp_path: Path) -> dict:
    folder = tmp_path / "run"
    folder.mkdir()
    sandbox.hand_over([folder])
    argv = sandbox.command([sys.executable, "-c", PROBE], writable=[folder], hidden=[],
                           workdir=folder)
    process = sandbox.start(argv, env=sandbox.worker_environment(folder, None), cwd=folder,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    return json.loads(out)


def test_the_worker_is_never_the_hosts_root_and_writes_no_host_setting(tmp_path: Path) -> None:
    seen = probe(tmp_path)
    if os.geteuid() == 0:
        assert (seen["uid"], seen["euid"]) == (sandbox.WORKER_UID, sandbox.WORKER_UID)
        assert seen["groups"] in ([], [sandbox.WORKER_UID])
    else:   # bwrap's user namespace keeps the caller's own uid, which is not root either
        assert seen["uid"] == os.getuid() != 0
    assert sorted(set(seen["writable"]) - EVERY_USERS) == []
    assert seen["home_file"], "its own folder stays writable (handed over to it)"


def test_the_sandbox_command_and_the_teachers_path_are_not_readable_inside(tmp_path: Path
                                                                           ) -> None:
    seen = probe(tmp_path)
    assert seen["init"][:3] == [sandbox.bwrap_path(), "--args", str(sandbox.ARGS_FD)]
    assert not [word for word in seen["init"] if word.startswith("--ro-bind")
                or word.startswith("--tmpfs") or str(Path.home()) in word]
    assert seen["path"] == sandbox.WORKER_PATH


def test_hidden_options_keep_the_command_and_move_every_option() -> None:
    argv = ["/usr/bin/bwrap", "--ro-bind", "/usr", "/usr", "--chdir", "/x y", "--",
            "/usr/bin/python3", "-c", "print(1)"]
    shown, options = sandbox.hidden_options(argv)
    assert shown == ["/usr/bin/bwrap", "--args", str(sandbox.ARGS_FD), "--",
                     "/usr/bin/python3", "-c", "print(1)"]
    assert options.split(b"\0")[:-1] == [b"--ro-bind", b"/usr", b"/usr", b"--chdir", b"/x y"]


@pytest.mark.skipif(os.geteuid() != 0, reason="hand_over changes owners only as root")
def test_hand_over_gives_the_worker_its_folder_and_never_follows_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "teacher.txt"
    outside.write_text("the teacher's")
    folder = tmp_path / "run"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "a.txt").write_text("a")
    (folder / "link").symlink_to(outside)
    sandbox.hand_over([folder])
    for path in (folder, folder / "deep", folder / "deep" / "a.txt", folder / "link"):
        assert os.lstat(path).st_uid == sandbox.WORKER_UID, path
    assert outside.stat().st_uid == 0, "the link's target is not the worker's"


def test_an_installed_copy_of_the_package_is_hidden_with_its_lessons(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hub grades with ``PYTHONPATH`` on the course folder while its virtual environment
    holds an installed copy of the package, lessons and all, whose code does not refuse: a
    fresh Python in the sandbox must find no such copy (an attacker's review: ``python -I``
    imported the lesson from site-packages and passed). The worker's own package still shows,
    without its lessons."""
    import shutil

    site = tmp_path / "site-packages"
    shutil.copytree(sandbox.REPO_ROOT / "learn_pi_lab", site / "learn_pi_lab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    assert sandbox.other_package_copies() == [(site / "learn_pi_lab").resolve()]
    folder = tmp_path / "run"
    folder.mkdir()
    sandbox.hand_over([folder])
    look = ("import json, os, sys; print(json.dumps([sorted(os.listdir(p)) if os.path.isdir(p) "
            "else None for p in sys.argv[1:]]))")
    ours = sandbox.REPO_ROOT / "learn_pi_lab"
    argv = sandbox.command([sys.executable, "-I", "-c", look, str(site / "learn_pi_lab"),
                            str(site / "learn_pi_lab" / "lessons"), str(ours),
                            str(ours / "lessons")], writable=[folder], hidden=[], workdir=folder)
    process = sandbox.start(argv, env=sandbox.worker_environment(folder, None), cwd=folder,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    installed, installed_lessons, shown, shown_lessons = json.loads(out)
    assert installed == [] and installed_lessons is None
    assert "session_tree.py" in shown and shown_lessons == []
