"""Write session files the append-only way: add lines at the end, never touch old bytes.

Appending is what makes JSONL cheap and safe. Adding an entry costs the same whether the
file holds ten lines or ten million (open in append mode, write one line), and a crash
can only ever damage the line being written. A JSON array would have to be read,
changed and written back whole, and a crash in the middle of *that* loses everything.

One rule Pi itself does not follow (pi-session-format.md section 6): **before appending,
make sure the file ends with a newline.** If the last line was torn by a crash, an append
without that check glues the new entry onto the torn one, and the next read loses both.
``append_line`` checks the last byte (by seeking, not by reading the file) and starts a
fresh line when needed.

A new file (a fork, a migrated copy) appears whole or not at all: it is written to a
temporary file in the same folder, flushed to disk (``fsync``), then *linked* into place,
which fails if the name exists. So a new session never overwrites an existing one (the
guard Pi added in v0.76, ``wx``), and a failure half-way (disk full, a value that cannot
be written) leaves nothing behind, not even an empty file that would block the retry.

Errors speak English and carry their facts (``learn_pi_lab.errors.Explained``);
``learn_pi_lab.i18n.explain`` translates them where they are shown.
"""

from __future__ import annotations

import errno
import json
from contextlib import contextmanager
import os
import random
import re
import secrets
import stat
from pathlib import Path
from typing import Any, Iterable, Iterator

try:
    import fcntl
except ImportError:   # Windows
    fcntl = None  # type: ignore[assignment]

from learn_pi_lab.errors import Explained
from learn_pi_lab.jsonl.ids import Clock, iso_now, new_entry_id, new_session_id
from learn_pi_lab.jsonl.migration import CURRENT_VERSION
from learn_pi_lab.jsonl.reader import WrongArgument, checked_path, read_session
from learn_pi_lab.session_tree import DuplicateEntryId, EmptyEntryId, NonStringId

__all__ = ["BadEntry", "BadOutputPath", "NotJsonValue", "NoSessionFile",
           "OldSessionVersion", "OutputExists", "PAYLOAD_FIRST_TYPES", "SessionWriter",
           "append_line", "check_new_path", "iso_now", "new_entry_id", "new_header",
           "new_session_id", "order_like_pi", "to_json_line", "write_new_file"]


# --------------------------------------------------------------------------------------
# Errors (English, with fields; translated at the edge)
# --------------------------------------------------------------------------------------

class OutputExists(Explained, FileExistsError):
    """The new file's name is taken: nothing is ever overwritten. ``.path``"""

    message_key = "jsonl.writer.file-exists"

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} already exists; writing a new file never overwrites one")
        self.filename = path
        self.path = path


class BadOutputPath(Explained, OSError):
    """A name that cannot take a session's lines: ``reason`` is ``empty``, ``directory`` or
    ``special`` (a FIFO, device or socket, refused by ``append_line`` without blocking)."""

    def __init__(self, path: str, reason: str) -> None:
        words = {"empty": "the name of the new file is empty",
                 "directory": f"{path} names a folder, not a file: give the new file's name",
                 "special": f"{path} is not a regular file (a FIFO, device or socket); "
                            "nothing was written"}
        codes = {"empty": errno.ENOENT, "directory": errno.EISDIR, "special": errno.EINVAL}
        super().__init__(codes[reason], words[reason])
        self.filename = path
        self.path = path
        self.reason = reason

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return f"jsonl.writer.bad-output.{self.reason}"

    def message_fields(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason}

    def __str__(self) -> str:
        return self.strerror or ""


class NoSessionFile(Explained, FileNotFoundError):
    """``SessionWriter.append`` before ``create``. ``.path``"""

    message_key = "jsonl.writer.no-file"

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} does not exist yet: call create(header) first")
        self.filename = path
        self.path = path


class OldSessionVersion(Explained, ValueError):
    """Appending v3 entries to a v1/v2 file would mix two formats. ``.path``, ``.version``"""

    message_key = "jsonl.writer.old-version"

    def __init__(self, path: str, version: int | None) -> None:
        super().__init__(f"{path} is a v{version} file; write the migrated entries to a new "
                         "file before appending")
        self.path = path
        self.version = version


