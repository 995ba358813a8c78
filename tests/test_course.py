"""The workbook machinery: chapter source format, editions, paths, environment check, builder."""

from __future__ import annotations

import importlib.util
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from learn_pi_lab.course import envcheck, paths
from learn_pi_lab.course.cells import (ChapterSourceError, Code, Markdown, chapter, code,
                                      edition_code, md)
from learn_pi_lab.course.editions import (IGNORE_OUTPUT_TAG, build_edition, cell_id, load_source,
                                          tidy_executed, without_comments)
from learn_pi_lab.course.text import L

REPO = Path(__file__).resolve().parent.parent


def load_builder():
    spec = importlib.util.spec_from_file_location("build_notebooks", REPO / "tools" / "build_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SourceFormat(unittest.TestCase):
    def test_text_is_dedented_and_trimmed(self):
        cell = md(zh="""
            ## 标题
              缩进保留
            """, en="## Title")
        self.assertEqual(cell, Markdown("## 标题\n  缩进保留", "## Title"))
        self.assertEqual(code("\n    x = 1\n    print(x)\n"), Code("x = 1\nprint(x)", None))

    def test_both_languages_are_required(self):
        for bad in ({"zh": "", "en": "x"}, {"zh": "x", "en": "  \n"}, {"zh": None, "en": "x"}):
            with self.subTest(bad=bad), self.assertRaises(ChapterSourceError):
                md(**bad)
        with self.assertRaises(TypeError):
            md(zh="only Chinese")  # type: ignore[call-arg]

    def test_chapter_number_and_slug(self):
        self.assertEqual(chapter("03", "rewind-and-branch", zh="回退", en="Rewind").filename,
                         "03-rewind-and-branch.ipynb")
        for number, slug in (("3", "a"), ("003", "a"), ("03", "Rewind"), ("03", "a_b"), ("03", "")):
            with self.subTest(number=number, slug=slug), self.assertRaises(ChapterSourceError):
                chapter(number, slug, zh="x", en="x")

    def test_empty_code_and_empty_volatile_reason_are_refused(self):
        with self.assertRaises(ChapterSourceError):
            code("   ")
        with self.assertRaises(ChapterSourceError):
            code("x", volatile="")


class TagsCommentsLabels(unittest.TestCase):
    def test_tags_are_checked_and_self_check_is_added(self):
        self.assertEqual(code("x = 1", tags=("predict", "rerun")).tags, ("predict", "rerun"))
        self.assertEqual(md(zh="猜", en="Guess", tags=("predict",)).tags, ("predict",))
        self.assertEqual(code('ask("ch01-q1")').tags, ("self-check",))
        self.assertEqual(code('task("x")').tags, ())
        for bad in (("predicted",), "predict", ("nbval-ignore-output",)):
            with self.subTest(tags=bad), self.assertRaises(ChapterSourceError):
                code("x = 1", tags=bad)

    def test_edition_comments_keep_the_editions_language(self):
        source = ("# zh: 读取文件\n# en: read the file\n"
                  "lines = 3  # zh: 三行 # en: three lines\n"
                  "    # zh: 缩进\n"
                  "url = 'a#b'  # plain comment")
        self.assertEqual(edition_code(source, "zh"),
                         "# 读取文件\nlines = 3  # 三行\n    # 缩进\nurl = 'a#b'  # plain comment")
        self.assertEqual(edition_code(source, "en"),
                         "# read the file\nlines = 3  # three lines\nurl = 'a#b'  # plain comment")
        # Stripped of comments, both editions are the same code; different code is not.
        self.assertEqual(without_comments(edition_code(source, "zh")),
                         without_comments(edition_code(source, "en")))
        self.assertNotEqual(without_comments("x = 1  # one"), without_comments("x = 2  # one"))
        with self.assertRaises(ChapterSourceError):
            code("# zh: 只有中文")

    def test_comment_line_with_both_languages(self):
        source = ("# zh: 杀掉进程 # en: kill the process\n"
                  "def f():\n"
                  "    # zh: 假时钟：每次晚 7 秒 # en: a fake clock: 7 s later each call\n"
                  "    return 1")
        self.assertEqual(edition_code(source, "zh"),
                         "# 杀掉进程\ndef f():\n    # 假时钟：每次晚 7 秒\n    return 1")
        self.assertEqual(edition_code(source, "en"),
                         "# kill the process\ndef f():\n    # a fake clock: 7 s later each call\n"
                         "    return 1")
        self.assertEqual(without_comments(edition_code(source, "zh")),
                         without_comments(edition_code(source, "en")))

    def test_label_follows_the_edition(self):
        self.assertEqual(L("行", "line", lang="zh"), "行")
        self.assertEqual(L("行", "line", lang="en"), "line")
        with mock.patch.dict("os.environ", {"LEARN_PI_LAB_LANG": "zh"}):
            self.assertEqual(L("行", "line"), "行")
        with mock.patch.dict("os.environ", {"LEARN_PI_LAB_LANG": "en"}):
            self.assertEqual(L("行", "line"), "line")


class Editions(unittest.TestCase):
    def write_source(self, folder: str, text: str, name: str = "ch42_answer.py") -> Path:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        return path

    def test_build_edition_layout(self):
        with tempfile.TemporaryDirectory() as folder:
            source = load_source(self.write_source(folder, '''
from learn_pi_lab.course.cells import chapter, md, code
CHAPTER = chapter("42", "answer", zh="答案", en="The answer")
CELLS = [md(zh="你好", en="Hello"), code("print(42)"), code("t = 1", volatile="timing"),
         code("# zh: 猜\\n# en: guess\\ng = 2", tags=("predict",), volatile="timing")]
'''))
        zh, en = build_edition(source, "zh"), build_edition(source, "en")
        self.assertEqual(zh.cells[0].source,
                         "# 42 · 答案\n\nEnglish edition: [../en/42-answer.ipynb](../en/42-answer.ipynb)")
        self.assertEqual(en.cells[0].source,
                         "# 42 · The answer\n\n中文版: [../zh/42-answer.ipynb](../zh/42-answer.ipynb)")
        self.assertEqual([c.source for c in zh.cells[1:]], ["你好", "print(42)", "t = 1", "# 猜\ng = 2"])
        self.assertEqual([c.source for c in en.cells[1:]], ["Hello", "print(42)", "t = 1", "# guess\ng = 2"])
        self.assertEqual([c.id for c in zh.cells], ["c42-000", "c42-001", "c42-002", "c42-003", "c42-004"])
        self.assertEqual(zh.cells[4].metadata["tags"], ["predict", IGNORE_OUTPUT_TAG])
        self.assertEqual([c.id for c in en.cells], [c.id for c in zh.cells])
        self.assertEqual(zh.cells[3].metadata["tags"], [IGNORE_OUTPUT_TAG])
        self.assertEqual(zh.cells[3].metadata["learn_pi_lab"]["volatile"], "timing")
        self.assertNotIn("tags", zh.cells[2].metadata)
        self.assertEqual(zh.metadata["kernelspec"]["name"], "python3")
        self.assertEqual(cell_id(source.chapter, 7), "c42-007")

    def test_bad_sources_name_the_file(self):
        cases = {
            "no CHAPTER": "CELLS = []",
            "ch41_": 'from learn_pi_lab.course.cells import chapter, md\n'
                     'CHAPTER = chapter("41", "x", zh="x", en="x")\nCELLS = [md(zh="a", en="b")]',
            "non-empty list": 'from learn_pi_lab.course.cells import chapter\n'
                              'CHAPTER = chapter("42", "x", zh="x", en="x")\nCELLS = []',
            "CELLS[1]": 'from learn_pi_lab.course.cells import chapter, md\n'
                        'CHAPTER = chapter("42", "x", zh="x", en="x")\n'
                        'CELLS = [md(zh="a", en="b"), "print(1)"]',
        }
        for expected, text in cases.items():
            with self.subTest(expected=expected), tempfile.TemporaryDirectory() as folder:
                with self.assertRaises(ChapterSourceError) as caught:
                    load_source(self.write_source(folder, text))
                self.assertIn("ch42_answer.py", str(caught.exception))
                self.assertIn(expected if expected != "no CHAPTER" else "CHAPTER", str(caught.exception))

    def test_tidy_executed_drops_run_noise_and_keeps_outputs(self):
        import nbformat
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("w", id="c00-001")])
        notebook.metadata["widgets"] = {"state": {}}
        notebook.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
        cell = notebook.cells[0]
        cell.metadata["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00Z"}
        cell.outputs = [nbformat.v4.new_output("display_data", data={
            "text/plain": "Widget()",
            "application/vnd.jupyter.widget-view+json": {"model_id": "abc"}})]
        tidy_executed(notebook)
        self.assertNotIn("widgets", notebook.metadata)
        self.assertNotIn("version", notebook.metadata["language_info"])
        self.assertNotIn("execution", cell.metadata)
        self.assertEqual(dict(cell.outputs[0].data), {"text/plain": "Widget()"})


