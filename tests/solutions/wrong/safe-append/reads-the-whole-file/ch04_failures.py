"""Wrong on purpose (safe-append): reads the whole file to see its last byte, so every append costs as much as the file is large."""

import json
from pathlib import Path


def append_line(path, obj):
    data = Path(path).read_bytes() if Path(path).exists() else b""
    line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"
    with open(path, "a", encoding="utf-8") as handle:
        if data and not data.endswith(b"\n"):
            handle.write("\n")
        handle.write(line)
