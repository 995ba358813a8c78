"""Read a session file line by line: tolerant of damage, never silent about it.

One JSON object per line is what makes a session file robust. A crash in the middle of a
write tears only the last line; a bad byte costs one line, not the file. This reader
takes that seriously in two ways:

* **Streaming.** The file is read one physical line at a time (``.jsonl.xz`` files are
  decompressed on the fly). Nothing ever parses the whole file as one string, so a 200 MB
  session costs one line of memory at a time to scan (``iter_entries_streaming``).
* **Tolerant, never silent.** Every line it cannot use becomes a ``Diagnostic`` with its
  line number (torn last line, corrupt line, glued objects, duplicates, ...), and the rest
  of the file is still read. Only a file that is not a session at all raises
  ``NotASessionFile``.

Two modes, because the course compares the two:

* ``teaching`` (default): the rules the course argues for, e.g. an identical re-append
  is de-duplicated, two objects glued onto one line are both recovered.
* ``pi``: what Pi v0.84.2 does (pi-session-format.md sections 6 and 12b), e.g. a glued
  line is lost, a BOM makes the file "not a session", a later duplicate wins. (Where Pi
  would *write*, as when it puts a fresh header into an empty file, this reader raises
  ``NotASessionFile`` instead: it never writes.)

The reader never writes. Old (v1/v2) files are migrated in memory only.

``read_jsonl_tolerant`` at the end is chapter 01's exercise: the same idea in fifteen
lines, on a string, without any of the refinements above.
"""

from __future__ import annotations

import io
import json
import lzma
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Union

from learn_pi_lab.i18n import catalog, current_language, t
from learn_pi_lab.jsonl.ids import new_entry_id
from learn_pi_lab.jsonl.migration import CURRENT_VERSION, NewId, header_version, migrate_to_v3
from learn_pi_lab.jsonl.records import KNOWN_ENTRY_TYPES

MODES = ("teaching", "pi")
BOM = "\ufeff"

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
    # Found when the tree is built (learn_pi_lab.pi.session), not by this reader:
    "dangling-parent": "error",
    "self-parent": "error",
    "cycle": "error",
}
"""Every diagnostic code and how serious it is (docs/architecture.md section 2)."""

Source = Union[str, os.PathLike, IO[bytes], IO[str]]


# --------------------------------------------------------------------------------------
# What the reader hands back
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a file, pinned to its physical line (1-based).

    ``detail`` is a short English technical note (the JSON error, the line of the first
    copy, ...). ``message(lang)`` is what a learner reads: it always starts with the line.
    """

    line: int | None
    code: str
    severity: str
    entry_id: str | None = None
    detail: str = ""

    def message(self, lang: str | None = None) -> str:
        where = (t("diag.where.line", lang, line=self.line) if self.line is not None
                 else t("diag.where.file", lang))
        key = f"diag.{self.code}"
        text = t(key, lang, entry_id=self.entry_id or "?", detail=self.detail)
        if self.detail and "{detail}" not in catalog()[key][current_language(lang)]:
            text += t("diag.detail", lang, detail=self.detail)   # a message may place it itself
        return where + text


def diagnostic(line: int | None, code: str, entry_id: str | None = None,
               detail: str = "") -> Diagnostic:
    """A ``Diagnostic`` with the severity the table gives its code."""
    return Diagnostic(line, code, SEVERITIES[code], entry_id, detail)


@dataclass(slots=True)
class LoadedLine:
    """One parsed JSON object and the exact text it came from.

    ``text`` is the line as stored, minus its line ending, so an entry the course does not
    understand can be written back byte for byte. (For two objects glued onto one line,
    each gets its own slice of the line.) ``obj`` is the parsed object, after migration
    when the file was v1/v2.
    """

    line: int
    text: str
    obj: dict[str, Any]


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

    def objects(self) -> list[dict[str, Any]]:
        """The entries' parsed objects (no header), in file order."""
        return [loaded.obj for loaded in self.entries]


class NotASessionFile(ValueError):
    """The file is missing, empty, unreadable, or does not start with a session header.

    Pi's rule: after blank and unparseable lines are skipped, the first JSON value must
    be an object with ``type == "session"`` and a string ``id``. ``reason`` is one of
    ``missing-file``, ``is-a-directory``, ``unreadable``, ``empty-file``, ``no-header``,
    ``not-a-header``, ``bom`` (pi mode only). ``str(error)`` says it in both languages.
    """

    def __init__(self, path: str | None, reason: str, line: int | None = None,
                 detail: str = "") -> None:
        self.path = path
        self.reason = reason
        self.line = line
        self.detail = detail
        super().__init__(t(f"jsonl.not-a-session.{reason}", **self._fields()))

    def _fields(self) -> dict[str, Any]:
        return {"path": self.path or "<text>", "line": self.line, "detail": self.detail}

    def message(self, lang: str | None = None) -> str:
        """The explanation in one language (for a CLI or a notebook)."""
        return t(f"jsonl.not-a-session.{self.reason}", lang, **self._fields())