class Paths(unittest.TestCase):
    def test_repo_root_and_folders(self):
        self.assertEqual(paths.repo_root(), REPO)
        self.assertEqual(paths.workspace_dir(), REPO / "workspace")

    def test_data_file(self):
        existing = sorted((REPO / "data").glob("*.jsonl"))
        self.assertTrue(existing, "data/*.jsonl ships with the repository")
        self.assertEqual(paths.data_file(existing[0].name), existing[0])
        with self.assertRaises(FileNotFoundError) as caught:
            paths.data_file("no-such-file.jsonl")
        self.assertIn("data/no-such-file.jsonl", str(caught.exception))

    def test_scratch_dir_is_fresh_and_ignored_by_git(self):
        name = "test-course-scratch"
        folder = paths.scratch_dir(name)
        try:
            self.assertEqual(folder, REPO / "notebooks" / ".scratch" / name)
            (folder / "damaged.jsonl").write_text("{", encoding="utf-8")
            self.assertEqual(list(paths.scratch_dir(name).iterdir()), [])
            gitignore = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
            self.assertIn("notebooks/.scratch/", gitignore)
        finally:
            import shutil
            shutil.rmtree(folder, ignore_errors=True)

    def test_each_edition_has_its_own_scratch_folder(self):
        """Both editions of a chapter may run at once (make test runs them side by side; a
        learner may have both open): neither deletes the other's files."""
        folders = {}
        here = os.getcwd()
        try:
            for lang in ("zh", "en"):
                os.chdir(REPO / "notebooks" / lang)   # where a notebook's kernel runs
                folders[lang] = paths.scratch_dir("test-course-edition")
                (folders[lang] / "mine.jsonl").write_text(lang, encoding="utf-8")
            self.assertEqual(folders["zh"],
                             REPO / "notebooks" / ".scratch" / "zh" / "test-course-edition")
            self.assertEqual((folders["zh"] / "mine.jsonl").read_text(encoding="utf-8"), "zh")
        finally:
            os.chdir(here)
            import shutil
            for folder in folders.values():
                shutil.rmtree(folder, ignore_errors=True)

    def test_scratch_names_cannot_escape(self):
        for bad in ("", "..", "../data", "a/b", "/tmp", ".hidden"):
            with self.subTest(name=bad), self.assertRaises(ValueError):
                paths.scratch_dir(bad)

    def test_show_path_is_relative_to_the_repository(self):
        self.assertEqual(paths.show_path(REPO / "data" / "linear.jsonl"), "data/linear.jsonl")
        self.assertEqual(paths.show_path(REPO / "notebooks" / "zh" / ".." / "en"), "notebooks/en")
        with mock.patch.object(Path, "home", return_value=Path("/home/learner")):
            self.assertEqual(paths.show_path("/home/learner/.pi/agent/s.jsonl"), "~/.pi/agent/s.jsonl")
        self.assertEqual(paths.show_path("/elsewhere/x.jsonl"), "/elsewhere/x.jsonl")


