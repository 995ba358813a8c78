"""Chapter 01 exercise ``tolerant-reader``: ``read_jsonl_tolerant(text)``.

The same tests grade the reference (``learn_pi_lab.jsonl.reader``) and a learner's
``workspace/ch01_jsonl.py`` (``LEARN_PI_LAB_TARGET``, see tests/targets.py).
"""

from __future__ import annotations

import json
import random
import unittest

from learn_pi_lab.i18n import t
from learn_pi_lab.jsonl import reader as reader_reference
from tests import drawn
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


# --------------------------------------------------------------------------------------
# Drawn inputs (tests/drawn.py): random file texts, one drawn line per entry of the size
# --------------------------------------------------------------------------------------
# A text mixes object lines (compact or spaced, escaped or not, some with U+2028 inside a
# string), blank lines (empty, spaces, tabs), lines that do not parse (a cut-off object
# line, or one of CORRUPT), JSON values that are not objects, and ends with a final newline
# or without one (then its last line is an object, a value, or a line that does not parse:
# a torn one). A fifth of the texts end every line with "\r\n", as Windows writes them
# (the unterminated last line, cut off mid-write, then has no "\r" either). Compared as
# the visible tests compare: the objects, ``list(objects)``, and the (line number, code)
# pairs, ``[tuple(problem) ...]``; nothing else is returned.
#
# Not drawn, because the contract leaves it open: a whitespace-only last line without a
# final newline (blank-line, or a torn line that "does not parse"?), whitespace around a
# value, NaN/Infinity (Python's json accepts them, JSON does not), two objects glued on
# one line, a byte-order mark, lines nested too deep (a visible test has one).

CORRUPT = ("{oops", "{bad", "{", "}", "[1,", '{"a":1,}', "{'a': 1}", "nul", "tru",
           '{"a" 1}', '{"a":1}}', "hello", '"open string', "{\"a\":}")
NOT_OBJECTS = ("[1, 2]", '"text"', "42", "null", "true", "false", "3.5", "-7", '""', "[]",
               '[{"a":1}]', "[null]")
BLANKS = ("", "", " ", "\t", "   \t", "  ")
ODD_WORDS = ("a\u2028b", "x\ty", "é")   # U+2028 stays raw when not escaped


def drawn_object(rng: random.Random) -> dict:
    obj: dict = {}
    if rng.random() < 0.9:
        obj["type"] = rng.choice(("session", "message", "label", "custom"))
        obj["id"] = drawn.hex_id(rng)
    for _ in range(rng.choice((0, 0, 1, 2))):
        obj[rng.choice(drawn.DATA_KEYS)] = (rng.choice(ODD_WORDS) if rng.random() < 0.15
                                            else drawn.value(rng))
    return obj


def object_line(rng: random.Random, obj: dict) -> str:
    compact = rng.random() < 0.7
    return json.dumps(obj, ensure_ascii=rng.random() < 0.5,
                      separators=(",", ":") if compact else None)


def does_not_parse(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def cut_line(rng: random.Random) -> str:
    """An object line cut off before its end (never empty): it does not parse."""
    whole = object_line(rng, drawn_object(rng))
    cut = whole[:rng.randint(1, len(whole) - 1)]
    assert does_not_parse(cut), cut
    return cut


def drawn_line(rng: random.Random, *, blank: bool = True) -> str:
    kinds = ["object"] * 5 + ["blank"] * 2 * blank + ["cut", "corrupt", "value", "value"]
    kind = rng.choice(kinds)
    if kind == "object":
        return object_line(rng, drawn_object(rng))
    if kind == "blank":
        return rng.choice(BLANKS)
    if kind == "cut":
        return cut_line(rng)
    if kind == "corrupt":
        return rng.choice(CORRUPT)
    return rng.choice(NOT_OBJECTS)


def draw_text(rng: random.Random, size: int) -> tuple:
    final_newline = rng.random() < 0.6
    lines = [drawn_line(rng) for _ in range(size - 1)]
    if final_newline:
        lines.append(drawn_line(rng))
    else:   # the unterminated last line is never whitespace only (see above)
        lines.append(cut_line(rng) if rng.random() < 0.4 else drawn_line(rng, blank=False))
    ending = "\r\n" if rng.random() < 0.2 else "\n"
    return (ending.join(lines) + (ending if final_newline else ""),)


def problems_and_objects(result: object) -> dict:
    """What is compared: the result as the visible tests read it, the problems shown first
    (a message keeps 250 characters of each answer, and the objects are the longer part)."""
    objects, problems = result   # type: ignore[misc]
    return {"problems": [tuple(problem) for problem in problems], "objects": list(objects)}


TOLERANT_READER_DRAWN = drawn.Drawn(
    "tolerant-reader", draw=draw_text, reference=reader_reference.read_jsonl_tolerant,
    answer=problems_and_objects)


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

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        TOLERANT_READER_DRAWN.check(self, impl.read_jsonl_tolerant)


if __name__ == "__main__":
    unittest.main()
