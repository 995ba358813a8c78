"""A shortcut through other package code (tests/shortcut_submissions/expect.json says which)."""
from __future__ import annotations
import io
from typing import Any
from learn_pi_lab.jsonl.reader import iter_entries_streaming

def read_jsonl_tolerant(text: str) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]:
    found: list = []
    source = io.BytesIO(b'{"type":"session","id":"-"}\n' + text.encode('utf-8', 'surrogatepass'))
    objects = [loaded.obj for loaded in iter_entries_streaming(source, diagnostics=found)][1:]
    return (objects, [(d.line - 1, d.code) for d in found if d.code not in ('crlf', 'bom')])
