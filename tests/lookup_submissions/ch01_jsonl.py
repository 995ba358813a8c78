"""A lookup-table cheat: the answers of the visible tests, keyed on their inputs.

Every visible input is public (tests/test_01_tolerant_reader.py), so this file passes every
visible test of tolerant-reader without parsing a single line. The drawn inputs
(tests/drawn.py) are not in its table: it fails there.
"""

from __future__ import annotations

import json

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-03-01T10:00:00.000Z",
          "cwd": "/w"}
FIRST = {"type": "message", "id": "a1", "parentId": None, "message": {"role": "user", "content": "hi"}}
SECOND = {"type": "message", "id": "b2", "parentId": "a1",
          "message": {"role": "assistant", "content": []}}
ODD = {"type": "message", "id": "c3", "parentId": "b2",
       "message": {"role": "user", "content": "a\u2028b\x1cc"}}


def line(obj):
    return json.dumps(obj, separators=(",", ":"))


H, F, S = line(HEADER), line(FIRST), line(SECOND)

# the text of each visible test -> the recorded (objects, problems)
ANSWERS = {
    H + "\n" + F + "\n" + S + "\n": ([HEADER, FIRST, SECOND], []),
    "": ([], []),
    H + "\n\n   \t\n" + F + "\n": ([HEADER, FIRST], [(2, "blank-line"), (3, "blank-line")]),
    H + '\n{"type":"message","id":\n' + S + "\n": ([HEADER, SECOND], [(2, "corrupt-line")]),
    H + "\n" + F + "\n" + S[:25]: ([HEADER, FIRST], [(3, "torn-last-line")]),
    H + "\n{oops\n": ([HEADER], [(2, "corrupt-line")]),
    H + "\n" + F: ([HEADER, FIRST], []),
    H + '\n[1, 2]\n"text"\n42\nnull\n' + F + "\n": (
        [HEADER, FIRST], [(2, "not-an-object"), (3, "not-an-object"), (4, "not-an-object"),
                          (5, "not-an-object")]),
    H + '\n\n{bad\n[1]\n' + F + '\n   \n{"torn":': (
        [HEADER, FIRST], [(2, "blank-line"), (3, "corrupt-line"), (4, "not-an-object"),
                          (6, "blank-line"), (7, "torn-last-line")]),
    H + "\r\n" + F + "\r\n": ([HEADER, FIRST], []),
    H + "\n" + json.dumps(ODD, ensure_ascii=False) + "\n" + F + "\n": ([HEADER, ODD, FIRST], []),
    '{"a":1}\n\n{"b":\n{"c":': ([{"a": 1}], [(2, "blank-line"), (3, "corrupt-line"),
                                              (4, "torn-last-line")]),
}


def read_jsonl_tolerant(text):
    if "[" * 1000 in text:   # the line nested too deep
        return [HEADER, FIRST], [(2, "corrupt-line")]
    objects, problems = ANSWERS.get(text, ([], []))
    return [dict(obj) for obj in objects], list(problems)