class EnvironmentCheck(unittest.TestCase):
    def report(self, lang: str) -> str:
        from contextlib import redirect_stdout
        from io import StringIO
        out = StringIO()
        with redirect_stdout(out):
            envcheck.print_environment_report(lang)
        return out.getvalue()

    def test_complete_environment_is_all_ok(self):
        checks = envcheck.environment_checks()
        self.assertTrue(all(check.ok for check in checks), [c for c in checks if not c.ok])
        text = self.report("en")
        self.assertNotIn("[FAIL]", text)
        self.assertNotIn(str(REPO), text)

    def test_missing_module_and_folder_are_reported_with_a_fix(self):
        with mock.patch.object(envcheck, "_importable", side_effect=lambda name: name != "networkx"), \
             mock.patch.object(envcheck, "workspace_dir", return_value=REPO / "no-such-workspace"):
            checks = {check.name_key: check.ok for check in envcheck.environment_checks()}
            text = self.report("zh")
        self.assertFalse(checks["course.env.networkx"])
        self.assertFalse(checks["course.env.workspace"])
        self.assertTrue(checks["course.env.matplotlib"])
        self.assertEqual(sum(line.startswith("[FAIL]") for line in text.splitlines()), 2)
        self.assertIn("->", text)


class LearnerActs(unittest.TestCase):
    """predict/reveal, your_turn and the use_my_code switch (learn_pi_lab.course.act)."""

    def said(self, function, *args, **kwargs) -> str:
        from contextlib import redirect_stdout
        from io import StringIO
        out = StringIO()
        with redirect_stdout(out), mock.patch.dict("os.environ", {"LEARN_PI_LAB_LANG": "en"}):
            self.result = function(*args, **kwargs)
        return out.getvalue()

    def test_predict_then_reveal(self):
        from learn_pi_lab.course import act
        self.assertIn("no guess written down yet", self.said(act.predict, "t-p1", None))
        self.assertIn("did not write down a guess", self.said(act.reveal, "t-p1", 300))
        self.assertIn("noted", self.said(act.predict, "t-p1", 280))
        self.assertIn("close (off by 7%)", self.said(act.reveal, "t-p1", 300, tolerance=0.2))
        self.assertIn("off by 7%", self.said(act.reveal, "t-p1", 300, tolerance=0.05))
        self.assertIn("right", self.said(act.reveal, "t-p1", 280))
        self.assertIn("pick one of A / B", self.said(act.predict, "t-p2", "c", choices="AB"))
        self.assertIn("did not write down", self.said(act.reveal, "t-p2", "A"))
        self.said(act.predict, "t-p2", "b", choices="AB")
        self.assertIn("not this time", self.said(act.reveal, "t-p2", "A"))
        self.assertIn("right", self.said(act.reveal, "t-p2", "b"))

    def workspace(self, body: str) -> Path:
        folder = Path(tempfile.mkdtemp())
        self.addCleanup(lambda: __import__("shutil").rmtree(folder, ignore_errors=True))
        (folder / "ch01_jsonl.py").write_text(body, encoding="utf-8")
        return folder

    def test_your_turn_never_shows_a_traceback(self):
        from learn_pi_lab.course import act
        stub = (REPO / "workspace" / "ch01_jsonl.py").read_text(encoding="utf-8")
        cases = {
            stub: ("still the exercise stub", None),
            "def read_jsonl_tolerant(text):\n    return 1 / 0\n": ("ch01_jsonl.py:2",
                                                                   None),
            "def read_jsonl_tolerant(text:\n": ("SyntaxError", None),
            "def read_jsonl_tolerant(text):\n    return [], [(1, 'x')]\n": (
                "ran your own read_jsonl_tolerant", ([], [(1, "x")])),
        }
        for body, (expected, result) in cases.items():
            with self.subTest(body=body[:30]), \
                    mock.patch.object(act, "workspace_dir", return_value=self.workspace(body)):
                text = self.said(act.your_turn, "tolerant-reader", "{}")
                self.assertIn(expected, text)
                self.assertNotIn("Traceback", text)
                self.assertEqual(self.result, result)

    def test_the_switch_uses_passing_code_only(self):
        import inspect

        from learn_pi_lab.course import act
        from learn_pi_lab.jsonl import reader
        stub = (REPO / "workspace" / "ch01_jsonl.py").read_text(encoding="utf-8")
        solved = "import json\n\n\n" + inspect.getsource(reader.read_jsonl_tolerant)
        self.addCleanup(act.use_my_code, False)
        self.said(act.use_my_code, False)
        self.assertIs(act.implementation("tolerant-reader"), reader.read_jsonl_tolerant)
        self.assertIn("use_my_code(True)", self.said(act.use_my_code, True))
        with mock.patch.object(act, "workspace_dir", return_value=self.workspace(stub)):
            text = self.said(act.implementation, "tolerant-reader")
            self.assertIs(self.result, reader.read_jsonl_tolerant)
            self.assertIn("not started", text)
        with mock.patch.object(act, "workspace_dir", return_value=self.workspace(solved)):
            text = self.said(act.implementation, "tolerant-reader")
            self.assertIsNot(self.result, reader.read_jsonl_tolerant)
            self.assertEqual(self.result("{}\n"), ([{}], []))
            self.assertIn("Using your read_jsonl_tolerant", text)

    def test_the_model_answer_opens_once_the_exercise_passes(self):
        from learn_pi_lab.course import act
        from learn_pi_lab.harness import catalog
        stub = (REPO / "workspace" / "ch01_jsonl.py").read_text(encoding="utf-8")
        lesson = (catalog.LESSONS / "ch01_jsonl.py").read_text(encoding="utf-8")
        wrong = "def read_jsonl_tolerant(text):\n    return [], []\n"
        with mock.patch.object(act, "workspace_dir", return_value=self.workspace(stub)):
            text = self.said(act.model_answer, "01")
        self.assertIn("not started", text)
        self.assertIn("learn_pi_lab/lessons/ch01_jsonl.py", text)
        self.assertNotIn("def read_jsonl_tolerant", text)
        with mock.patch.object(act, "workspace_dir", return_value=self.workspace(wrong)):
            text = self.said(act.model_answer, "01")
        self.assertIn("failed", text)
        self.assertNotIn("pieces = text.split", text)
        with mock.patch.object(act, "workspace_dir", return_value=self.workspace(lesson)):
            text = self.said(act.model_answer, "01")
        self.assertIn("passed", text)
        self.assertIn("def read_jsonl_tolerant(text: str)", text)
        self.assertIn("pieces = text.split", text)

    def test_after_a_check_the_model_answer_does_not_grade_the_file_again(self):
        from learn_pi_lab.course import act
        from learn_pi_lab.harness import catalog, notebook
        folder = self.workspace((catalog.LESSONS / "ch01_jsonl.py").read_text(encoding="utf-8"))
        self.assertEqual([r.status for r in notebook.check("01", workspace=folder).results],
                         ["passed"])
        with mock.patch.object(act, "workspace_dir", return_value=folder), \
                mock.patch.object(notebook, "run_exercises",
                                  side_effect=AssertionError("graded twice")):
            text = self.said(act.model_answer, "01")
        self.assertIn("pieces = text.split", text)
        (folder / "ch01_jsonl.py").write_text("def read_jsonl_tolerant(text):\n    return [], []\n",
                                              encoding="utf-8")
        with mock.patch.object(act, "workspace_dir", return_value=folder):
            self.assertIn("failed", self.said(act.model_answer, "01"))   # a new version: graded

    def test_the_lesson_source_holds_the_function_and_the_helpers_it_calls(self):
        from learn_pi_lab.course.act import lesson_source
        from learn_pi_lab.harness import catalog
        shown = lesson_source(catalog.LESSONS / "ch06_context.py", "build_context_messages")
        self.assertIn("def build_context_messages(", shown)
        self.assertIn("def _messages_of(", shown)
        self.assertIn("def _ms(", shown)            # called by a helper
        self.assertNotIn("def apply_context_edits(", shown)
        only = lesson_source(catalog.LESSONS / "ch02_parent_pointers.py", "path_to")
        self.assertIn("def path_to(", only)
        self.assertNotIn("def validate(", only)


