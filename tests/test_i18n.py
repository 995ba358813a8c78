"""Every learner-facing message exists in both languages, and the language is chosen right.

The catalog (``learn_pi_lab/messages/*.json``) and the self-check questions
(``learn_pi_lab/course/selfcheck/*.json``) are read here as raw JSON, so a duplicate key
inside one file (which ``json.load`` would silently merge) is caught too.
"""

from __future__ import annotations

import json
import os
import re
import string
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from learn_pi_lab import i18n

REPO = Path(__file__).resolve().parent.parent
MESSAGE_FILES = sorted((REPO / "learn_pi_lab" / "messages").glob("*.json"))
SELFCHECK_FILES = sorted((REPO / "learn_pi_lab" / "course" / "selfcheck").glob("*.json"))


def read_pairs(path: Path) -> list[tuple[str, object]]:
    """The top-level (key, value) pairs in file order, repeats included."""
    top: list[list[tuple[str, object]]] = []

    def keep(pairs):
        top.append(pairs)
        return dict(pairs)

    json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=keep)
    return top[-1]  # the outermost object is completed last


def inner_duplicates(path: Path) -> list[str]:
    repeats: list[str] = []

    def check(pairs):
        keys = [key for key, _ in pairs]
        repeats.extend(sorted({key for key in keys if keys.count(key) > 1}))
        return dict(pairs)

    json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=check)
    return repeats


def placeholders(text: str) -> list[tuple[str, str | None, str]]:
    """``{name!r:>8}`` -> ("name", "r", ">8"), sorted, so the two languages can be compared.

    A plural word (``{count:entry|entries}``) is English grammar, not a field: left out.
    """
    return sorted((name, conversion, spec or "")
                  for _, name, spec, conversion in string.Formatter().parse(text)
                  if name is not None and "|" not in (spec or ""))


def brace_groups(text: str) -> list[str]:
    """Self-check texts are shown as they are, never ``str.format``-ed: compare their
    ``{...}`` groups literally (a JSON snippet in a question must match in both languages)."""
    return sorted(re.findall(r"\{[^{}]*\}", text))


