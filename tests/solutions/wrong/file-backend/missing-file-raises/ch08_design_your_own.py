"""Wrong on purpose (file-backend): reads the file without checking that it exists, so a new session's file raises FileNotFoundError instead of reading as []."""

from pathlib import Path

from learn_pi_lab.jsonl.reader import read_jsonl_tolerant
from learn_pi_lab.jsonl.writer import append_line


class FileBackend:
    def __init__(self, path):
        self.path = Path(path)

    def append(self, obj):
        append_line(self.path, obj)

    def read_all(self):
        with open(self.path, encoding="utf-8") as handle:
            return read_jsonl_tolerant(handle.read())[0]