class LabBench(unittest.TestCase):
    def test_damaged_copy_and_report(self):
        from contextlib import redirect_stdout
        from io import StringIO

        from learn_pi_lab.course.lab_bench import damaged_copy, report, text_of
        with tempfile.TemporaryDirectory() as folder:
            copy = damaged_copy(Path(folder), "torn.jsonl")
            self.assertEqual(copy.read_bytes(), (REPO / "data" / "linear.jsonl").read_bytes())
            copy.write_bytes(copy.read_bytes()[:-20])          # tear the last line
            out = StringIO()
            with redirect_stdout(out), mock.patch.dict("os.environ", {"LEARN_PI_LAB_LANG": "en"}):
                session = report(copy, "pi")
            self.assertEqual(len(session.entries), 10)
            self.assertIn("[silent in Pi]", out.getvalue())
        self.assertEqual(text_of({"message": {"role": "bashExecution", "command": "ls"}}), "!ls")
        self.assertEqual(text_of({"message": {"content": [{"type": "text", "text": "hi"}]}}), "hi")


class BigSessions(unittest.TestCase):
    """Chapter 07 measures on the files ``make bench`` compares with Pi: one generator."""

    def test_the_bench_uses_the_same_generator_as_the_chapter(self):
        from learn_pi_lab.course import big_sessions
        spec = importlib.util.spec_from_file_location("bench_sessions", REPO / "bench" / "sessions.py")
        bench_sessions = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench_sessions)
        self.assertIs(bench_sessions.session_file, big_sessions.session_file)
        self.assertIs(bench_sessions.SHAPES, big_sessions.SHAPES)

    def test_files_are_realistic_repeatable_and_load_cleanly(self):
        from learn_pi_lab.course.big_sessions import SHAPES, session_file
        from learn_pi_lab.pi.context import build_session_context
        from learn_pi_lab.pi.session import load_session
        with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
            for shape in (*SHAPES, "chain"):
                with self.subTest(shape=shape):
                    path = session_file(Path(one), shape, 2_100)
                    self.assertEqual(path.read_bytes(), session_file(Path(two), shape, 2_100).read_bytes())
                    self.assertIn(len(path.read_bytes().splitlines()) - 1, range(2_100, 2_104))
                    session = load_session(path)
                    self.assertEqual(session.diagnostics, [])
                    self.assertEqual(len(session.entries), len(path.read_bytes().splitlines()) - 1)
                    self.assertTrue(build_session_context(session.branch()).messages)
                    kinds = {entry["type"] for entry in session.entries}
                    self.assertEqual("compaction" in kinds, shape == "compacted")
                    self.assertEqual(len(session.tree.leaves()) > 1, shape == "branchy")
            lines = session_file(Path(one), "linear", 2_000).read_text(encoding="utf-8").splitlines()
            self.assertTrue(400 < sum(map(len, lines)) / len(lines) < 1_000, "a line of ~60 words")


