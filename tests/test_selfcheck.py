"""Self-check questions: the files are well formed, feedback is right, the display is stable."""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path

from learn_pi_lab.course import selfcheck
from learn_pi_lab.course.selfcheck import (CSS_CLASS, LETTERS, SelfCheck, SelfCheckError,
                                           feedback, load_questions)
from learn_pi_lab.i18n import t

REPO = Path(__file__).resolve().parent.parent


def good_question(answer: str = "B") -> dict:
    return {"question": {"zh": "问题？", "en": "Question?"},
            "choices": [{"zh": "甲", "en": "one"}, {"zh": "乙", "en": "two"}],
            "answer": answer,
            "explanation": {"zh": "因为……", "en": "Because..."}}


class QuestionFiles(unittest.TestCase):
    """Every committed question file loads; every chapter notebook asks only known ids."""

    def test_committed_questions_load(self):
        questions = load_questions()
        self.assertIn("ch00-q1", questions)
        self.assertIn("ch00-q2", questions)

    def test_every_chapter_has_two_or_three_questions(self):
        by_chapter: dict[str, int] = {}
        for question_id in load_questions():
            by_chapter[question_id[:4]] = by_chapter.get(question_id[:4], 0) + 1
        for chapter, count in by_chapter.items():
            with self.subTest(chapter=chapter):
                self.assertIn(count, (2, 3), f"{chapter} has {count} self-check questions")

    def test_notebooks_ask_only_existing_questions(self):
        import re
        known = load_questions()
        for source in sorted((REPO / "notebooks" / "source").glob("ch*.py")):
            for question_id in re.findall(r"""ask\(\s*["'](ch\d\d-q\d+)["']""",
                                          source.read_text(encoding="utf-8")):
                with self.subTest(source=source.name, question=question_id):
                    self.assertTrue(question_id in known,
                                    f"{source.name} asks {question_id!r}, which is not in "
                                    f"learn_pi_lab/course/selfcheck/{question_id[:4]}.json")


class QuestionFormat(unittest.TestCase):
    """A broken file is refused with a message naming the file (and the question)."""

    def load(self, files: dict[str, object]):
        with tempfile.TemporaryDirectory() as folder:
            for name, content in files.items():
                text = content if isinstance(content, str) else json.dumps(content)
                (Path(folder) / name).write_text(text, encoding="utf-8")
            return load_questions(Path(folder))

    def assertRefused(self, files: dict[str, object], *words: str) -> None:
        with self.assertRaises(SelfCheckError) as caught:
            self.load(files)
        for word in words:
            self.assertIn(word, str(caught.exception))

    def test_a_good_file_loads(self):
        questions = self.load({"ch05.json": {"ch05-q1": good_question("B")}})
        self.assertEqual(questions["ch05-q1"].answer, 1)
        self.assertEqual(questions["ch05-q1"].letters, "AB")

    def test_files_are_read_from_the_whole_folder(self):
        questions = self.load({"ch01.json": {"ch01-q1": good_question()},
                               "ch02.json": {"ch02-q1": good_question(), "ch02-q2": good_question("A")}})
        self.assertEqual(sorted(questions), ["ch01-q1", "ch02-q1", "ch02-q2"])

    def test_missing_language(self):
        question = good_question()
        question["explanation"] = {"zh": "只有中文"}
        self.assertRefused({"ch03.json": {"ch03-q1": question}}, "ch03.json", "ch03-q1", "explanation")

    def test_empty_text(self):
        question = good_question()
        question["choices"][1]["en"] = "  "
        self.assertRefused({"ch03.json": {"ch03-q1": question}}, "choice B", "en")

    def test_answer_out_of_range(self):
        self.assertRefused({"ch03.json": {"ch03-q1": good_question("C")}}, "answer")

    def test_too_few_choices(self):
        question = good_question()
        question["choices"] = question["choices"][:1]
        self.assertRefused({"ch03.json": {"ch03-q1": question}}, "choices")

    def test_unknown_field(self):
        question = good_question()
        question["hint"] = {"zh": "x", "en": "y"}
        self.assertRefused({"ch03.json": {"ch03-q1": question}}, "fields")

    def test_id_must_match_the_file(self):
        self.assertRefused({"ch03.json": {"ch04-q1": good_question()}}, "ch03-q1")

    def test_file_name(self):
        self.assertRefused({"chapter3.json": {"ch03-q1": good_question()}}, "chNN.json")

    def test_duplicate_key_in_one_file(self):
        text = '{"ch03-q1": %s, "ch03-q1": %s}' % (json.dumps(good_question()),
                                                   json.dumps(good_question()))
        self.assertRefused({"ch03.json": text}, "ch03.json", "duplicate")

    def test_not_json(self):
        self.assertRefused({"ch03.json": "{not json"}, "ch03.json", "JSON")


