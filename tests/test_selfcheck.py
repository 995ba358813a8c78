"""Self-check questions: the files are well formed, the answers are not given away by their
position or length, value answers match what the notebook computes, feedback explains every
option, and the display is stable."""

from __future__ import annotations

import json
import re
import tempfile
import unittest
from pathlib import Path

from learn_pi_lab.course import selfcheck
from learn_pi_lab.course.selfcheck import (CSS_CLASS, LETTERS, SelfCheck, SelfCheckError,
                                           feedback, load_questions)
from learn_pi_lab.i18n import t

REPO = Path(__file__).resolve().parent.parent


def option(zh: str, en: str) -> dict:
    return {"text": {"zh": zh, "en": en}, "why": {"zh": f"{zh}：因为……", "en": f"{en}: because..."}}


def good_question(answer: str = "B") -> dict:
    return {"question": {"zh": "问题？", "en": "Question?"},
            "choices": [option("甲", "one"), option("乙", "two")],
            "answer": answer}


def good_value_question(answer: dict | None = None) -> dict:
    return {"question": {"zh": "算一算？", "en": "Compute it?"},
            "answer": {"count": 5} if answer is None else answer,
            "explanation": {"zh": "因为……", "en": "Because..."}}


class QuestionFiles(unittest.TestCase):
    """Every committed question file loads; every chapter notebook asks only known ids."""

    def test_committed_questions_load(self):
        questions = load_questions()
        self.assertIn("ch00-q1", questions)
        self.assertIn("ch00-q2", questions)

    def test_every_chapter_has_two_to_four_questions(self):
        by_chapter: dict[str, int] = {}
        for question_id in load_questions():
            by_chapter[question_id[:4]] = by_chapter.get(question_id[:4], 0) + 1
        self.assertEqual(sorted(by_chapter), [f"ch{n:02d}" for n in range(9)])
        for chapter, count in by_chapter.items():
            with self.subTest(chapter=chapter):
                self.assertIn(count, (2, 3, 4), f"{chapter} has {count} self-check questions")

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


# -- the answer is not given away --------------------------------------------------------

MAX_POSITION_SHARE = 0.4     # no letter is the right answer in more than 40% of questions
MAX_LONGEST_SHARE = 1 / 3    # the longest option is the right one in at most a third
MIN_LENGTH_RATIO = 0.5       # in a question, the shortest option is at least half the longest


def choice_questions(questions) -> list:
    return [item for item in questions.values() if not item.is_value]


def longest_is_right(item, lang: str) -> bool:
    """True when the right option is the longest one (a tie counts: it still stands out)."""
    lengths = [len(text[lang]) for text in item.choices]
    return lengths[item.answer] == max(lengths)


def spread_problems(questions) -> list[str]:
    """Why a learner could guess without understanding; [] when nothing gives it away."""
    items = choice_questions(questions)
    problems = []
    for index, letter in enumerate(LETTERS):
        share = sum(item.answer == index for item in items) / len(items)
        if share > MAX_POSITION_SHARE:
            problems.append(f"{letter} is the answer in {share:.0%} of the questions")
    for lang in ("zh", "en"):
        longest = [item.id for item in items if longest_is_right(item, lang)]
        if len(longest) > MAX_LONGEST_SHARE * len(items):
            problems.append(f"{lang}: the longest option is right in {len(longest)} of "
                            f"{len(items)}: {longest}")
        for item in items:
            lengths = [len(text[lang]) for text in item.choices]
            if min(lengths) < MIN_LENGTH_RATIO * max(lengths):
                problems.append(f"{item.id} {lang}: option lengths {lengths} differ too much")
    return problems


