"""Chapter 01 exercise ``tolerant-reader``: ``read_jsonl_tolerant(text)``.

The same tests grade the reference (``learn_pi_lab.jsonl.reader``) and a learner's
``workspace/ch01_jsonl.py`` (``LEARN_PI_LAB_TARGET``, see tests/targets.py).
"""

from __future__ import annotations

import json
import unittest

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
        self.assertIsInstance(result, tuple, msg="read_jsonl_tolerant must return a tuple "
                                                 f"(objects, problems); got {type(result).__name__}")
        self.assertEqual(len(result), 2, msg="return exactly two things: (objects, problems)")
        objects, problems = result
        return list(objects), [tuple(problem) for problem in problems]

    def test_clean_file_gives_every_object_and_no_problems(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), line(FIRST), line(SECOND)))
        self.assertEqual(objects, [HEADER, FIRST, SECOND],
                         msg=f"a clean file should give all three objects (the header too) in file "
                             f"order; got {objects!r}")
        self.assertEqual(problems, [], msg=f"a clean file has no problems; got {problems!r}")

    def test_empty_text_has_no_lines(self) -> None:
        self.assertEqual(self.read(""), ([], []),
                         msg="empty text has no lines at all: expected ([], [])")

    def test_blank_and_whitespace_lines_are_reported_with_their_line_numbers(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), "", "   \t", line(FIRST)))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg=f"blank lines are skipped, the objects around them kept; got {objects!r}")
        self.assertEqual(problems, [(2, "blank-line"), (3, "blank-line")],
                         msg="line 2 is empty and line 3 only whitespace: expected "
                             f"[(2, 'blank-line'), (3, 'blank-line')]; got {problems!r}")

    def test_corrupt_interior_line_costs_only_that_line(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), '{"type":"message","id":', line(SECOND)))
        self.assertEqual(objects, [HEADER, SECOND],
                         msg=f"the lines before and after a corrupt line must survive; got {objects!r}")
        self.assertEqual(problems, [(2, "corrupt-line")],
                         msg=f"line 2 does not parse and a line follows it: expected "
                             f"[(2, 'corrupt-line')]; got {problems!r}")

    def test_torn_last_line_without_newline(self) -> None:
        torn = line(SECOND)[:25]
        objects, problems = self.read(jsonl(line(HEADER), line(FIRST), torn, final_newline=False))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg=f"everything before the torn line must survive; got {objects!r}")
        self.assertEqual(problems, [(3, "torn-last-line")],
                         msg="the last line does not parse and has no final newline (a write cut "
                             f"off): expected [(3, 'torn-last-line')]; got {problems!r}")

    def test_bad_last_line_with_a_newline_is_corrupt_not_torn(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), "{oops"))
        self.assertEqual(problems, [(2, "corrupt-line")],
                         msg="the bad last line ends with a newline, so the write finished: it is "
                             f"'corrupt-line', not 'torn-last-line'; got {problems!r}")
        self.assertEqual(objects, [HEADER], msg=f"only the header parses; got {objects!r}")

    def test_last_line_without_newline_that_parses_is_kept(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), line(FIRST), final_newline=False))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg="a complete last line is fine even without a final newline; "
                             f"got {objects!r}")
        self.assertEqual(problems, [], msg=f"nothing is wrong here; got {problems!r}")

    def test_values_that_are_not_objects(self) -> None:
        objects, problems = self.read(jsonl(line(HEADER), "[1, 2]", '"text"', "42", "null",
                                            line(FIRST)))
        self.assertEqual(objects, [HEADER, FIRST],
                         msg=f"only JSON objects (dicts) belong in objects; got {objects!r}")
        expected = [(2, "not-an-object"), (3, "not-an-object"), (4, "not-an-object"),
                    (5, "not-an-object")]
        self.assertEqual(problems, expected,
                         msg=f"lines 2-5 parse but are not objects: expected {expected!r}; "
                             f"got {problems!r}")

    def test_problems_in_line_order_with_physical_line_numbers(self) -> None:
        text = jsonl(line(HEADER), "", "{bad", "[1]", line(FIRST), "   ", '{"torn":',
                     final_newline=False)
        objects, problems = self.read(text)
        expected = [(2, "blank-line"), (3, "corrupt-line"), (4, "not-an-object"),
                    (6, "blank-line"), (7, "torn-last-line")]
        self.assertEqual(problems, expected,
                         msg=f"line numbers count every physical line, starting at 1: expected "
                             f"{expected!r}; got {problems!r}")
        self.assertEqual(objects, [HEADER, FIRST], msg=f"got {objects!r}")

    def test_windows_line_endings_still_parse(self) -> None:
        objects, problems = self.read(line(HEADER) + "\r\n" + line(FIRST) + "\r\n")
        self.assertEqual((objects, problems), ([HEADER, FIRST], []),
                         msg="a \\r before the \\n is JSON whitespace: both lines parse; got "
                             f"{(objects, problems)!r}")

    def test_only_newline_ends_a_line(self) -> None:
        odd = {"type": "message", "id": "c3", "parentId": "b2",
               "message": {"role": "user", "content": "a\u2028b\x1cc"}}
        text = jsonl(line(HEADER), json.dumps(odd, ensure_ascii=False), line(FIRST))
        objects, problems = self.read(text)
        self.assertEqual((objects, problems), ([HEADER, odd, FIRST], []),
                         msg="split on \"\\n\" only: str.splitlines() also splits on characters "
                             "such as U+2028 that may appear inside a JSON string; got "
                             f"{(objects, problems)!r}")

    def test_docstring_example(self) -> None:
        self.assertEqual(self.read('{"a":1}\n\n{"b":\n{"c":'),
                         ([{"a": 1}], [(2, "blank-line"), (3, "corrupt-line"), (4, "torn-last-line")]),
                         msg="the example in the docstring should come out exactly as shown")


if __name__ == "__main__":
    unittest.main()
