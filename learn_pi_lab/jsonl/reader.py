"""Read a session file line by line: tolerant of damage, never silent about it.

One JSON object per line is what makes a session file robust. A crash in the middle of a
write tears only the last line; a bad byte costs one line, not the file. The whole idea
fits in fifteen lines, and that is where this module starts: ``read_jsonl_tolerant``, on a
string, without any refinement (chapter 01's exercise; its model answer, written as a learner
would, is ``learn_pi_lab/lessons/ch01_jsonl.py``).

Everything after it is the same idea, made to survive real files:

* **Streaming.** The file is read one physical line at a time (``.jsonl.xz`` files are
  decompressed on the fly). Nothing ever parses the whole file as one string, so a 200 MB
  session costs one line of memory at a time to scan (``iter_entries_streaming``).
* **Tolerant, never silent.** Every line it cannot use becomes a ``Diagnostic`` with its
  line number (torn last line, corrupt line, glued objects, duplicates, ...), and the rest
  of the file is still read. Only a file that is not a session at all raises
  ``NotASessionFile``.
* **Safe with hostile input.** Every value handed out can be written back as strict JSON
  in UTF-8: a number too large for a double is read as the largest one, a lone surrogate
  escape (``"\\ud800"``) as U+FFFD, and a line nested deeper than ``Limits.max_depth`` is
  refused before the JSON parser sees it. Lines, files and stored diagnostics have limits
  (``Limits``, ``docs/limits.md``), and a FIFO or a device is refused before it is read.

Two modes, because the course compares the two:

* ``teaching`` (default): the rules the course argues for, e.g. an identical re-append
  is de-duplicated, two objects glued onto one line are both recovered.
* ``pi``: what Pi v0.84.2 does (pi-session-format.md sections 6 and 12b), e.g. a glued
  line is lost, a BOM makes the file "not a session", a later duplicate wins. (Where Pi
  would *write*, as when it puts a fresh header into an empty file, this reader raises
  ``NotASessionFile`` instead: it never writes.)

The reader never writes. Old (v1/v2) files are migrated in memory only. It speaks
English (``str`` of its exceptions); ``learn_pi_lab.i18n.explain`` shows a ``Diagnostic``
or a ``NotASessionFile`` in the learner's language.
"""

from __future__ import annotations

import io
import json
import lzma
import operator
import os
import random
import re
import stat
import sys
import zlib
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from itertools import count as count_from
from itertools import repeat
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Mapping, Union

from learn_pi_lab.collector import collector_paused
from learn_pi_lab.errors import Explained, UnknownChoice
from learn_pi_lab.jsonl.fast_decoder import REFUSED, FastDecode, fast_decode_for
from learn_pi_lab.jsonl.ids import new_entry_id
from learn_pi_lab.jsonl.migration import CURRENT_VERSION, NewId, header_version, migrate_to_v3
from learn_pi_lab.jsonl.records import KNOWN_ENTRY_TYPES, entry_id_of


# --------------------------------------------------------------------------------------
# Chapter 01 exercise: the whole idea, small
# --------------------------------------------------------------------------------------

def read_jsonl_tolerant(text: str) -> tuple[list[dict], list[tuple[int, str]]]:
    """Parse JSONL text one line at a time; a bad line costs that line, nothing more.

    Returns ``(objects, problems)``: every JSON object in file order (the header too), and
    ``(line_no, code)`` for each line that was skipped: ``blank-line``, ``not-an-object``,
    ``torn-last-line`` (the last line does not parse and has no final newline: a write
    that was cut off) or ``corrupt-line`` (any other line that does not parse).
    """
    if not isinstance(text, str):
        raise WrongArgument("text", text)
    lines = text.split("\n")
    if lines[-1] == "":          # text ending in "\n" (or empty text) has no line after it
        lines.pop()
    last_is_unterminated = not text.endswith("\n")
    objects: list[dict] = []
    problems: list[tuple[int, str]] = []
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            problems.append((line_no, "blank-line"))
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            torn = line_no == len(lines) and last_is_unterminated
            problems.append((line_no, "torn-last-line" if torn else "corrupt-line"))
            continue
        if not isinstance(value, dict):
            problems.append((line_no, "not-an-object"))
            continue
        objects.append(value)
    return objects, problems


MODES = ("teaching", "pi")
BOM = "\ufeff"

TREE_FIELDS = ("type", "id", "parentId", "targetId", "firstKeptEntryId", "fromId")
"""The keys that place an entry in the tree, and the ids the reader checks (``fields``)."""

SEVERITIES: dict[str, str] = {
    "torn-last-line": "warning",
    "corrupt-line": "error",
    "glued-objects": "error",
    "duplicate-entry": "info",
    "conflicting-duplicate": "error",
    "blank-line": "info",
    "bom": "info",
    "crlf": "info",
    "not-an-object": "error",
    "missing-id": "error",
    "extra-header": "warning",
    "unknown-type": "info",
    "migrated": "info",
    # Hostile or damaged values (kept readable, and said so):
    "line-too-long": "error",
    "too-deep": "error",
    "file-too-large": "error",
    "too-many-lines": "error",
    "number-out-of-range": "warning",
    "lone-surrogate": "warning",
    "more-diagnostics": "info",
    # Ids an entry points at besides its parent:
    "dangling-label": "warning",
    "first-kept-missing": "warning",
    "first-kept-not-earlier": "warning",
    "unknown-from-id": "warning",
    # Found when the tree is built (learn_pi_lab.pi.session), not by this reader:
    "dangling-parent": "error",
    "self-parent": "error",
    "cycle": "error",
}
"""Every diagnostic code and how serious it is (docs/diagnostics.md says when each is given)."""

Source = Union[str, os.PathLike, IO[bytes], IO[str]]


# --------------------------------------------------------------------------------------
# Limits (docs/limits.md)
# --------------------------------------------------------------------------------------

MAX_DEPTH_CEILING = 500   # the deepest a Limits lets a line nest (see max_depth)


@dataclass(frozen=True)
class Limits:
    """How much the reader accepts before it stops trusting the input.

    * ``max_line_bytes``: a longer line is skipped unread (``line-too-long``), so one
      endless line costs this much memory at most. Pi's largest real lines (pasted images
      in base64) are a few megabytes.
    * ``max_file_bytes``: the reader stops after this many bytes of content, counted after
      ``.xz`` decompression (``file-too-large``): a decompression bomb ends here. Pi itself
      reads a session into one JavaScript string, which cannot exceed about 512 MB: the
      same bound here (a loaded session takes about 3.5 times its size in memory, up to
      about 10 times for a file of tiny entries).
    * ``max_lines``: the reader stops after this many lines (``too-many-lines``). Each
      entry kept costs a few hundred bytes besides its text, so a file of tiny lines (a
      30 MB ``.xz`` of ``{}`` lines is ten million of them) would otherwise take gigabytes
      and minutes. Five million is more than any session within ``max_file_bytes`` holds
      (Pi's entries are rarely under 250 bytes: two million of them fill 512 MB).
    * ``max_depth``: a line whose arrays and objects nest deeper is refused (``too-deep``)
      before the JSON parser sees it. At most ``MAX_DEPTH_CEILING`` (a larger value is
      taken as that): Python's parser and encoders recurse once per level, within
      Python's limit of 1,000 calls, so a line this deep still leaves the caller 400 or
      more calls of its own, and the answer does not depend on how deep the caller's
      stack happens to be (a notebook's cell runs a few dozen calls deep).
    * ``max_examples``: diagnostics stored per code; the rest are only counted
      (``more-diagnostics`` says how many), so a million bad lines cost a few kilobytes.

    Each can be set for one call (``read_session(path, limits=Limits(max_depth=50))``) or
    for a whole run with an environment variable ``LEARN_PI_LAB_MAX_LINE_BYTES``,
    ``LEARN_PI_LAB_MAX_FILE_BYTES``, ``LEARN_PI_LAB_MAX_LINES``, ``LEARN_PI_LAB_MAX_DEPTH``,
    ``LEARN_PI_LAB_MAX_EXAMPLES`` (a positive integer; anything else is ignored).
    """

    max_line_bytes: int = 64 * 2**20
    max_file_bytes: int = 2**29
    max_lines: int = 5_000_000
    max_depth: int = 100
    max_examples: int = 100

    def __post_init__(self) -> None:
        for value in vars(self).values():   # a str or None would fail deep in the reader
            if isinstance(value, bool) or not isinstance(value, int):
                raise WrongArgument("limit", value)
        if self.max_depth > MAX_DEPTH_CEILING:
            object.__setattr__(self, "max_depth", MAX_DEPTH_CEILING)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> "Limits":
        """The defaults, with any ``LEARN_PI_LAB_MAX_*`` variable that is a positive integer."""
        environ = os.environ if environ is None else environ
        chosen: dict[str, int] = {}
        for name in ("max_line_bytes", "max_file_bytes", "max_lines", "max_depth",
                     "max_examples"):
            value = environ.get("LEARN_PI_LAB_" + name.upper(), "").strip()
            if value.isascii() and value.isdigit() and int(value) > 0:   # (not "²")
                chosen[name] = int(value)
        return cls(**chosen)


def _limits(limits: Limits | None) -> Limits:
    if limits is not None and not isinstance(limits, Limits):
        raise WrongArgument("limits", limits)
    return limits if limits is not None else Limits.from_environment()