class AnswersAreNotGivenAway(unittest.TestCase):
    """Options of comparable length, right answers spread over the letters, and a reason for
    every option, so a learner has to understand to answer."""

    def test_the_committed_questions_spread_their_answers(self):
        questions = load_questions()
        self.assertGreaterEqual(len(choice_questions(questions)), 15)
        self.assertEqual(spread_problems(questions), [])

    def test_the_spread_check_catches_the_old_pattern(self):
        # The pattern issue 10 found: the right answer is B and the longest option.
        def biased(number: int) -> selfcheck.Question:
            options = tuple(selfcheck.Option({"zh": text, "en": text}, {"zh": "因为", "en": "why"})
                            for text in ("short", "the long and right one", "brief", "tiny"))
            return selfcheck.Question(f"ch01-q{number}", {"zh": "?", "en": "?"}, options, 1, None)
        problems = spread_problems({f"q{n}": biased(n) for n in range(6)})
        self.assertTrue(any(p.startswith("B is the answer in 100%") for p in problems), problems)
        self.assertTrue(any(p.startswith("en: the longest option is right in 6 of 6")
                            for p in problems), problems)
        self.assertTrue(any("differ too much" in p for p in problems), problems)

    def test_every_option_explains_itself_in_both_languages(self):
        for item in choice_questions(load_questions()):
            for letter, option in zip(item.letters, item.options):
                with self.subTest(question=item.id, option=letter):
                    for lang in ("zh", "en"):
                        self.assertTrue(option.why[lang].strip())
                        self.assertNotEqual(option.why[lang], option.text[lang])
                    self.assertNotEqual(option.why["zh"], option.why["en"])

    def test_the_chinese_texts_are_written_in_chinese(self):
        han = re.compile(r"[\u4e00-\u9fff]")
        for item in load_questions().values():
            texts = [item.question] + [option.why for option in item.options]
            texts += [item.explanation] if item.explanation else []
            for text in texts:
                with self.subTest(question=item.id, text=text["en"][:40]):
                    self.assertTrue(han.search(text["zh"]), "the zh text has no Chinese in it")

    def test_some_questions_are_answered_by_running_code(self):
        values = [item for item in load_questions().values() if item.is_value]
        self.assertGreaterEqual(len(values), 3)
        self.assertEqual({item.value_kind for item in values}, {"count", "id"})
        self.assertEqual({item.id for item in values}, set(VALUE_ORACLES),
                         "every value question needs an oracle below, and only those")


# -- value questions: the stored answer is what the notebook computes ---------------------

def _session(name: str, mode: str = "teaching"):
    from learn_pi_lab.course.paths import data_file
    from learn_pi_lab.pi.session import load_session
    return load_session(data_file(name), mode=mode)


def _context_size(name: str) -> int:
    from learn_pi_lab.pi.context import build_session_context
    return len(build_session_context(_session(name).branch()).messages)


# Each value question's answer, computed the way its question tells the learner to.
VALUE_ORACLES = {
    "ch02-q3": lambda: len(_session("branched.jsonl").branch()),
    "ch04-q3": lambda: len(_session("failure-dangling-parent.jsonl", mode="pi").branch()),
    "ch06-q2": lambda: _context_size("compacted.jsonl"),
    "ch07-q3": lambda: _session("pi/pi-session-inspector/branching.jsonl", mode="pi").leaf_id,
}


