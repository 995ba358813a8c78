"""The append-only writer (``learn_pi_lab.jsonl.writer``).

``SafeAppendTests`` grades chapter 04's ``safe-append`` exercise: the same tests run against
the reference and a learner's ``workspace/ch04_failures.py`` (``LEARN_PI_LAB_TARGET``, see
tests/targets.py). Everything else here checks the reference only and is skipped when the
target is a workspace.
"""

from __future__ import annotations

import errno
import json
import os
import random
import re
import tempfile
import unittest
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from learn_pi_lab.i18n import t
from learn_pi_lab.jsonl.reader import read_session, read_session_text
from learn_pi_lab.jsonl.writer import (
    append_line,
    BadOutputPath,
    OutputExists,
    SessionWriter,
    iso_now,
    new_entry_id,
    new_header,
    order_like_pi,
    to_json_line,
    write_new_file,
)
from learn_pi_lab.session_tree import DuplicateEntryId
from tests.targets import bytes_read_by_target, is_reference, load_target

impl = load_target("ch04_failures", "learn_pi_lab.jsonl.writer")

HEADER_LINE = '{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}'
FIRST_LINE = '{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"hi"}}'
NEW = {"type": "message", "id": "b2", "parentId": "a1",
       "message": {"role": "assistant", "content": [{"type": "text", "text": "好的，拆成三个函数"}]}}
NEW_LINE = '{"type":"message","id":"b2","parentId":"a1","message":{"role":"assistant",' \
           '"content":[{"type":"text","text":"好的，拆成三个函数"}]}}'