# --------------------------------------------------------------------------------------
# What the reader hands back
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a file, pinned to its physical line (1-based).

    The fields are facts, in no language: ``detail`` is a value the message places (an
    id, a count, ``v1 -> v3``), ``first_line`` the line of an earlier copy, ``raw_error``
    a parser's own words, shown as such. ``learn_pi_lab.i18n.explain(diagnostic, lang)``
    turns it into a sentence that starts with the line.
    """

    line: int | None
    code: str
    severity: str
    entry_id: str | None = None
    detail: str = ""
    first_line: int | None = None
    raw_error: str = ""
    count: int | None = None

    @property
    def message_key(self) -> str:
        return f"diag.{self.code}"

    def message_fields(self) -> dict[str, Any]:
        return {"line": self.line, "entry_id": self.entry_id or "?", "detail": self.detail,
                "first_line": self.first_line, "raw_error": self.raw_error, "count": self.count}


def diagnostic(line: int | None, code: str, entry_id: str | None = None,
               detail: str = "", *, first_line: int | None = None,
               raw_error: str = "", count: int | None = None) -> Diagnostic:
    """A ``Diagnostic`` with the severity the table gives its code."""
    return Diagnostic(line, code, SEVERITIES[code], entry_id, detail, first_line, raw_error,
                      count)


class DiagnosticLog(list):
    """A list of diagnostics that keeps at most ``max_examples`` of each code.

    Every diagnostic is counted (``counts``); only the first ``max_examples`` of a code are
    stored. ``summary()`` gives one ``more-diagnostics`` line per code that overflowed, so
    nothing is dropped without saying so.
    """

    def __init__(self, max_examples: int) -> None:
        super().__init__()
        self.max_examples = max_examples
        self.counts: dict[str, int] = {}

    def append(self, found: Diagnostic) -> None:  # type: ignore[override]
        seen = self.counts.get(found.code, 0) + 1
        self.counts[found.code] = seen
        if seen <= self.max_examples:
            super().append(found)

    def full(self, code: str) -> bool:
        """True (and counted) when ``code`` already has all the examples it may store."""
        seen = self.counts.get(code, 0)
        if seen < self.max_examples:
            return False
        self.counts[code] = seen + 1
        return True

    def summary(self) -> list[Diagnostic]:
        return [diagnostic(None, "more-diagnostics", detail=code,
                           count=count - self.max_examples)
                for code, count in self.counts.items() if count > self.max_examples]


class LoadedLine:
    """One parsed JSON object and the exact text it came from.

    ``text`` is the line as stored, minus its line ending, so an entry the course does not
    understand can be written back byte for byte. (For two objects glued onto one line,
    each gets its own slice of the line.) ``obj`` is the parsed object, after migration
    when the file was v1/v2. ``LoadedLine(line, text, obj)``.

    Memory (a learner can skip this): on a large file the line texts would cost as much
    as the file itself, and they are rarely asked for. So a healthy line read from a
    regular file keeps only where it starts (``LineSource``); ``text`` reads it back from
    the file the first time it is asked for, and checks that the file still holds it.
    """

    __slots__ = ("line", "obj", "_text", "_source", "_where")

    def __init__(self, line: int, text: str, obj: dict[str, Any]) -> None:
        self.line = line
        self.obj = obj
        self._text: str | None = text
        self._source: LineSource | None = None
        self._where = 0

    @classmethod
    def kept_in_file(cls, line: int, obj: dict[str, Any], source: "LineSource",
                     start: int, raw: bytes) -> "LoadedLine":
        """A line whose text stays in the file: the bytes ``raw`` found at ``start``.

        One number remembers where (start, size) and a checksum of the bytes, so a line
        read back is the line that was read.
        """
        return cls.block_kept_in_file(line, [obj], source, start, [raw])[0]

    @classmethod
    def block_kept_in_file(cls, first: int, objects: list[dict[str, Any]],
                           source: "LineSource", start: int, lines: list[bytes]
                           ) -> list["LoadedLine"]:
        """``kept_in_file`` for consecutive lines from ``start`` (line ``first`` onwards).

        (A learner can skip this: one loop for a whole block, as it runs for every line.)
        """
        found = []
        append, new, crc32 = found.append, cls.__new__, zlib.crc32
        for line, obj, raw in zip(count_from(first), objects, lines):
            size = len(raw)
            loaded = new(cls)
            loaded.line, loaded.obj, loaded._text, loaded._source = line, obj, None, source
            loaded._where = (start << 64) | (size << 32) | crc32(raw)
            append(loaded)
            start += size + 1
        return found

    @property
    def text(self) -> str:
        if self._text is None:
            assert self._source is not None
            where = self._where
            self._text = self._source.text_at(where >> 64, (where >> 32) & 0xFFFFFFFF,
                                              where & 0xFFFFFFFF, self.line)
        return self._text

    @property
    def place(self) -> tuple[int, int, int] | None:
        """(start, size, checksum) of a line whose text stays in the file, else None."""
        if self._source is None:
            return None
        where = self._where
        return where >> 64, (where >> 32) & 0xFFFFFFFF, where & 0xFFFFFFFF

    def with_obj(self, obj: dict[str, Any]) -> "LoadedLine":
        """The same line with another object (migration)."""
        return LoadedLine(self.line, self.text, obj)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LoadedLine):
            return NotImplemented
        return (self.line, self.text, self.obj) == (other.line, other.text, other.obj)

    __hash__ = None  # type: ignore[assignment]   (mutable, like the dataclass it was)


@dataclass(frozen=True, eq=False)
class LinesInPlace:
    """A block of healthy lines that follow each other in a plain file, as ``iter_lines_in_place``
    gives it: their ``objects``, the file offset where the first line ``first`` starts, and
    the lines' bytes (``lines``; each line's size and checksum are taken from them). An
    index keeps those numbers and lets the objects go, without a ``LoadedLine`` per line."""

    first: int
    objects: list[dict[str, Any]]
    start: int
    lines: list[bytes]

    def __repr__(self) -> str:
        return f"LoadedLine(line={self.line!r}, text={self.text!r}, obj={self.obj!r})"


class SourceChanged(Explained, ValueError):
    """A line's text was asked for after the file lost it (rewritten or truncated).

    Appending to the file is fine (that is how sessions grow); ``path`` and ``line`` say
    which line could not be found again.
    """

    message_key = "jsonl.source-changed"

    def __init__(self, path: str, line: int) -> None:
        self.path = path
        self.line = line
        super().__init__(f"{path} changed after it was read: line {line} is no longer "
                         f"what was read; read the file again")


class LineSource:
    """The file healthy lines are read back from when their text is asked for.

    It remembers which file it was (device and inode) so that a file replaced by another
    one is noticed, and every line read back must have the size and checksum the line had
    when it was read, so a rewritten line is noticed too (``SourceChanged``).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        info = os.stat(path)
        self.identity = (info.st_dev, info.st_ino)
        self._open: IO[bytes] | None = None   # set only inside ``reading()``

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Keep the file open for many texts in a row (``SessionFile.texts``), then close it."""
        if self._open is not None:
            yield
            return
        try:
            self._open = open(self.path, "rb")
        except OSError:
            yield            # each text then reports the problem itself
            return
        try:
            yield
        finally:
            self._open.close()
            self._open = None

    def text_at(self, start: int, size: int, checksum: int, line: int) -> str:
        try:
            if self._open is not None:
                info = os.fstat(self._open.fileno())
                self._open.seek(start)
                raw = self._open.read(size)
            else:
                with open(self.path, "rb") as handle:
                    info = os.fstat(handle.fileno())
                    handle.seek(start)
                    raw = handle.read(size)
        except OSError:
            raise SourceChanged(self.path, line) from None
        if (info.st_dev, info.st_ino) != self.identity or len(raw) != size \
                or zlib.crc32(raw) != checksum:
            raise SourceChanged(self.path, line)
        return raw.decode("utf-8", "replace")


@dataclass
class SessionFile:
    """A whole session file as read: header, entries in file order, and every problem."""

    path: str | None
    header: dict[str, Any] | None
    header_line: LoadedLine | None
    entries: list[LoadedLine]
    diagnostics: list[Diagnostic]
    source_version: int | None
    migrated: bool
    ends_with_newline: bool
    diagnostic_counts: dict[str, int] = field(default_factory=dict)
    fields: tuple[str, ...] | None = None
    """Set when entries hold only these keys (``read_session(fields=...)``)."""
    index: dict[str, dict[str, Any]] | None = field(default=None, init=False, compare=False,
                                                     repr=False)
    """id -> the object kept for it, in file order: the session's index, built by the reader
    on its way (the session builds it itself when this is None, ``pi.session._index_by_id``).
    Not an argument: a copy with other entries (``dataclasses.replace``) starts without it."""
    parents_first: bool = field(default=False, init=False, compare=False, repr=False)
    """True when every entry in ``index`` names as parent only an entry written before it:
    what an append-only file gives, and then the tree has no damage to look for."""
    one_chain: bool = field(default=False, init=False, compare=False, repr=False)
    """True when, besides, each entry names as parent the one written just before it (the
    first names none): a session that never branched, whose branch to its last entry is
    every entry of ``index``, in order."""

    def objects(self) -> list[dict[str, Any]]:
        """The entries' parsed objects (no header), in file order."""
        return [loaded.obj for loaded in self.entries]

    def texts(self) -> list[str]:
        """The entries' texts as stored (no header), in file order, opening the file once."""
        sources = {id(loaded._source): loaded._source for loaded in self.entries
                   if loaded._source is not None and loaded._text is None}
        with ExitStack() as stack:
            for source in sources.values():
                stack.enter_context(source.reading())
            return [loaded.text for loaded in self.entries]


