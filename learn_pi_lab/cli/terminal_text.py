"""Text from a file, made safe to print on a terminal.

A session file, or a folder a learner named, can hold any character: an escape sequence
(``ESC ] 0 ; … BEL`` sets the terminal's title, ``ESC [ 2 J`` clears the screen), a
carriage return that overwrites the line, a right-to-left mark that reorders it. Printed
as they are, they redraw what the reader sees. ``shown`` writes each such character as
its escape (``\\x1b``, ``\\u202e``), so the text is still all there, only inert.
"""

from __future__ import annotations

import io
from typing import TextIO


def shown(text: str, keep: str = "") -> str:
    """``text`` with every character that is not printable (except those in ``keep``, e.g.
    the newlines of a multi-line report) written as its Python escape."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char in keep else repr(char)[1:-1]
                   for char in text)


class SafeTerminal(io.TextIOBase):
    """A text stream that passes everything written to ``out`` through ``shown`` (newlines
    kept: the command line writes its own). For text output only; JSON escapes itself."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        self.out.write(shown(text, keep="\n"))
        return len(text)

    def flush(self) -> None:
        self.out.flush()

    def fileno(self) -> int:
        return self.out.fileno()

    def isatty(self) -> bool:
        return self.out.isatty()

    def writable(self) -> bool:
        return True
