"""Pi's deferred first write, as a small model (``docs/pi-session-format.md`` §10).

Pi keeps a new session in memory until the first assistant message is appended; only then
does the file appear, holding the header and everything so far. Every later entry is one
appended line. So a crash *before* the first reply loses the prompt and any settings chosen
so far: there is no file to find them in.

    session = DeferredSessionFile(path, header)
    session.append(user_message)          # nothing on disk yet
    session.append(assistant_message)     # the file appears: header + both entries
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from learn_pi_lab.jsonl.writer import to_json_line


def is_assistant_message(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "message" and entry.get("message", {}).get("role") == "assistant"


class DeferredSessionFile:
    """Appends the way Pi's ``_persist`` does: buffer until the first assistant message."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.in_memory: list[dict[str, Any]] = [header]
        self.flushed = False

    def append(self, entry: dict[str, Any]) -> None:
        self.in_memory.append(entry)
        if not self.flushed and not any(map(is_assistant_message, self.in_memory)):
            return                                   # nothing touches disk yet
        if not self.flushed:                         # first time: header + the backlog
            with self.path.open("x", encoding="utf-8") as handle:
                handle.writelines(to_json_line(item) + "\n" for item in self.in_memory)
            self.flushed = True
            return
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(to_json_line(entry) + "\n")

    def lines_on_disk(self) -> int:
        """What a crash right now would leave: the file's line count (0 when no file)."""
        if not self.path.exists():
            return 0
        return len(self.path.read_text(encoding="utf-8").splitlines())
