"""``learn-pi-lab collect``: learners' workspaces copied without trusting their home folders.

The homes here are folders of ``--homes`` (one sub-folder per learner, as on Zero to
JupyterHub); the same reading serves the system accounts of a one-machine hub, which the
end-to-end test collects (``tests/test_classroom_hub.py``). Each promise of
``learn_pi_lab.classroom.collect`` is tried against a home that breaks it: links out of the
home at every level, a named pipe, a file that is not the learner's, files over each cap, an
output folder inside a home or already used.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from learn_pi_lab.classroom import collect

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="changing a file's owner needs root")


def workspace(homes: Path, learner: str) -> Path:
    folder = homes / learner / "learn-pi-lab" / "workspace"
    folder.mkdir(parents=True)
    return folder


def run_collect(capsys, *args: str) -> tuple[int, str, str]:
    code = collect.main([*args, "--lang", "en"])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under ``folder`` (links not followed): kind, size, modification and
    access times, owner (nothing is read: reading would move the access times)."""
    return {str(path.relative_to(folder)): (info.st_mode, info.st_size, info.st_mtime_ns,
                                            info.st_uid, info.st_atime_ns)
            for path in sorted(folder.rglob("*")) for info in [path.lstat()]}


@pytest.fixture
def homes(tmp_path: Path) -> Path:
    homes = tmp_path / "homes"
    ana = workspace(homes, "ana")
    (ana / "ch01_jsonl.py").write_text("def read_jsonl_tolerant(text): ...\n", encoding="utf-8")
    (ana / "helpers").mkdir()
    (ana / "helpers" / "walk.py").write_text("STEP = 1\n", encoding="utf-8")
    (ana / "README.md").write_text("notes\n", encoding="utf-8")
    (ana / "__pycache__").mkdir()
    (ana / "__pycache__" / "ch01_jsonl.cpython-311.pyc").write_bytes(b"\0" * 10)
    (ana / ".ipynb_checkpoints").mkdir()
    (homes / "bo").mkdir()                         # never opened the course
    (homes / "bo" / "notes.txt").write_text("hello\n", encoding="utf-8")
    return homes


def test_each_workspace_is_copied_and_who_never_started_is_listed(homes, tmp_path, capsys):
    out = tmp_path / "submissions"
    code, said, err = run_collect(capsys, "--homes", str(homes), "--out", str(out))
    assert code == 0, err
    copied = sorted(str(path.relative_to(out)) for path in out.rglob("*") if path.is_file())
    assert copied == [".collected.json", "ana/README.md", "ana/ch01_jsonl.py",
                      "ana/helpers/walk.py"]
    assert (out / "ana" / "helpers" / "walk.py").read_text(encoding="utf-8") == "STEP = 1\n"
    manifest = json.loads((out / ".collected.json").read_text(encoding="utf-8"))
    assert manifest["not_started"] == ["bo"] and list(manifest["learners"]) == ["ana"]
    assert "Collected the workspace/ of 1 learner(s)" in said
    assert "1 learner(s) never opened the course (no learn-pi-lab/workspace in their home): bo" \
        in said
    assert oct(out.stat().st_mode & 0o777) == "0o700"   # learners' work is personal


def test_nothing_in_a_home_is_written_or_touched(homes, tmp_path, capsys):
    for path in homes.rglob("*"):   # access times as old as the files: a read would move them
        if not path.is_symlink():
            info = path.stat()
            os.utime(path, ns=(info.st_mtime_ns - 10**9, info.st_mtime_ns))
    before = snapshot(homes)
    code, _, err = run_collect(capsys, "--homes", str(homes), "--out", str(tmp_path / "out"))
    assert code == 0, err
    after = snapshot(homes)
    # O_NOATIME is allowed to the files' owner and to root: not even an access time moves
    assert after == before
    assert (homes / "ana" / "learn-pi-lab" / "workspace" / "README.md").read_text() == "notes\n"


def test_no_link_is_followed_at_any_level(homes, tmp_path, capsys):
    secret = tmp_path / "teachers-secret.txt"
    secret.write_text("SECRET\n", encoding="utf-8")
    ana = homes / "ana" / "learn-pi-lab" / "workspace"
    (ana / "ch02_parent_pointers.py").symlink_to(secret)           # a file that is a link
    (ana / "elsewhere").symlink_to(tmp_path, target_is_directory=True)   # a folder link
    cai = homes / "cai"
    cai.mkdir()
    (cai / "learn-pi-lab").symlink_to(homes / "ana" / "learn-pi-lab")    # a classmate's course
    dan = homes / "dan" / "learn-pi-lab"
    dan.mkdir(parents=True)
    (dan / "workspace").symlink_to(ana)                                  # a classmate's answers
    (homes / "eve").symlink_to(homes / "ana")                            # a whole home
    out = tmp_path / "out"
    code, said, err = run_collect(capsys, "--homes", str(homes), "--out", str(out))
    assert code == 0, err
    everything = b"".join(path.read_bytes() for path in out.rglob("*") if path.is_file())
    assert b"SECRET" not in everything
    assert sorted(path.name for path in out.iterdir()) == [".collected.json", "ana"]
    manifest = json.loads((out / ".collected.json").read_text(encoding="utf-8"))
    left = {entry["path"]: entry["reason"] for entry in manifest["learners"]["ana"]["left_out"]}
    assert left == {"ch02_parent_pointers.py": "link", "elsewhere": "link"}
    assert set(manifest["skipped"]) == {"cai", "dan"}
    assert "Left out of ana's copy: ch02_parent_pointers.py: a link (not followed)" in said
    assert "Not collected: cai: ~/learn-pi-lab/workspace is a link or a file, not a folder" in said
    assert "eve" not in manifest["skipped"] and "eve" not in manifest["not_started"]
    assert ": eve" not in said   # a link among the homes is no home


