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
``tests/test_cli_index.py`` checks on every file of ``data/`` and on generated ones,
byte for byte, in both modes and both Pi versions.

Memory: no Python object per entry, only a slot in each of a few arrays: 26 bytes an entry
(the id as an 8-byte number, ``EntryIds``; the parent's position; the line's start, size
and checksum; a byte each for the type and the role), where the decoded dicts of one
assistant message take about 2 KB. Almost every entry's parent is the entry on the line
before it, which the pass sees at once; the few other parent ids are looked up after the
pass, all with one scan. Time: one decode of every line (msgspec's when it is installed,
see ``fast_decoder``), then one more for each entry shown.
"""

from __future__ import annotations

import json
import operator
import os
import sys
import zlib
from array import array
from bisect import bisect_left
from itertools import accumulate, chain, compress, count, islice, repeat
from typing import Any, Callable, Iterator, Sequence

from learn_pi_lab.collector import collector_paused
from learn_pi_lab.jsonl.fast_decoder import REFUSED, fast_decode_for
from learn_pi_lab.jsonl.migration import CURRENT_VERSION, header_version
from learn_pi_lab.jsonl.reader import (DiagnosticLog, Limits, LinesInPlace, LoadedLine,
                                      SourceChanged, checked_path, iter_lines_in_place)
from learn_pi_lab.jsonl.records import KNOWN_ENTRY_TYPES

ROLES = ("", "user", "assistant", "toolResult", "system", "custom", "bashExecution")
ROLE_CODE = {role: code for code, role in enumerate(ROLES)}
OTHER_ROLE = len(ROLES)   # a role the course has no name for
KINDS = tuple(sorted(KNOWN_ENTRY_TYPES))
KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}
_SPECIAL = frozenset(("context_edit", "label", "compaction", "branch_summary"))
_MESSAGE = KIND_CODE["message"]


class NotPlain(Exception):
    """The file holds something only the whole reader decides (``reason``, for tests)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class EntryIds(Sequence):
    """The ids of an index's entries in file order, at 8 bytes each.

    Pi's entry ids are 8 hex digits (``jsonl.ids``). Any id of 8 ASCII characters is kept as
    its 8 bytes read as one number (``keys``, an ``array``), so a million ids take 8 MB,
    where a list of strings and a dict from id to position would take about 150 MB. Any
    other id (a UUID, a hand-written ``root``) is kept as it is, in ``others``, its key a
    number no ASCII id has. Finding an id scans the numbers (``find``: a few hundredths of a
    second for a million), and one scan finds any number of them (``find_all``)."""

    OTHER = (1 << 64) - 1   # the key of an id kept in ``others``: its bytes are not ASCII

    def __init__(self) -> None:
        self.keys = array("Q")
        self.others: dict[int, str] = {}       # position -> id, for ids not 8 ASCII characters
        self.other_at: dict[str, int] = {}     # and back
        self.repeated_other = False

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, at: Any) -> Any:
        if isinstance(at, slice):
            return [self[i] for i in range(*at.indices(len(self)))]
        key = self.keys[at]
        if key == self.OTHER:
            return self.others[at % len(self.keys)]
        return key.to_bytes(8, sys.byteorder).decode("ascii")

    def id_at(self, at: int) -> str:
        return self[at]

    def add_other(self, entry_id: str, at: int) -> bytes:
        """Keep an id that is not 8 ASCII characters; the bytes to put in ``keys``."""
        if entry_id in self.other_at:
            self.repeated_other = True
        self.others[at] = entry_id
        self.other_at[entry_id] = at
        return _OTHER_BYTES

    @staticmethod
    def _key(entry_id: str) -> int | None:
        if len(entry_id) == 8 and entry_id.isascii():
            return int.from_bytes(entry_id.encode(), sys.byteorder)
        return None

    def find(self, entry_id: Any) -> int:
        """The position of ``entry_id``, or -1 (the first, if it is there more than once)."""
        if type(entry_id) is not str:
            return -1
        key = self._key(entry_id)
        if key is None:
            return self.other_at.get(entry_id, -1)
        try:
            return self.keys.index(key)
        except ValueError:
            return -1

    def find_all(self, wanted: set[str]) -> dict[str, int]:
        """The positions of those of ``wanted`` that are ids here (one scan of the keys)."""
        found = {entry_id: self.other_at[entry_id] for entry_id in wanted
                 if entry_id in self.other_at}
        keys = {key: entry_id for entry_id in wanted if (key := self._key(entry_id)) is not None}
        if keys:
            for at in compress(count(), map(keys.__contains__, self.keys)):
                found.setdefault(keys[self.keys[at]], at)
        return found

    def repeated(self) -> bool:
        """Whether any id is there twice. The positions are sorted into buckets by a
        remainder of their key, and each bucket's keys are compared with their set (a set
        of every key at once would take more memory than the index)."""
        if self.repeated_other:
            return True
        keys = self.keys
        buckets = [array("i") for _ in range(_BUCKETS)]
        add = [bucket.append for bucket in buckets]
        for at, key in enumerate(keys):
            if key != self.OTHER:   # (the others were compared as they came)
                add[key % _BUCKETS](at)
        return any(len(set(map(keys.__getitem__, bucket))) != len(bucket)
                   for bucket in buckets)