# --------------------------------------------------------------------------------------
# Layer 1: physical lines
# --------------------------------------------------------------------------------------

def _raw_lines(source: Source, name: str | None) -> Iterator[tuple[int, str, bool]]:
    """``(line_no, text, terminated)`` with only the ``\\n`` removed; CR and BOM left in.

    Lines are split on ``\\n`` alone, never on other characters Python also calls line
    breaks (a JSON string may legally contain U+2028). Bytes are decoded line by line; a
    UTF-8 sequence never contains the ``\\n`` byte, so no character is cut in half, and
    invalid UTF-8 becomes U+FFFD, as in Pi.
    """
    try:
        if isinstance(source, (str, os.PathLike)):
            path = Path(source)
            opener = lzma.open if path.name.endswith(".xz") else open
            # Text mode, split on "\n" only (newline="\n"); bad UTF-8 becomes U+FFFD.
            with opener(path, "rt", encoding="utf-8", errors="replace", newline="\n") as handle:
                yield from _split(handle)
        else:
            yield from _split(source)
    except FileNotFoundError:
        raise NotASessionFile(name, "missing-file") from None
    except IsADirectoryError:
        raise NotASessionFile(name, "is-a-directory") from None
    except (OSError, lzma.LZMAError, EOFError) as error:
        raise NotASessionFile(name, "unreadable", detail=str(error)) from None


def _split(handle: IO[Any]) -> Iterator[tuple[int, str, bool]]:
    for line_no, raw in enumerate(handle, start=1):
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        terminated = text.endswith("\n")
        yield line_no, text[:-1] if terminated else text, terminated


def iter_physical_lines(source: Source, *, strip_bom: bool = True
                        ) -> Iterator[tuple[int, str, bool]]:
    """Every physical line as ``(line_no, text, terminated)``, streaming.

    ``source`` is a path (``.xz`` read transparently) or an open file, binary or text (a
    text file should be opened with ``newline="\\n"`` so only ``\\n`` ends a line).
    ``text`` has no ``\\n`` and no ``\\r`` before it; ``terminated`` says whether the line
    ended with ``\\n`` (only the last line of a file can be unterminated). A UTF-8 BOM at
    the very start is removed unless ``strip_bom`` is False.
    """
    for line_no, text, terminated in _raw_lines(source, _name_of(source)):
        if terminated and text.endswith("\r"):
            text = text[:-1]
        if line_no == 1 and strip_bom and text.startswith(BOM):
            text = text[1:]
        yield line_no, text, terminated


def _name_of(source: Source) -> str | None:
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else None


# --------------------------------------------------------------------------------------
# Layer 2: parsed lines (JSON values, the header check)
# --------------------------------------------------------------------------------------

_JSON_SPACE = re.compile(r"[ \t\r\n]*")


def _reject_constant(name: str) -> Any:
    """NaN and Infinity are not JSON (Python accepts them, JavaScript's JSON.parse does not)."""
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _decode_values(text: str) -> tuple[list[tuple[Any, int, int]], str]:
    """Every complete JSON value on a line, left to right, with its ``(start, end)``.

    Returns ``(values, error)``: ``error`` is empty when the whole line was consumed,
    otherwise it describes why decoding stopped (the rest of the line is unreadable).
    """
    try:  # the common case, a healthy line: one call into the C decoder, as fast as json.loads
        return [(_DECODER.decode(text), 0, len(text))], ""
    except (ValueError, RecursionError):
        pass  # damaged or glued: walk the line value by value to save what can be saved
    values: list[tuple[Any, int, int]] = []
    position = _JSON_SPACE.match(text).end()
    while position < len(text):
        try:
            value, end = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as error:
            return values, f"{error.msg} (column {error.colno})"
        except (ValueError, RecursionError) as error:
            return values, str(error) or "nested too deeply"
        values.append((value, position, end))
        position = _JSON_SPACE.match(text, end).end()
    return values, ""