def test_a_named_pipe_does_not_stop_the_collection(homes, tmp_path, capsys):
    os.mkfifo(homes / "ana" / "learn-pi-lab" / "workspace" / "ch03_rewind_and_branch.py")
    result: list = []
    worker = threading.Thread(target=lambda: result.append(
        run_collect(capsys, "--homes", str(homes), "--out", str(tmp_path / "out"))))
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "collect hung on a named pipe"
    code, said, _ = result[0]
    assert code == 0 and "ch03_rewind_and_branch.py: not a regular file" in said


def test_sizes_are_capped_and_what_is_over_is_listed(homes, tmp_path, capsys):
    ana = homes / "ana" / "learn-pi-lab" / "workspace"
    (ana / "big.py").write_bytes(b"#" * 3000)
    for number in range(3):
        (ana / f"part{number}.py").write_bytes(b"x" * 600_000)
        (ana / f"small{number}.py").write_bytes(b"y = 1\n")
    out = tmp_path / "out"
    code, said, err = run_collect(capsys, "--homes", str(homes), "--out", str(out),
                                  "--max-file-kb", "1000", "--max-learner-mb", "1")
    assert code == 0, err
    manifest = json.loads((out / ".collected.json").read_text(encoding="utf-8"))
    left = {entry["path"]: entry["reason"] for entry in manifest["learners"]["ana"]["left_out"]}
    assert {path: reason for path, reason in left.items() if reason != "too_many"} == \
        {"part1.py": "over_total", "part2.py": "over_total"}
    assert manifest["learners"]["ana"]["bytes"] <= 1024 * 1024
    code, said, _ = run_collect(capsys, "--homes", str(homes), "--out", str(tmp_path / "o2"),
                                "--max-file-kb", "2", "--max-files", "3")
    manifest = json.loads((tmp_path / "o2" / ".collected.json").read_text(encoding="utf-8"))
    left = {entry["path"]: entry["reason"] for entry in manifest["learners"]["ana"]["left_out"]}
    assert left["big.py"] == "too_large" and "too_many" in left.values()
    assert manifest["learners"]["ana"]["files"] == 3
    assert "too large (see --max-file-kb)" in said


@needs_root
def test_a_file_that_is_not_the_learners_own_is_left_out(homes, tmp_path, capsys):
    """A hard link to a classmate's (or the teacher's) file is a file owned by someone else."""
    ana = homes / "ana" / "learn-pi-lab" / "workspace"
    foreign = ana / "ch05_records_and_state.py"
    foreign.write_text("CLASSMATE = True\n", encoding="utf-8")
    os.chown(foreign, 12345, 12345)
    out = tmp_path / "out"
    code, said, err = run_collect(capsys, "--homes", str(homes), "--out", str(out))
    assert code == 0, err
    assert not (out / "ana" / "ch05_records_and_state.py").exists()
    assert "ch05_records_and_state.py: the file does not belong to the learner" in said


@needs_root
def test_the_copies_belong_to_the_teacher_who_ran_it(homes, tmp_path, capsys):
    teacher = pwd.getpwnam("nobody")
    shared = Path(tempfile.mkdtemp(prefix="lpl-collect-"))   # (pytest's folders are root's)
    try:
        shared.chmod(0o755)
        place = shared / "teacher"
        place.mkdir()
        os.chown(place, teacher.pw_uid, teacher.pw_gid)
        out = place / "submissions"
        code, _, err = run_collect(capsys, "--homes", str(homes), "--out", str(out),
                                   "--owner", "nobody")
        assert code == 0, err
        owners = {path.stat().st_uid for path in [out, *out.rglob("*")]}
        assert owners == {teacher.pw_uid}
        assert os.geteuid() == 0 and os.getegid() == 0   # back to root afterwards
        # where the teacher may not write, neither may collect (it writes as the teacher)
        code, _, err = run_collect(capsys, "--homes", str(homes), "--out",
                                   str(shared / "root-only"), "--owner", "nobody")
        assert code == 2 and "Cannot write" in err and not (shared / "root-only").exists()
        assert os.geteuid() == 0
        # run through sudo, the copies are the user's who ran it, without --owner
        os.environ["SUDO_USER"] = "nobody"
        try:
            code, _, err = run_collect(capsys, "--homes", str(homes), "--out",
                                       str(place / "again"))
        finally:
            del os.environ["SUDO_USER"]
        assert code == 0, err
        assert {path.stat().st_uid for path in (place / "again").rglob("*")} == {teacher.pw_uid}
    finally:
        shutil.rmtree(shared)


def test_the_output_must_be_new_and_outside_every_home(homes, tmp_path, capsys):
    used = tmp_path / "used"
    used.mkdir()
    (used / "ana").mkdir()
    code, _, err = run_collect(capsys, "--homes", str(homes), "--out", str(used))
    assert code == 2 and "exists and is not an empty folder" in err
    inside = homes / "ana" / "collected"
    code, _, err = run_collect(capsys, "--homes", str(homes), "--out", str(inside))
    assert code == 2 and "is inside learner ana's home" in err and not inside.exists()
    code, _, err = run_collect(capsys, "--homes", str(tmp_path / "nowhere"), "--out",
                               str(tmp_path / "x"))
    assert code == 2 and "is not a folder" in err
    code, _, err = run_collect(capsys, "--users", "no-such-user-lpl", "--out",
                               str(tmp_path / "y"))
    assert code == 2 and "There is no user no-such-user-lpl" in err
    code, _, err = run_collect(capsys, "--group", "no-such-group-lpl", "--out",
                               str(tmp_path / "z"))
    assert code == 2 and "There is no group no-such-group-lpl" in err
