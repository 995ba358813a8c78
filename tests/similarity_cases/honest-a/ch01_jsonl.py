"""An honest solution of chapter 01: number the lines first, then judge each one."""
import json


def read_jsonl_tolerant(text):
    good = []
    bad = []
    *finished, rest = text.split("\n")
    lines = [(number, body, True) for number, body in enumerate(finished, 1)]
    if rest:
        lines.append((len(finished) + 1, rest, False))
    for number, body, complete in lines:
        if not body.strip():
            bad.append((number, "blank-line"))
            continue
        try:
            parsed = json.loads(body)
        except RecursionError:
            bad.append((number, "corrupt-line"))
            continue
        except ValueError:
            bad.append((number, "corrupt-line" if complete else "torn-last-line"))
            continue
        if type(parsed) is dict:
            good.append(parsed)
        else:
            bad.append((number, "not-an-object"))
    return good, bad