_OTHER_BYTES = EntryIds.OTHER.to_bytes(8, sys.byteorder)
_BUCKETS = 1021


class SessionIndex:
    """What the tree needs of each entry of a plain session file, and where its line is.

    ``ids[i]`` (``EntryIds``), ``parents[i]`` (the parent's position, -1 for a root),
    ``kinds[i]`` (the entry's type as a code: ``KINDS[kinds[i]]``), ``roles[i]`` (a
    message's role as a ``ROLE_CODE``, 0 for other entries); ``roots`` and ``elsewhere``
    (the entries whose parent is not the line just before them, roots left out: in a
    straight conversation, none); ``entry(i)`` decodes entry ``i`` again from its line."""

    def __init__(self, path: str | os.PathLike, *, mode: str = "teaching",
                 decoder: str | None = None, limits: Limits | None = None,
                 each_block: Callable[[dict[str, Any], list[dict[str, Any]]], None] | None = None
                 ) -> None:
        self.path = checked_path(path)   # (a typed error for None or a number, as the reader's)
        self._each_block = each_block   # shown the header and each block's entries, as read
        self.ids = EntryIds()
        self.parents = array("i")
        self.kinds = bytearray()
        self.roles = bytearray()
        self.roots: list[int] = []
        self.elsewhere: list[int] = []
        self.starts = array("I" if _size(self.path) < 1 << 32 else "q")
        self.sizes, self.checksums = array("I"), array("I")
        self.header: dict[str, Any] = {}
        self._parent_ids: list[tuple[int, str]] = []   # (position, parent id) to resolve
        self._pointing: list[tuple[str, int, Any]] = []   # (type, position, id it points at)
        self._previous_id: Any = None
        self._decode = fast_decode_for(decoder)
        self._file: Any = None
        with collector_paused():
            self._read(mode, decoder, limits)

    # -- the one pass ------------------------------------------------------------------

    def _read(self, mode: str, decoder: str | None, limits: Limits | None) -> None:
        if self.path.endswith(".xz"):
            raise NotPlain("compressed")
        diagnostics = DiagnosticLog(1)   # (whether there is any: one example of each kept)
        blocks = iter_lines_in_place(self.path, mode=mode, diagnostics=diagnostics,
                                     limits=limits, decoder=decoder)
        first = next(blocks, [])
        if not first or header_version(first[0].obj) != CURRENT_VERSION:
            raise NotPlain("not a current header")
        self.header = first[0].obj
        for block in chain([first[1:]], blocks):
            if diagnostics:   # (at once: a file of a million bad lines is not read twice)
                raise NotPlain("diagnostics")
            if type(block) is LinesInPlace:
                objects = block.objects
                self._add(objects)
                self._add_places(block)
            else:
                objects = [loaded.obj for loaded in block]
                self._add(objects)
                self._add_loaded_places(block)
            if self._each_block is not None:
                self._each_block(self.header, objects)
        if diagnostics:
            raise NotPlain("diagnostics")
        self._resolve()

    def _add(self, objects: list[dict[str, Any]]) -> None:
        """Index the entries of a block (a learner can skip this: one loop for a whole
        block, with every name it calls looked up once, since it runs for every line of the
        file). An entry whose parent is the entry just before it (almost every entry) gets
        its parent's position at once; any other parent id waits for ``_resolve``."""
        ids, at = self.ids, len(self.ids)
        keys: list[bytes] = []
        add_key, add_other = keys.append, ids.add_other
        add_parent, add_kind, add_role = (self.parents.append, self.kinds.append,
                                          self.roles.append)
        kind_code, role_code, pointing = KIND_CODE.get, ROLE_CODE.get, self._pointing
        previous = self._previous_id
        for obj in objects:
            entry_id, parent, kind = obj.get("id"), obj.get("parentId"), obj.get("type")
            if type(entry_id) is not str or not entry_id:
                raise NotPlain("id")
            if len(entry_id) == 8 and entry_id.isascii():
                add_key(entry_id.encode())
            else:
                add_key(add_other(entry_id, at))
            code = kind_code(kind) if type(kind) is str else None
            if code is None:
                raise NotPlain("type")
            if parent == previous and at:
                add_parent(at - 1)
            elif parent is None:
                add_parent(-1)
                self.roots.append(at)
            elif type(parent) is str:
                add_parent(-1)
                self._parent_ids.append((at, parent))
            else:
                raise NotPlain("parent")
            role = 0
            if code == _MESSAGE:
                message = obj.get("message")
                if type(message) is not dict:
                    raise NotPlain("message")
                named = message.get("role")
                role = role_code(named, OTHER_ROLE) if type(named) is str else OTHER_ROLE
            elif kind in _SPECIAL:
                self._special(obj, kind, entry_id, at, pointing)
            add_kind(code)
            add_role(role)
            previous = entry_id
            at += 1
        ids.keys.frombytes(b"".join(keys))
        self._previous_id = previous

    def _add_places(self, block: LinesInPlace) -> None:
        """Where the lines of a healthy block are: each starts one byte (the newline) after
        the one before ends. Worked out in C, a whole block at a time."""
        sizes = array("I", map(len, block.lines))
        following = accumulate(map(operator.add, sizes, repeat(1)), initial=block.start)
        self.starts.extend(islice(following, len(sizes)))
        self.sizes.extend(sizes)
        self.checksums.extend(map(zlib.crc32, block.lines))

    def _add_loaded_places(self, block: list[LoadedLine]) -> None:
        for loaded in block:
            place = loaded.place
            if place is None:   # (a line read one by one keeps its text: not in place)
                raise NotPlain("place")
            start, size, checksum = place
            self.starts.append(start)
            self.sizes.append(size)
            self.checksums.append(checksum)

    def _resolve(self) -> None:
        """After the pass: no id twice, every parent id an entry before its child (the
        reader's tree checks), every pointing entry's target there (its ``ReferenceCheck``)."""
        if self.ids.repeated():
            raise NotPlain("id")
        found = self.ids.find_all({parent for _, parent in self._parent_ids} | {
            target for _, _, target in self._pointing if type(target) is str})
        for at, parent in self._parent_ids:
            where = found.get(parent, -1)
            if not 0 <= where < at:
                raise NotPlain("parent")
            self.parents[at] = where
            self.elsewhere.append(at)
        for kind, at, target in self._pointing:
            where = found.get(target) if type(target) is str else None
            if where is None or (kind == "compaction" and where > at):
                raise NotPlain("reference")
        self._parent_ids = []

    @staticmethod
    def _special(obj: dict[str, Any], kind: str, entry_id: str, at: int,
                 pointing: list[tuple[str, int, Any]]) -> None:
        """An entry that points at another (the reader's ``ReferenceCheck``), or a
        ``context_edit``, which must say what it replaces."""
        if kind == "context_edit" and "replacement" not in obj:
            raise NotPlain("edit")
        if kind == "label" and "targetId" in obj:
            pointing.append((kind, at, obj["targetId"]))
        elif kind == "compaction" and "firstKeptEntryId" in obj:
            target = obj["firstKeptEntryId"]
            if target != entry_id:   # (its own id: a 1.x compaction that keeps nothing)
                pointing.append((kind, at, target))
        elif kind == "branch_summary" and "fromId" in obj and obj["fromId"] != "root":
            pointing.append((kind, at, obj["fromId"]))

    # -- what a command asks -------------------------------------------------------------

    @property
    def leaf_id(self) -> str | None:
        """The last entry's id: Pi's leaf when a session is opened."""
        return self.ids[len(self.ids) - 1] if len(self.ids) else None

    def find(self, entry_id: Any) -> int:
        """The position of the entry ``entry_id``, or -1."""
        return self.ids.find(entry_id)

    def kind(self, at: int) -> str:
        return KINDS[self.kinds[at]]

    def branch(self, leaf_id: str) -> list[int]:
        """The positions from the root down to ``leaf_id`` (``KeyError`` if it is none)."""
        at = self.find(leaf_id)
        if at < 0:
            raise KeyError(leaf_id)
        walked = []
        parents = self.parents
        while at >= 0:
            walked.append(at)
            at = parents[at]
        walked.reverse()
        return walked

    @staticmethod
    def line_of(at: int) -> int:
        """The line number of entry ``at``: a plain file has the header on line 1 and one
        entry on each line after it (a blank line would have been a diagnostic)."""
        return at + 2

    def entry(self, at: int) -> dict[str, Any]:
        """Entry ``at`` as the reader decodes it, read again from its line (which must still
        hold the bytes it held: else ``SourceChanged``, as the reader says it)."""
        return self.entries([at])[0]

    def entries(self, positions: Sequence[int]) -> list[dict[str, Any]]:
        """Entries at ``positions``, read again from their lines. Lines that follow each other
        in the file are read with one call and decoded with one call (as a JSON array: a
        healthy line is one JSON value and holds no newline), the rest one by one."""
        if self._file is None:   # (read, not mapped: a mapped file's pages count as ours)
            self._file = open(self.path, "rb")
        found: list[dict[str, Any]] = []
        taken = 0
        while taken < len(positions):
            first = operator.index(positions[taken])
            if first < 0:   # (counted from the end, as a list's index is)
                first += len(self.starts)
            if not 0 <= first < len(self.starts):
                raise IndexError(positions[taken])
            size = self._run_from(positions, taken, first)
            found.extend(self._run(first, size))
            taken += size
        return found

    def _run_from(self, positions: Sequence[int], taken: int, first: int) -> int:
        """How many of ``positions`` from ``taken`` on (the first of them: entry ``first``)
        are the lines right after each other, up to about ``RUN_BYTES`` of them. A branch
        read in order is one such run after another, found with a few calls in C; any other
        order, one position at a time."""
        if taken + 1 == len(positions) or positions[taken + 1] != first + 1:
            return 1   # (a position on its own: the usual case out of order)
        fits = bisect_left(self.starts, self.starts[first] + RUN_BYTES, first + 1) - first
        size = min(fits, len(positions) - taken)
        last = taken + size - 1
        if size > 1 and positions[last] == first + size - 1 \
                and list(positions[taken:last + 1]) == list(range(first, first + size)):
            return size
        size = 1
        while taken + size < len(positions) and positions[taken + size] == first + size:
            size += 1
        return size

    def _run(self, first: int, size: int) -> list[dict[str, Any]]:
        """The entries on the ``size`` lines from entry ``first`` on, read with one call."""
        start = self.starts[first]
        end = self.starts[first + size - 1] + self.sizes[first + size - 1]
        lines = os.pread(self._file.fileno(), end - start, start).split(b"\n")
        if (array("I", map(len, lines)) != self.sizes[first:first + size]
                or array("I", map(zlib.crc32, lines)) != self.checksums[first:first + size]):
            self._changed(first, lines)   # rewritten or cut short since the pass
        if size > 1:
            values = (self._decode or _json_array)(b"[" + b",".join(lines) + b"]")
            if type(values) is list and len(values) == size:
                return values
        return [self._one(line) for line in lines]

    def _changed(self, first: int, lines: list[bytes]) -> None:
        """Raise ``SourceChanged`` for the first of ``lines`` that no longer holds what the
        pass read there (the line after the last one, when the file was cut short)."""
        for at, line in enumerate(lines, first):
            if len(line) != self.sizes[at] or zlib.crc32(line) != self.checksums[at]:
                raise SourceChanged(self.path, self.line_of(at))
        raise SourceChanged(self.path, self.line_of(first + len(lines)))

    def _one(self, line: bytes) -> dict[str, Any]:
        if self._decode is not None:
            value = self._decode(line)
            if value is not REFUSED:
                return value
        return json.loads(line.decode("utf-8", "replace"))   # (as the reader reads a line)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0   # (the reader says what is wrong with the path)