class SafeAppendTests(unittest.TestCase):
    """``append_line(path, obj)``: one JSON line at the end, a fresh line first if needed."""

    def setUp(self) -> None:
        self._folder = tempfile.TemporaryDirectory()
        self.path = Path(self._folder.name) / "session.jsonl"

    def tearDown(self) -> None:
        self._folder.cleanup()

    def append(self, obj: dict) -> None:
        result = impl.append_line(self.path, obj)
        self.assertIsNone(result, msg=t("exercise_tests.jsonl_writer.returns_none", got=result))

    def file_text(self) -> str:
        return self.path.read_bytes().decode("utf-8")

    def test_earlier_bytes_are_never_written_again(self) -> None:
        # The file starts with a hole, bytes the file system has never stored (they read as
        # zeros). Appending leaves it a hole; reading the file and writing it all back with
        # "wb" gives the same bytes but stores the hole, which the file's block count shows.
        hole = 1 << 20
        with open(self.path, "wb") as handle:
            handle.seek(hole)
            handle.write(f"\n{HEADER_LINE}\n".encode())
        keeps_holes = os.stat(self.path).st_blocks * 512 < hole // 2
        self.append(NEW)
        expected = b"\0" * hole + f"\n{HEADER_LINE}\n{NEW_LINE}\n".encode()
        got = self.path.read_bytes()
        self.assertEqual(got[hole:], expected[hole:],
                         msg=t("exercise_tests.jsonl_writer.one_line_after_complete_file",
                               want=expected[hole:].decode(), got=got[hole:].decode("utf-8",
                                                                                "replace")))
        self.assertTrue(got[:hole] == expected[:hole],
                        msg=t("exercise_tests.jsonl_writer.never_rewrites"))
        if keeps_holes:   # (a file system without holes cannot show it; this one can)
            self.assertLess(os.stat(self.path).st_blocks * 512, hole // 2,
                            msg=t("exercise_tests.jsonl_writer.never_rewrites"))

    def test_looks_only_at_the_end_of_a_large_file(self) -> None:
        # Appending to a 32 MiB file costs what it costs on a small one: the last byte is
        # enough (seek to the end). The kernel counts every byte the code under test reads.
        size = 32 << 20
        with open(self.path, "wb") as handle:
            handle.seek(size)   # a hole: nothing stored, so the file costs no disk
            handle.write(f"\n{HEADER_LINE}\n".encode())
        before = bytes_read_by_target()
        if before is None:
            self.skipTest("the kernel here does not count the bytes a process reads (not Linux)")
        self.append(NEW)
        read = bytes_read_by_target() - before
        self.assertLess(read, 1 << 20, msg=t("exercise_tests.jsonl_writer.reads_whole_file",
                                              read=read, size=os.path.getsize(self.path)))

    def test_appends_one_line_after_a_complete_file(self) -> None:
        self.path.write_bytes(f"{HEADER_LINE}\n{FIRST_LINE}\n".encode())
        self.append(NEW)
        expected = f"{HEADER_LINE}\n{FIRST_LINE}\n{NEW_LINE}\n"
        self.assertEqual(self.file_text(), expected,
                         msg=t("exercise_tests.jsonl_writer.one_line_after_complete_file",
                               want=expected, got=self.file_text()))

    def test_writes_like_json_stringify(self) -> None:
        self.path.write_bytes(f"{HEADER_LINE}\n".encode())
        self.append(NEW)
        last = self.file_text().split("\n")[-2]
        self.assertEqual(last, NEW_LINE,
                         msg=t("exercise_tests.jsonl_writer.compact_json", want=NEW_LINE,
                               got=last))
        self.assertTrue(self.file_text().endswith("\n"),
                        msg=t("exercise_tests.jsonl_writer.ends_with_newline"))

    def test_torn_last_line_gets_a_fresh_line_first(self) -> None:
        torn = FIRST_LINE[:30]
        self.path.write_bytes(f"{HEADER_LINE}\n{torn}".encode())
        self.append(NEW)
        expected = f"{HEADER_LINE}\n{torn}\n{NEW_LINE}\n"
        self.assertEqual(self.file_text(), expected,
                         msg=t("exercise_tests.jsonl_writer.fresh_line_after_torn_line",
                               want=expected, got=self.file_text()))

    def test_new_entry_survives_the_next_read_after_a_torn_line(self) -> None:
        self.path.write_bytes(f"{HEADER_LINE}\n{FIRST_LINE[:30]}".encode())
        self.append(NEW)
        session = read_session_text(self.file_text())
        ids = [loaded.obj["id"] for loaded in session.entries]
        self.assertEqual(ids, ["b2"],
                         msg=t("exercise_tests.jsonl_writer.readable_after_torn_line", got=ids))

    def test_empty_file_gets_no_leading_newline(self) -> None:
        self.path.write_bytes(b"")
        self.append(NEW)
        self.assertEqual(self.file_text(), NEW_LINE + "\n",
                         msg=t("exercise_tests.jsonl_writer.empty_file", got=self.file_text()))

    def test_missing_file_is_created(self) -> None:
        self.append(NEW)
        self.assertTrue(self.path.exists(), msg=t("exercise_tests.jsonl_writer.creates_file"))
        self.assertEqual(self.file_text(), NEW_LINE + "\n",
                         msg=t("exercise_tests.jsonl_writer.new_file_one_line",
                               got=self.file_text()))

    def test_crlf_file_already_ends_with_newline(self) -> None:
        self.path.write_bytes(f"{HEADER_LINE}\r\n".encode())
        self.append(NEW)
        expected = f"{HEADER_LINE}\r\n{NEW_LINE}\n"
        self.assertEqual(self.file_text(), expected,
                         msg=t("exercise_tests.jsonl_writer.crlf", got=self.file_text()))

    def test_two_appends_make_two_lines(self) -> None:
        self.path.write_bytes(f"{HEADER_LINE}\n".encode())
        self.append({"type": "label", "id": "l1", "parentId": None, "targetId": "x"})
        self.append({"type": "label", "id": "l2", "parentId": "l1", "targetId": "x"})
        lines = self.file_text().split("\n")
        self.assertEqual(len(lines), 4,
                         msg=t("exercise_tests.jsonl_writer.two_lines", got=lines))
        self.assertEqual([json.loads(text)["id"] for text in lines[1:3]], ["l1", "l2"],
                         msg=t("exercise_tests.jsonl_writer.two_lines_in_order", got=lines))

    def test_existing_bytes_are_never_rewritten(self) -> None:
        before = f"{HEADER_LINE}\n{FIRST_LINE[:30]}".encode()
        self.path.write_bytes(before)
        inode = self.path.stat().st_ino
        self.append(NEW)
        self.assertTrue(self.path.read_bytes().startswith(before),
                        msg=t("exercise_tests.jsonl_writer.never_rewritten"))
        self.assertEqual(self.path.stat().st_ino, inode,
                         msg=t("exercise_tests.jsonl_writer.same_file"))