class NotASessionFile(Explained, ValueError):
    """The file is missing, empty, unreadable, special, or has no session header.

    Pi's rule: after blank and unparseable lines are skipped, the first JSON value must
    be an object with ``type == "session"`` and a string ``id``. ``reason`` is one of
    ``missing-file``, ``is-a-directory``, ``special-file`` (a FIFO, device or socket:
    refused before reading, it could block or never end), ``unreadable``, ``empty-file``,
    ``no-header``, ``compressed`` (no header, and the file starts like a gzip, bzip2,
    zstd, zip, 7z or xz file: ``detail`` names which), ``not-a-header``, ``bom`` (pi mode only), ``header-line-too-long``, ``header-line-too-deep`` and
    ``too-large-before-header`` (a limit of ``Limits`` met before any header: ``detail``
    holds the limit), ``shrank-while-read`` (another program cut it meanwhile: ``detail``
    holds its size when opened), ``empty-name`` and ``nul-in-name`` (a name no file can have). ``str(error)`` is English;
    ``learn_pi_lab.i18n.explain(error, lang)`` says it in the learner's language.
    """

    ENGLISH = {
        "missing-file": "{path} does not exist",
        "is-a-directory": "{path} is a directory, not a session file",
        "special-file": "{path} is not a regular file (a FIFO, device or socket); "
                        "it was not read",
        "unreadable": "cannot read {path}: {raw_error}",
        "empty-file": "{path} is empty: there is no session header",
        "no-header": "{path} has no parseable JSON line, so there is no session header",
        "compressed": "{path} is compressed ({detail}): the reader opens .jsonl files, and "
                      ".jsonl.xz ones by their name; unpack it first",
        "not-a-header": "{path} is not a session file: line {line} holds the first JSON "
                        "value, and it is not a session header with a string id",
        "bom": "{path} starts with a UTF-8 BOM, which Pi rejects",
        "header-line-too-long": "{path}: line {line}, where the session header should be, is "
                                "longer than the reader's limit ({detail} bytes), so it was not "
                                "read",
        "header-line-too-deep": "{path}: line {line}, where the session header should be, "
                                "nests deeper than the reader's limit ({detail} levels), so it "
                                "was not read",
        "too-large-before-header": "{path}: the reader's limit of {detail} bytes of content "
                                   "was reached before any session header",
        "too-many-lines-before-header": "{path}: the reader's limit of {detail} lines was "
                                        "reached before any session header",
        "shrank-while-read": "{path} got shorter while it was read (it had {detail} bytes "
                             "when it was opened): another program truncated or rewrote it; "
                             "read it again",
        "empty-name": "the file name is empty",
        "nul-in-name": "the file name {path} holds a NUL character (\\x00), which no file "
                       "name can hold",
    }

    def __init__(self, path: str | None, reason: str, line: int | None = None,
                 detail: str = "") -> None:
        self.path = path
        self.reason = reason
        self.line = line
        self.detail = detail
        super().__init__(self.ENGLISH[reason].format(**self.message_fields()))

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return f"jsonl.not-a-session.{self.reason}"

    def message_fields(self) -> dict[str, Any]:
        return {"path": self.path if self.path is not None else "<text>", "line": self.line,
                "detail": self.detail, "raw_error": self.detail, "reason": self.reason}


class WrongArgument(Explained, TypeError):
    """A reading function called with an argument of the wrong kind (a learner's slip).

    ``argument`` is ``"path"``, ``"text"``, ``"fields"``, ``"limits"``, ``"limit"`` (a
    field of ``Limits``), ``"source"`` or ``"obj"`` (the writer's ``append_line``); ``got``
    the type it
    received.
    A path given as bytes or the file's content where its path belongs are the usual
    slips, so the message says what to call instead. A ``TypeError``, as Python's own.
    """

    ENGLISH = {
        "path": "a session file's path must be a str or a pathlib.Path, not {got} "
                "(for a file's content use session_from_text(text); for a path in bytes, "
                "os.fsdecode(path))",
        "text": "a session's text must be a str, not {got} "
                "(for bytes use data.decode('utf-8'); for a file use load_session(path))",
        "fields": "fields must be a tuple of key names (such as TREE_FIELDS), not {got}",
        "limits": "limits must be a Limits (such as Limits(max_depth=50)), not {got}",
        "limit": "each of the Limits is a whole number (such as Limits(max_depth=50)), "
                 "not {got}",
        "source": "a source to read must be a path (a str or a pathlib.Path) or an open "
                  "file, not {got}",
        "obj": "the object to append must be a dict (one entry), not {got} "
               "(for a line of JSON text, append json.loads(line))",
    }

    KEY_PREFIX = "jsonl.wrong-argument"   # the messages' keys: KEY_PREFIX.<argument>

    def __init__(self, argument: str, got: Any) -> None:
        self.argument = argument
        self.got = type(got).__name__
        super().__init__(self.ENGLISH[argument].format(got=self.got))

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return f"{self.KEY_PREFIX}.{self.argument}"


def checked_path(path: Any) -> str:
    """The path as a str, or ``WrongArgument``."""
    if isinstance(path, (bytes, bytearray)) or not isinstance(path, (str, os.PathLike)):
        raise WrongArgument("path", path)
    name = os.fspath(path)
    if not isinstance(name, str):   # a PathLike that gives bytes
        raise WrongArgument("path", name)
    if not name:
        raise NotASessionFile(name, "empty-name")
    if "\x00" in name:
        raise NotASessionFile(name.replace("\x00", "\\x00"), "nul-in-name")
    return name


def _checked_fields(fields: Any) -> tuple[str, ...] | None:
    """``fields`` as a tuple of key names (None: every key), or ``WrongArgument``. The keys
    that make the tree (``type``, ``id``, ``parentId``) are always kept: without them a
    session has no tree, and its answers would be wrong without a word."""
    if fields is None:
        return None
    if isinstance(fields, (str, bytes)) or not isinstance(fields, (tuple, list, frozenset, set)) \
            or not all(isinstance(name, str) for name in fields):
        raise WrongArgument("fields", fields)
    return tuple(dict.fromkeys(("type", "id", "parentId", *fields)))


# --------------------------------------------------------------------------------------
# Layer 1: physical lines
# --------------------------------------------------------------------------------------

_BLOCK = 1 << 20
"""The file is read in blocks of this many bytes (1 MiB) and cut into lines in C."""
_STREAM_BLOCK = 1 << 14
"""Streaming reads (``iter_physical_lines``, ``iter_entries_streaming``) use 16 KiB blocks:
they promise flat memory, and a block's parsed objects are alive together."""


class _ReadLimitReached(Exception):
    """Raised by the line layer after ``max_file_bytes`` or ``max_lines``; the parser reports
    it. ``code``: ``file-too-large`` or ``too-many-lines``; ``limit``: the limit's value."""

    def __init__(self, line: int, code: str = "file-too-large", limit: int = 0) -> None:
        super().__init__(line)
        self.line, self.code, self.limit = line, code, limit


