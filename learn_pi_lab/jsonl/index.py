"""An index of a session file, for the command line (a learner can skip this module).

The teaching API reads a session into a list of dicts, one per entry, because that is what
the chapters and exercises hand around (``read_session``, ``load_session``). A tool that
answers one question about a large file does not need them all at once. ``SessionIndex``
reads the file once and keeps, for each entry, only what the tree needs: its id, its
parent (as a position), its type, its message's role, and **where its line is** in the file
(start, size and a checksum). The entries a command shows are decoded again from their
lines, one at a time, when it shows them; nothing else is ever held.

It is an index of a **plain** file only: a current (v3) header and entries the teaching
reader would read without a single diagnostic or a problem. Anything else (damage, a
repeated id, a parent written after its child, an old version to migrate, a reference to a
missing entry, a compressed file) raises ``NotPlain`` after the pass, and the command reads
the file with the whole reader instead: the answers are the same either way, which
``tests/test_session_index.py`` checks on every file of ``data/`` and on generated ones,
byte for byte, in both modes and both Pi versions.

Memory: one id string, one slot of each array, one dict entry per entry (about 150 bytes),
against about 2 KB for the decoded dicts of an assistant message. Time: one decode of every
line (msgspec's when it is installed, see ``fast_decoder``), then one more for each entry
shown.
"""

from __future__ import annotations

import json
import mmap
import os
import zlib
from array import array
from typing import Any, Iterator, Sequence

from learn_pi_lab.collector import collector_paused
from learn_pi_lab.jsonl.fast_decoder import REFUSED, fast_decode_for
from learn_pi_lab.jsonl.migration import CURRENT_VERSION, header_version
from learn_pi_lab.jsonl.reader import Limits, iter_lines_in_place
from learn_pi_lab.jsonl.records import KNOWN_ENTRY_TYPES

ROLES = ("", "user", "assistant", "toolResult", "system", "custom", "bashExecution")
ROLE_CODE = {role: code for code, role in enumerate(ROLES)}
OTHER_ROLE = len(ROLES)   # a role the course has no name for
_ONE_TYPE = {kind: kind for kind in KNOWN_ENTRY_TYPES}


