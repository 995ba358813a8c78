"""Wrong on purpose (file-backend): writes its own lines with open(path, 'a') instead of append_line: after a torn last line the next entry is glued to it."""

import json
from pathlib import Path

from learn_pi_lab.jsonl.reader import read_jsonl_tolerant


class FileBackend:
    def __init__(self, path):
        self.path = Path(path)

    def append(self, obj):
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(obj, ensure_ascii=False) + "\n")

    def read_all(self):
        if not self.path.exists():
            return []
        return read_jsonl_tolerant(self.path.read_text(encoding="utf-8"))[0]
