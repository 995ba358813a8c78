"""An honest solution of chapter 01: find each line's end, then decide what the line is."""
import json


def classify(piece, is_torn):
    if piece.strip() == "":
        return None, "blank-line"
    try:
        value = json.loads(piece)
    except (json.JSONDecodeError, RecursionError):
        return None, "torn-last-line" if is_torn else "corrupt-line"
    if not isinstance(value, dict):
        return None, "not-an-object"
    return value, None


def read_jsonl_tolerant(text):
    records, problems = [], []
    start, number = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        torn = end == -1
        piece = text[start:] if torn else text[start:end]
        number += 1
        value, problem = classify(piece, torn)
        if problem is None:
            records.append(value)
        else:
            problems.append((number, problem))
        start = len(text) if torn else end + 1
    return records, problems
