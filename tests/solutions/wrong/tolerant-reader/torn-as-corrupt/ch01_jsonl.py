"""Wrong on purpose (tolerant-reader): every line that does not parse is called corrupt-line, even the unterminated last one."""

import json

def read_jsonl_tolerant(text):
    objects, problems = [], []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            problems.append((number, "blank-line"))
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            problems.append((number, "corrupt-line"))
            continue
        if isinstance(value, dict):
            objects.append(value)
        else:
            problems.append((number, "not-an-object"))
    return objects, problems
