"""Chapter 01's idea: a JSONL file is read line by line, and a bad line costs only itself.

Split at "\n"; each piece is one JSON object or a problem with its line number
(``blank-line``, ``corrupt-line``, ``not-an-object``), and only an unterminated last line that
does not parse is ``torn-last-line`` (a write cut short by a crash). This is also the model
answer of the exercise ``tolerant-reader``. The engine is ``learn_pi_lab.jsonl.reader``: the
same rule over bytes, in blocks, with limits, repairs and Pi's own reading beside it
(``tests/test_01_tolerant_reader.py`` grades both).
"""

from __future__ import annotations

import json
from typing import Any


def read_jsonl_tolerant(text: str) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]:
    pieces = text.split("\n")
    ends_with_newline = pieces[-1] == ""
    if ends_with_newline:
        pieces.pop()                       # the empty piece after the final "\n" is no line
    objects: list[dict[str, Any]] = []
    problems: list[tuple[int, str]] = []
    for number, piece in enumerate(pieces, start=1):
        if piece.strip() == "":
            problems.append((number, "blank-line"))
            continue
        try:
            value = json.loads(piece)
        except (ValueError, RecursionError):   # RecursionError: a line nested too deep
            is_last = number == len(pieces)
            problems.append((number, "torn-last-line" if is_last and not ends_with_newline
                             else "corrupt-line"))
            continue
        if isinstance(value, dict):
            objects.append(value)
        else:
            problems.append((number, "not-an-object"))
    return objects, problems
