"""Wrong on purpose (safe-append): reads the whole file and writes it back with "wb", the new line at the end: the same bytes, but a power cut halfway loses the session."""

import json
import os


def append_line(path, obj):
    line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    existing = open(path, "rb").read() if os.path.exists(path) else b""
    if existing and not existing.endswith(b"\n"):
        existing += b"\n"
    with open(path, "wb") as handle:
        handle.write(existing + line)
