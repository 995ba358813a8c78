"""Wrong on purpose (tolerant-reader): splits with str.splitlines(), which also breaks lines at U+2028 inside a JSON string."""

import json

def read_jsonl_tolerant(text):
    objects, problems = [], []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            problems.append((number, "blank-line"))
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            torn = number == len(lines) and not text.endswith("\n")
            problems.append((number, "torn-last-line" if torn else "corrupt-line"))
            continue
        if isinstance(value, dict):
            objects.append(value)
        else:
            problems.append((number, "not-an-object"))
    return objects, problems