# --------------------------------------------------------------------------------------
# The reference only
# --------------------------------------------------------------------------------------

reference_only = pytest.mark.skipif(not is_reference(),
                                    reason="checks learn_pi_lab.jsonl.writer itself, not a workspace")
EIGHT_HEX = re.compile(r"^[0-9a-f]{8}$")
FIXED = datetime(2026, 3, 1, 10, 0, 0, 123456, tzinfo=timezone.utc)


class EveryEightCharacterId:
    """An id index that already holds every 8-character string."""

    def __contains__(self, candidate: object) -> bool:
        return isinstance(candidate, str) and len(candidate) == 8


@reference_only
class TestIdsAndTimes:
    def test_entry_id_is_eight_lowercase_hex(self) -> None:
        assert all(EIGHT_HEX.match(new_entry_id(set())) for _ in range(50))

    def test_entry_id_avoids_existing_ids(self) -> None:
        rng = random.Random(3)
        first = new_entry_id(set(), random.Random(3))
        second = new_entry_id({first}, rng)
        assert second != first and EIGHT_HEX.match(second)

    def test_entry_id_is_repeatable_with_a_seeded_rng(self) -> None:
        assert new_entry_id(set(), random.Random(7)) == new_entry_id(set(), random.Random(7))

    def test_entry_id_falls_back_to_a_uuid_after_100_collisions(self) -> None:
        fallback = new_entry_id(EveryEightCharacterId(), random.Random(1))
        assert len(fallback) == 36 and fallback.count("-") == 4

    def test_iso_now_milliseconds_utc(self) -> None:
        assert iso_now(lambda: FIXED) == "2026-03-01T10:00:00.123Z"
        eastern = FIXED.astimezone(timezone(timedelta(hours=8)))
        assert iso_now(lambda: eastern) == "2026-03-01T10:00:00.123Z"
        assert iso_now(lambda: FIXED.replace(tzinfo=None)) == "2026-03-01T10:00:00.123Z"
        assert iso_now(lambda: FIXED.replace(microsecond=999_999)).endswith(":00.999Z")

    def test_iso_now_default_clock(self) -> None:
        assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", iso_now())


@reference_only
class TestSerialization:
    def test_to_json_line_is_compact_utf8(self) -> None:
        assert to_json_line(NEW) == NEW_LINE
        assert to_json_line({"a": "x\ny"}) == '{"a":"x\\ny"}'

    def test_to_json_line_refuses_nan(self) -> None:
        with pytest.raises(ValueError):
            to_json_line({"x": float("nan")})

    def test_order_like_pi(self) -> None:
        scrambled = {"message": {}, "timestamp": "t", "parentId": None, "type": "message", "id": "i"}
        assert list(order_like_pi(scrambled)) == ["type", "id", "parentId", "timestamp", "message"]
        custom = {"id": "i", "type": "custom_message", "parentId": "p", "timestamp": "t",
                  "customType": "c", "content": "x", "display": True, "details": {}}
        assert list(order_like_pi(custom)) == ["type", "customType", "content", "display",
                                               "details", "id", "parentId", "timestamp"]

    def test_new_header_key_order(self) -> None:
        header = new_header("/w", clock=lambda: FIXED, rng=random.Random(1))
        assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
        assert header["version"] == 3 and header["timestamp"] == "2026-03-01T10:00:00.123Z"
        forked = new_header("/w", session_id="abc", parent_session="data/branched.jsonl")
        assert list(forked)[-1] == "parentSession" and forked["id"] == "abc"