@contextmanager
def _open_binary(path: Path, name: str) -> Iterator[IO[bytes]]:
    """Open a regular file for reading, or raise ``NotASessionFile`` saying why not.

    The file is opened without blocking and checked with ``fstat`` on the open descriptor
    (no race between looking and opening): a FIFO would block forever and a device such as
    ``/dev/zero`` never ends, so anything but a regular file is refused before one byte
    is read. ``.xz`` files are decompressed on the fly.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                             | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise NotASessionFile(name, "missing-file") from None
    except IsADirectoryError:
        raise NotASessionFile(name, "is-a-directory") from None
    except OSError as error:
        raise NotASessionFile(name, "unreadable", detail=error.strerror or str(error)) from None
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise NotASessionFile(name, "is-a-directory")
        if not stat.S_ISREG(info.st_mode):
            raise NotASessionFile(name, "special-file")
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    with open(descriptor, "rb", buffering=1 << 16) as handle:
        yield _UnpackedXz(handle) if path.name.endswith(".xz") else handle   # type: ignore[misc]
        _not_shrunk(handle, name, info.st_size)


def _not_shrunk(handle: IO[bytes], name: str, size_at_open: int) -> None:
    """Once the whole file is read: raise ``NotASessionFile(reason="shrank-while-read")``
    if it ended before the size it had when it was opened. Another program truncated or
    rewrote it meanwhile, and what was read is the start of one file glued to who knows
    what (a Pi user's review: ``tree`` showed 3,094 of 200,001 entries, exit 0). A file
    that grows while it is read is fine: sessions grow by appending. The file must be
    smaller now too: a file of ``/sys`` says 4096 bytes and holds fewer, always."""
    if handle.tell() < size_at_open and os.fstat(handle.fileno()).st_size < size_at_open:
        raise NotASessionFile(name, "shrank-while-read", detail=str(size_at_open))


class _UnpackedXz:
    """The bytes an ``.xz`` file holds, read on the fly (``read(size)``), as ``xz`` reads them.

    One compressed stream after another, with zero bytes of padding allowed between and
    after them. Anything else after a stream, or a stream cut short, raises: ``lzma.open``
    ignores bytes after a stream that are not another one, so a damaged file was read as
    if nothing were missing (an attacker's review), while ``xz -t`` calls it corrupt.
    """

    CHUNK = 1 << 16

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.decompressor = lzma.LZMADecompressor()

    def read(self, size: int) -> bytes:
        while True:
            if self.decompressor.eof:   # a stream ended: another one, padding, or the end
                rest = self.decompressor.unused_data.lstrip(b"\0")
                while not rest:
                    chunk = self.handle.read(self.CHUNK)
                    if not chunk:
                        return b""
                    rest = chunk.lstrip(b"\0")
                self.decompressor = lzma.LZMADecompressor()
                try:
                    data = self.decompressor.decompress(rest, size)
                except lzma.LZMAError:
                    raise lzma.LZMAError("after the end of the compressed data the file holds "
                                         "bytes that are not compressed data") from None
            elif self.decompressor.needs_input:
                chunk = self.handle.read(self.CHUNK)
                if not chunk:
                    raise EOFError("the compressed data is cut short")
                data = self.decompressor.decompress(chunk, size)
            else:   # output held back by the size asked for
                data = self.decompressor.decompress(b"", size)
            if data:
                return data



LineBlock = tuple[int, list, bool, bool]
"""``(first line number, lines, terminated, has_cr)``: consecutive lines of one block.

``lines`` holds each line's bytes without its ``"\\n"`` (None for a line longer than
``max_line_bytes``, skipped unread); ``terminated`` is False only for a file's last line
when it has no ``"\\n"`` (then it comes alone); ``has_cr`` says a ``"\\r"`` is somewhere in
the block (a CRLF file needs the line-by-line path).
"""


def _line_blocks(handle: IO[Any], limits: Limits, streaming: bool = False
                 ) -> Iterator[LineBlock]:
    """The file's lines, a block of about 1 MiB at a time (``LineBlock``).

    Splitting a block on ``"\\n"`` happens in C, so a file of a million short lines costs
    a few hundred calls, not a million. No line ever costs more than ``max_line_bytes``:
    the start of a line a block cut is kept piece by piece, and once it is too long it is
    dropped and the rest of it skipped. After ``max_file_bytes`` bytes (counted after
    decompression) it hands out the lines that ended before the limit and raises
    ``_ReadLimitReached`` with the number of the line the limit fell in.
    """
    read = handle.read
    size = min(_BLOCK, _STREAM_BLOCK) if streaming else _BLOCK
    longest, allowed, most_lines = limits.max_line_bytes, limits.max_file_bytes, limits.max_lines
    total = 0
    line_no = 0                  # lines handed out so far
    pending: list[bytes] = []    # the start of a line that a block cut, piece by piece
    pending_size = 0
    skipping = False             # inside a line already known to be too long
    while True:
        block = read(size)
        if not block:
            break
        if isinstance(block, str):                    # a text handle given by the caller
            block = block.encode("utf-8", "surrogatepass")
        total += len(block)
        over = total - allowed
        if over > 0:
            block = block[:len(block) - over]
        if b"\n" not in block:                        # the middle of a (long) line
            if not skipping:
                pending.append(block)
                pending_size += len(block)
                if pending_size > longest:
                    pending, pending_size, skipping = [], 0, True
        else:
            if pending:
                pending.append(block)
                block = b"".join(pending)
                pending, pending_size = [], 0
            lines: list[Any] = block.split(b"\n")
            rest = lines.pop()                        # after the last "\n": a line begun
            if len(block) > longest:
                lines = [line if len(line) <= longest else None for line in lines]
            if skipping:                              # the too-long line ends here
                lines[0], skipping = None, False
            if line_no + len(lines) > most_lines:   # the lines before the limit, then stop
                del lines[most_lines - line_no:]
                if lines:
                    yield line_no + 1, lines, True, b"\r" in block
                raise _ReadLimitReached(most_lines + 1, "too-many-lines", most_lines)
            yield line_no + 1, lines, True, b"\r" in block
            line_no += len(lines)
            if len(rest) > longest:
                skipping = True
            elif rest:
                pending, pending_size = [rest], len(rest)
        if over > 0:
            raise _ReadLimitReached(line_no + 1, "file-too-large", allowed)
    if (skipping or pending) and line_no >= most_lines:   # an unfinished last line too many
        raise _ReadLimitReached(line_no + 1, "too-many-lines", most_lines)
    if skipping:
        yield line_no + 1, [None], False, False
    elif pending:
        last = b"".join(pending)
        yield line_no + 1, [last if len(last) <= longest else None], False, b"\r" in last


def _line_blocks_of(source: Source, limits: Limits, streaming: bool = False
                    ) -> Iterator[LineBlock]:
    """``_line_blocks`` of a path (opened safely) or of an open file, binary or text."""
    name = _name_of(source)
    if isinstance(source, (str, os.PathLike)):
        try:
            with _open_binary(Path(source), name or "") as handle:
                yield from _line_blocks(handle, limits, streaming)
        except (OSError, lzma.LZMAError, EOFError) as error:
            raise NotASessionFile(name, "unreadable", detail=str(error)) from None
    elif callable(getattr(source, "read", None)):
        yield from _line_blocks(source, limits, streaming)
    else:
        raise WrongArgument("source", source)


def _physical_lines(source: Source, limits: Limits) -> Iterator[tuple[int, bytes | None, bool]]:
    """``(line_no, raw bytes without "\\n" or None when too long, terminated)``, one by one."""
    for first, lines, terminated, _has_cr in _line_blocks_of(source, limits, streaming=True):
        for line_no, raw in enumerate(lines, first):
            yield line_no, raw, terminated


def iter_physical_lines(source: Source, *, strip_bom: bool = True, strip_cr: bool = True,
                        limits: Limits | None = None
                        ) -> Iterator[tuple[int, str | None, bool]]:
    """Every physical line as ``(line_no, text, terminated)``, streaming.

    ``source`` is a path (``.xz`` read transparently) or an open file, binary or text (a
    text file should be opened with ``newline="\\n"`` so only ``\\n`` ends a line).
    Lines are split on ``\\n`` alone, never on other characters Python also calls line
    breaks (a JSON string may legally contain U+2028). Bytes are decoded line by line; a
    UTF-8 sequence never contains the ``\\n`` byte, so no character is cut in half, and
    invalid UTF-8 becomes U+FFFD, as in Pi.

    ``text`` has no ``\\n`` and (unless ``strip_cr`` is False) no ``\\r`` before it;
    ``terminated`` says whether the line ended with ``\\n`` (only the last line of a file
    can be unterminated). A UTF-8 BOM at the very start is removed unless ``strip_bom`` is
    False. ``text`` is None for a line longer than ``limits.max_line_bytes`` (skipped
    unread). A path that is a FIFO, a device or a directory raises ``NotASessionFile``.
    """
    limits = _limits(limits)
    for line_no, raw, terminated in _physical_lines(source, limits):
        if raw is None:
            yield line_no, None, terminated
            continue
        text = raw.decode("utf-8", "replace")
        if strip_cr and terminated and text.endswith("\r"):
            text = text[:-1]
        if line_no == 1 and strip_bom and text.startswith(BOM):
            text = text[1:]
        yield line_no, text, terminated


def _name_of(source: Source) -> str | None:
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else None


# --------------------------------------------------------------------------------------
# Layer 2: parsed lines (JSON values made safe, the header check)
# --------------------------------------------------------------------------------------

_JSON_SPACE = re.compile(r"[ \t\r\n]*")
_BRACKET_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
LARGEST_NUMBER = sys.float_info.max


def _nesting_depth(text: str, limit: int) -> int:
    """How deep arrays and objects nest on this line (stops counting past ``limit``).

    Brackets inside strings do not count. Most lines have fewer brackets than the limit
    in total, which a C-speed count shows without scanning.
    """
    if text.count("{") + text.count("[") <= limit:
        return 0
    depth = deepest = 0
    for match in _BRACKET_OR_STRING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif token in "]}":
            depth -= 1
    return deepest


def _new_separator() -> str:
    """A string no file can know in advance (``_whole_block``): ``z`` and 128 random bits."""
    return "z" + os.urandom(16).hex()


_ALL_BUT_OPENINGS = bytes(sorted(set(range(256)) - set(b"{[\n")))


def _blank_mask(lines: list[bytes | None]) -> bytes | None:
    """One byte per line, 1 where the line is empty (``None``, a line too long, is not), or
    None when no line is: in C, so runs of blank lines are found with ``find``."""
    if b"" not in lines:
        return None
    return bytes(map(operator.eq, repeat(b"", len(lines)), lines))


def _most_openings(joined: bytes) -> int:
    """The most ``{`` and ``[`` any one line of a joined block holds: how deep it may nest.

    (All in C: the block without every other byte, cut at the ``"\n"`` of each separator.
    The array's own ``[`` is left out.)
    """
    kept = joined.translate(None, _ALL_BUT_OPENINGS)
    return max(map(len, kept[1:].split(b"\n")))


def _replace_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate (in keys and strings) replaced by U+FFFD.

    Iterative, so nesting costs no stack. Only called for a line that has a surrogate
    escape in it; a valid pair (an escaped emoji) decodes to one character and is left
    alone.
    """
    def clean(item: Any) -> Any:
        return _LONE_SURROGATE.sub("\ufffd", item) if isinstance(item, str) else item

    root = [clean(value)]
    stack: list[Any] = [root]
    while stack:
        container = stack.pop()
        if isinstance(container, list):
            for index, item in enumerate(container):
                container[index] = item = clean(item)
                if isinstance(item, (list, dict)):
                    stack.append(item)
        else:
            for key in list(container):
                item = clean(container.pop(key))
                container[clean(key)] = item
                if isinstance(item, (list, dict)):
                    stack.append(item)
    return root[0]


class _SafeDecoder:
    """``json`` with the three rules that make every value safe to hand out.

    NaN and Infinity are not JSON (Python accepts them, JavaScript's ``JSON.parse`` does
    not): refused. A number too large for a double (``1e400``, which JavaScript reads as
    Infinity) is read as the largest double with its sign, so it still compares like
    Infinity and can be written back as JSON; the line gets ``number-out-of-range``.
    """

    def __init__(self) -> None:
        self.out_of_range = 0
        self.decoder = json.JSONDecoder(parse_constant=self._reject_constant,
                                        parse_float=self._finite_float)

    @staticmethod
    def _reject_constant(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    def _finite_float(self, literal: str) -> float:
        value = float(literal)
        if value - value != 0:                  # inf - inf is nan: out of range
            self.out_of_range += 1
            return LARGEST_NUMBER if value > 0 else -LARGEST_NUMBER
        return value

    def values(self, text: str) -> tuple[list[tuple[Any, int, int]], str]:
        """Every complete JSON value on a line, left to right, with its ``(start, end)``.

        Returns ``(values, error)``: ``error`` is empty when the whole line was consumed,
        otherwise the parser's reason why decoding stopped (the rest is unreadable).
        """
        self.out_of_range = 0
        try:  # the common case, a healthy line: one call into the C decoder
            value, end = self.decoder.scan_once(text, 0)
            if end == len(text):   # the whole line was one value, no space around it
                return [(value, 0, end)], ""
        except StopIteration as stop:   # no value starts the line: said as decode says it
            if not _JSON_SPACE.match(text).end():   # type: ignore[union-attr]
                return [], f"Expecting value (column {stop.value + 1})"
        except json.JSONDecodeError as error:   # what decode would raise, read the same way
            if not _JSON_SPACE.match(text).end():   # type: ignore[union-attr]
                return [], f"{error.msg} (column {error.colno})"
        except (ValueError, RecursionError):
            pass   # not JSON's own reason: the full decoder below says which
        self.out_of_range = 0
        try:
            return [(self.decoder.decode(text), 0, len(text))], ""
        except json.JSONDecodeError as error:
            if error.msg != "Extra data":   # no complete value first: nothing to save
                return [], f"{error.msg} (column {error.colno})"
        except (ValueError, RecursionError):
            pass
        # Glued (a complete value, then more): walk the line value by value.
        self.out_of_range = 0
        values: list[tuple[Any, int, int]] = []
        position = _JSON_SPACE.match(text).end()  # type: ignore[union-attr]
        while position < len(text):
            try:
                value, end = self.decoder.raw_decode(text, position)
            except json.JSONDecodeError as error:
                return values, f"{error.msg} (column {error.colno})"
            except (ValueError, RecursionError) as error:
                return values, str(error) or type(error).__name__
            values.append((value, position, end))
            position = _JSON_SPACE.match(text, end).end()  # type: ignore[union-attr]
        return values, ""


UNREADABLE = object()   # what parse_one_value gives for a line that is no safe JSON value


def parse_one_value(text: str, limits: Limits) -> Any:
    """One JSON value made safe (the rules of ``_SafeDecoder``), or ``UNREADABLE``.

    For callers that read strictly, one value per line, such as the original course's
    ``inspect_session_jsonl``: too deep, not JSON, or more than one value is unreadable.
    """
    if _nesting_depth(text, limits.max_depth) > limits.max_depth:
        return UNREADABLE
    values, error = _SafeDecoder().values(text)
    if len(values) != 1 or error:
        return UNREADABLE
    value = values[0][0]
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        value = _replace_lone_surrogates(value)
    return value


def safe_json_lines(source: Source, limits: Limits | None = None
                    ) -> Iterator[tuple[int, str | None]]:
    """``(line_no, text)`` of any file, opened the safe way (``iter_physical_lines``).

    Unlike the session reader there is no header check: a missing file, a directory or a
    special file still raises ``NotASessionFile``, whose reason says which.
    """
    for line_no, text, _terminated in iter_physical_lines(source, limits=limits):
        yield line_no, text


PACKED_FORMATS = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\x28\xb5\x2f\xfd", "zstd"),
                  (b"PK\x03\x04", "zip"), (b"7z\xbc\xaf\x27\x1c", "7z"),
                  (b"\xfd7zXZ\x00", "xz"))
"""The first bytes of compressed files: a session packed this way has no JSON line to read,
and saying so beats "no parseable JSON line" (a Pi user's review: a .gz file)."""


def _packed_as(path: str | None) -> str | None:
    """The compression ``path`` starts with, when the reader found no header in it."""
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            start = handle.read(8)
    except OSError:
        return None
    return next((name for magic, name in PACKED_FORMATS if start.startswith(magic)), None)


def _is_header(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "session" \
        and isinstance(value.get("id"), str)


class _LineParser:
    """Physical lines in, parsed JSON objects out; every unusable line reported.

    Stacked on the line layer (``_line_blocks``: blocks of lines, cut in C). The first JSON
    value of the file must be the header, else ``NotASessionFile``. This layer knows nothing
    about ids or entry types; ``read_session`` adds that on top. ``fields`` keeps only those
    keys of entries whose text stays in the file (``_partial``); ``streaming`` asks for
    smaller blocks (``iter_entries_streaming``); ``in_place`` for a healthy block as
    ``LinesInPlace`` (``iter_lines_in_place``).
    """

    def __init__(self, mode: str, diagnostics: Any, name: str | None,
                 limits: Limits, fast_decode: FastDecode | None = None,
                 line_source: LineSource | None = None,
                 fields: tuple[str, ...] | None = None) -> None:
        self.mode = mode
        self.fields = fields if line_source is not None else None   # see _partial
        self.streaming = False   # iter_entries_streaming: smaller blocks (_STREAM_BLOCK)
        self.in_place = False    # iter_lines_in_place: a healthy block as LinesInPlace
        self.line_source = line_source   # texts of healthy lines stay in this file
        self._here: int | None = None   # where the current line starts in the file
        self.fast_decode = fast_decode   # optional (fast_decoder.py); None: json alone
        self.diagnostics = diagnostics
        self.name = name
        self.limits = limits
        self.ends_with_newline = False
        self.decoder = _SafeDecoder()
        self._crlf_reported = False
        self._header_seen = False
        self._saw_any_line = False
        self._limit_before_header: NotASessionFile | None = None   # what to say if no header
        separator = _new_separator()   # see _whole_block
        self._separator_text = separator
        self._separator = f',\n"{separator}",'.encode()
        self._separator_mark = separator.encode()

    def _report(self, line: int | None, code: str, entry_id: str | None = None,
                detail: str = "", **facts: Any) -> None:
        if isinstance(self.diagnostics, DiagnosticLog) and self.diagnostics.full(code):
            return   # counted; a million bad lines must not cost a million objects
        self.diagnostics.append(diagnostic(line, code, entry_id, detail, **facts))

    def parse(self, source: Source) -> Iterator[LoadedLine]:
        """Every object of the file, one at a time (``parse_blocks``, flattened)."""
        for found in self.parse_blocks(source):
            yield from found

    def parse_blocks(self, source: Source) -> Iterator[list[LoadedLine]]:
        """The objects of the file, a block of lines at a time (``_line_blocks``).

        A healthy block after the header is decoded in one call (``_whole_block``); any
        other block, and any block that call refuses, goes line by line (``_one_line``),
        which is where every diagnostic comes from.
        """
        position = 0   # where the next line starts in the file (for texts kept in the file)
        try:
            for first, lines, terminated, has_cr in _line_blocks_of(source, self.limits,
                                                                    self.streaming):
                self._saw_any_line = True
                self.ends_with_newline = terminated
                found: list[LoadedLine] = []
                done = 0      # lines of the block already parsed
                while not self._header_seen and done < len(lines):   # the file's start
                    position = self._one_line(first + done, lines[done], terminated,
                                              position, found)
                    done += 1
                rest = lines[done:] if done else lines
                if rest and terminated and not has_cr and None not in rest:
                    whole = self._whole_block(first + done, rest, position)
                    if type(whole) is LinesInPlace:   # (in_place: the block as it is)
                        if found:
                            yield found
                        found = whole   # type: ignore[assignment]
                    elif whole is not None:
                        found.extend(whole)
                    if whole is not None:
                        position += sum(map(len, rest)) + len(rest)
                        rest = []
                start = first + len(lines) - len(rest)
                blank = _blank_mask(rest)
                index = 0
                while index < len(rest):
                    if blank is not None and blank[index]:   # a run of blank lines: at once
                        end = blank.find(0, index)
                        run = (len(rest) if end < 0 else end) - index
                        self._blank_lines(start + index, run)
                        position += run * terminated   # as _one_line moves past each
                        index += run
                        continue
                    position = self._one_line(start + index, rest[index], terminated,
                                              position, found)
                    index += 1
                yield found
        except _ReadLimitReached as stop:
            self._report(stop.line, stop.code, detail=str(stop.limit))
            if not self._header_seen and self._limit_before_header is None:
                self._limit_before_header = NotASessionFile(
                    self.name, "too-large-before-header" if stop.code == "file-too-large"
                    else "too-many-lines-before-header", detail=str(stop.limit))
        if not self._header_seen:
            raise self._no_header("no-header") if self._saw_any_line else \
                self._limit_before_header or NotASessionFile(self.name, "empty-file")

    def _no_header(self, reason: str, line: int | None = None) -> NotASessionFile:
        """The refusal of a file without a session header: ``reason``, unless a limit kept a
        line before it from being read (that line may well be the header, which Pi would
        read), or the file starts like a compressed one: then that is the reason.
        Compressed bytes can hold a line that parses (a ``.gz`` whose third line starts with
        ``2``: a Pi user's review), and "line 3 is not a session header" would hide what is
        wrong; so would "line 2 ..." after a header the depth limit dropped."""
        if self._limit_before_header is not None:
            return self._limit_before_header
        packed = _packed_as(self.name)
        if packed:
            return NotASessionFile(self.name, "compressed", detail=packed)
        return NotASessionFile(self.name, reason, line=line)

    def _blank_lines(self, first: int, count: int) -> None:
        """What ``_one_line`` reports for ``count`` blank lines from line ``first`` on, at
        once: the examples a ``DiagnosticLog`` keeps, then the rest only counted, so a
        gigabyte of newlines costs a count, not a billion calls."""
        log = self.diagnostics
        room = count
        if isinstance(log, DiagnosticLog):
            room = min(count, max(0, log.max_examples - log.counts.get("blank-line", 0)))
        for line_no in range(first, first + room):
            self._report(line_no, "blank-line")
        if count > room:   # (only a DiagnosticLog leaves no room)
            log.counts["blank-line"] = log.counts.get("blank-line", 0) + count - room

    def _limit_met_before_header(self, reason: str, line_no: int, limit: int) -> None:
        """Remember the first line a limit kept from being read before any header: if no
        header follows, that line is named (``reason``) instead of the file being called
        empty or the next value being called "not a header"."""
        if not self._header_seen and self._limit_before_header is None:
            self._limit_before_header = NotASessionFile(self.name, reason, line=line_no,
                                                        detail=str(limit))

    def _one_line(self, line_no: int, raw: bytes | None, terminated: bool, position: int,
                  found: list[LoadedLine]) -> int:
        """Parse one line into ``found`` (reporting what is wrong); where the next one starts."""
        if raw is None:
            self._report(line_no, "line-too-long", detail=str(self.limits.max_line_bytes))
            self._limit_met_before_header("header-line-too-long", line_no,
                                          self.limits.max_line_bytes)
            self.line_source = None   # its length is unknown: positions stop here
            return position
        self._here = position if self.line_source is not None else None
        position += len(raw) + terminated
        if self.fast_decode is not None and self._header_seen:
            loaded = self._fast_line(line_no, raw)
            if loaded is not None:
                found.append(loaded)
                return position
        text = raw.decode("utf-8", "replace")
        if line_no == 1 or text.endswith("\r"):   # rare: a BOM or a CRLF to look at
            text = self._without_line_end(line_no, text, terminated)
        if not text.strip():
            self._report(line_no, "blank-line")
            return position
        found.extend(self._parse_line(line_no, text, terminated, raw))
        return position

    def _whole_block(self, first: int, lines: list[bytes], position: int
                     ) -> list[LoadedLine] | LinesInPlace | None:
        """A block of healthy lines decoded in one call, or None: go line by line.

        (A learner can skip this: it gives exactly what ``_one_line`` gives, faster.)
        The lines are joined into one JSON array with a separator the file cannot hold,
        a newline and a random string ``"z…"`` between every two lines:
        ``[line1,⏎"z…",line2,…]``. The answer is used only if it is that array: every
        second element the separator, the others objects. The separator cannot be part of
        a line's value (a string left open in the line before would meet the newline, which
        no JSON string may hold), so each separator in the answer is one the join put there
        (and the block holds no other copy of it: counted), and each element between two of
        them is exactly one line, decoded as that line alone would
        be. One call shares the keys' strings among all the block's entries (``json``
        reuses a key it has already seen within one call), which saves memory and time.
        Anything else, a line too deep, a number out of range, a surrogate escape, bytes
        that are not UTF-8, a blank line or two values on one line, makes the call fail
        or the answer not match, and then every line of the block takes the usual path.
        """
        count = len(lines)
        joined = b"[" + self._separator.join(lines) + b"]"
        if _most_openings(joined) > self.limits.max_depth:   # a line may be too deep
            return None
        if joined.count(self._separator_mark) != count - 1:
            return None
        values = self._decode_block(joined)
        if type(values) is not list or len(values) != 2 * count - 1 \
                or values[1::2].count(self._separator_text) != count - 1:
            return None
        objects = values[0::2]
        if set(map(type, objects)) != {dict}:
            return None
        source = self.line_source
        if source is None:
            return [LoadedLine(line_no, raw.decode("utf-8"), obj)
                    for line_no, raw, obj in zip(count_from(first), lines, objects)]
        if self.fields is not None:
            objects = list(map(self._partial, objects))
        elif self.in_place:
            return LinesInPlace(first, objects, position, lines)
        return LoadedLine.block_kept_in_file(first, objects, source, position, lines)

    def _decode_block(self, joined: bytes) -> Any:
        """The JSON value of a joined block, or None when a rule says no (see ``_SafeDecoder``)."""
        if self.fast_decode is not None:
            values = self.fast_decode(joined)
            return None if values is REFUSED else values
        try:
            text = joined.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if _SURROGATE_ESCAPE.search(text):
            return None
        self.decoder.out_of_range = 0
        try:
            values = self.decoder.decoder.decode(text)
        except (ValueError, RecursionError):
            return None
        return None if self.decoder.out_of_range else values

    def _fast_line(self, line_no: int, raw: bytes) -> LoadedLine | None:
        """A healthy entry line through the optional fast decoder, or None: take the usual path.

        Only a line the fast decoder vouches for is taken here, and only when nothing about
        it needs a diagnostic: no CR to strip, few enough brackets that it cannot be too
        deep, and a JSON object. Everything else (and every line before the header) goes
        the standard way, so diagnostics and values are the same with or without it.
        """
        if not raw.startswith(b"{") or raw.endswith(b"\r") \
                or raw.count(b"{") + raw.count(b"[") > self.limits.max_depth:
            return None   # (not an object written as Pi writes one: the usual path says why)
        value = self.fast_decode(raw)   # type: ignore[misc]
        if type(value) is not dict:     # REFUSED, or a value that is not an object
            return None
        return self._loaded(line_no, None, value, raw)

    def _loaded(self, line_no: int, text: str | None, value: Any, raw: bytes,
                entry: bool = True) -> LoadedLine:
        """A ``LoadedLine`` whose text stays in the file when it can be read back from there.

        Only such a line (an ``entry``, not the header) keeps just ``fields`` when those are
        asked for: the rest of its object can always be read again (``full_object``).
        """
        if self._here is not None and line_no > 1 and not raw.endswith(b"\r") \
                and len(raw) < 1 << 32:
            assert self.line_source is not None
            if self.fields is not None and entry:
                value = self._partial(value)
            return LoadedLine.kept_in_file(line_no, value, self.line_source, self._here, raw)
        return LoadedLine(line_no, raw.decode("utf-8", "replace") if text is None else text,
                          value)

    def _without_line_end(self, line_no: int, text: str, terminated: bool) -> str:
        if terminated and text.endswith("\r"):
            text = text[:-1]
            if not self._crlf_reported:
                self._crlf_reported = True
                self._report(line_no, "crlf")
        if line_no == 1 and text.startswith(BOM):
            if self.mode == "pi":   # Pi's JSON.parse fails on it, so no header: rejected
                raise NotASessionFile(self.name, "bom", line=1)
            self._report(line_no, "bom")
            text = text[len(BOM):]
        return text

    def _parse_line(self, line_no: int, text: str, terminated: bool,
                    raw: bytes = b"") -> list[LoadedLine]:
        """The objects on one line (usually one; none when it is unusable, reported)."""
        if _nesting_depth(text, self.limits.max_depth) > self.limits.max_depth:
            self._report(line_no, "too-deep", detail=str(self.limits.max_depth))
            self._limit_met_before_header("header-line-too-deep", line_no,
                                          self.limits.max_depth)
            return []
        values, error = self.decoder.values(text)
        if not values:
            code = "corrupt-line" if terminated else "torn-last-line"
            self._report(line_no, code, raw_error=error)
            return []
        if len(values) > 1 or error:
            self._report(line_no, "glued-objects", detail=str(len(values)), raw_error=error)
            if self.mode == "pi":   # JSON.parse fails on the whole line: everything is lost
                return []
        if self.decoder.out_of_range:
            self._report(line_no, "number-out-of-range", detail=str(self.decoder.out_of_range))
        whole_line = len(values) == 1 and not error
        found: list[LoadedLine] = []
        for value, start, end in values:
            piece = text if whole_line else text[start:end]
            as_read = whole_line and not self.decoder.out_of_range   # the file's text is its text
            if _SURROGATE_ESCAPE.search(piece) and _has_lone_surrogate(value):
                value = _replace_lone_surrogates(value)
                self._report(line_no, "lone-surrogate")
                as_read = False
            loaded = self._accept(line_no, piece, value, raw if as_read else None)
            if loaded is not None:
                found.append(loaded)
        return found

    def _accept(self, line_no: int, text: str, value: Any,
                raw: bytes | None = None) -> LoadedLine | None:
        """The first value of the file must be the header; after it, only objects count."""
        header = not self._header_seen
        if header:
            if not _is_header(value):
                raise self._no_header("not-a-header", line=line_no)
            self._header_seen = True
            version = header_version(value)
            if version is not None and version < CURRENT_VERSION:
                self.fields = None   # migrating needs whole entries
        elif not isinstance(value, dict):
            self._report(line_no, "not-an-object", detail=type(value).__name__)
            return None
        if raw is not None:   # a whole healthy line: its text can stay in the file
            return self._loaded(line_no, text, value, raw, entry=not header)
        return LoadedLine(line_no, text, value)

    def _partial(self, value: dict[str, Any]) -> dict[str, Any]:
        """Only the keys in ``fields`` (those the entry has), for reads that walk the tree.

        (A learner can skip this.) ``path --json`` needs ids and parents, not messages: on a
        file of a million entries the whole objects would cost gigabytes.
        """
        return {key: value[key] for key in self.fields if key in value}  # type: ignore[union-attr]

    def full_object(self, loaded: LoadedLine) -> dict[str, Any]:
        """The whole object of a line, read again from the file if only ``fields`` were kept."""
        if self.fields is None or loaded._source is None:
            return loaded.obj
        value = parse_one_value(loaded.text, self.limits)
        assert isinstance(value, dict), "a line kept in the file was a healthy object"
        return value


def _has_lone_surrogate(value: Any) -> bool:
    """True if any string or key in ``value`` holds a surrogate on its own (iterative)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return True
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
    return False


def _check_mode(mode: str) -> None:
    if not isinstance(mode, str) or mode not in MODES:
        raise UnknownChoice("mode", mode, MODES)


def iter_entries_streaming(source: Source, *, mode: str = "teaching",
                           diagnostics: list[Diagnostic] | None = None,
                           limits: Limits | None = None, decoder: str | None = None
                           ) -> Iterator[LoadedLine]:
    """Every parsed object of a session file, header first, one line at a time.

    This is Pi's ``loadEntriesFromFile`` as a generator: blank and unparseable lines are
    skipped, everything else is yielded in file order, with no de-duplication and no
    migration (those need the whole file). Memory stays flat however long the file is.

    Line-level problems (``bom``, ``crlf``, ``blank-line``, ``corrupt-line``,
    ``torn-last-line``, ``glued-objects``, ``not-an-object``, ``line-too-long``,
    ``too-deep``, ``file-too-large``, ``number-out-of-range``, ``lone-surrogate``) are
    appended to ``diagnostics`` as they are met, if you pass a list (a ``DiagnosticLog``
    keeps only a few of each code). Raises ``NotASessionFile`` before yielding anything
    when the first JSON value is not a header, and after the last line when there was
    none at all. ``decoder`` (``"stdlib"``, ``"msgspec"``, ``"auto"``; default
    ``$LEARN_PI_LAB_DECODER`` or ``auto``) is explained in ``fast_decoder``.
    """
    _check_mode(mode)
    if not hasattr(source, "read"):   # an open file, or else a path
        source = checked_path(source)
    parser = _LineParser(mode, diagnostics if diagnostics is not None else [],
                         _name_of(source), _limits(limits), fast_decode_for(decoder))
    parser.streaming = True
    yield from parser.parse(source)


def iter_lines_in_place(path: str, *, mode: str, diagnostics: list[Diagnostic],
                        limits: Limits | None = None, decoder: str | None = None
                        ) -> Iterator[list[LoadedLine] | LinesInPlace]:
    """``iter_entries_streaming`` of a plain file (not ``.xz``), a block of lines at a time,
    for an index that keeps where each line is and lets the object go (``jsonl.index``).
    A block of healthy lines comes as ``LinesInPlace`` (their objects and where they are);
    any other block as a list of ``LoadedLine``, each healthy one remembering its place
    (``LoadedLine.place``; ``None``: a line read one by one that keeps its text, such as
    the header or a damaged line)."""
    _check_mode(mode)
    path = checked_path(path)
    source = _line_source(path)
    if source is None:
        raise FileNotFoundError(path) if not os.path.exists(path) else \
            ValueError(f"{path} is compressed: its lines have no place in the file")
    parser = _LineParser(mode, diagnostics, path, _limits(limits), fast_decode_for(decoder),
                         source)
    parser.streaming = True
    parser.in_place = True
    yield from parser.parse_blocks(path)


# --------------------------------------------------------------------------------------
# Layer 3: the session (migration, ids, duplicates, references)
# --------------------------------------------------------------------------------------

def read_session(path: str | os.PathLike, *, mode: str = "teaching",
                 limits: Limits | None = None, decoder: str | None = None,
                 fields: tuple[str, ...] | None = None) -> SessionFile:
    """Read a session file (``.jsonl`` or ``.jsonl.xz``) without changing a byte of it.

    ``decoder="msgspec"`` (or ``"auto"``, or ``$LEARN_PI_LAB_DECODER``) parses healthy lines
    with an optional faster library, with identical results (``fast_decoder``).

    ``fields`` (e.g. ``TREE_FIELDS``) keeps only those keys of each entry read from a plain
    file, for work that walks the tree and never looks at messages: a million-entry file
    then costs a fraction of the memory. Everything else is the same: entries, lines, texts
    and diagnostics (a duplicate is compared whole, read again from the file).
    """
    _check_mode(mode)
    name = checked_path(path)
    return _load(name, name, mode, _limits(limits), fast_decode_for(decoder),
                 _checked_fields(fields))


def read_session_text(text: str, *, mode: str = "teaching",
                      limits: Limits | None = None, decoder: str | None = None
                      ) -> SessionFile:
    """The same as ``read_session``, for the file's content already in a string."""
    _check_mode(mode)
    if not isinstance(text, str):
        raise WrongArgument("text", text)
    # A raw surrogate becomes three bytes that are not UTF-8, each read back as U+FFFD
    # (as Node's and a browser's decoders read them).
    data = text.encode("utf-8", "surrogatepass")
    return _load(io.BytesIO(data), None, mode, _limits(limits), fast_decode_for(decoder))


def _load(source: Source, path: str | None, mode: str, limits: Limits,
          fast_decode: FastDecode | None = None,
          fields: tuple[str, ...] | None = None) -> SessionFile:
    diagnostics = DiagnosticLog(limits.max_examples)
    parser = _LineParser(mode, diagnostics, path, limits, fast_decode, _line_source(path),
                         fields)
    with collector_paused():
        everything: list[LoadedLine] = []
        check: EntryCheck | None = None   # a current header: entries are checked as they come
        for block in parser.parse_blocks(source):   # raises NotASessionFile without a header
            if check is not None:
                check.add(block)
                continue
            everything.extend(block)
            if everything and not _needs_migration(everything[0]):
                check = EntryCheck(mode, diagnostics, parser.full_object)
                check.add(everything[1:])
                del everything[1:]
        header_line, rest = everything[0], everything[1:]

        header_line, rest, source_version, migrated = _migrate(header_line, rest)
        if migrated:
            diagnostics.append(diagnostic(header_line.line, "migrated",
                                          detail=f"v{source_version} -> v{CURRENT_VERSION}"))
        if check is None:   # a v1/v2 file: migrated first, then checked
            check = EntryCheck(mode, diagnostics, parser.full_object)
            check.add(rest)
        entries, index, parents_first, one_chain = check.finish()
    stored = sorted(diagnostics, key=lambda found: found.line or 0)   # stable
    file = SessionFile(path=path, header=header_line.obj, header_line=header_line,
                       entries=entries, diagnostics=[*diagnostics.summary(), *stored],
                       source_version=source_version, migrated=migrated,
                       ends_with_newline=parser.ends_with_newline,
                       diagnostic_counts=dict(diagnostics.counts), fields=parser.fields)
    file.index, file.parents_first, file.one_chain = index, parents_first, one_chain
    return file


def _line_source(path: str | None) -> LineSource | None:
    """Where healthy lines' texts can be read back from: a plain file (not ``.xz``), or None."""
    if path is None or path.endswith(".xz"):
        return None
    try:
        return LineSource(path)
    except OSError:
        return None   # missing or unreadable: the reader says so when it opens it


def _repeatable_ids(seed: str) -> NewId:
    """Ids for migrated entries that come out the same on every read of the same file.

    Pi uses fresh random ids each time (and then rewrites the file so they stick). This
    reader never rewrites, so it seeds the ids with the session id instead: read v1.jsonl
    twice and you get the same tree twice.
    """
    rng = random.Random(seed)
    return lambda taken: new_entry_id(taken, rng)


def _needs_migration(header_line: LoadedLine) -> bool:
    """A v1 or v2 header: its entries must all be read, then migrated, before any is checked."""
    source_version = header_version(header_line.obj)
    return source_version is not None and source_version < CURRENT_VERSION


def _migrate(header_line: LoadedLine, rest: list[LoadedLine]
             ) -> tuple[LoadedLine, list[LoadedLine], int | None, bool]:
    source_version = header_version(header_line.obj)
    if not _needs_migration(header_line):
        return header_line, rest, source_version, False   # the usual case: nothing to do
    header, objects, source_version = migrate_to_v3(
        header_line.obj, [loaded.obj for loaded in rest],
        new_id=_repeatable_ids(header_line.obj["id"]))
    migrated_rest = [loaded.with_obj(obj) for loaded, obj in zip(rest, objects)]
    return header_line.with_obj(header), migrated_rest, \
        source_version, True


def canonical_json(obj: Any) -> str:
    """One text per JSON value: keys sorted, so equal-as-JSON objects give equal text.

    (Plain ``==`` would call ``1`` and ``true`` equal, JSON does not.)
    """
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


class ReferenceCheck:
    """Ids an entry points at besides its parent, checked once the whole file is known.

    * a ``label``'s ``targetId`` must be an entry of the file (``dangling-label``);
      like the two below, checked only when the key is there at all;
    * a ``compaction``'s ``firstKeptEntryId`` must be an entry written *before* it
      (``first-kept-missing``; ``first-kept-not-earlier`` when it is a later entry: then
      nothing before the compaction is kept). Its own id is not damage: it is how Pi 1.x
      writes a compaction that keeps nothing (retain-none), and 0.84.2 reads it the same way;
    * a ``branch_summary``'s ``fromId`` must be an entry or ``"root"``
      (``unknown-from-id``).

    Feed entries in file order with ``see`` after their id is known; ``finish`` reports
    what is still unresolved. Only unresolved references are kept, so a healthy file
    costs nothing here. Shared by the reader and the inspector.
    """

    def __init__(self) -> None:
        self.pending: list[tuple[int, str, str | None, Any]] = []  # line, kind, id, target
        self.found: list[Diagnostic] = []

    def see(self, obj: dict[str, Any], line: int, known: Any) -> None:
        kind = obj.get("type")
        entry_id = obj.get("id") if isinstance(obj.get("id"), str) else None
        if kind == "label" and "targetId" in obj:
            target = obj.get("targetId")
        elif kind == "compaction" and "firstKeptEntryId" in obj:
            target = obj.get("firstKeptEntryId")
            if target is not None and target == entry_id:
                return   # a compaction that keeps nothing: Pi 1.x writes its own id on purpose
        elif kind == "branch_summary" and "fromId" in obj:
            target = obj.get("fromId")
            if target == "root":
                return
        else:
            return
        if not (isinstance(target, str) and target in known):
            self.pending.append((line, kind, entry_id, target))

    def finish(self, known: Any) -> list[Diagnostic]:
        for line, kind, entry_id, target in self.pending:
            present = isinstance(target, str) and target in known
            if kind == "label" and not present:
                code = "dangling-label"
            elif kind == "compaction":
                code = "first-kept-not-earlier" if present else "first-kept-missing"
            elif kind == "branch_summary" and not present:
                code = "unknown-from-id"
            else:
                continue
            self.found.append(diagnostic(line, code, entry_id, _shown(target)))
        self.pending.clear()
        return self.found


POINTING_TYPES = frozenset(("label", "compaction", "branch_summary"))
"""The entry types ``ReferenceCheck.see`` looks at."""


def _shown(value: Any) -> str:
    """A value as JSON text (an id stays readable; a list or a number shows as one)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)[:80]


class EntryCheck:
    """Drop extra headers and (teaching mode) id-less lines; resolve repeated ids; fed a
    block of lines at a time (``add``), then ``finish``.

    A repeated id is kept once. Teaching mode keeps the first copy where it was. Pi mode
    keeps the *later* copy at the later position: Pi's id index takes the later content,
    and Pi's leaf is the last line in the file, so the later position is what matters.
    Then the ids entries point at (label targets, firstKeptEntryId, fromId) are checked.

    ``finish`` returns the kept lines, the id index the session uses (id -> the object kept
    for it, in the kept lines' order), whether every kept entry names as parent only an
    entry kept before it, and whether each names the one kept just before it: a session that
    never branched (``SessionFile.index``, ``parents_first``, ``one_chain``).

    (Why blocks, a learner can skip: the reader checks each block right after decoding it,
    while its objects are still in the processor's cache; a second pass over hundreds of
    megabytes of objects later costs about half again as much.)
    """

    def __init__(self, mode: str, diagnostics: Any,
                 full_object: Callable[[LoadedLine], dict] = lambda loaded: loaded.obj
                 ) -> None:
        self.mode, self.diagnostics, self.full_object = mode, diagnostics, full_object
        self.kept: list[LoadedLine | None] = []
        self.by_id: dict[str, dict[str, Any]] = {}
        self.position_of: dict[str, int] | None = None   # where each id sits in kept: when needed
        self.references = ReferenceCheck()
        self.parents_first = self.one_chain = True
        self.previous: str | None = None   # the id kept just before

    def add(self, lines: Iterable[LoadedLine]) -> None:
        mode, diagnostics, kept, by_id = self.mode, self.diagnostics, self.kept, self.by_id
        position_of, previous = self.position_of, self.previous
        keep = by_id.setdefault   # keeps obj under a new id; an id already kept answers its own
        for loaded in lines:
            obj = loaded.obj
            entry_id, kind = obj.get("id"), obj.get("type")
            if type(entry_id) is not str or not entry_id:   # (a plain id needs no call)
                entry_id = entry_id_of(obj)
            if kind == "session":
                diagnostics.append(diagnostic(loaded.line, "extra-header"))
                continue
            if entry_id is None:
                diagnostics.append(diagnostic(loaded.line, "missing-id"))
                if mode == "pi":
                    kept.append(loaded)
                continue
            if keep(entry_id, obj) is not obj:   # the id is kept already: a repeat
                if position_of is None:   # the first repeat: from now on, positions are kept too
                    position_of = self.position_of = _positions(kept)
                self._repeated(loaded, entry_id, position_of)
                continue
            known = _ONE_TYPE.get(kind) if type(kind) is str else None
            if known is None:
                diagnostics.append(diagnostic(loaded.line, "unknown-type", entry_id,
                                              detail=_shown(kind) if kind is not None
                                              else "null"))
            else:   # one string object per type and role for the whole file (memory)
                obj["type"] = known
                message = obj.get("message")
                role = message.get("role") if type(message) is dict else None
                if type(role) is str:
                    role = _ONE_ROLE.get(role)
                    if role is not None:
                        message["role"] = role
            # One string for the id and every child's parentId (memory). The usual parent is
            # the entry kept just before, whose id is at hand (no look-up in the index).
            parent = obj.get("parentId")
            if parent != previous:
                self.one_chain = False
                if parent is not None:
                    named = by_id.get(parent) if type(parent) is str and parent != entry_id \
                        else None   # (itself: kept just above, but not written before it)
                    if named is None:
                        self.parents_first = False
                    else:
                        obj["parentId"] = named["id"]
            elif parent is not None:
                obj["parentId"] = previous
            previous = entry_id
            if position_of is not None:
                position_of[entry_id] = len(kept)
            kept.append(loaded)
            if known in POINTING_TYPES:     # most entries point at nothing but their parent
                self.references.see(obj, loaded.line, by_id)
        self.previous = previous

    def _repeated(self, loaded: LoadedLine, entry_id: str, position_of: dict[str, int]) -> None:
        """A second line with an id already kept: say so; pi mode keeps the later copy."""
        first = self.kept[position_of[entry_id]]
        assert first is not None
        same = canonical_json(self.full_object(first)) == canonical_json(self.full_object(loaded))
        self.diagnostics.append(diagnostic(
            loaded.line, "duplicate-entry" if same else "conflicting-duplicate", entry_id,
            first_line=first.line))
        if self.mode == "pi":
            self.kept[position_of[entry_id]] = None
            position_of[entry_id] = len(self.kept)
            self.kept.append(loaded)
            del self.by_id[entry_id]        # the later copy, at the later place
            self.by_id[entry_id] = loaded.obj
            self.parents_first = False

    def finish(self) -> tuple[list[LoadedLine], dict[str, dict[str, Any]], bool, bool]:
        for found in self.references.finish(self.by_id):
            self.diagnostics.append(found)
        kept = self.kept
        if self.position_of is not None and self.mode == "pi":   # replaced copies left gaps
            kept = [loaded for loaded in kept if loaded is not None]
        return (kept, self.by_id, self.parents_first,   # type: ignore[return-value]
                self.parents_first and self.one_chain)


_ONE_TYPE = {kind: kind for kind in KNOWN_ENTRY_TYPES}
_ONE_ROLE = {role: role for role in ("user", "assistant", "toolResult", "system", "custom",
                                     "bashExecution")}
"""Each entry type and message role as one string object: a decoder makes a new string for
every value it reads, and on a large file these few words would cost about a twentieth of
the memory (``EntryCheck``; a child's ``parentId`` becomes its parent's own ``id`` string
the same way)."""


def _positions(kept: list[LoadedLine | None]) -> dict[str, int]:
    """Where each id's line sits in ``kept`` (only needed once an id repeats)."""
    return {loaded.obj["id"]: index for index, loaded in enumerate(kept)
            if loaded is not None and entry_id_of(loaded.obj) is not None}
