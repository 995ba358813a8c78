"""Two stores that keep a whole session as one JSON array: the designs Pi did not choose.

Chapter 04 crashes them in the middle of a write and compares them with an append-only
JSONL file:

* ``NaiveRewriteStore``: read-modify-write with ``open(path, "wb")``, which empties the file
  before the first byte is written. A crash mid-write loses everything: the straw man.
* ``AtomicRewriteStore``: the careful version. Write the whole array to a temporary file,
  ``fsync`` it, then ``os.replace`` it over the old file (a rename is atomic on POSIX). A
  crash leaves either the old file or the new one, never a half. Its real costs are
  elsewhere: every append writes the whole file again (O(n) bytes), and each rename
  replaces the previous version, so the file keeps no history of what it held before.

``crash_after=k`` simulates the process dying after ``k`` bytes of this write reached the
disk: the rest never arrives, and nothing after that point runs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def array_bytes(entries: list[dict]) -> bytes:
    return json.dumps(entries, ensure_ascii=False).encode("utf-8")


class NaiveRewriteStore:
    """The whole session as one JSON array, rewritten in place on every change."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def read_all(self) -> list[dict]:
        return json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else []

    def write_all(self, entries: list[dict], crash_after: int | None = None) -> int:
        data = array_bytes(entries)
        if crash_after is not None:
            data = data[:crash_after]              # the process dies here
        with open(self.path, "wb") as handle:      # "wb": the file is emptied first
            handle.write(data)
        return len(data)

    def append(self, entry: dict, crash_after: int | None = None) -> int:
        entries = self.read_all()                  # read ...
        entries.append(entry)                      # ... modify ...
        return self.write_all(entries, crash_after)  # ... write everything back

    def readable(self) -> int:
        """How many entries a reader still gets out of the file (0 when it does not parse)."""
        try:
            return len(self.read_all())
        except ValueError:                         # json.JSONDecodeError is a ValueError
            return 0


class AtomicRewriteStore(NaiveRewriteStore):
    """Write a temporary file, fsync it, rename it over the old one."""

    def write_all(self, entries: list[dict], crash_after: int | None = None) -> int:
        data = array_bytes(entries)
        temporary = self.path.with_name(self.path.name + ".tmp")
        with open(temporary, "wb") as handle:
            if crash_after is not None and crash_after < len(data):
                handle.write(data[:crash_after])   # the process dies before the rename
                return crash_after
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())              # the bytes are on disk ...
        os.replace(temporary, self.path)           # ... then the new file takes the name
        return len(data)