@reference_only
class TestAppendRefusesWhatIsNotAnEntry:
    """append_line on a wrong argument raises a typed error and leaves the file as it was."""

    def test_wrong_objects_are_named_and_the_file_is_untouched(self, tmp_path: Path) -> None:
        from learn_pi_lab.i18n import explain
        from learn_pi_lab.jsonl.reader import WrongArgument
        from learn_pi_lab.jsonl.writer import BadEntry, NotJsonValue

        path = tmp_path / "s.jsonl"
        path.write_text(HEADER_LINE + "\n", encoding="utf-8")
        deep: list = []
        inner = deep
        for _ in range(100_000):
            inner.append([])
            inner = inner[0]
        loop: dict = {}
        loop["self"] = loop
        cases = [(NEW_LINE, WrongArgument), (None, WrongArgument), ([NEW], WrongArgument),
                 ({"type": "message", "x": float("nan")}, BadEntry),
                 ({"type": "message", "x": deep}, BadEntry), (loop, BadEntry),
                 ({"type": "message", "x": {1, 2}}, NotJsonValue),
                 ({"type": "message", "x": b"raw"}, NotJsonValue)]
        for obj, error in cases:
            with pytest.raises(error) as caught:
                append_line(path, obj)
            explain(caught.value)
        with pytest.raises(WrongArgument):
            append_line(None, NEW)   # type: ignore[arg-type]
        assert path.read_text(encoding="utf-8") == HEADER_LINE + "\n"


@reference_only
class TestWriteNewFile:
    def test_writes_header_and_lines(self, tmp_path: Path) -> None:
        path = tmp_path / "new.jsonl"
        write_new_file(path, json.loads(HEADER_LINE), [FIRST_LINE, NEW])
        assert path.read_text(encoding="utf-8") == f"{HEADER_LINE}\n{FIRST_LINE}\n{NEW_LINE}\n"

    def test_refuses_to_overwrite(self, tmp_path: Path) -> None:
        path = tmp_path / "new.jsonl"
        path.write_bytes(b"precious")
        with pytest.raises(FileExistsError):
            write_new_file(path, json.loads(HEADER_LINE), [])
        assert path.read_bytes() == b"precious"

    def test_refuses_a_line_with_a_newline(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError):
            write_new_file(tmp_path / "x.jsonl", HEADER_LINE, ['{"a":1}\n{"b":2}'])


def fixed_clock():
    moments = iter(FIXED + timedelta(seconds=n) for n in range(1000))
    return lambda: next(moments)