class BadEntry(Explained, ValueError):
    """An object that cannot become a line: ``reason`` is ``no-type``, ``bad-line`` or
    ``not-json`` (NaN or Infinity, a loop of references, nesting too deep for the
    encoder; ``detail`` says which)."""

    ENGLISH = {"no-type": "the object to append has no type",
               "bad-line": "a line to write must not contain a newline",
               "not-json": "the object cannot be written as one line of JSON: {detail}"}

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(self.ENGLISH[reason].format(detail=detail))
        self.reason = reason
        self.detail = detail

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return f"jsonl.writer.{self.reason}"


class NotJsonValue(Explained, TypeError):
    """A value JSON has no form for (a set, bytes, a datetime, an object): ``detail`` is
    Python's own sentence naming its type. Raised before the file is touched."""

    message_key = "jsonl.writer.not-json-value"

    def __init__(self, detail: str) -> None:
        super().__init__(f"the object holds a value JSON cannot write: {detail}")
        self.detail = detail


PAYLOAD_FIRST_TYPES = ("custom", "custom_message")
"""Pi builds these two entry types payload first: ``type, customType, ..., id, parentId, timestamp``."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def to_json_line(obj: Any) -> str:
    """One line of JSON the way ``JSON.stringify`` writes it: no spaces, UTF-8 kept as is.

    No newline is added, and none can appear inside: JSON escapes newlines in strings.
    NaN and Infinity are refused (they are not JSON). A lone surrogate (a string built
    from ``"\\ud800"``) cannot be written as UTF-8, so it is written as its ``\\uXXXX``
    escape, which reads back as the same string. One difference remains: Python writes the
    float ``1.0`` as ``1.0`` where JavaScript writes ``1``. What cannot be JSON raises
    ``BadEntry`` (``not-json``: NaN, a loop, nesting too deep; a ``ValueError``) or
    ``NotJsonValue`` (a set, bytes, ...; a ``TypeError``).
    """
    try:
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (ValueError, RecursionError) as error:   # RecursionError: nesting too deep
        raise BadEntry("not-json", str(error)) from None
    except TypeError as error:
        raise NotJsonValue(str(error)) from None
    if not line.isascii() and _LONE_SURROGATE.search(line):
        line = _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", line)
    return line


def append_line(path: str | os.PathLike, obj: dict) -> None:
    """Append ``obj`` as one JSON line to the end of ``path`` (created if missing).

    If the file does not end with ``"\\n"`` (a torn last line, or a file written without
    a final newline), a ``"\\n"`` goes first, so the new entry lands on a line of its own
    instead of being glued to the damaged one. Only the last byte is looked at, by
    seeking, so this costs the same for any file size. Nothing already written is changed.
    ``obj`` must be a dict (``WrongArgument`` otherwise: a str of JSON would be written as
    one JSON string, not as the entry it holds).
    """
    if not isinstance(obj, dict):
        raise WrongArgument("obj", obj)
    checked_path(path)
    data = (to_json_line(obj) + "\n").encode("utf-8")   # fails before the file is touched
    with _open_for_append(path) as handle, _one_writer_at_a_time(handle):
        size = handle.seek(0, os.SEEK_END)
        if size > 0:
            handle.seek(size - 1)
            if handle.read(1) != b"\n":
                data = b"\n" + data
        _write_all(handle.fileno(), data)  # append mode: always lands at the end


def _open_for_append(path: str | os.PathLike) -> Any:
    """The file opened to append (created if missing), refused if it is not a regular file.

    Opened without blocking and checked on the open descriptor: appending to a FIFO would
    wait forever for a reader, and a device is not a session.
    """
    descriptor = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT
                         | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise BadOutputPath(os.fspath(path), "special")
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return open(descriptor, "r+b", buffering=0)


@contextmanager
def _one_writer_at_a_time(handle: Any) -> Iterator[None]:
    """Hold an advisory lock on the file while looking at its last byte and appending.

    Without it, a second writer can look while the first one's line is half-way onto the
    disk, see a last byte that is not ``"\\n"``, and add a needless blank line. Writers
    that do not lock (Pi itself) are not stopped; it only keeps ours from tripping over
    each other. Where ``fcntl`` does not exist (Windows) it does nothing.
    """
    if fcntl is None:
        yield
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write_all(descriptor: int, data: bytes) -> None:
    """One ``write`` call for the whole line in the normal case (the kernel may write less)."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view):]


