"""Wrong on purpose (tolerant-reader): catches only json.JSONDecodeError, so a line nested too deep raises RecursionError out of the reader."""

import json

def read_jsonl_tolerant(text):
    objects, problems = [], []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()   # the final newline ends the last line; no empty line after it
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            problems.append((number, "blank-line"))
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            torn = number == len(lines) and not text.endswith("\n")
            problems.append((number, "torn-last-line" if torn else "corrupt-line"))
            continue
        if isinstance(value, dict):
            objects.append(value)
        else:
            problems.append((number, "not-an-object"))
    return objects, problems
