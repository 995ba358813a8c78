"""Wrong on purpose (safe-append): appends the line without checking how the file ends: after a torn line the new entry is glued to it."""

import json

def append_line(path, obj):
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
