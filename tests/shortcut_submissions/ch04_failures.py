"""A shortcut through other package code (tests/shortcut_submissions/expect.json says which)."""
from __future__ import annotations
import os
from typing import Any
from learn_pi_lab.jsonl.reader import NotASessionFile, read_session_text
from learn_pi_lab.pi.session import session_from_text

def load_diagnostics(text: str) -> list[tuple[int | None, str]]:
    return [(found.line, found.code) for found in session_from_text(text).diagnostics]

def append_line(path: str | os.PathLike, obj: dict[str, Any]) -> None:
    raise NotImplementedError('练习 safe-append 还没有完成 / exercise safe-append is not implemented yet: write append_line in workspace/ch04_failures.py')