def order_like_pi(entry: dict[str, Any]) -> dict[str, Any]:
    """The same entry with its keys in the order Pi writes them (section 3.1).

    ``type, id, parentId, timestamp, payload...``; for ``custom`` and ``custom_message``
    the payload comes first: ``type, payload..., id, parentId, timestamp``.
    """
    base = {key: entry[key] for key in ("id", "parentId", "timestamp") if key in entry}
    payload = {key: value for key, value in entry.items()
               if key not in base and key != "type"}
    first, second = (payload, base) if entry.get("type") in PAYLOAD_FIRST_TYPES else (base, payload)
    return {"type": entry.get("type"), **first, **second}


def new_header(cwd: str, *, session_id: str | None = None, parent_session: str | None = None,
               clock: Clock | None = None, rng: random.Random | None = None) -> dict[str, Any]:
    """A v3 header in Pi's key order: ``type, version, id, timestamp, cwd[, parentSession]``."""
    header: dict[str, Any] = {"type": "session", "version": CURRENT_VERSION,
                              "id": session_id or new_session_id(rng),
                              "timestamp": iso_now(clock), "cwd": cwd}
    if parent_session is not None:
        header["parentSession"] = parent_session
    return header


def check_new_path(path: str | os.PathLike) -> Path:
    """``path`` as a ``Path`` if a new file may be created there, else a typed error.

    ``BadOutputPath`` for an empty name or one that names a folder (an existing directory,
    or a name ending in ``/``), ``OutputExists`` for a name already taken (a dangling
    symlink counts as taken). Used by ``write_new_file``; a command line can call it
    before doing any work.
    """
    name = os.fspath(path)
    if not name:
        raise BadOutputPath(name, "empty")
    if name.endswith(("/", os.sep)) or os.path.isdir(name):
        raise BadOutputPath(name, "directory")
    if os.path.lexists(name):
        raise OutputExists(name)
    return Path(name)


def write_new_file(path: str | os.PathLike, header: dict[str, Any] | str,
                   objects_or_lines: Iterable[dict[str, Any] | str]) -> None:
    """Create ``path`` holding the header and then one line per item, whole or not at all.

    A dict is serialized with ``to_json_line``; a str is written verbatim, which is how an
    entry read from another file (``LoadedLine.text``) is copied byte for byte. Every line
    is made before the disk is touched; then ``_publish`` writes a temporary file in the
    same folder, ``fsync``s it and links it into place. ``OutputExists`` if the name is
    taken (nothing is ever overwritten), ``BadOutputPath`` for an empty name or a folder;
    on any failure no file is left behind.
    """
    target = check_new_path(path)
    data = "".join(_as_line(item) + "\n" for item in (header, *objects_or_lines))
    _publish(target, data.encode("utf-8"))


def write_new_text(path: str | os.PathLike, text: str) -> None:
    """Create ``path`` holding ``text`` (UTF-8), whole or not at all, never overwriting: the
    same promise as ``write_new_file``, for a file that is not a session (an exported page)."""
    _publish(check_new_path(path), text.encode("utf-8"))