class CrashLab(unittest.TestCase):
    """Chapter 08's crash injection: each policy choice shows its consequence, both ways."""

    def test_policies_pay_for_what_they_choose(self):
        from learn_pi_lab.course.crash_lab import Policy, boundaries, story, summary
        like_pi = summary(Policy("like Pi"))
        newline = summary(Policy("newline first", newline_first=True))
        durable = summary(Policy("fsync each", fsync_every=1, newline_first=True))
        self.assertEqual(like_pi["process: worst saved-but-lost"], 0)
        self.assertGreater(like_pi["next entry lost (of crashes)"], 0)   # glued onto a torn line
        self.assertEqual(newline["next entry lost (of crashes)"], 0)
        self.assertEqual(newline["power: worst saved-but-lost"], 3)       # nothing was durable
        self.assertEqual(durable["power: worst saved-but-lost"], 0)
        self.assertEqual(durable["fsyncs per story"], 4)
        self.assertEqual(boundaries(Policy("x")), 12)                     # 3 per write, 4 writes
        clean = story(Policy("x"), None, "process")
        self.assertEqual((clean.acknowledged_lost, clean.next_lost), (0, False))
        # a power cut after the whole story: without fsync nothing was durable
        self.assertEqual(story(Policy("x"), None, "power").acknowledged_lost, 4)
        self.assertEqual(story(Policy("x", fsync_every=1), None, "power").acknowledged_lost, 0)