class ValueQuestions(unittest.TestCase):
    def test_stored_answers_are_what_the_package_computes(self):
        for question_id, oracle in VALUE_ORACLES.items():
            with self.subTest(question=question_id):
                self.assertEqual(selfcheck.question(question_id).answer, oracle())

    def test_the_right_value_is_accepted_however_it_is_typed(self):
        right = t("course.selfcheck.right", "en")
        for typed in (10, "10", " 10 ", "'10'", '"10"', "“10”"):
            with self.subTest(typed=typed):
                self.assertTrue(feedback("ch02-q3", typed, "en").startswith(right))
        self.assertTrue(feedback("ch07-q3", ' "e8" ', "en").startswith(right))
        self.assertEqual(selfcheck.normalise_value("1,000", "count"), 1000)
        self.assertEqual(selfcheck.normalise_value("1_000", "count"), 1000)

    def test_a_near_miss_is_wrong_and_shows_the_computed_value(self):
        for typed in (9, "11", "16"):
            with self.subTest(typed=typed):
                text = feedback("ch02-q3", typed, "zh")
                self.assertTrue(text.startswith(t("course.selfcheck.wrong_value", "zh",
                                                  value=int(typed), answer=10)))
                self.assertIn(selfcheck.question("ch02-q3").explanation["zh"], text)
        for typed in ("E8", "e8 ", "e", "e80"):
            expected_right = typed.strip() == "e8"
            with self.subTest(typed=typed):
                self.assertEqual(feedback("ch07-q3", typed, "en").startswith(
                    t("course.selfcheck.right", "en")), expected_right)

    def test_what_is_not_a_value_is_explained_not_raised(self):
        for typed in ("ten", "10.0", "-3", True, None, "1,00"):
            with self.subTest(typed=typed):
                self.assertEqual(feedback("ch02-q3", typed, "en"),
                                 t("course.selfcheck.bad_count", "en", value=repr(typed)))
        for typed in ("", "two ids", None, ["e8"]):
            with self.subTest(typed=typed):
                self.assertEqual(feedback("ch07-q3", typed, "en"),
                                 t("course.selfcheck.bad_id", "en", value=repr(typed)))

    def test_display_says_how_to_answer_with_a_value(self):
        for lang in ("zh", "en"):
            text = SelfCheck("ch02-q3", lang).text()
            self.assertIn(t("course.selfcheck.how_to_answer_count", lang, qid="ch02-q3"), text)
            self.assertNotIn("A. ", text)
            self.assertIn(t("course.selfcheck.how_to_answer_id", lang, qid="ch07-q3"),
                          SelfCheck("ch07-q3", lang).text())

    def test_value_widget_checks_the_typed_value(self):
        check = SelfCheck("ch06-q2", "en")
        title, box, button, result = check.widget.children
        button.click()
        self.assertEqual(result.value, t("course.selfcheck.pick_first", "en"))
        box.value = "4"
        button.click()
        self.assertIn("Not quite", result.value)
        box.value = " 5 "
        button.click()
        self.assertIn(t("course.selfcheck.right", "en"), result.value)


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
        question["choices"][1]["text"]["en"] = "  "
        self.assertRefused({"ch03.json": {"ch03-q1": question}}, "choice B", "en")

    def test_every_option_needs_its_why(self):
        question = good_question()
        del question["choices"][0]["why"]
        self.assertRefused({"ch03.json": {"ch03-q1": question}}, "choice A", "why")
        question = good_question()
        question["choices"][1]["why"] = {"zh": "只有中文"}
        self.assertRefused({"ch03.json": {"ch03-q1": question}}, "choice B why")

    def test_a_closing_explanation_is_optional_for_a_choice_question(self):
        question = good_question("A")
        question["explanation"] = {"zh": "总之……", "en": "In short..."}
        loaded = self.load({"ch03.json": {"ch03-q1": question, "ch03-q2": good_question()}})
        self.assertEqual(loaded["ch03-q1"].explanation["en"], "In short...")
        self.assertIsNone(loaded["ch03-q2"].explanation)

    def test_a_good_value_question_loads(self):
        loaded = self.load({"ch06.json": {"ch06-q1": good_value_question(),
                                          "ch06-q2": good_value_question({"id": "e8"})}})
        self.assertEqual((loaded["ch06-q1"].value_kind, loaded["ch06-q1"].answer), ("count", 5))
        self.assertEqual((loaded["ch06-q2"].value_kind, loaded["ch06-q2"].answer), ("id", "e8"))
        self.assertTrue(loaded["ch06-q1"].is_value)
        self.assertEqual(loaded["ch06-q1"].letters, "")

    def test_bad_value_answers_are_refused(self):
        for answer in ({"count": "5"}, {"count": True}, {"count": -1}, {"id": " e8"},
                       {"id": ""}, {"number": 5}, {"count": 5, "id": "e8"}, 5):
            with self.subTest(answer=answer):
                self.assertRefused({"ch06.json": {"ch06-q1": good_value_question(answer)}},
                                   "ch06-q1", "answer")

    def test_a_value_question_needs_its_explanation(self):
        question = good_value_question()
        del question["explanation"]
        self.assertRefused({"ch06.json": {"ch06-q1": question}}, "explanation", "missing")

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

    def assertExplainsEveryOption(self, text: str, chosen: str, lang: str) -> None:
        for letter, option in zip(self.item.letters, self.item.options):
            key = ("course.selfcheck.option_right" if letter == self.right
                   else "course.selfcheck.option_wrong")
            marker = "→" if letter == chosen else " "
            self.assertIn(f"{marker} " + t(key, lang, letter=letter, why=option.why[lang]), text)

    def test_right_answer(self):
        for lang in ("zh", "en"):
            text = feedback("ch00-q1", self.right, lang)
            self.assertTrue(text.startswith(t("course.selfcheck.right", lang)))
            self.assertExplainsEveryOption(text, self.right, lang)

    def test_wrong_answer_names_both_choices_and_explains_every_option(self):
        for lang in ("zh", "en"):
            text = feedback("ch00-q1", self.wrong, lang)
            self.assertTrue(text.startswith(
                t("course.selfcheck.wrong", lang, choice=self.wrong, answer=self.right)))
            self.assertExplainsEveryOption(text, self.wrong, lang)
            self.assertEqual(text.count("→"), 1)

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