@reference_only
class TestNewFilesAreWholeOrAbsent:
    """A fork or a migrated copy appears complete, or not at all: no 0-byte file blocks a retry."""

    LINES = [{"type": "message", "id": "a", "parentId": None}]
    HEADER = json.loads(HEADER_LINE)

    def names(self, folder: Path) -> list[str]:
        return sorted(item.name for item in folder.iterdir())

    def test_a_value_that_cannot_be_written_leaves_nothing(self, tmp_path: Path) -> None:
        target = tmp_path / "new.jsonl"
        with pytest.raises(ValueError):
            write_new_file(target, self.HEADER, [{"type": "message", "x": float("nan")}])
        with pytest.raises(TypeError):
            write_new_file(target, self.HEADER, [{"type": "message", "x": object()}])
        assert self.names(tmp_path) == []
        write_new_file(target, self.HEADER, self.LINES)      # the retry is not refused
        assert len(target.read_text().splitlines()) == 2

    def test_a_failure_while_writing_leaves_nothing(self, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
        from learn_pi_lab.jsonl import writer

        def disk_full(descriptor: int, data: bytes) -> None:
            os.write(descriptor, data[:10])             # half written, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(writer, "_write_all", disk_full)
        with pytest.raises(OSError) as caught:
            write_new_file(tmp_path / "new.jsonl", self.HEADER, self.LINES)
        assert caught.value.errno == errno.ENOSPC
        assert self.names(tmp_path) == [], "neither the new file nor its temporary file"

    def test_a_name_taken_at_the_last_moment_is_not_overwritten(self, tmp_path: Path) -> None:
        from learn_pi_lab.jsonl import writer

        target = tmp_path / "new.jsonl"
        target.write_text("someone else's\n")           # appears after the check
        with pytest.raises(OutputExists) as caught:
            writer._publish(target, b"mine\n")
        assert isinstance(caught.value, FileExistsError) and caught.value.filename == str(target)
        assert target.read_text() == "someone else's\n"
        assert self.names(tmp_path) == ["new.jsonl"]

    def test_empty_names_and_folders_are_refused(self, tmp_path: Path) -> None:
        for name, reason in (("", "empty"), (str(tmp_path), "directory"),
                             (str(tmp_path / "sub") + "/", "directory")):
            with pytest.raises(BadOutputPath) as caught:
                write_new_file(name, self.HEADER, [])
            assert caught.value.reason == reason and isinstance(caught.value, OSError)
        assert self.names(tmp_path) == []

    def test_the_new_file_has_ordinary_permissions(self, tmp_path: Path) -> None:
        target = tmp_path / "new.jsonl"
        write_new_file(target, self.HEADER, self.LINES)
        umask = os.umask(0)
        os.umask(umask)
        assert target.stat().st_mode & 0o777 == 0o666 & ~umask

    @pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
    def test_appending_to_a_fifo_is_refused_without_blocking(self, tmp_path: Path) -> None:
        fifo = tmp_path / "fifo.jsonl"
        os.mkfifo(fifo)
        with pytest.raises(BadOutputPath) as caught:
            append_line(fifo, {"type": "message"})
        assert caught.value.reason == "special"

    def test_lone_surrogates_are_escaped_not_a_crash(self, tmp_path: Path) -> None:
        obj = {"type": "message", "id": "s\ud800", "text": "a\udfffb 中"}
        text = to_json_line(obj)
        assert text.encode("utf-8") and "\\ud800" in text and "中" in text
        assert json.loads(text) == obj, "the escape reads back as the same string"
        write_new_file(tmp_path / "new.jsonl", self.HEADER, [obj])
        assert read_session(tmp_path / "new.jsonl").entries[0].obj["id"] == "s\ufffd"


@reference_only
class TestSessionWriter:
    def test_create_then_append_fills_id_parent_and_time(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        writer = SessionWriter(path, clock=fixed_clock(), rng=random.Random(5))
        writer.create(json.loads(HEADER_LINE))
        first = writer.append({"type": "model_change", "provider": "p", "modelId": "m"})
        second = writer.append({"type": "custom", "customType": "ext", "data": {"n": 1}})
        assert first["parentId"] is None and second["parentId"] == first["id"]
        assert EIGHT_HEX.match(first["id"]) and writer.leaf_id == second["id"]
        assert list(first) == ["type", "id", "parentId", "timestamp", "provider", "modelId"]
        assert list(second) == ["type", "customType", "data", "id", "parentId", "timestamp"]
        assert first["timestamp"] == "2026-03-01T10:00:00.123Z"
        session = read_session(path)
        assert session.objects() == [first, second] and session.diagnostics == []

    def test_same_seed_and_clock_give_the_same_bytes(self, tmp_path: Path) -> None:
        for name in ("one.jsonl", "two.jsonl"):
            writer = SessionWriter(tmp_path / name, clock=fixed_clock(), rng=random.Random(9))
            writer.create(json.loads(HEADER_LINE))
            writer.append({"type": "thinking_level_change", "thinkingLevel": "high"})
        assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()

    def test_existing_file_continues_from_its_last_entry(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        path.write_text(f"{HEADER_LINE}\n{FIRST_LINE}\n", encoding="utf-8")
        writer = SessionWriter(path)
        assert writer.ids == {"a1"} and writer.leaf_id == "a1"
        written = writer.append({"type": "label", "targetId": "a1", "label": "start"})
        assert written["parentId"] == "a1" and written["id"] != "a1"

    def test_branch_by_moving_the_leaf(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        writer = SessionWriter(path, rng=random.Random(2))
        writer.create(json.loads(HEADER_LINE))
        root = writer.append({"type": "model_change", "provider": "p", "modelId": "m"})
        writer.append({"type": "thinking_level_change", "thinkingLevel": "low"})
        writer.leaf_id = root["id"]
        sibling = writer.append({"type": "thinking_level_change", "thinkingLevel": "high"})
        assert sibling["parentId"] == root["id"]

    def test_explicit_null_parent_makes_a_new_root(self, tmp_path: Path) -> None:
        writer = SessionWriter(tmp_path / "s.jsonl", rng=random.Random(2))
        writer.create(json.loads(HEADER_LINE))
        writer.append({"type": "model_change", "provider": "p", "modelId": "m"})
        assert writer.append({"type": "session_info", "parentId": None, "name": "x"})["parentId"] is None

    def test_refusals(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        with pytest.raises(FileNotFoundError):
            SessionWriter(path).append({"type": "label", "targetId": "x"})
        writer = SessionWriter(path)
        writer.create(json.loads(HEADER_LINE))
        with pytest.raises(FileExistsError):
            writer.create(json.loads(HEADER_LINE))
        writer.append({"type": "label", "id": "aaaaaaaa", "targetId": "x"})
        with pytest.raises(DuplicateEntryId):
            writer.append({"type": "label", "id": "aaaaaaaa", "targetId": "x"})
        with pytest.raises(ValueError):
            writer.append({"id": "bbbbbbbb"})

    def test_refuses_ids_no_parent_could_name_and_objects_that_are_no_entry(
            self, tmp_path: Path) -> None:
        from learn_pi_lab.i18n import explain
        from learn_pi_lab.jsonl.reader import WrongArgument
        from learn_pi_lab.session_tree import EmptyEntryId, NonStringId

        path = tmp_path / "s.jsonl"
        writer = SessionWriter(path)
        writer.create(json.loads(HEADER_LINE))
        for obj, error in (({"type": "label", "id": 5}, NonStringId),
                           ({"type": "label", "id": ["x"]}, NonStringId),
                           ({"type": "label", "id": ""}, EmptyEntryId),
                           (None, WrongArgument), ('{"type":"label"}', WrongArgument)):
            with pytest.raises(error) as caught:
                writer.append(obj)   # type: ignore[arg-type]
            explain(caught.value)
        assert path.read_text(encoding="utf-8") == HEADER_LINE + "\n"
        with pytest.raises(WrongArgument):
            SessionWriter(None)   # type: ignore[arg-type]

    def test_refuses_an_old_version_file(self, tmp_path: Path) -> None:
        path = tmp_path / "v1.jsonl"
        original = '{"type":"session","id":"old","timestamp":"t","cwd":"/w"}\n' \
                   '{"type":"message","timestamp":"t","message":{"role":"user","content":"u"}}\n'
        path.write_text(original, encoding="utf-8")
        with pytest.raises(ValueError):
            SessionWriter(path)
        assert path.read_text(encoding="utf-8") == original

    def test_append_after_a_torn_line_starts_a_fresh_line(self, tmp_path: Path) -> None:
        path = tmp_path / "s.jsonl"
        path.write_text(f"{HEADER_LINE}\n{FIRST_LINE}\n{FIRST_LINE[:20]}", encoding="utf-8")
        writer = SessionWriter(path, rng=random.Random(4))
        written = writer.append({"type": "label", "targetId": "a1"})
        session = read_session(path)
        assert [loaded.obj["id"] for loaded in session.entries] == ["a1", written["id"]]
        assert [(d.line, d.code) for d in session.diagnostics] == [(3, "corrupt-line")]


if __name__ == "__main__":
    unittest.main()
