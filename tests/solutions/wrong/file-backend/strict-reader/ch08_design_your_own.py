"""Wrong on purpose (file-backend): reads with json.loads on every line, so one damaged line makes the whole file unreadable."""

import json
from pathlib import Path

from learn_pi_lab.jsonl.writer import append_line


class FileBackend:
    def __init__(self, path):
        self.path = Path(path)

    def append(self, obj):
        append_line(self.path, obj)

    def read_all(self):
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines()]
