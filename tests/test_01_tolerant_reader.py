"""Chapter 01 exercise ``tolerant-reader``: ``read_jsonl_tolerant(text)``.

The same tests grade the reference (``learn_pi_lab.jsonl.reader``) and a learner's
``workspace/ch01_jsonl.py`` (``LEARN_PI_LAB_TARGET``, see tests/targets.py).
"""

from __future__ import annotations

import json
import unittest

from learn_pi_lab.i18n import t
from tests.targets import load_target

impl = load_target("ch01_jsonl", "learn_pi_lab.jsonl.reader")

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-03-01T10:00:00.000Z",
          "cwd": "/w"}
FIRST = {"type": "message", "id": "a1", "parentId": None, "message": {"role": "user", "content": "hi"}}
SECOND = {"type": "message", "id": "b2", "parentId": "a1",
          "message": {"role": "assistant", "content": []}}


def line(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"))


def jsonl(*lines: str, final_newline: bool = True) -> str:
    return "\n".join(lines) + ("\n" if final_newline else "")


class TolerantReaderTests(unittest.TestCase):
    def read(self, text: str) -> tuple[list, list]:
        result = impl.read_jsonl_tolerant(text)
        self.assertIsInstance(result, tuple, msg=t("exercise_tests.tolerant_reader.returns_tuple",
                                                   got=type(result).__name__))
        self.assertEqual(len(result), 2, msg=t("exercise_tests.tolerant_reader.two_things"))
        objects, problems = result
        return list(objects), [tuple(problem) for problem in problems]

    def test_clean_file_gives_every_object_and_no_problems(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), line(FIRST), line(SECOND)))
        self.assertEqual(objects, [HEADER, FIRST, SECOND],
                         msg=t("exercise_tests.tolerant_reader.clean_objects", got=objects))
        self.assertEqual(problems, [],
                         msg=t("exercise_tests.tolerant_reader.clean_problems", got=problems))

    def test_empty_text_has_no_lines(self) -> None:
        self.assertEqual(self.read(""), ([], []),
                         msg=t("exercise_tests.tolerant_reader.empty_text"))

    def test_blank_and_whitespace_lines_are_reported_with_their_line_numbers(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), "", "   \t", line(FIRST)))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg=t("exercise_tests.tolerant_reader.blank_objects", got=objects))
        self.assertEqual(problems, [(2, "blank-line"), (3, "blank-line")],
                         msg=t("exercise_tests.tolerant_reader.blank_problems", got=problems))

    def test_corrupt_interior_line_costs_only_that_line(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), '{"type":"message","id":', line(SECOND)))
        self.assertEqual(objects, [HEADER, SECOND],
                         msg=t("exercise_tests.tolerant_reader.corrupt_objects", got=objects))
        self.assertEqual(problems, [(2, "corrupt-line")],
                         msg=t("exercise_tests.tolerant_reader.corrupt_problems", got=problems))

    def test_torn_last_line_without_newline(self) -> None:
        torn = line(SECOND)[:25]
        objects, problems = self.read(jsonl(line(HEADER), line(FIRST), torn, final_newline=False))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg=t("exercise_tests.tolerant_reader.torn_objects", got=objects))
        self.assertEqual(problems, [(3, "torn-last-line")],
                         msg=t("exercise_tests.tolerant_reader.torn_problems", got=problems))

    def test_bad_last_line_with_a_newline_is_corrupt_not_torn(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), "{oops"))
        self.assertEqual(problems, [(2, "corrupt-line")],
                         msg=t("exercise_tests.tolerant_reader.bad_last_problems", got=problems))
        self.assertEqual(objects, [HEADER],
                         msg=t("exercise_tests.tolerant_reader.bad_last_objects", got=objects))

    def test_last_line_without_newline_that_parses_is_kept(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), line(FIRST), final_newline=False))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg=t("exercise_tests.tolerant_reader.unterminated_objects", got=objects))
        self.assertEqual(problems, [],
                         msg=t("exercise_tests.tolerant_reader.unterminated_problems",
                               got=problems))

    def test_values_that_are_not_objects(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), "[1, 2]", '"text"', "42", "null",
                                            line(FIRST)))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg=t("exercise_tests.tolerant_reader.not_objects_objects", got=objects))
        expected = [(2, "not-an-object"), (3, "not-an-object"), (4, "not-an-object"),
                    (5, "not-an-object")]
        self.assertEqual(problems, expected,
                         msg=t("exercise_tests.tolerant_reader.not_objects_problems",
                               want=expected, got=problems))

    def test_problems_in_line_order_with_physical_line_numbers(self) -> None:
        text = jsonl(line(HEADER), "", "{bad", "[1]", line(FIRST), "   ", '{"torn":',
                     final_newline=False)
        objects, problems = self.read(text)
        expected = [(2, "blank-line"), (3, "corrupt-line"), (4, "not-an-object"),
                    (6, "blank-line"), (7, "torn-last-line")]
        self.assertEqual(problems, expected,
                         msg=t("exercise_tests.tolerant_reader.line_numbers", want=expected,
                               got=problems))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg=t("exercise_tests.tolerant_reader.line_numbers_objects",
                               got=objects))

    def test_windows_line_endings_still_parse(self) -> None:
        objects, problems = self.read(line(HEADER) + "\r\n" + line(FIRST) + "\r\n")
        self.assertEqual((objects, problems), ([HEADER, FIRST], []),
                         msg=t("exercise_tests.tolerant_reader.crlf", got=(objects, problems)))

    def test_only_newline_ends_a_line(self) -> None:
        odd = {"type": "message", "id": "c3", "parentId": "b2",
               "message": {"role": "user", "content": "a\u2028b\x1cc"}}
        text = jsonl(line(HEADER), json.dumps(odd, ensure_ascii=False), line(FIRST))
        objects, problems = self.read(text)
        self.assertEqual((objects, problems), ([HEADER, odd, FIRST], []),
                         msg=t("exercise_tests.tolerant_reader.only_newline",
                               got=(objects, problems)))

    def test_very_deep_line_is_a_corrupt_line_not_an_exception(self) -> None:
        # json.loads gives up on 100,000 open brackets with RecursionError, not
        # JSONDecodeError: "never raise" means that one is a corrupt line too.
        try:
            got = self.read(jsonl(line(HEADER), "[" * 100_000, line(FIRST)))
        except RecursionError:
            self.fail(t("exercise_tests.tolerant_reader.too_deep_raised"))
        want = ([HEADER, FIRST], [(2, "corrupt-line")])
        self.assertEqual(got, want, msg=t("exercise_tests.tolerant_reader.too_deep", got=got))

    def test_docstring_example(self) -> None:
        want = ([{"a": 1}], [(2, "blank-line"), (3, "corrupt-line"), (4, "torn-last-line")])
        got = self.read('{"a":1}\n\n{"b":\n{"c":')
        self.assertEqual(got, want, msg=t("exercise_tests.tolerant_reader.docstring",
                                          want=want, got=got))


if __name__ == "__main__":
    unittest.main()
