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

New files are created with exclusive mode (``"x"``): writing a new session never
overwrites an existing one, the same guard Pi added in v0.76 (``wx``).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any, Iterable

from learn_pi_lab.i18n import t
from learn_pi_lab.jsonl.ids import Clock, iso_now, new_entry_id, new_session_id
from learn_pi_lab.jsonl.migration import CURRENT_VERSION
from learn_pi_lab.jsonl.reader import read_session
from learn_pi_lab.session_tree import DuplicateEntryId

__all__ = ["PAYLOAD_FIRST_TYPES", "SessionWriter", "append_line", "iso_now", "new_entry_id",
           "new_header", "new_session_id", "order_like_pi", "to_json_line", "write_new_file"]

PAYLOAD_FIRST_TYPES = ("custom", "custom_message")
"""Pi builds these two entry types payload first: ``type, customType, ..., id, parentId, timestamp``."""


def to_json_line(obj: Any) -> str:
    """One line of JSON the way ``JSON.stringify`` writes it: no spaces, UTF-8 kept as is.

    No newline is added, and none can appear inside: JSON escapes newlines in strings.
    NaN and Infinity are refused (they are not JSON). One difference remains: Python
    writes the float ``1.0`` as ``1.0`` where JavaScript writes ``1``.
    """
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def append_line(path: str | os.PathLike, obj: dict) -> None:
    """Append ``obj`` as one JSON line to the end of ``path`` (created if missing).

    If the file does not end with ``"\\n"`` (a torn last line, or a file written without
    a final newline), a ``"\\n"`` goes first, so the new entry lands on a line of its own
    instead of being glued to the damaged one. Only the last byte is looked at, by
    seeking, so this costs the same for any file size. Nothing already written is changed.
    """
    data = (to_json_line(obj) + "\n").encode("utf-8")   # fails before the file is touched
    with open(path, "a+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size > 0:
            handle.seek(size - 1)
            if handle.read(1) != b"\n":
                data = b"\n" + data
        handle.write(data)                 # append mode: always lands at the end


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


def write_new_file(path: str | os.PathLike, header: dict[str, Any] | str,
                   objects_or_lines: Iterable[dict[str, Any] | str]) -> None:
    """Create ``path`` holding the header and then one line per item; refuse to overwrite.

    A dict is serialized with ``to_json_line``; a str is written verbatim, which is how an
    entry read from another file (``LoadedLine.text``) is copied byte for byte. Raises
    ``FileExistsError`` if the file exists: nothing is ever overwritten.
    """
    lines = [_as_line(item) for item in (header, *objects_or_lines)]
    try:
        with open(path, "x", encoding="utf-8", newline="\n") as handle:
            handle.write("".join(line + "\n" for line in lines))
    except FileExistsError:
        raise FileExistsError(t("jsonl.writer.file-exists", path=os.fspath(path))) from None


def _as_line(item: dict[str, Any] | str) -> str:
    if isinstance(item, str):
        if "\n" in item:
            raise ValueError(t("jsonl.writer.bad-line"))
        return item
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
        self.path = Path(path)
        self.clock = clock
        self.rng = rng
        self.ids: set[str] = set()
        self.leaf_id: str | None = None
        if self.path.exists():
            existing = read_session(self.path)
            if existing.migrated:
                raise ValueError(t("jsonl.writer.old-version", path=str(self.path),
                                      version=existing.source_version))
            self.ids = {loaded.obj["id"] for loaded in existing.entries}
            self.leaf_id = existing.entries[-1].obj["id"] if existing.entries else None

    def create(self, header: dict[str, Any]) -> None:
        """Write the header line to a new file. ``FileExistsError`` if the file exists."""
        write_new_file(self.path, header, [])
        self.ids = set()
        self.leaf_id = None

    def append(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Append one entry (``type`` required) as a child of the leaf; return what was written."""
        if not self.path.exists():
            raise FileNotFoundError(t("jsonl.writer.no-file", path=str(self.path)))
        if "type" not in obj:
            raise ValueError(t("jsonl.writer.no-type"))
        entry = dict(obj)
        if "id" not in entry:
            entry["id"] = new_entry_id(self.ids, self.rng)
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
