"""Wrong on purpose (safe-append): json.dumps with its defaults: spaces after separators and \\u escapes, unlike JSON.stringify."""

import json
import os

def append_line(path, obj):
    line = json.dumps(obj) + "\n"
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                line = "\n" + line
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line)