def _publish(target: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file next to ``target``, then link it to ``target``.

    ``os.link`` refuses an existing name, so two writers racing for the same name cannot
    overwrite each other: one wins, the other gets ``OutputExists``. The temporary name is
    removed in every case. (On a file system without hard links, the file is created with
    exclusive mode instead and removed again if writing fails.)
    """
    folder = target.parent
    temporary = folder / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                             | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as error:      # no such folder, no permission: name the file asked for
        error.filename = os.fspath(target)
        raise
    try:
        try:
            _write_all(descriptor, data)
            os.fsync(descriptor)
        except OSError as error:  # a full disk: say which file could not be written
            error.filename = error.filename or os.fspath(target)
            raise
        finally:
            os.close(descriptor)
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise OutputExists(os.fspath(target)) from None
        except OSError as error:
            if error.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV):
                raise
            _write_exclusively(target, data)
        _sync_folder(folder)
    finally:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass


def _write_exclusively(target: Path, data: bytes) -> None:
    """The fallback without hard links: exclusive create, removed again on failure."""
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        raise OutputExists(os.fspath(target)) from None
    try:
        _write_all(descriptor, data)
        os.fsync(descriptor)
    except BaseException:
        os.close(descriptor)
        os.unlink(target)
        raise
    os.close(descriptor)


def _sync_folder(folder: Path) -> None:
    """Make the new name itself durable (best effort: not every system can open a folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _as_line(item: dict[str, Any] | str) -> str:
    if isinstance(item, str):
        if "\n" in item:
            raise BadEntry("bad-line")
        return _LONE_SURROGATE.sub("\ufffd", item) if not item.isascii() else item
    return to_json_line(item)


class SessionWriter:
    """Append entries to one session file the way Pi does, plus the fresh-line guard.

    ``append`` fills in what Pi fills in when it is missing: a new 8-hex ``id`` unique in
    this file, ``parentId`` = the current leaf, and ``timestamp`` = now. The new entry then
    becomes the leaf. To branch, set ``leaf_id`` to an earlier entry before appending:
    that is all a branch is (rewind, then append).

    On an existing file the writer first reads it (teaching mode) to learn the ids already
    used and the leaf (the last entry in the file, Pi's rule). It refuses a v1/v2 file:
    appending v3 entries to an old file would mix two formats, and this course never
    rewrites a file to migrate it.
    """

    def __init__(self, path: str | os.PathLike, *, clock: Clock | None = None,
                 rng: random.Random | None = None) -> None:
        self.path = Path(checked_path(path))
        self.clock = clock
        self.rng = rng
        self.ids: set[str] = set()
        self.leaf_id: str | None = None
        if self.path.exists():
            existing = read_session(self.path)
            if existing.migrated:
                raise OldSessionVersion(str(self.path), existing.source_version)
            self.ids = {loaded.obj["id"] for loaded in existing.entries}
            self.leaf_id = existing.entries[-1].obj["id"] if existing.entries else None

    def create(self, header: dict[str, Any]) -> None:
        """Write the header line to a new file. ``FileExistsError`` if the file exists."""
        write_new_file(self.path, header, [])
        self.ids = set()
        self.leaf_id = None

    def append(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Append one entry (``type`` required) as a child of the leaf; return what was written.

        An ``id`` given must be a new, non-empty str (``NonStringId``, ``EmptyEntryId``,
        ``DuplicateEntryId``): no ``parentId`` could name anything else.
        """
        if not isinstance(obj, dict):
            raise WrongArgument("obj", obj)
        if not self.path.exists():
            raise NoSessionFile(str(self.path))
        if "type" not in obj:
            raise BadEntry("no-type")
        entry = dict(obj)
        if "id" not in entry:
            entry["id"] = new_entry_id(self.ids, self.rng)
        if not isinstance(entry["id"], str):
            raise NonStringId(len(self.ids), type(entry["id"]).__name__)
        if entry["id"] == "":
            raise EmptyEntryId(len(self.ids))
        if entry["id"] in self.ids:
            raise DuplicateEntryId(entry["id"])
        entry.setdefault("parentId", self.leaf_id)
        if "timestamp" not in entry:
            entry["timestamp"] = iso_now(self.clock)
        entry = order_like_pi(entry)
        append_line(self.path, entry)
        self.ids.add(entry["id"])
        self.leaf_id = entry["id"]
        return entry