def _json_array(data: bytes) -> Any:
    """The standard library's reading of consecutive lines as one JSON array: the values
    ``_one`` gives line by line, with one call instead of one per line (``REFUSED`` when any
    line needs ``_one``'s own care: bytes that are not UTF-8, a line nested to the limit)."""
    try:
        return json.loads(data.decode("utf-8"))   # (strict: json.loads(bytes) would pass
    except (ValueError, RecursionError):          # surrogates through)
        return REFUSED


class IndexedBranch(Sequence):
    """A branch of a ``SessionIndex`` as a sequence of entries, decoded when they are read
    and let go afterwards: the context rules read a long branch through it without it ever
    being in memory at once. Reading in order (the usual way) reads ahead ``AHEAD`` entries
    at a time (``SessionIndex.entries``)."""

    def __init__(self, index: SessionIndex, positions: list[int]) -> None:
        self.index, self.positions = index, positions
        self._ahead: list[dict[str, Any]] = []   # the entries read ahead, from _first on
        self._first = 0

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, item: Any) -> Any:
        if type(item) is not int:
            if isinstance(item, slice):
                return self.index.entries(self.positions[item])
            item = operator.index(item)
        if item < 0:
            item += len(self.positions)
        offset = item - self._first
        if 0 <= offset < len(self._ahead):
            return self._ahead[offset]
        if not 0 <= item < len(self.positions):
            raise IndexError(item)
        self._ahead = self.index.entries(self.positions[item:item + AHEAD])
        self._first = item
        return self._ahead[0]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for start in range(0, len(self.positions), AHEAD):
            yield from self.index.entries(self.positions[start:start + AHEAD])

    def __reversed__(self) -> Iterator[dict[str, Any]]:
        for at in reversed(self.positions):
            yield self.index.entry(at)

    def kinds(self) -> list[str]:
        kinds = self.index.kinds
        return [KINDS[kinds[at]] for at in self.positions]

    def ids(self) -> list[str]:
        return [self.index.ids[at] for at in self.positions]

    def id_at(self, item: int) -> str:
        """The id of entry ``item`` of the branch, from the index (nothing decoded)."""
        return self.index.ids[self.positions[item]]

    def is_system(self, item: int) -> bool:
        return self.index.roles[self.positions[item]] == ROLE_CODE["system"]


AHEAD = 512               # entries read ahead when a branch is read in order
RUN_BYTES = 1 << 20       # bytes of consecutive lines read and decoded with one call
