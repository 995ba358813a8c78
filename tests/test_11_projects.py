"""Chapter 07 project: the session inspector, ``inspect_session(path) -> dict``.

``InspectSessionTests`` grades the reference (``learn_pi_lab.session_inspector``) and a
learner's ``workspace/ch07_inspector.py``: every file it reads is written by the test into a
temporary folder, so it needs nothing else from the repository. The other classes check the
reference only: against the course's own loader on every file in ``data/``, against counts
made by hand, on the public Pi files, on damage the loader must agree about, and for the
two promises (read-only, flat memory).

Run with ``python3 -m unittest tests.test_11_projects -v`` or with pytest.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import lzma
import os
import random
import re
import shutil
import tempfile
import tracemalloc
import unittest
import unittest.mock
from pathlib import Path

from learn_pi_lab import session_inspector as inspector_reference
from learn_pi_lab.i18n import explain, t
from learn_pi_lab.cli.report_text import render_report
from tests import drawn
from tests.targets import is_reference, load_target

impl = load_target("ch07_inspector", "learn_pi_lab.session_inspector")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
SHARED_PI = ROOT.parent / "shared" / "pi-sessions"
T0 = "2026-03-01T10:00:00.000Z"


def header(**extra) -> dict:
    return {"type": "session", "version": 3, "id": "sess-1", "timestamp": T0, "cwd": "/w/p",
            **extra}


def entry(kind: str, entry_id: str, parent_id: str | None, **fields) -> dict:
    return {"type": kind, "id": entry_id, "parentId": parent_id, "timestamp": T0, **fields}


def user(entry_id: str, parent_id: str | None, text: str = "hi") -> dict:
    return entry("message", entry_id, parent_id,
                 message={"role": "user", "content": [{"type": "text", "text": text}],
                          "timestamp": 1})


def assistant(entry_id: str, parent_id: str | None, provider: str = "acme",
              model: str = "alpha") -> dict:
    return entry("message", entry_id, parent_id,
                 message={"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                          "provider": provider, "model": model, "stopReason": "stop",
                          "timestamp": 2})


def model_change(entry_id: str, parent_id: str | None, provider: str = "acme",
                 model: str = "alpha") -> dict:
    return entry("model_change", entry_id, parent_id, provider=provider, modelId=model)


def jsonl(*objects: dict) -> str:
    return "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in objects)


class _TempFiles(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.folder = Path(self._tmp.name)

    def write(self, text: str, name: str = "session.jsonl") -> Path:
        path = self.folder / name
        path.write_bytes(text.encode("utf-8"))
        return path

    def inspect(self, text: str, name: str = "session.jsonl") -> dict:
        return impl.inspect_session(self.write(text, name))


# --------------------------------------------------------------------------------------
# The exercise (reference and workspace)
# --------------------------------------------------------------------------------------

LINEAR = (header(), model_change("m", None),
          entry("thinking_level_change", "t", "m", thinkingLevel="high"),
          user("u1", "t"), assistant("a1", "u1"), user("u2", "a1"), assistant("a2", "u2"))

BRANCHED = (header(parentSession="/w/old.jsonl"), model_change("m", None),
            user("u1", "m"), assistant("a1", "u1"),
            user("u2", "a1", "strategy pattern"), assistant("a2", "u2", "other", "beta"),
            entry("branch_summary", "b", "a1", fromId="a1", summary="tried strategies"),
            user("u2b", "b", "composition"), assistant("a2b", "u2b"),
            entry("compaction", "c", "a2b", summary="s", firstKeptEntryId="u2b",
                  tokensBefore=10))


# Drawn inputs (tests/drawn.py): a small session file (a v3 header, sometimes with
# parentSession; entries of the types the report counts, in file order or shuffled so that
# parents come after children; 0 to 2 parents nobody has; names with white space around
# them or empty; labels that set, override and clear) with, now and then, each kind of
# file-level damage (drawn.file_text), one in five compressed (.jsonl.xz). Compared: the
# sixteen keys the contract names (not the package's extras), with ``diagnostics`` as
# chapter 04 compares them (the lines in order, the problems of one line in any order).
# Not drawn, because the contract leaves them open: a file that is no session at all, ids,
# types, roles, models or names that are not strings, a name of white space only, old
# versions. Parent loops and self-parents are drawn (drawn.parent_damage): the contract cuts a
# loop at its first entry in the file, and an entry that is its own parent is a loop of one.
INSPECT_KINDS = {"message": 5, "model_change": 1, "label": 1, "session_info": 1,
                 "compaction": 0.5, "branch_summary": 0.5, "custom": 0.5,
                 "custom_message": 0.5, "thinking_level_change": 0.5}
REPORT_KEYS = ("version", "session_id", "cwd", "parent_session", "entries", "by_type",
               "by_role", "compactions", "branch_summaries", "labels", "name", "roots",
               "leaves", "max_depth", "models", "diagnostics")
_drawn_files: dict[str, str] = {}   # temporary folder -> the drawn files' folder in it
_drawn_texts: dict[str, str] = {}   # a drawn file's path -> its text (what the message shows)


def drawn_folder() -> Path:
    """A folder for the drawn files, made the first time in this run's temporary folder
    (graded: the test's shared folder, which the worker sees) and removed at exit."""
    where = tempfile.gettempdir()
    folder = _drawn_files.get(where)
    if folder is None or not os.path.isdir(folder):
        folder = _drawn_files[where] = tempfile.mkdtemp(prefix="drawn-sessions-")
        atexit.register(shutil.rmtree, folder, True)
    return Path(folder)


def draw_session_file(rng: random.Random, size: int) -> tuple:
    entries = drawn.session(rng, size, INSPECT_KINDS)
    for entry in entries:
        if entry["type"] == "session_info" and rng.random() < 0.5:
            entry["name"] = rng.choice(("", f"  {entry['name']} ", f"\t{entry['name']}"))
    entries = drawn.parent_damage(rng, entries, rng.choice((0, 0, 1, 2)))
    if rng.random() < 0.3:   # children before their parents
        rng.shuffle(entries)
    text = drawn.file_text(rng, drawn.header(rng), entries, damage=0.2)
    compressed = rng.random() < 0.2
    data = text.encode("utf-8")
    name = hashlib.sha256(data).hexdigest()[:16] + (".jsonl.xz" if compressed else ".jsonl")
    path = drawn_folder() / name
    # Written every time it is drawn, never taken as found: the folder is one the learner's
    # code can write, and a file it changed must not stand in for a later case that draws
    # the same text.
    path.write_bytes(lzma.compress(data) if compressed else data)
    _drawn_texts[str(path)] = ("(xz) " if compressed else "") + drawn.text_shown(text)
    return (str(path),)


def report_fixed(report: object) -> dict:
    """The keys the contract fixes, ``diagnostics`` as chapter 04 compares them."""
    fixed = {key: report[key] for key in REPORT_KEYS}   # type: ignore[index]
    fixed["diagnostics"] = drawn.ProblemsByLine(fixed["diagnostics"])
    return fixed


class ReportDrawn(drawn.Drawn):
    """Reports are long: a difference shows only the keys where the two reports differ."""

    differing: tuple[str, ...] = ()

    def agree(self, want: drawn.Outcome, got: drawn.Outcome, args: tuple) -> bool:
        self.differing = ()
        same = super().agree(want, got, args)
        if not same and want.error is None and got.error is None:
            try:
                mine, theirs = report_fixed(want.value), report_fixed(got.value)
                self.differing = tuple(key for key in REPORT_KEYS if mine[key] != theirs[key])
            except Exception:
                self.differing = ()
        return same

    def said(self, outcome: drawn.Outcome) -> str:
        if outcome.error is None and self.differing:
            fixed = report_fixed(outcome.value)
            return drawn.cut(repr({key: fixed[key] for key in self.differing}),
                             drawn.SHOWN_ANSWER)
        return super().said(outcome)


INSPECT_SESSION_DRAWN = ReportDrawn(
    "inspect-session", reference=inspector_reference.inspect_session, answer=report_fixed,
    draw=draw_session_file, shown=lambda args: _drawn_texts[args[0]])


class InspectSessionTests(_TempFiles):
    def test_a_linear_session(self) -> None:
        report = self.inspect(jsonl(*LINEAR))
        expected = {"version": 3, "session_id": "sess-1", "cwd": "/w/p", "parent_session": None,
                    "entries": 6,
                    "by_type": {"model_change": 1, "thinking_level_change": 1, "message": 4},
                    "by_role": {"user": 2, "assistant": 2}, "compactions": 0,
                    "branch_summaries": 0, "labels": {}, "name": None, "roots": ["m"],
                    "leaves": ["a2"], "max_depth": 5, "models": ["acme/alpha"],
                    "diagnostics": []}
        for key, value in expected.items():
            self.assertIn(key, report, msg=t("exercise_tests.projects.report_needs_key", name=key))
            self.assertEqual(report[key], value,
                             msg=t("exercise_tests.projects.linear_max_depth" if key == "max_depth"
                                   else "exercise_tests.projects.linear_session_value",
                                   name=key, want=value, got=report[key]))

    def test_a_branched_session(self) -> None:
        report = self.inspect(jsonl(*BRANCHED))
        self.assertEqual(report["parent_session"], "/w/old.jsonl",
                         msg=t("exercise_tests.projects.parent_session"))
        self.assertEqual(report["entries"], 9)
        self.assertEqual(report["by_type"], {"model_change": 1, "message": 6,
                                             "branch_summary": 1, "compaction": 1})
        self.assertEqual(report["by_role"], {"user": 3, "assistant": 3})
        self.assertEqual((report["compactions"], report["branch_summaries"]), (1, 1))
        self.assertEqual(report["roots"], ["m"])
        self.assertEqual(report["leaves"], ["a2", "c"],
                         msg=t("exercise_tests.projects.leaves_in_file_order"))
        self.assertEqual(report["max_depth"], 6,
                         msg=t("exercise_tests.projects.branched_max_depth"))
        self.assertEqual(report["models"], ["acme/alpha", "other/beta"],
                         msg=t("exercise_tests.projects.models"))

    def test_several_roots(self) -> None:
        report = self.inspect(jsonl(header(), user("r1", None), assistant("a1", "r1"),
                                    user("r2", None), assistant("a2", "r2"), user("a3", "a2")))
        self.assertEqual(report["roots"], ["r1", "r2"],
                         msg=t("exercise_tests.projects.roots"))
        self.assertEqual(report["leaves"], ["a1", "a3"])
        self.assertEqual(report["max_depth"], 2)

    def test_leaves_and_roots_are_in_file_order_and_an_orphan_is_a_root(self) -> None:
        # (a learner's review: sorted leaves and "parentId is null" roots passed)
        report = self.inspect(jsonl(header(), user("r", None), assistant("z1", "r"),
                                    assistant("a1", "r"), user("orphan", "gone")))
        self.assertEqual(report["leaves"], ["z1", "a1", "orphan"],
                         msg=t("exercise_tests.projects.leaves_in_file_order"))
        self.assertEqual(report["roots"], ["r", "orphan"],
                         msg=t("exercise_tests.projects.orphan_is_a_root", got=report["roots"]))

    def test_a_parent_cycle_does_not_hang_the_depth(self) -> None:
        report = self.inspect(jsonl(header(), user("r", None), user("x", "y"),
                                    assistant("y", "x")))
        self.assertEqual(report["diagnostics"], [[3, "cycle"]],   # (and it returned at all)
                         msg=t("exercise_tests.projects.cycle", got=report["diagnostics"]))

    def test_a_loop_is_cut_at_its_first_entry_which_is_a_root(self) -> None:
        # (a helper's finding: the model answer left a loop out of the roots, and passed)
        report = self.inspect(jsonl(header(), user("r", None), user("x", "y"),
                                    assistant("y", "x"), user("s", "s"), assistant("t", "s"),
                                    user("below", "x")))
        self.assertEqual(report["roots"], ["r", "x", "s"],
                         msg=t("exercise_tests.projects.loop_first_entry_is_a_root",
                               got=report["roots"]))
        self.assertEqual((report["leaves"], report["max_depth"]), (["r", "y", "t", "below"], 1))

    def test_an_entry_whose_parent_comes_later_in_the_file(self) -> None:
        report = self.inspect(jsonl(header(), user("r", None), assistant("late-child", "p"),
                                    user("p", "r")))
        self.assertEqual(report["leaves"], ["late-child"])
        self.assertEqual(report["max_depth"], 2,
                         msg=t("exercise_tests.projects.parent_after_child"))
        self.assertEqual(report["diagnostics"], [])

    def test_labels_and_name_are_resolved_latest_wins(self) -> None:
        objects = (header(), user("u1", None), assistant("a1", "u1"),
                   entry("label", "l1", "a1", targetId="u1", label="start"),
                   entry("label", "l2", "l1", targetId="a1", label="first"),
                   entry("label", "l3", "l2", targetId="a1", label="better"),
                   entry("label", "l4", "l3", targetId="u1", label=""),
                   entry("session_info", "n1", "l4", name="Refactor"),
                   entry("session_info", "n2", "n1", name="  Payments refactor  "))
        report = self.inspect(jsonl(*objects))
        self.assertEqual(report["labels"], {"a1": "better"},
                         msg=t("exercise_tests.projects.labels"))
        self.assertEqual(report["name"], "Payments refactor",
                         msg=t("exercise_tests.projects.name"))
        self.assertEqual(report["by_type"], {"message": 2, "label": 4, "session_info": 2})

    def test_an_empty_name_clears_the_name(self) -> None:
        report = self.inspect(jsonl(header(), user("u1", None),
                                    entry("session_info", "n1", "u1", name="Old"),
                                    entry("session_info", "n2", "n1", name="")))
        self.assertIsNone(report["name"], msg=t("exercise_tests.projects.empty_name"))

    def test_a_file_without_version_is_version_1(self) -> None:
        v1_header = {"type": "session", "id": "old", "timestamp": T0, "cwd": "/w"}
        v1_lines = [{"type": "message", "timestamp": T0,
                     "message": {"role": "user", "content": "hi", "timestamp": 1}},
                    {"type": "message", "timestamp": T0,
                     "message": {"role": "assistant", "content": [], "provider": "acme",
                                 "model": "alpha", "timestamp": 2}},
                    {"type": "thinking_level_change", "timestamp": T0, "thinkingLevel": "low"}]
        report = self.inspect(jsonl(v1_header, *v1_lines))
        self.assertEqual(report["version"], 1, msg=t("exercise_tests.projects.no_version"))
        self.assertEqual(report["entries"], 3)
        self.assertEqual(report["by_role"], {"user": 1, "assistant": 1})
        self.assertEqual((len(report["roots"]), len(report["leaves"]), report["max_depth"]),
                         (1, 1, 2), msg=t("exercise_tests.projects.v1_is_one_chain"))

    def test_damaged_lines_are_reported_with_their_line_numbers(self) -> None:
        text = (jsonl(header(), user("u1", None)) + "{oops\n" + "\n"
                + jsonl(assistant("a1", "u1")) + '{"type":"message","id":"x')
        report = self.inspect(text)
        self.assertEqual(report["diagnostics"],
                         [[3, "corrupt-line"], [4, "blank-line"], [6, "torn-last-line"]],
                         msg=t("exercise_tests.projects.diagnostics"))
        self.assertEqual(report["entries"], 2,
                         msg=t("exercise_tests.projects.damaged_lines_not_entries"))
        self.assertEqual(report["leaves"], ["a1"])

    def test_duplicates_and_a_missing_parent(self) -> None:
        text = jsonl(header(), user("u1", None), assistant("a1", "u1"), assistant("a1", "u1"),
                     user("u2", "gone"))
        report = self.inspect(text)
        self.assertEqual(report["diagnostics"], [[4, "duplicate-entry"], [5, "dangling-parent"]])
        self.assertEqual(report["entries"], 3,
                         msg=t("exercise_tests.projects.identical_reappend"))

    def test_a_compressed_file(self) -> None:
        path = self.folder / "session.jsonl.xz"
        with lzma.open(path, "wt", encoding="utf-8") as handle:
            handle.write(jsonl(*LINEAR))
        report = impl.inspect_session(path)
        self.assertEqual((report["entries"], report["leaves"]), (6, ["a2"]),
                         msg=t("exercise_tests.projects.compressed_file"))

    def test_the_file_is_left_exactly_as_it_was(self) -> None:
        path = self.write(jsonl(*BRANCHED) + '{"torn')
        before = path.read_bytes()
        stamp = 1_700_000_000
        os.utime(path, (stamp, stamp))
        impl.inspect_session(path)
        self.assertEqual(path.read_bytes(), before,
                         msg=t("exercise_tests.projects.never_write"))
        self.assertEqual(int(path.stat().st_mtime), stamp,
                         msg=t("exercise_tests.projects.not_even_touch"))

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        INSPECT_SESSION_DRAWN.check(self, impl.inspect_session)


# --------------------------------------------------------------------------------------
# The reference only
# --------------------------------------------------------------------------------------

def data_files() -> list[Path]:
    files = sorted(DATA.glob("*.jsonl")) + sorted((DATA / "pi").glob("*/*.jsonl*"))
    return [path for path in files if path.is_file()]


@unittest.skipUnless(is_reference(), "checks learn_pi_lab.session_inspector itself")
class AgreesWithTheLoaderTests(unittest.TestCase):
    """The streaming report and a whole-file teaching-mode load must tell the same story."""

    def test_there_are_data_files(self) -> None:
        self.assertGreaterEqual(len(data_files()), 15, msg="data/ should hold the course files")

    def test_every_data_file(self) -> None:
        from learn_pi_lab.pi.session import load_session

        for path in data_files():
            with self.subTest(file=path.relative_to(ROOT).as_posix()):
                report = impl.inspect_session(path)
                session = load_session(path)
                tree = session.tree
                objects = session.entries
                self.assertEqual(report["entries"], len(objects))
                by_type: dict[str, int] = {}
                for obj in objects:
                    by_type[obj["type"]] = by_type.get(obj["type"], 0) + 1
                self.assertEqual(report["by_type"], by_type)
                self.assertEqual(report["roots"], [e.id for e in tree.roots()])
                self.assertEqual(report["leaves"], [e.id for e in tree.leaves()])
                self.assertEqual(report["max_depth"],
                                 max((tree.depth(e.id) for e in tree.leaves()), default=0))
                self.assertEqual(report["diagnostics"],
                                 [[found.line, found.code] for found in session.diagnostics])
                self.assertEqual(report["labels"], session.labels())
                self.assertEqual(report["name"], session.name())
                self.assertEqual(report["leaf"], session.leaf_id)
                self.assertEqual(report["session_id"], session.header["id"])

    def test_entry_counts_match_the_hand_made_table_in_data_readme(self) -> None:
        readme = (DATA / "README.md").read_text(encoding="utf-8")
        rows = re.findall(r"^\| `([\w.-]+\.jsonl)` \| (\d+) / (\d+) \|", readme, re.MULTILINE)
        self.assertGreaterEqual(len(rows), 15, msg="data/README.md lists lines / entries")
        for name, lines, entries in rows:
            with self.subTest(file=name):
                path = DATA / name
                report = impl.inspect_session(path)
                self.assertEqual(report["entries"], int(entries))
                with path.open("rb") as handle:
                    self.assertEqual(sum(1 for _ in handle), int(lines))

    def test_no_data_file_changes(self) -> None:
        for path in data_files():
            with self.subTest(file=path.name):
                before = (path.read_bytes(), path.stat().st_mtime_ns)
                impl.inspect_session(path)
                self.assertEqual((path.read_bytes(), path.stat().st_mtime_ns), before)


def public_file(relative: str) -> Path | None:
    for folder in (DATA / "pi", SHARED_PI):
        if (folder / relative).is_file():
            return folder / relative
    return None


@unittest.skipUnless(is_reference(), "checks learn_pi_lab.session_inspector itself")
class PublicPiFilesTests(unittest.TestCase):
    """Counts read off the public files by hand (pi-session-format.md section 12)."""

    def report(self, relative: str) -> dict:
        path = public_file(relative)
        if path is None:
            self.skipTest(f"{relative} is neither in data/pi nor in ../shared/pi-sessions")
        return impl.inspect_session(path)

    def test_branching(self) -> None:
        report = self.report("pi-session-inspector/branching.jsonl")
        self.assertEqual(report["entries"], 8)
        self.assertEqual(report["by_type"], {"compaction": 1, "future_entry": 1, "message": 5,
                                             "model_change": 1})
        self.assertEqual(report["by_role"], {"assistant": 3, "toolResult": 1, "user": 1})
        self.assertEqual((report["roots"], report["leaves"]), (["e1"], ["e6", "e8"]))
        self.assertEqual(report["max_depth"], 5)   # e1 e2 e3 e4 e5 e6
        self.assertEqual(report["models"], ["acme/alpha"])
        self.assertEqual(report["diagnostics"], [[9, "unknown-type"]])
        self.assertEqual((report["leaf"], report["branch_points"]), ("e8", 1))
        self.assertEqual(report["usage"]["totalTokens"], 15 + 4 + 3 + 20 + 30)

    def test_small(self) -> None:
        report = self.report("agent-sessions/small.jsonl")
        self.assertEqual(report["compactions"], 2)
        self.assertEqual((report["entries"], report["max_depth"]), (8, 7))
        self.assertEqual((report["roots"], report["leaves"]), (["f7c7091e"], ["2c19d326"]))
        self.assertEqual(report["models"], ["pi-fixture/pi-fixture-model"])

    def test_large_v1_session(self) -> None:
        report = self.report("pi-mono/large-session.jsonl.xz")
        self.assertEqual(report["version"], 1)
        self.assertEqual(report["by_type"], {"message": 914, "model_change": 1,
                                             "thinking_level_change": 103})
        self.assertEqual(report["entries"], 1018)
        self.assertEqual(report["max_depth"], 1017, msg="v1 is one chain: 1018 entries deep")
        self.assertEqual(report["diagnostics"], [[1, "migrated"]])

    def test_v1_ids_are_the_ones_the_reader_gives(self) -> None:
        from learn_pi_lab.jsonl.reader import read_session

        for path in (DATA / "v1.jsonl", public_file("pi-mono/large-session.jsonl.xz")):
            if path is None or not path.is_file():
                continue
            ids = [loaded.obj["id"] for loaded in read_session(path).entries]
            report = impl.inspect_session(path)
            self.assertEqual((report["roots"], report["leaves"]), ([ids[0]], [ids[-1]]))


@unittest.skipUnless(is_reference(), "checks learn_pi_lab.session_inspector itself")
class DamageTests(_TempFiles):
    def agree(self, text: str) -> dict:
        from learn_pi_lab.pi.session import load_session

        path = self.write(text)
        report = impl.inspect_session(path)
        session = load_session(path)
        self.assertEqual(report["diagnostics"],
                         [[found.line, found.code] for found in session.diagnostics])
        self.assertEqual(report["roots"], [e.id for e in session.tree.roots()])
        self.assertEqual(report["leaves"], [e.id for e in session.tree.leaves()])
        self.assertEqual([found["detail"] for found in report["problems"]],
                         [found.detail for found in session.diagnostics])
        return report

    def test_cycle_and_self_parent_are_cut_like_the_loader(self) -> None:
        report = self.agree(jsonl(header(), user("r", None), user("x", "y"), user("y", "x"),
                                  user("s", "s"), user("below", "x")))
        self.assertEqual(report["diagnostics"], [[3, "cycle"], [5, "self-parent"]])
        self.assertEqual(report["max_depth"], 1,
                         msg="the cycle is cut at x (its first line): x(0), y(1), below(1)")

    def test_glued_line_conflicting_duplicate_extra_header_missing_id(self) -> None:
        text = (jsonl(header(), user("u1", None))
                + json.dumps(assistant("a1", "u1")) + json.dumps(user("u2", "a1")) + "\n"
                + jsonl(user("u2", "u1"), header(), {"type": "message", "parentId": "u2"},
                        entry("mystery", "z", "u2")) + "\r\n")
        self.agree(text)

    def test_crlf_bom_and_v2_hook_message(self) -> None:
        v2 = {**header(), "version": 2}
        hook = entry("message", "h", "u1", message={"role": "hookMessage", "content": "x",
                                                    "display": True, "timestamp": 1})
        text = "\ufeff" + jsonl(v2, user("u1", None), hook).replace("\n", "\r\n")
        report = self.agree(text)
        self.assertEqual(report["by_role"], {"custom": 1, "user": 1},
                         msg="v2 -> v3 renames hookMessage to custom, as the reader does")
        self.assertEqual(report["version"], 2)

    def test_not_a_session(self) -> None:
        from learn_pi_lab.jsonl.reader import NotASessionFile

        for text in ("", "\n\n", jsonl(user("u1", None)), "[1,2]\n"):
            with self.subTest(text=text), self.assertRaises(NotASessionFile):
                impl.inspect_session(self.write(text))
        with self.assertRaises(NotASessionFile):
            impl.inspect_session(self.folder / "missing.jsonl")
        with self.assertRaises(NotASessionFile):
            impl.inspect_session(self.folder)

    def test_report_is_plain_json(self) -> None:
        report = impl.inspect_session(self.write(jsonl(*BRANCHED)))
        self.assertEqual(json.loads(json.dumps(report)), report)


@unittest.skipUnless(is_reference(), "checks learn_pi_lab.session_inspector itself")
class StreamingTests(_TempFiles):
    def test_tree_problems_are_capped_like_the_readers(self) -> None:
        """5,000 entries whose parents are all missing: every one counted, a hundred listed
        (each was kept and printed: a million took 241 s and 1 GB)."""
        path = self.folder / "dangling.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(header()) + "\n")
            for number in range(5000):
                handle.write(json.dumps(user(f"e{number}", f"missing{number}", "x")) + "\n")
        from learn_pi_lab.jsonl.reader import Limits
        from learn_pi_lab.session_inspector import inspect_session_as
        report = inspect_session_as(path, "0.84.2", limits=Limits(max_examples=100))
        self.assertEqual(report["problem_counts"]["dangling-parent"], 5000)
        listed = [problem for problem in report["problems"]
                  if problem["code"] == "dangling-parent"]
        self.assertEqual(len(listed), 100)
        self.assertEqual(listed[0]["line"], 2)
        more = [problem for problem in report["problems"]
                if problem["code"] == "more-diagnostics"]
        self.assertEqual([(problem["detail"], problem["count"]) for problem in more],
                         [("dangling-parent", 4900)])

    def test_memory_does_not_grow_with_entry_size(self) -> None:
        """A 20 MB file of 4,000 entries: the inspector keeps facts, not entries."""
        blob = "x" * 5000
        path = self.folder / "big.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(header()) + "\n")
            parent = None
            for number in range(4000):
                entry_id = f"{number:08x}"
                handle.write(json.dumps(user(entry_id, parent, blob)) + "\n")
                parent = entry_id
        size = path.stat().st_size
        tracemalloc.start()
        try:
            report = impl.inspect_session(path)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertEqual((report["entries"], report["max_depth"]), (4000, 3999))
        self.assertLess(peak, size / 8,
                        msg=f"peak {peak:,} bytes while reading a {size:,}-byte file")

    def peak_while_inspecting(self, path: Path) -> tuple[dict, int]:
        tracemalloc.start()
        try:
            report = impl.inspect_session(path)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        return report, peak

    def test_memory_per_entry_is_a_few_dozen_bytes(self) -> None:
        """30,000 small entries (Pi's 8-hex ids): about 24 bytes each, not 200."""
        path = self.folder / "chain.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(header()) + "\n")
            line = ('{"type":"message","id":"%08x","parentId":%s,"timestamp":"%s",'
                    '"message":{"role":"user","content":"hi"}}\n')
            handle.write(line % (0, "null", T0))
            handle.writelines(line % (n, f'"{n - 1:08x}"', T0) for n in range(1, 30_000))
        report, peak = self.peak_while_inspecting(path)
        self.assertEqual((report["entries"], report["max_depth"]), (30_000, 29_999))
        self.assertLess(peak / 30_000, 48, msg=f"{peak / 30_000:.1f} bytes per entry")

    def test_a_flood_of_bad_lines_costs_nothing_per_line(self) -> None:
        path = self.folder / "bad.jsonl"
        path.write_text(json.dumps(header()) + "\n" + "{bad\n" * 20_000, encoding="utf-8")
        report, peak = self.peak_while_inspecting(path)
        self.assertEqual(report["problem_counts"], {"corrupt-line": 20_000})
        self.assertLess(peak, 1_000_000, msg=f"peak {peak:,} bytes for 20,000 bad lines")


@unittest.skipUnless(is_reference(), "checks learn_pi_lab.session_inspector itself")
class RenderReportTests(unittest.TestCase):
    def test_both_languages(self) -> None:
        path = public_file("pi-session-inspector/branching.jsonl") or DATA / "branched.jsonl"
        report = impl.inspect_session(path)
        for lang in ("zh", "en"):
            text = render_report(report, lang)
            self.assertIn(report["session_id"], text)
            self.assertIn(str(report["entries"]), text)
            for found in report["problems"]:
                self.assertIn(str(found["line"]), text)
        self.assertNotEqual(render_report(report, "zh"), render_report(report, "en"))

    def test_a_flood_of_problems_is_summarised_not_listed(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "flood.jsonl"
            path.write_text(json.dumps(header()) + "\n" + "{bad\n" * 500, encoding="utf-8")
            report = impl.inspect_session(path)
            text = render_report(report, "en")
        self.assertIn("Problems: 500", text)
        self.assertIn("400 more corrupt-line diagnostics", text)
        self.assertLess(len(text.splitlines()), 130)


@unittest.skipUnless(is_reference(), "checks learn_pi_lab.session_inspector itself")
class OriginalInspectorTests(unittest.TestCase):
    """The original course's ``inspect_session_jsonl`` (whkp/learn-pi), re-typed from its
    facts: three counts over any JSONL of objects, English errors under any language."""

    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)

    def write(self, text: str) -> Path:
        path = Path(self._tmp.name) / "records.jsonl"
        path.write_text(text, encoding="utf-8")
        return path

    def language(self, lang: str):
        return unittest.mock.patch.dict(os.environ, {"LEARN_PI_LAB_LANG": lang,
                                                     "LANG": f"{lang}_XX.UTF-8"})

    def test_counts_records_roles_and_compactions_without_a_header(self) -> None:
        from learn_pi_lab.session_inspector import SessionReport, inspect_session_jsonl

        path = self.write("\n".join([
            json.dumps({"type": "message", "message": {"role": "user", "content": "a"}}),
            "",
            json.dumps({"type": "message", "message": {"role": "assistant", "content": "b"}}),
            "   ",
            json.dumps({"type": "compaction", "summary": "s"}),
            json.dumps({"type": "message", "message": {"role": "user", "content": "c"}}),
            json.dumps({"type": "message", "message": {"role": 7}}),
        ]) + "\n")
        for lang in ("zh", "en"):
            with self.subTest(lang=lang), self.language(lang):
                report = inspect_session_jsonl(path)
                self.assertIsInstance(report, SessionReport)
                self.assertEqual(report, SessionReport(
                    entries=5, roles=(("assistant", 1), ("user", 2)), compactions=1))

    def test_invalid_json_and_non_objects_name_their_line_in_english(self) -> None:
        from learn_pi_lab.session_inspector import inspect_session_jsonl

        cases = [("{}\n\n{oops\n", "invalid JSON on line 3"),
                 ("{}\n[1, 2]\n", "record on line 2 is not an object"),
                 ('{"n": NaN}\n', "invalid JSON on line 1")]
        for text, words in cases:
            path = self.write(text)
            for lang in ("zh", "en"):
                with self.subTest(lang=lang, text=text), self.language(lang):
                    with self.assertRaises(ValueError) as caught:
                        inspect_session_jsonl(path)
                    self.assertEqual(str(caught.exception), words,
                                     msg=f"str() stays English under {lang}")
                    shown = explain(caught.exception, lang)
                    self.assertIn(str(caught.exception.line), shown)
                    self.assertEqual(shown == words, lang == "en", msg="translated at the edge")

    def test_the_file_is_only_read(self) -> None:
        from learn_pi_lab.session_inspector import inspect_session_jsonl

        path = self.write('{"type": "compaction"}\n')
        before = (path.read_bytes(), path.stat().st_mtime_ns)
        inspect_session_jsonl(path)
        self.assertEqual((path.read_bytes(), path.stat().st_mtime_ns), before)


if __name__ == "__main__":
    unittest.main()