class Feedback(unittest.TestCase):
    def setUp(self):
        self.item = selfcheck.question("ch00-q1")
        self.right = LETTERS[self.item.answer]
        self.wrong = next(letter for letter in self.item.letters if letter != self.right)

    def test_right_answer(self):
        for lang in ("zh", "en"):
            text = feedback("ch00-q1", self.right, lang)
            self.assertTrue(text.startswith(t("course.selfcheck.right", lang)))
            self.assertIn(self.item.explanation[lang], text)

    def test_wrong_answer_names_both_choices_and_explains(self):
        for lang in ("zh", "en"):
            text = feedback("ch00-q1", self.wrong, lang)
            self.assertTrue(text.startswith(
                t("course.selfcheck.wrong", lang, choice=self.wrong, answer=self.right)))
            self.assertIn(self.item.explanation[lang], text)

    def test_lower_case_and_spaces_are_accepted(self):
        self.assertEqual(feedback("ch00-q1", f" {self.right.lower()} ", "en"),
                         feedback("ch00-q1", self.right, "en"))

    def test_a_choice_that_does_not_exist_is_explained_not_raised(self):
        for bad in ("Z", "", "AB", 1):
            with self.subTest(choice=bad):
                text = feedback("ch00-q1", bad, "en")
                self.assertEqual(text, t("course.selfcheck.bad_choice", "en", choice=repr(bad),
                                         letters=", ".join(self.item.letters)))

    def test_unknown_question(self):
        with self.assertRaises(SelfCheckError) as caught:
            feedback("ch99-q9", "A", "en")
        self.assertIn("ch99-q9", str(caught.exception))

    def test_answer_prints_the_feedback(self):
        from contextlib import redirect_stdout
        from io import StringIO
        out = StringIO()
        with redirect_stdout(out):
            selfcheck.answer("ch00-q1", self.right, "zh")
        self.assertEqual(out.getvalue(), feedback("ch00-q1", self.right, "zh") + "\n")


class Display(unittest.TestCase):
    def test_text_lists_question_and_every_choice(self):
        item = selfcheck.question("ch00-q2")
        for lang in ("zh", "en"):
            text = SelfCheck("ch00-q2", lang).text()
            self.assertIn(item.question[lang], text)
            for letter, choice in zip(item.letters, item.choices):
                self.assertIn(f"{letter}. {choice[lang]}", text)
            self.assertIn('answer("ch00-q2", "A")', text)

    def test_display_is_the_same_every_time_and_carries_the_css_class(self):
        first = SelfCheck("ch00-q1", "en")._repr_mimebundle_()
        second = SelfCheck("ch00-q1", "en")._repr_mimebundle_()
        self.assertEqual(first["text/plain"], second["text/plain"])
        self.assertEqual(first["text/html"], second["text/html"])
        self.assertIn(f'class="{CSS_CLASS}"', first["text/html"])

    def test_widget_has_the_class_and_checks_an_answer(self):
        check = SelfCheck("ch00-q1", "en")
        self.assertIsNotNone(check.widget, "ipywidgets is part of the workbook environment")
        self.assertIn(CSS_CLASS, check.widget._dom_classes)
        title, picker, button, result = check.widget.children
        button.click()
        self.assertEqual(result.value, t("course.selfcheck.pick_first", "en"))
        right = LETTERS[check.question.answer]
        picker.value = right
        button.click()
        self.assertIn(t("course.selfcheck.right", "en"), result.value)
        self.assertIn("application/vnd.jupyter.widget-view+json", check._repr_mimebundle_())

    def test_text_fallback_without_ipywidgets(self):
        from unittest import mock
        with mock.patch.dict("sys.modules", {"ipywidgets": None}):
            check = SelfCheck("ch00-q1", "zh")
        self.assertIsNone(check.widget)
        bundle = check._repr_mimebundle_()
        self.assertEqual(set(bundle), {"text/plain", "text/html"})
        self.assertEqual(repr(check), check.text())


if __name__ == "__main__":
    unittest.main()