class Launcher(unittest.TestCase):
    """`make lab` and the browser test share this command line."""

    def test_root_is_the_repository_and_the_landing_is_chapter_00(self):
        from learn_pi_lab.course import lab
        command = lab.lab_command(REPO, "en", port=8899, open_browser=False)
        self.assertIn(f"--ServerApp.root_dir={REPO}", command)
        self.assertIn("--LabApp.default_url=/lab/tree/notebooks/en/00-start-here.ipynb", command)
        self.assertTrue((REPO / lab.landing_path("zh")).is_file())
        self.assertIn("--port=8899", command)
        self.assertIn("--no-browser", command)
        with mock.patch.object(lab, "running_as_root", return_value=True):
            self.assertIn("--allow-root", lab.lab_command(REPO, "zh"))
        with mock.patch.object(lab, "running_as_root", return_value=False):
            plain = lab.lab_command(REPO, "zh")
        self.assertNotIn("--allow-root", plain)
        self.assertNotIn("--no-browser", plain)
        self.assertIn("--ContentsManager.pre_save_hook=learn_pi_lab.course.lab.without_run_noise",
                      command)
        with self.assertRaises(ValueError):
            lab.lab_command(REPO, "fr")

    def test_jupyterlab_menus_speak_the_editions_language(self):
        # (a learner's review: the Chinese edition opened in an English JupyterLab, and
        # chapter 00 named its menus in English). The browser test sees the menu bar itself.
        import json
        from jupyterlab_server.translation_utils import get_language_packs
        from learn_pi_lab.course import lab
        for edition, locale in (("zh", "zh_CN"), ("en", "en")):
            folder = lab.settings_dir(edition)
            self.assertIn(f"--LabApp.app_settings_dir={folder}", lab.lab_command(REPO, edition))
            overrides = json.loads((folder / "overrides.json").read_text(encoding="utf-8"))
            self.assertEqual(overrides["@jupyterlab/translation-extension:plugin"]["locale"],
                             locale)
            # (a learner's review: every start asked, in a pop-up, about Jupyter's news feed)
            self.assertEqual(overrides["@jupyterlab/apputils-extension:notification"],
                             {"fetchNews": "false", "checkForUpdates": False})
        installed, _ = get_language_packs()
        self.assertIn("zh_CN", installed, "the Chinese language pack is not installed")

    def test_saving_an_opened_chapter_leaves_the_file_as_it_was(self):
        # (a learner's review: a kernel adds its Python version, so autosave changed every
        # chapter merely opened, and `git pull` then met local changes)
        import shutil
        from jupyter_server.services.contents.filemanager import FileContentsManager
        chapter = REPO / "notebooks" / "zh" / "05-record-types-and-state.ipynb"
        with tempfile.TemporaryDirectory() as folder:
            shutil.copyfile(chapter, Path(folder) / chapter.name)
            manager = FileContentsManager(
                root_dir=folder, pre_save_hook="learn_pi_lab.course.lab.without_run_noise")
            model = manager.get(chapter.name)
            model["content"]["metadata"]["language_info"]["version"] = "3.12.1"   # a kernel ran
            manager.save(model, chapter.name)
            self.assertEqual((Path(folder) / chapter.name).read_bytes(), chapter.read_bytes())

    def test_saving_a_chapter_only_run_leaves_the_file_edited_cells_are_saved(self):
        # (a learner's review in the browser: running chapter 01 and letting autosave fire
        # changed timings, figure metadata and widget ids in a file they never edited)
        import json
        import shutil
        from jupyter_server.services.contents.filemanager import FileContentsManager
        chapter = REPO / "notebooks" / "zh" / "01-jsonl-vs-json-array.ipynb"
        with tempfile.TemporaryDirectory() as folder:
            saved = Path(folder) / chapter.name
            shutil.copyfile(chapter, saved)
            manager = FileContentsManager(
                root_dir=folder, pre_save_hook="learn_pi_lab.course.lab.without_run_noise")
            def run(edit_source: bool) -> dict:   # the model the browser sends after a run
                model = json.loads(json.dumps(manager.get(chapter.name), default=str))
                code = next(cell for cell in model["content"]["cells"]
                            if cell["cell_type"] == "code")
                code["outputs"] = [{"output_type": "stream", "name": "stdout",
                                    "text": "0.123 s\n"}]
                code["execution_count"] = 7
                model["content"]["metadata"]["widgets"] = {"state": {"model-id": {}}}
                if edit_source:
                    code["source"] = "answer = 'B'\n"
                return model
            manager.save(run(edit_source=False), chapter.name)
            self.assertEqual(saved.read_bytes(), chapter.read_bytes())
            manager.save(run(edit_source=True), chapter.name)   # the learner's own edit: saved
            self.assertIn("answer = 'B'", saved.read_text(encoding="utf-8"))
            self.assertIn("0.123 s", saved.read_text(encoding="utf-8"))

    def test_make_lab_uses_the_launcher(self):
        makefile = (REPO / "Makefile").read_text(encoding="utf-8")
        self.assertIn("-m learn_pi_lab.course.lab --edition $(LANG_EDITION)", makefile)

    def test_a_terminal_in_the_lab_reports_in_the_edition_opened(self):
        # (a learner's review: in a container whose locale is C.UTF-8, `make verify` in the
        # Chinese edition's JupyterLab answered in English)
        from learn_pi_lab import i18n
        from learn_pi_lab.course import lab
        with mock.patch.dict("os.environ", {"LANG": "C.UTF-8"}, clear=True), \
                mock.patch.object(lab.os, "execv") as execv:
            lab.main(["--edition", "zh", "--no-browser"])
            execv.assert_called_once()
            self.assertEqual(lab.os.environ[i18n.EDITION_VARIABLE], "zh")
            self.assertEqual(i18n.current_language(), "zh")

    def test_a_terminal_in_the_lab_is_not_inside_make(self):
        # (a learner's review: `make lab` started JupyterLab, so `make verify` in its terminal
        # was a sub-make, printing "make[1]: Entering directory" around the report)
        from learn_pi_lab.course import lab
        make = {"MAKELEVEL": "1", "MAKEFLAGS": "w", "MFLAGS": "-w", "MAKEOVERRIDES": ""}
        with mock.patch.dict("os.environ", make), mock.patch.object(lab.os, "execv"):
            lab.main(["--edition", "zh", "--no-browser"])
            self.assertFalse(set(make) & set(lab.os.environ))

    def test_make_verify_follows_an_edition_given_to_make(self):
        import subprocess

        def dry_run(*argv: str) -> str:
            environ = {key: value for key, value in os.environ.items() if key != "LANG_EDITION"}
            return subprocess.run(["make", "-n", "-s", "verify", *argv], cwd=REPO, env=environ,
                                  capture_output=True, text=True, check=True).stdout
        self.assertIn("verify --lang zh", dry_run("LANG_EDITION=zh"))
        self.assertIn("verify --lang en --exercise path-to", dry_run("LANG_EDITION=en", "EX=path-to"))
        self.assertNotIn("--lang", dry_run())   # otherwise the locale (or the lab's edition) decides


class Builder(unittest.TestCase):
    """One real kernel run: a failing cell must name the chapter, edition and cell index."""

    def test_a_failing_cell_stops_the_build_with_its_index(self):
        builder = load_builder()
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "ch97_broken.py"
            path.write_text('''
from learn_pi_lab.course.cells import chapter, md, code
CHAPTER = chapter("97", "broken", zh="坏", en="Broken")
CELLS = [md(zh="一", en="one"), code("x = 1"), code("raise ValueError('on purpose')")]
''', encoding="utf-8")
            source = load_source(path)
        notebook = build_edition(source, "en")
        with self.assertRaises(builder.BuildError) as caught:
            builder.execute(notebook, "chapter 97 (en)", "en")
        message = str(caught.exception)
        self.assertIn("chapter 97 (en), cell 3", message)
        self.assertIn("ValueError: on purpose", message)


if __name__ == "__main__":
    unittest.main()