class NotPlain(Exception):
    """The file holds something only the whole reader decides (``reason``, for tests)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SessionIndex:
    """What the tree needs of each entry of a plain session file, and where its line is.

    ``ids[i]``, ``parents[i]`` (the parent's position, -1 for a root), ``kinds[i]`` (the
    entry's type), ``roles[i]`` (a message's role as a ``ROLE_CODE``, 0 for other entries),
    ``position`` (id -> i); ``entry(i)`` decodes entry ``i`` again from its line."""

    def __init__(self, path: str | os.PathLike, *, mode: str = "teaching",
                 decoder: str | None = None, limits: Limits | None = None) -> None:
        self.path = os.fspath(path)
        self.ids: list[str] = []
        self.parents = array("l")
        self.kinds: list[str] = []
        self.roles = bytearray()
        self.starts, self.sizes, self.checksums = array("q"), array("L"), array("L")
        self.position: dict[str, int] = {}
        self.header: dict[str, Any] = {}
        self._decode = fast_decode_for(decoder)
        self._file: Any = None
        self._map: Any = None
        with collector_paused():
            self._read(mode, decoder, limits)

    # -- the one pass ------------------------------------------------------------------

    def _read(self, mode: str, decoder: str | None, limits: Limits | None) -> None:
        if self.path.endswith(".xz"):
            raise NotPlain("compressed")
        diagnostics: list[Any] = []
        lines = iter_lines_in_place(self.path, mode=mode, diagnostics=diagnostics,
                                    limits=limits, decoder=decoder)
        header = next(lines, None)
        if header is None or header_version(header.obj) != CURRENT_VERSION:
            raise NotPlain("not a current header")
        self.header = header.obj
        ids, parents, kinds, roles, position = (self.ids, self.parents, self.kinds,
                                                self.roles, self.position)
        starts, sizes, checksums = self.starts, self.sizes, self.checksums
        pointing: list[tuple[str, int, Any]] = []   # (type, position, the id it points at)
        for loaded in lines:
            obj = loaded.obj
            entry_id, parent, kind = obj.get("id"), obj.get("parentId"), obj.get("type")
            place = loaded.place
            if type(entry_id) is not str or not entry_id or entry_id in position \
                    or place is None:
                raise NotPlain("id")
            kind = _ONE_TYPE.get(kind) if type(kind) is str else None
            if kind is None:
                raise NotPlain("type")
            if parent is None:
                parents.append(-1)
            elif type(parent) is str and parent in position:
                parents.append(position[parent])
            else:
                raise NotPlain("parent")
            role = 0
            if kind == "message":
                message = obj.get("message")
                if type(message) is not dict:
                    raise NotPlain("message")
                named = message.get("role")
                role = ROLE_CODE.get(named, OTHER_ROLE) if type(named) is str else OTHER_ROLE
            elif kind == "context_edit" and "replacement" not in obj:
                raise NotPlain("edit")
            elif kind == "label" and "targetId" in obj:
                pointing.append((kind, len(ids), obj["targetId"]))
            elif kind == "compaction" and "firstKeptEntryId" in obj:
                target = obj["firstKeptEntryId"]
                if target != entry_id:   # (its own id: a 1.x compaction that keeps nothing)
                    pointing.append((kind, len(ids), target))
            elif kind == "branch_summary" and "fromId" in obj and obj["fromId"] != "root":
                pointing.append((kind, len(ids), obj["fromId"]))
            position[entry_id] = len(ids)
            ids.append(entry_id)
            kinds.append(kind)
            roles.append(role)
            start, size, checksum = place
            starts.append(start)
            sizes.append(size)
            checksums.append(checksum)
        if diagnostics:
            raise NotPlain("diagnostics")
        for kind, at, target in pointing:   # (the reader's ReferenceCheck, all resolved)
            where = position.get(target) if type(target) is str else None
            if where is None or (kind == "compaction" and where > at):
                raise NotPlain("reference")

    # -- what a command asks -------------------------------------------------------------

    @property
    def leaf_id(self) -> str | None:
        """The last entry's id: Pi's leaf when a session is opened."""
        return self.ids[-1] if self.ids else None

    def branch(self, leaf_id: str) -> list[int]:
        """The positions from the root down to ``leaf_id`` (``KeyError`` if it is none)."""
        at = self.position[leaf_id]
        walked = []
        parents = self.parents
        while at >= 0:
            walked.append(at)
            at = parents[at]
        walked.reverse()
        return walked

    def entry(self, at: int) -> dict[str, Any]:
        """Entry ``at`` as the reader decodes it, read again from its line (which must still
        hold the bytes it held: else ``ValueError``)."""
        if self._map is None:
            self._file = open(self.path, "rb")
            self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
        start, size = self.starts[at], self.sizes[at]
        raw = self._map[start:start + size]
        if len(raw) != size or zlib.crc32(raw) != self.checksums[at]:
            raise ValueError(f"{self.path}: line of entry {self.ids[at]} changed while read")
        if self._decode is not None:
            value = self._decode(raw)
            if value is not REFUSED:
                return value
        return json.loads(raw.decode("utf-8", "replace"))   # (as the reader reads a line)

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._file.close()
            self._map = self._file = None


class IndexedBranch(Sequence):
    """A branch of a ``SessionIndex`` as a sequence of entries, each decoded when it is
    read and let go afterwards: the context rules read a long branch through it without it
    ever being in memory at once."""

    def __init__(self, index: SessionIndex, positions: list[int]) -> None:
        self.index, self.positions = index, positions

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, slice):
            return [self.index.entry(at) for at in self.positions[item]]
        return self.index.entry(self.positions[item])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for at in self.positions:
            yield self.index.entry(at)

    def __reversed__(self) -> Iterator[dict[str, Any]]:
        for at in reversed(self.positions):
            yield self.index.entry(at)

    def kinds(self) -> list[str]:
        return [self.index.kinds[at] for at in self.positions]

    def ids(self) -> list[str]:
        return [self.index.ids[at] for at in self.positions]

    def is_system(self, item: int) -> bool:
        return self.index.roles[self.positions[item]] == ROLE_CODE["system"]