def texts_of(value: object, where: str):
    """Every {"zh", "en"} pair inside a value (a message, or a question's nested texts)."""
    if isinstance(value, dict) and set(value) == {"zh", "en"}:
        yield where, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from texts_of(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from texts_of(inner, f"{where}[{index}]")


class CatalogFiles(unittest.TestCase):
    def test_there_are_catalog_files(self):
        self.assertTrue(MESSAGE_FILES, "no learn_pi_lab/messages/*.json found")
        self.assertTrue(SELFCHECK_FILES, "no learn_pi_lab/course/selfcheck/*.json found")

    def test_no_duplicate_keys_within_a_file(self):
        for path in MESSAGE_FILES + SELFCHECK_FILES:
            with self.subTest(file=path.name):
                self.assertEqual(inner_duplicates(path), [], f"{path.name}: keys repeated")

    def test_no_key_in_two_message_files(self):
        seen: dict[str, str] = {}
        for path in MESSAGE_FILES:
            for key, _ in read_pairs(path):
                self.assertNotIn(key, seen, f"{key!r} is in {seen.get(key)} and {path.name}")
                seen[key] = path.name

    def test_every_message_has_both_languages_with_the_same_fields(self):
        for path in MESSAGE_FILES:
            for key, texts in read_pairs(path):
                with self.subTest(file=path.name, key=key):
                    self.assertIsInstance(texts, dict)
                    self.assertEqual(set(texts), {"zh", "en"}, f"{path.name} {key}: languages")
                    for lang in ("zh", "en"):
                        self.assertIsInstance(texts[lang], str)
                        self.assertTrue(texts[lang].strip(), f"{path.name} {key}: empty {lang}")
                    self.assertEqual(placeholders(texts["zh"]), placeholders(texts["en"]),
                                     f"{path.name} {key}: {{fields}} differ between zh and en")

    def test_every_selfcheck_text_has_both_languages_with_the_same_fields(self):
        for path in SELFCHECK_FILES:
            for question_id, raw in read_pairs(path):
                pairs = list(texts_of(raw, question_id))
                self.assertTrue(pairs, f"{path.name} {question_id}: no zh/en texts")
                for where, texts in pairs:
                    with self.subTest(file=path.name, where=where):
                        self.assertTrue(texts["zh"].strip() and texts["en"].strip(),
                                        f"{path.name} {where}: an empty language")
                        self.assertEqual(brace_groups(texts["zh"]), brace_groups(texts["en"]),
                                         f"{path.name} {where}: {{...}} groups differ")

    def test_the_merged_catalog_loads(self):
        i18n.catalog.cache_clear()
        self.assertGreater(len(i18n.catalog()), 0)


class CatalogChecksCatchMistakes(unittest.TestCase):
    """The helpers above must really see the mistakes they are meant to catch."""

    def test_inner_duplicate_is_seen(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "area.json"
            path.write_text('{"a": {"zh": "x", "en": "y"}, "a": {"zh": "x", "en": "y"}}',
                            encoding="utf-8")
            self.assertEqual(inner_duplicates(path), ["a"])
            self.assertEqual([key for key, _ in read_pairs(path)], ["a", "a"])

    def test_placeholders_compare_names_and_conversions(self):
        self.assertNotEqual(placeholders("{a} {b}"), placeholders("{a}"))
        self.assertNotEqual(placeholders("{a!r}"), placeholders("{a}"))
        self.assertEqual(placeholders("x {b} y {a}"), placeholders("{a} 和 {b}"))


class LanguageSelection(unittest.TestCase):
    def language(self, lang=None, **env):
        clean = {key: value for key, value in env.items() if value is not None}
        with mock.patch.dict("os.environ", clean, clear=True):
            return i18n.current_language(lang)

    def test_explicit_language_wins(self):
        self.assertEqual(self.language("zh", LEARN_PI_LAB_LANG="en", LANG="en_US.UTF-8"), "zh")
        self.assertEqual(self.language("en", LEARN_PI_LAB_LANG="zh", LANG="zh_CN.UTF-8"), "en")

    def test_environment_variable_then_locale(self):
        self.assertEqual(self.language(LEARN_PI_LAB_LANG="zh", LANG="en_US.UTF-8"), "zh")
        self.assertEqual(self.language(LEARN_PI_LAB_LANG="en", LANG="zh_CN.UTF-8"), "en")
        self.assertEqual(self.language(LANG="zh_CN.UTF-8"), "zh")
        self.assertEqual(self.language(LC_ALL="zh_TW.UTF-8", LANG="en_US.UTF-8"), "zh")
        self.assertEqual(self.language(LANG="de_DE.UTF-8"), "en")

    def test_fallback_is_english(self):
        self.assertEqual(self.language(), "en")

    def test_the_open_notebook_edition_beats_the_system_locale(self):
        with tempfile.TemporaryDirectory() as folder:
            zh_edition = Path(folder) / "notebooks" / "zh"
            zh_edition.mkdir(parents=True)
            self.assertEqual(i18n.notebook_edition(zh_edition), "zh")
            self.assertIsNone(i18n.notebook_edition(Path(folder)))
            with mock.patch.object(i18n, "notebook_edition", return_value="zh"):
                self.assertEqual(self.language(LANG="en_US.UTF-8"), "zh")
                self.assertEqual(self.language(LEARN_PI_LAB_LANG="en"), "en")

    def test_a_deleted_working_directory_is_no_edition(self):
        # (a Pi user's review: `mkdir d; cd d; rmdir d; python -m learn_pi_lab tree F` was a
        # FileNotFoundError traceback from here)
        gone = FileNotFoundError(2, "No such file or directory")
        with mock.patch("os.getcwd", side_effect=gone):
            self.assertIsNone(i18n.notebook_edition())
            self.assertEqual(self.language(LANG="zh_CN.UTF-8"), "zh")

    def test_the_edition_is_looked_up_once_per_working_directory(self):
        # (a Pi user's review: resolving the folder for every message made `tree` on a
        # damaged file ten times slower). Counted, not timed; and a kernel that changes
        # directory still gets the edition of where it is now.
        resolve = Path.resolve
        calls = []

        def counted(path, *args, **kwargs):
            calls.append(path)
            return resolve(path, *args, **kwargs)

        saved = Path.cwd()
        with tempfile.TemporaryDirectory() as folder:
            editions = {lang: Path(folder) / "notebooks" / lang for lang in i18n.LANGUAGES}
            for edition in editions.values():
                edition.mkdir(parents=True)
            i18n._edition_in.cache_clear()
            try:
                with mock.patch.object(Path, "resolve", counted):
                    for lang in ("zh", "en", "zh"):
                        os.chdir(editions[lang])
                        for _ in range(50):
                            self.assertEqual(self.language(LANG="C.UTF-8"), lang)
            finally:
                os.chdir(saved)
                i18n._edition_in.cache_clear()
        self.assertEqual(len(calls), 2, calls)   # one per directory, not one per message

    def test_the_edition_make_lab_opened_comes_after_the_notebook_and_before_the_locale(self):
        # a terminal in the JupyterLab of `make lab LANG_EDITION=zh`, on a machine whose
        # locale names no language (C.UTF-8) or another one
        self.assertEqual(self.language(LEARN_PI_LAB_EDITION="zh", LANG="C.UTF-8"), "zh")
        self.assertEqual(self.language(LEARN_PI_LAB_EDITION="zh", LC_ALL="en_US.UTF-8"), "zh")
        self.assertEqual(self.language(LEARN_PI_LAB_EDITION="en", LANG="zh_CN.UTF-8"), "en")
        self.assertEqual(self.language(LEARN_PI_LAB_LANG="en", LEARN_PI_LAB_EDITION="zh"), "en")
        with mock.patch.object(i18n, "notebook_edition", return_value="en"):   # an en notebook
            self.assertEqual(self.language(LEARN_PI_LAB_EDITION="zh"), "en")

    def test_t_uses_the_chosen_language_and_fills_fields(self):
        key = "course.selfcheck.wrong"
        entry = i18n.catalog()[key]
        self.assertEqual(i18n.t(key, "zh", choice="A", answer="B"),
                         entry["zh"].format(choice="A", answer="B"))
        with mock.patch.dict("os.environ", {"LANG": "zh_CN.UTF-8"}, clear=True):
            self.assertEqual(i18n.t(key, choice="A", answer="B"),
                             entry["zh"].format(choice="A", answer="B"))
        self.assertIn("A", i18n.t(key, "en", choice="A", answer="B"))


class LongTextsInMessages(unittest.TestCase):
    """An id or a path in a hostile file can be a megabyte long; a message shows its start
    and its end around how long it was, and never the whole of it."""

    def test_a_short_text_is_shown_whole_and_a_long_one_by_its_ends(self):
        self.assertEqual(i18n.shortened("a1b2", "en"), "a1b2")
        exact = "x" * i18n.LONGEST_SHOWN
        self.assertEqual(i18n.shortened(exact, "en"), exact)
        long_id = "start" + "m" * 1_000_000 + "end"
        for lang, count in (("en", "1,000,008 characters"), ("zh", "共 1,000,008 个字符")):
            text = i18n.shortened(long_id, lang)
            self.assertTrue(text.startswith("startmmm") and "mmmend" in text, text)
            self.assertIn(count, text)
            self.assertLess(len(text), 2 * i18n.LONGEST_SHOWN)

    def test_an_error_naming_a_long_id_is_explained_in_one_short_line(self):
        from learn_pi_lab.session_tree import DanglingParent
        error = DanglingParent("a1", "p" * 1_000_000)
        for lang in ("zh", "en"):
            text = i18n.explain(error, lang)
            self.assertLess(len(text), 2 * i18n.LONGEST_SHOWN, text[:200])
            self.assertIn("1,000,000", text)
        self.assertGreater(len(str(error)), 1_000_000)   # the error itself keeps every fact


class StrictMessagesAndPlurals(unittest.TestCase):
    """Under the tests ``t`` is strict: a missing key or field fails instead of shipping."""

    def test_the_test_suite_runs_strict(self):
        self.assertTrue(i18n.strict(), "tests/conftest.py sets LEARN_PI_LAB_STRICT_MESSAGES=1")

    def test_strict_t_refuses_a_missing_key_or_field(self):
        with mock.patch.dict("os.environ", {i18n.STRICT_ENV: "1"}):
            with self.assertRaises(i18n.MessageError):
                i18n.t("no.such.key", "en")
            with self.assertRaises(i18n.MessageError):
                i18n.t("cli.out_exists", "en")          # needs {path}
            self.assertIn("x.jsonl", i18n.t("cli.out_exists", "en", path="x.jsonl"))
            self.assertEqual(i18n.t("cli.tree.leaf", "en", unused="fine"), "← leaf")

    def test_lenient_t_shows_the_problem_without_crashing(self):
        with mock.patch.dict("os.environ", {i18n.STRICT_ENV: "0"}):
            self.assertEqual(i18n.t("no.such.key", "en"), "no.such.key")
            self.assertIn("{path}", i18n.t("cli.out_exists", "en"))

    def test_plural_words(self):
        self.assertEqual(i18n.plural(1, "entry", "entries"), "entry")
        self.assertEqual(i18n.plural(0, "entry", "entries"), "entries")
        self.assertEqual(i18n.plural(2, "entry", "entries"), "entries")
        self.assertEqual(i18n.t("cli.tree.folded", "en", count=1), "… 1 entry …")
        self.assertEqual(i18n.t("cli.tree.folded", "en", count=3), "… 3 entries …")
        self.assertNotIn("|", i18n.t("cli.tree.folded", "zh", count=1))

    def test_plural_specs_name_two_words(self):
        for key, texts in i18n.catalog().items():
            fields = [(name, spec) for _, name, spec, _ in string.Formatter().parse(texts["en"])
                      if name and spec and "|" in spec]
            for name, spec in fields:
                one, many = spec.split("|", 1)
                with self.subTest(key=key, field=name):
                    self.assertTrue(one and many and one != many,
                                    f"{key}: {{{name}:{spec}}} should be singular|plural")

    def test_explain_translates_the_fields_of_an_english_error(self):
        from learn_pi_lab.session_tree import DanglingParent
        error = DanglingParent("p", referenced_by="c")
        self.assertEqual(str(error), "dangling parent for 'c': 'p'")
        self.assertEqual(i18n.explain(error, "en"), str(error))
        self.assertIn("'p'", i18n.explain(error, "zh"))
        self.assertNotEqual(i18n.explain(error, "zh"), str(error))
        self.assertEqual(i18n.explain(ValueError("plain"), "zh"), "plain")


def imports_i18n(source: str) -> bool:
    """Does this Python source import ``learn_pi_lab.i18n`` (in any spelling)?"""
    import ast
    for node in ast.walk(ast.parse(source)):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        if any(name.split(".")[-1] == "i18n" for name in names):
            return True
    return False


class CoreModulesSpeakEnglish(unittest.TestCase):
    """The core models raise in English and never import ``i18n`` (the edge translates).

    ``CORE`` is every core module (docs/architecture.md, Layers): the tree, the file layer,
    Pi's rules, the inspector and the store.
    """

    CORE = ("session_tree.py", "entry_text.py", "errors.py", "session_inspector.py", "store.py",
            *(f"{package}/{path.name}" for package in ("jsonl", "pi")
              for path in sorted((REPO / "learn_pi_lab" / package).glob("*.py"))))

    def test_no_core_module_imports_i18n(self):
        for name in self.CORE:
            with self.subTest(module=name):
                source = (REPO / "learn_pi_lab" / name).read_text(encoding="utf-8")
                self.assertFalse(imports_i18n(source),
                                 f"{name} imports i18n: raise in English, translate at the edge")

    def test_the_check_sees_every_spelling(self):
        for source in ("from learn_pi_lab.i18n import t\n", "import learn_pi_lab.i18n\n",
                       "from learn_pi_lab import i18n\n", "from . import i18n\n"):
            self.assertTrue(imports_i18n(source), source)
        self.assertFalse(imports_i18n("from learn_pi_lab.errors import Explained\n"))


if __name__ == "__main__":
    unittest.main()


def test_a_long_cycle_is_one_readable_line_in_both_languages() -> None:
    """A parent loop of a million entries once made an 8.9 MB error line listing every id."""
    from learn_pi_lab.session_tree import ParentCycle
    error = ParentCycle([f"e{number}" for number in range(1_000_000)])
    for text in (str(error), i18n.explain(error, "en"), i18n.explain(error, "zh")):
        assert len(text) < 400 and "e999999 -> e0" in text and "(999981)" in text
    assert len(error.cycle) == 1_000_000
    assert ParentCycle(["a", "b"]).loop == "a -> b -> a"