def _is_header(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "session" \
        and isinstance(value.get("id"), str)


class _LineParser:
    """Physical lines in, parsed JSON objects out; every unusable line reported.

    The first JSON value of the file must be the header, else ``NotASessionFile``. This
    layer knows nothing about ids or entry types; ``read_session`` adds that on top.
    """

    def __init__(self, mode: str, diagnostics: list[Diagnostic], name: str | None) -> None:
        self.mode = mode
        self.diagnostics = diagnostics
        self.name = name
        self.ends_with_newline = False
        self._crlf_reported = False
        self._header_seen = False
        self._saw_any_line = False

    def parse(self, raw_lines: Iterable[tuple[int, str, bool]]) -> Iterator[LoadedLine]:
        for line_no, text, terminated in raw_lines:
            self._saw_any_line = True
            self.ends_with_newline = terminated
            text = self._without_line_end(line_no, text, terminated)
            if not text.strip():
                self.diagnostics.append(diagnostic(line_no, "blank-line"))
                continue
            yield from self._parse_line(line_no, text, terminated)
        if not self._header_seen:
            raise NotASessionFile(self.name, "no-header" if self._saw_any_line else "empty-file")

    def _without_line_end(self, line_no: int, text: str, terminated: bool) -> str:
        if terminated and text.endswith("\r"):
            text = text[:-1]
            if not self._crlf_reported:
                self._crlf_reported = True
                self.diagnostics.append(diagnostic(line_no, "crlf"))
        if line_no == 1 and text.startswith(BOM):
            if self.mode == "pi":   # Pi's JSON.parse fails on it, so no header: rejected
                raise NotASessionFile(self.name, "bom", line=1)
            self.diagnostics.append(diagnostic(line_no, "bom"))
            text = text[len(BOM):]
        return text

    def _parse_line(self, line_no: int, text: str, terminated: bool) -> Iterator[LoadedLine]:
        values, error = _decode_values(text)
        if not values:
            code = "corrupt-line" if terminated else "torn-last-line"
            self.diagnostics.append(diagnostic(line_no, code, detail=error))
            return
        if len(values) > 1 or error:
            detail = f"{len(values)} complete JSON value(s)"
            detail += ", then an unreadable fragment" if error else ""
            self.diagnostics.append(diagnostic(line_no, "glued-objects", detail=detail))
            if self.mode == "pi":   # JSON.parse fails on the whole line: everything is lost
                return
        whole_line = len(values) == 1 and not error
        for value, start, end in values:
            loaded = self._accept(line_no, text if whole_line else text[start:end], value)
            if loaded is not None:
                yield loaded

    def _accept(self, line_no: int, text: str, value: Any) -> LoadedLine | None:
        """The first value of the file must be the header; after it, only objects count."""
        if not self._header_seen:
            if not _is_header(value):
                raise NotASessionFile(self.name, "not-a-header", line=line_no)
            self._header_seen = True
        elif not isinstance(value, dict):
            self.diagnostics.append(diagnostic(line_no, "not-an-object",
                                               detail=type(value).__name__))
            return None
        return LoadedLine(line_no, text, value)


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(t("jsonl.bad-mode", mode=mode))


def iter_entries_streaming(source: Source, *, mode: str = "teaching",
                           diagnostics: list[Diagnostic] | None = None
                           ) -> Iterator[LoadedLine]:
    """Every parsed object of a session file, header first, one line at a time.

    This is Pi's ``loadEntriesFromFile`` as a generator: blank and unparseable lines are
    skipped, everything else is yielded in file order, with no de-duplication and no
    migration (those need the whole file). Memory stays flat however long the file is.

    Line-level problems (``bom``, ``crlf``, ``blank-line``, ``corrupt-line``,
    ``torn-last-line``, ``glued-objects``, ``not-an-object``) are appended to
    ``diagnostics`` as they are met, if you pass a list. Raises ``NotASessionFile`` before
    yielding anything when the first JSON value is not a header, and after the last line
    when there was none at all.
    """
    _check_mode(mode)
    parser = _LineParser(mode, diagnostics if diagnostics is not None else [], _name_of(source))
    yield from parser.parse(_raw_lines(source, _name_of(source)))


# --------------------------------------------------------------------------------------
# Layer 3: the session (migration, ids, duplicates)
# --------------------------------------------------------------------------------------

def read_session(path: str | os.PathLike, *, mode: str = "teaching") -> SessionFile:
    """Read a session file (``.jsonl`` or ``.jsonl.xz``) without changing a byte of it."""
    _check_mode(mode)
    return _load(_raw_lines(path, os.fspath(path)), os.fspath(path), mode)


def read_session_text(text: str, *, mode: str = "teaching") -> SessionFile:
    """The same as ``read_session``, for the file's content already in a string."""
    _check_mode(mode)
    return _load(_raw_lines(io.StringIO(text, newline="\n"), None), None, mode)


def _load(raw_lines: Iterator[tuple[int, str, bool]], path: str | None,
          mode: str) -> SessionFile:
    diagnostics: list[Diagnostic] = []
    parser = _LineParser(mode, diagnostics, path)
    lines = parser.parse(raw_lines)
    header_line = next(lines)               # raises NotASessionFile when there is none
    rest = list(lines)

    header_line, rest, source_version, migrated = _migrate(header_line, rest)
    if migrated:
        diagnostics.append(diagnostic(header_line.line, "migrated",
                                      detail=f"v{source_version} -> v{CURRENT_VERSION}"))
    entries = _check_entries(rest, mode, diagnostics)
    diagnostics.sort(key=lambda found: found.line or 0)   # stable: same line keeps order
    return SessionFile(path=path, header=header_line.obj, header_line=header_line,
                       entries=entries, diagnostics=diagnostics,
                       source_version=source_version, migrated=migrated,
                       ends_with_newline=parser.ends_with_newline)


def _repeatable_ids(seed: str) -> NewId:
    """Ids for migrated entries that come out the same on every read of the same file.

    Pi uses fresh random ids each time (and then rewrites the file so they stick). This
    reader never rewrites, so it seeds the ids with the session id instead: read v1.jsonl
    twice and you get the same tree twice.
    """
    rng = random.Random(seed)
    return lambda taken: new_entry_id(taken, rng)


def _migrate(header_line: LoadedLine, rest: list[LoadedLine]
             ) -> tuple[LoadedLine, list[LoadedLine], int | None, bool]:
    source_version = header_version(header_line.obj)
    if source_version is None or source_version >= CURRENT_VERSION:
        return header_line, rest, source_version, False   # the usual case: nothing to do
    header, objects, source_version = migrate_to_v3(
        header_line.obj, [loaded.obj for loaded in rest],
        new_id=_repeatable_ids(header_line.obj["id"]))
    migrated_rest = [LoadedLine(loaded.line, loaded.text, obj)
                     for loaded, obj in zip(rest, objects)]
    return LoadedLine(header_line.line, header_line.text, header), migrated_rest, \
        source_version, True


def _same_content(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Equal as JSON. (Plain ``==`` would call ``1`` and ``true`` equal, JSON does not.)"""
    def canonical(obj: dict[str, Any]) -> str:
        return json.dumps(obj, sort_keys=True, ensure_ascii=False)
    return canonical(first) == canonical(second)


def _check_entries(rest: list[LoadedLine], mode: str,
                   diagnostics: list[Diagnostic]) -> list[LoadedLine]:
    """Drop extra headers and (teaching mode) id-less lines; resolve repeated ids.

    A repeated id is kept once. Teaching mode keeps the first copy where it was. Pi mode
    keeps the *later* copy at the later position: Pi's id index takes the later content,
    and Pi's leaf is the last line in the file, so the later position is what matters.
    """
    kept: list[LoadedLine | None] = []
    position_of: dict[str, int] = {}
    for loaded in rest:
        obj = loaded.obj
        entry_id, kind = obj.get("id"), obj.get("type")
        if kind == "session":
            diagnostics.append(diagnostic(loaded.line, "extra-header"))
            continue
        if not isinstance(entry_id, str):
            diagnostics.append(diagnostic(loaded.line, "missing-id"))
            if mode == "pi":
                kept.append(loaded)
            continue
        if entry_id in position_of:
            first = kept[position_of[entry_id]]
            assert first is not None
            code = "duplicate-entry" if _same_content(first.obj, obj) else "conflicting-duplicate"
            diagnostics.append(diagnostic(loaded.line, code, entry_id,
                                          detail=f"first on line {first.line}"))
            if mode == "pi":
                kept[position_of[entry_id]] = None
                position_of[entry_id] = len(kept)
                kept.append(loaded)
            continue
        if not isinstance(kind, str) or kind not in KNOWN_ENTRY_TYPES:
            diagnostics.append(diagnostic(loaded.line, "unknown-type", entry_id,
                                          detail=f"type {json.dumps(kind, ensure_ascii=False)}"))
        position_of[entry_id] = len(kept)
        kept.append(loaded)
    if len(position_of) == len(kept):       # nothing was replaced: no gaps to close
        return kept                          # type: ignore[return-value]
    return [loaded for loaded in kept if loaded is not None]


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
        except ValueError:
            torn = line_no == len(lines) and last_is_unterminated
            problems.append((line_no, "torn-last-line" if torn else "corrupt-line"))
            continue
        if not isinstance(value, dict):
            problems.append((line_no, "not-an-object"))
            continue
        objects.append(value)
    return objects, problems
