"""A read-only report on any session file, read as a stream (chapter 07).

Chapter 07's exercise, written as a learner would (load, then count), is
``learn_pi_lab/lessons/ch07_inspector.py``; this module is its streaming engine.

Point it at a Pi session (v1, v2 or v3, plain or ``.jsonl.xz``, healthy or damaged) and it
tells you what is inside: how many entries of each type, which roles spoke, the labels and
the name, the roots and leaves of the tree, how deep the deepest branch goes, which models
answered, and every problem with its line number.

Two promises, because people point it at their real ``~/.pi/agent/sessions/``:

* **Read-only.** The file is opened for reading and nothing else; content is parsed as
  JSON and never executed. The file's bytes and modification time stay as they were.
* **Flat memory.** A session can be hundreds of megabytes. The report is built in one pass
  over ``iter_entries_streaming`` (one line in memory at a time), and an entry is forgotten
  as soon as it has been counted. What is kept per entry is only what the tree needs
  later, in compact arrays:

  ======================  =====================================================
  ``ids``                 id <-> position (``_IdTable``): Pi's 8-hex ids as 4-byte
                          numbers in an open-addressing table, about 12 bytes each;
                          any other id in a dict (about 150 bytes)
  ``parent``              position of the parent (-1 for a root), ``array('i')``
  ``depth``               number of ancestors, -1 while unknown, ``array('i')``
  ``lines``               physical line numbers (``_LineBook``): stored only where
                          a line was skipped, so a healthy file costs nothing here
  ``fingerprint``         32-bit hash of the entry's canonical JSON, ``array('I')``,
                          to tell an identical re-append from a conflicting one
  ======================  =====================================================

  That is about 24 bytes per entry whatever the entry's size: a 1,000,000-entry chain
  costs about 25 MB on top of Python itself. Problems are counted, and only the first
  ``Limits.max_examples`` of each kind are kept, so a million bad lines cost nothing
  either. An entry whose parent is written after it (none in a healthy file) costs a
  little more, for a moment, while its depth is settled after the last line.

A plain file (a current header, nothing to diagnose: most files) is read the faster way
the command line reads it, through its index (``jsonl.index``, ``_plain_report``): every id
there is new and every parent comes before its child, so no entry needs its id looked up as
it comes, nor a fingerprint. The report is the same either way (tested); any other file, or
one the index gives up on, is read by the census below.

The report agrees with a teaching-mode ``load_session`` of the same file (the tests check
this on every file in ``data/``): the same entries after de-duplication, the same
diagnostics, and the same tree, where an entry with a missing parent, a self-parent or the
cut point of a cycle counts as a root. A v1 file is migrated on the fly with the same
repeatable ids the reader gives it.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Callable

from learn_pi_lab.entry_text import content_text
from learn_pi_lab.jsonl.fast_decoder import canonical_encoder_for
from learn_pi_lab.jsonl.ids import new_entry_id
from learn_pi_lab.jsonl.migration import CURRENT_VERSION, header_version
from learn_pi_lab.errors import Explained
from learn_pi_lab.jsonl.reader import (POINTING_TYPES, UNREADABLE, Diagnostic, DiagnosticLog,
                                      Limits, LoadedLine, ReferenceCheck, canonical_json,
                                      diagnostic, iter_entries_streaming, parse_one_value,
                                      safe_json_lines)
from learn_pi_lab.jsonl.records import KNOWN_ENTRY_TYPES, entry_id_of
from learn_pi_lab.pi.context import BASELINE_PI_VERSION, CURRENT_PI_VERSION, check_pi_version
from learn_pi_lab.pi.session import label_change, session_name
from learn_pi_lab.session_tree import find_cycles, loop_text

NO_PARENT = -1
UNKNOWN_DEPTH = -1
USAGE_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
FIRST_MESSAGE_LIMIT = 200
_NUMBER = (int, float)   # a JSON number's type (``type(x) in _NUMBER``: bools are left out)


def _canonical_fingerprint(obj: dict[str, Any],
                           canonical: Callable[[Any], str | bytes] = canonical_json) -> int:
    """A number that is equal for two entries when they are equal as JSON.

    The reader calls a repeated id a harmless ``duplicate-entry`` when the two objects are
    the same JSON, and a ``conflicting-duplicate`` otherwise. Keeping a 32-bit hash instead
    of the first object keeps memory flat; two different copies of one id are taken for
    identical with probability 1 in 4 billion. ``canonical`` gives the text hashed
    (``fast_decoder.canonical_encoder_for``: the reader's decoder's).
    """
    return hash(canonical(obj)) & 0xFFFFFFFF


_PI_ID = re.compile(r"[0-9a-f]{8}")


class _IdTable:
    """id -> position and back, for millions of entries at about 12 bytes each.

    Pi's entry ids are 8 lowercase hex digits: a 32-bit number. Those are kept as numbers
    (``keys``, 4 bytes per entry) in an open-addressing hash table of positions
    (``slots``, kept at most 60 % full, 4 bytes per slot). Any other id (a UUID, a hand-
    written one) goes into a plain dict. A dict would cost about 150 bytes per entry.
    """

    EMPTY = -1

    def __init__(self) -> None:
        self.keys = array("I")
        self.slots = array("i", [self.EMPTY]) * 1024
        self.compact = 0
        self.other_position: dict[str, int] = {}
        self.other_id: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def _find(self, key: int) -> int:
        """The slot holding ``key``'s position, or the empty slot where it would go."""
        mask = len(self.slots) - 1
        slot = (key ^ (key >> 15)) & mask
        slots, keys = self.slots, self.keys
        while True:
            position = slots[slot]
            if position == self.EMPTY or keys[position] == key:
                return slot
            slot = (slot + 1) & mask

    def get(self, entry_id: Any) -> int:
        """The position of ``entry_id``, or -1."""
        if isinstance(entry_id, str) and len(entry_id) == 8 and _PI_ID.fullmatch(entry_id):
            return self.slots[self._find(int(entry_id, 16))]
        return self.other_position.get(entry_id, -1) if isinstance(entry_id, str) else -1

    def __contains__(self, entry_id: object) -> bool:
        return self.get(entry_id) != -1

    def __getitem__(self, entry_id: str) -> int:
        position = self.get(entry_id)
        if position == -1:
            raise KeyError(entry_id)
        return position

    def place(self, entry_id: str) -> tuple[int, bool]:
        """``(position, True)`` when ``entry_id`` is new (it gets the next position), or
        ``(position of its first copy, False)``: one look-up for both questions."""
        position = len(self.keys)
        if len(entry_id) == 8 and _PI_ID.fullmatch(entry_id):
            key = int(entry_id, 16)
            slot = self._find(key)
            first = self.slots[slot]
            if first != self.EMPTY:
                return first, False
            self.keys.append(key)
            self.slots[slot] = position
            self.compact += 1
            if self.compact * 5 > len(self.slots) * 3:
                self._grow()
            return position, True
        first = self.other_position.get(entry_id, -1)
        if first != -1:
            return first, False
        self.keys.append(0)
        self.other_position[entry_id] = position
        self.other_id[position] = entry_id
        return position, True

    def _grow(self) -> None:
        self.slots = array("i", [self.EMPTY]) * (2 * len(self.slots))
        for position, key in enumerate(self.keys):
            if position not in self.other_id:
                self.slots[self._find(key)] = position

    def id_at(self, position: int) -> str:
        other = self.other_id.get(position)
        return other if other is not None else f"{self.keys[position]:08x}"


class _LineBook:
    """The physical line of each position, stored only where the pattern breaks.

    In a healthy file entry ``n`` sits on line ``n + 2`` (the header is line 1). Only the
    positions where ``line - position`` changes (after a skipped, blank or duplicate line)
    are written down, so the book costs nothing for a clean file and at most one pair per
    entry for the worst one.
    """

    def __init__(self) -> None:
        self.starts = array("i")     # first position of each stretch
        self.offsets = array("i")    # line - position within that stretch
        self.count = 0

    def append(self, line: int) -> None:
        offset = line - self.count
        if not self.offsets or self.offsets[-1] != offset:
            self.starts.append(self.count)
            self.offsets.append(offset)
        self.count += 1

    def __getitem__(self, position: int) -> int:
        return position + self.offsets[bisect_right(self.starts, position) - 1]


class _Census:
    """Everything the report needs, gathered entry by entry. One instance per file."""

    def __init__(self, header: dict[str, Any], header_line: int,
                 file_diagnostics: DiagnosticLog,
                 canonical: Callable[[Any], str | bytes] = canonical_json) -> None:
        self.header = header
        self.canonical = canonical   # the text a fingerprint hashes (_canonical_fingerprint)
        self.version = header_version(header)
        self.file_diagnostics = file_diagnostics   # shared with the reader; capped per code
        self.references = ReferenceCheck()
        # (entry position, found): the first ``max_examples`` of each code, like the
        # reader's; ``tree_counts`` counts them all (a million dangling parents: 100 kept)
        self.tree_diagnostics: list[tuple[int, Diagnostic]] = []
        self.tree_counts: dict[str, int] = {}
        # v1 files have no ids: give each entry the id the reader's migration gives it,
        # from a generator seeded with the session id, so both agree on every read.
        self.needs_ids = self.version is not None and self.version < 2
        self.rename_hook_messages = self.version is not None and self.version < CURRENT_VERSION
        if self.rename_hook_messages:
            self.file_diagnostics.append(diagnostic(
                header_line, "migrated", detail=f"v{self.version} -> v{CURRENT_VERSION}"))
        self.id_rng = random.Random(header["id"])
        self.previous_id: str | None = None

        # Per entry, compact (see the module docstring).
        self.ids = _IdTable()
        self.parent = array("i")
        self.depth = array("i")
        self.line = _LineBook()
        self.fingerprint = array("I")
        self.waiting_for_parent: dict[str, list[int]] = {}  # parent id not seen yet
        self.placed_last: str | None = None   # the id of the entry placed last

        # Counts and small facts.
        self.by_type: dict[str, int] = {}
        self.by_role: dict[str, int] = {}
        self.labels: dict[str, str] = {}
        self.latest_session_info: dict[str, Any] | None = None
        self.models: set[str] = set()
        self.usage: dict[str, float] = {name: 0 for name in USAGE_FIELDS}
        self.cost = 0.0
        self.pi_version = BASELINE_PI_VERSION   # whose rules count (inspect_session sets it)
        self.reads_1x = False
        self.first_user_message: str | None = None

    # -- one entry at a time -------------------------------------------------------------

    def add(self, loaded: LoadedLine) -> None:
        obj = loaded.obj
        kind = obj.get("type")
        if kind == "session":
            self.file_diagnostics.append(diagnostic(loaded.line, "extra-header"))
            return
        if self.needs_ids:
            entry_id: Any = new_entry_id(self.ids, self.id_rng)
            parent_id: Any = self.previous_id
            self.previous_id = entry_id
        else:
            entry_id, parent_id = entry_id_of(obj), obj.get("parentId")
        if entry_id is None:
            self.file_diagnostics.append(diagnostic(loaded.line, "missing-id"))
            return
        fingerprint = _canonical_fingerprint(obj, self.canonical)
        position, new = self.ids.place(entry_id)
        if not new:
            same = self.fingerprint[position] == fingerprint
            self.file_diagnostics.append(diagnostic(
                loaded.line, "duplicate-entry" if same else "conflicting-duplicate", entry_id,
                first_line=self.line[position]))
            return  # teaching mode keeps the first copy
        if not isinstance(kind, str) or kind not in KNOWN_ENTRY_TYPES:
            self.file_diagnostics.append(diagnostic(
                loaded.line, "unknown-type", entry_id,
                detail=kind if isinstance(kind, str) else json.dumps(kind, ensure_ascii=False)[:80]))
        self._place_in_tree(position, entry_id, parent_id, loaded.line, fingerprint)
        if type(kind) is str and kind in POINTING_TYPES:
            self.references.see(obj, loaded.line, self.ids)
        self._count(obj, kind)

    def _place_in_tree(self, position: int, entry_id: str, parent_id: Any, line: int,
                       fingerprint: int) -> None:
        """Entry ``position`` (just given its id) in the tree. Its parent is almost always
        the entry placed just before it, which needs no look-up."""
        self.line.append(line)
        self.fingerprint.append(fingerprint)
        parent, depth = NO_PARENT, 0
        if parent_id is None:
            pass
        elif parent_id == self.placed_last:   # (a new entry: it is not its own parent)
            parent = position - 1
            known = self.depth[parent]
            depth = known + 1 if known != UNKNOWN_DEPTH else UNKNOWN_DEPTH
        elif isinstance(parent_id, str) and parent_id == entry_id:
            self._tree_problem(position, diagnostic(line, "self-parent", entry_id))
        elif not isinstance(parent_id, str):
            self._dangling(position, parent_id)
        elif (found := self.ids.get(parent_id)) != -1:
            parent = found
            known = self.depth[parent]
            depth = known + 1 if known != UNKNOWN_DEPTH else UNKNOWN_DEPTH
        else:  # not seen yet: a later line may still bring it (or it is missing)
            self.waiting_for_parent.setdefault(parent_id, []).append(position)
            depth = UNKNOWN_DEPTH
        self.parent.append(parent)
        self.depth.append(depth)
        self.placed_last = entry_id
        if self.waiting_for_parent:
            for child in self.waiting_for_parent.pop(entry_id, ()):
                self.parent[child] = position  # its depth is worked out in finish()

    def _dangling(self, position: int, parent_id: Any) -> None:
        entry_id = self.ids.id_at(position)
        self._tree_problem(position, diagnostic(self.line[position], "dangling-parent",
                                                entry_id, repr(parent_id)))

    def _tree_problem(self, position: int, found: Diagnostic) -> None:
        seen = self.tree_counts.get(found.code, 0) + 1
        self.tree_counts[found.code] = seen
        if seen <= self.file_diagnostics.max_examples:
            self.tree_diagnostics.append((position, found))

    def _count(self, obj: dict[str, Any], kind: Any) -> None:
        type_key = kind if isinstance(kind, str) else json.dumps(kind, ensure_ascii=False)
        self.by_type[type_key] = self.by_type.get(type_key, 0) + 1
        self.take(obj, kind)

    def take(self, obj: dict[str, Any], kind: Any) -> None:
        """What an entry adds to the report besides its type's count: its role, model,
        usage, label, name or first words."""
        if kind == "message":
            message = obj.get("message")
            if type(message) is dict:   # (decoded JSON: a dict is exactly a dict)
                self._count_message(message)
            return
        if kind == "model_change":
            self._add_model(obj.get("provider"), obj.get("modelId"))
        elif (change := label_change(obj)) is not None:   # the one label rule (pi.session)
            target, sets = change
            if sets:
                self.labels[target] = obj["label"]
            else:
                self.labels.pop(target, None)
        elif kind == "session_info":
            self.latest_session_info = {"type": kind, "name": obj.get("name")}
        if kind in ("compaction", "branch_summary") or (kind == "usage" and self.reads_1x):
            self._add_usage(obj.get("usage"))   # Pi 1.x: a usage entry counts, 0.84.2 ignores it

    def _count_message(self, message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "hookMessage" and self.rename_hook_messages:
            role = "custom"  # the v2 -> v3 rename
        role_key = role if type(role) is str else json.dumps(role, ensure_ascii=False)
        by_role = self.by_role
        by_role[role_key] = by_role.get(role_key, 0) + 1
        if role == "assistant":
            self._add_model(message.get("provider"), message.get("model"))
        elif role == "user" and self.first_user_message is None:
            self.first_user_message = content_text(message.get("content"))[:FIRST_MESSAGE_LIMIT]
        usage = message.get("usage")
        if usage is not None:
            self._add_usage(usage)

    def _add_model(self, provider: Any, model_id: Any) -> None:
        if type(provider) is str and type(model_id) is str:
            self.models.add(f"{provider}/{model_id}")

    def _add_usage(self, usage: Any) -> None:
        """Add up token counts and cost; old files have partial usage, so take what is there."""
        if type(usage) is not dict:
            return
        sums = self.usage
        for name in USAGE_FIELDS:
            value = usage.get(name)
            if type(value) in _NUMBER:   # (a bool is not a count; JSON gives no subclasses)
                sums[name] += value
        cost = usage.get("cost")
        total = cost.get("total") if type(cost) is dict else None
        if type(total) in _NUMBER:
            self.cost += total

    # -- after the last line ------------------------------------------------------------

    def finish(self) -> None:
        """Name the missing parents, cut cycles, and fill in every depth still unknown."""
        # A parent id still waited for was never written: each child is detached (a root).
        missing = sorted((child, parent_id) for parent_id, children
                         in self.waiting_for_parent.items() for child in children)
        for child, parent_id in missing:
            self.depth[child] = 0
            self._dangling(child, parent_id)
        self.waiting_for_parent.clear()
        for found in self.references.finish(self.ids):
            self.file_diagnostics.append(found)
        cycles = self._resolve_depths()
        self.tree_diagnostics.sort(key=lambda found: found[0])  # entry order, as the loader
        for found in cycles:
            self._tree_problem(0, found)

    def _resolve_depths(self) -> list[Diagnostic]:
        """Depths for entries whose parent came later in the file; cycles are cut and reported.

        Only those entries are looked at again (a healthy file has none, since a parent is
        written before its children). Loops among them are found by
        ``session_tree.find_cycles`` and cut at their first line, as ``pi.session`` cuts
        them: that entry becomes a root. Then each missing depth is filled in by walking
        up to an entry whose depth is known and back down. Linear time, no recursion.
        """
        unknown = [position for position in range(len(self.ids))
                   if self.depth[position] == UNKNOWN_DEPTH]
        parent_of = {self.ids.id_at(position): self.ids.id_at(self.parent[position])
                     for position in unknown}
        cycles: list[Diagnostic] = []
        for loop in find_cycles(parent_of):
            cut = min((self.ids[entry_id] for entry_id in loop),
                      key=lambda position: self.line[position])
            cycles.append(diagnostic(self.line[cut], "cycle", self.ids.id_at(cut),
                                     loop_text(loop)))
            self.parent[cut] = NO_PARENT
            self.depth[cut] = 0
        for start in unknown:
            walk: list[int] = []
            current = start
            while self.depth[current] == UNKNOWN_DEPTH:
                walk.append(current)
                current = self.parent[current]
            depth = self.depth[current]
            for position in reversed(walk):
                depth += 1
                self.depth[position] = depth
        return cycles

    # -- the report ---------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        has_child = bytearray(len(self.ids))
        children_of_branch_points = bytearray(len(self.ids))
        for parent in self.parent:
            if parent != NO_PARENT:
                if has_child[parent]:
                    children_of_branch_points[parent] = 1
                has_child[parent] = 1
        more = [diagnostic(None, "more-diagnostics", detail=code,
                           count=count - self.file_diagnostics.max_examples)
                for code, count in self.tree_counts.items()
                if count > self.file_diagnostics.max_examples]
        diagnostics = sorted([*self.file_diagnostics.summary(), *more, *self.file_diagnostics,
                              *(found for _, found in self.tree_diagnostics)],
                             key=lambda found: (found.line is not None, found.line or 0))
        header = self.header
        return {
            "version": self.version,
            "session_id": header.get("id"),
            "cwd": header.get("cwd"),
            "parent_session": header.get("parentSession", header.get("branchedFrom")),
            "entries": len(self.ids),
            "by_type": dict(sorted(self.by_type.items())),
            "by_role": dict(sorted(self.by_role.items())),
            "compactions": self.by_type.get("compaction", 0),
            "branch_summaries": self.by_type.get("branch_summary", 0),
            "labels": dict(self.labels),
            "name": session_name([self.latest_session_info] if self.latest_session_info
                                 else []),
            "roots": [self.ids.id_at(i) for i, parent in enumerate(self.parent)
                      if parent == NO_PARENT],
            "leaves": [self.ids.id_at(i) for i in range(len(self.ids)) if not has_child[i]],
            "max_depth": max(self.depth, default=0),
            "models": sorted(self.models),
            "diagnostics": [[found.line, found.code] for found in diagnostics],
            # Extras beyond the exercise's keys:
            "leaf": self.ids.id_at(len(self.ids) - 1) if len(self.ids) else None,
            "branch_points": sum(children_of_branch_points),
            "first_user_message": self.first_user_message,
            "usage": {**{name: _finite(value) for name, value in self.usage.items()},
                      "cost": round(_finite(self.cost), 6)},
            "pi_version": self.pi_version,
            "context_edits": self.by_type.get("context_edit", 0),
            "usage_entries": self.by_type.get("usage", 0),
            "problems": [{"line": found.line, "code": found.code, "severity": found.severity,
                          "entry_id": found.entry_id, "detail": found.detail,
                          "first_line": found.first_line, "raw_error": found.raw_error,
                          "count": found.count}
                         for found in diagnostics],
            "problem_counts": self._problem_counts(),
        }

    def _problem_counts(self) -> dict[str, int]:
        """How many diagnostics of each code, all of them (``problems`` lists a few)."""
        counts = dict(self.file_diagnostics.counts)
        for code, count in self.tree_counts.items():
            counts[code] = counts.get(code, 0) + count
        return dict(sorted(counts.items()))


def _plain_report(path: str | os.PathLike[str], pi_version: str, limits: Limits,
                  decoder: str | None) -> dict[str, Any] | None:
    """The report on a plain file (``jsonl.index``: nothing to diagnose), read through the
    command line's index; None for any other file, which the census reads instead.

    The same report in about half the time: in a plain file every id is new and every
    parent is written before its child, so no entry needs an id looked up as it comes or a
    fingerprint (the index checks for repeated ids once, after the pass); the types are
    counted from the index's codes; the census takes the rest from each entry as the index
    reads it (``_Census.take``, the same rules). ``tests/test_cli_index.py`` checks that
    both ways give the same report."""
    from learn_pi_lab.jsonl.index import KINDS, NotPlain, SessionIndex
    census: _Census | None = None

    def started(header: dict[str, Any]) -> _Census:   # (a plain file's header is line 1)
        counting = _Census(header, 1, DiagnosticLog(limits.max_examples))
        counting.pi_version = check_pi_version(pi_version)
        counting.reads_1x = pi_version == CURRENT_PI_VERSION
        return counting

    def take_block(header: dict[str, Any], objects: list[dict[str, Any]]) -> None:
        nonlocal census
        census = census or started(header)
        take = census.take
        for obj in objects:
            take(obj, obj["type"])

    try:
        index = SessionIndex(path, decoder=decoder, limits=limits, each_block=take_block)
    except (NotPlain, OSError, ValueError):   # (NotASessionFile is a ValueError)
        return None
    census = census or started(index.header)
    index.close()
    census.ids, census.parent = index.ids, index.parents   # (the report's tree, from the index)
    census.depth = depth = array("i", bytes(4 * len(index.parents)))
    for at, parent in enumerate(index.parents):   # (each parent is before its child)
        if parent >= 0:
            depth[at] = depth[parent] + 1
    census.by_type = {KINDS[code]: count for code in range(len(KINDS))
                      if (count := index.kinds.count(code))}
    return census.report()


def _finite(value: float) -> float:
    """Sums of huge numbers can overflow to infinity, which is not JSON: keep the largest."""
    if math.isfinite(value):
        return value
    return math.copysign(sys.float_info.max, value) if not math.isnan(value) else 0.0


def inspect_session(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The report on one session file, in one streaming pass. The file is only read.

    Keys (chapter 07's exercise checks the first sixteen): ``version`` (1 when absent),
    ``session_id``, ``cwd``, ``parent_session`` (or None), ``entries`` (non-header entries
    after de-duplication), ``by_type``, ``by_role`` (message entries only), ``compactions``,
    ``branch_summaries``, ``labels`` (resolved: latest wins, empty clears), ``name`` (latest
    ``session_info``, trimmed; empty clears), ``roots``, ``leaves`` (file order), ``max_depth``
    (a root has depth 0), ``models`` (sorted ``provider/modelId`` from ``model_change``
    entries and assistant messages), ``diagnostics`` (``[line, code]`` in line order).
    Extras: ``leaf`` (the last entry, Pi's leaf on load), ``branch_points`` (entries with
    two or more children), ``first_user_message``, ``usage`` (tokens and cost added over
    every branch; with ``pi_version="1.6.0"`` the ``usage`` entries count too), ``pi_version``,
    ``context_edits`` and ``usage_entries`` (Pi 1.x entry counts) and ``problems`` (the
    diagnostics in full).

    Raises ``NotASessionFile`` when the file is missing, a directory, or not a session.
    ``learn_pi_lab.cli.report_text.render_report`` lays the report out as text.
    """
    return inspect_session_as(path, BASELINE_PI_VERSION)


def inspect_session_as(path: str | os.PathLike[str], pi_version: str, *,
                       limits: Limits | None = None, decoder: str | None = None
                       ) -> dict[str, Any]:
    """``inspect_session`` counting by the rules of Pi ``pi_version`` ("0.84.2" or "1.6.0").

    The exercise's signature has no room for limits: by default they come from the
    environment (LEARN_PI_LAB_MAX_*, docs/limits.md). ``decoder`` is the reader's
    (``jsonl.fast_decoder``: the same report with either).
    """
    limits = limits if limits is not None else Limits.from_environment()
    plain = _plain_report(path, pi_version, limits, decoder)
    if plain is not None:
        return plain
    file_diagnostics = DiagnosticLog(limits.max_examples)
    lines = iter_entries_streaming(path, mode="teaching", diagnostics=file_diagnostics,
                                   limits=limits, decoder=decoder)
    header_line = next(lines)
    # The reader appends line-level problems to ``file_diagnostics`` as it meets them, and
    # the census adds its own to the same log; report() sorts them by line (stable).
    census = _Census(header_line.obj, header_line.line, file_diagnostics,
                     canonical_encoder_for(decoder))
    census.pi_version = check_pi_version(pi_version)
    census.reads_1x = pi_version == CURRENT_PI_VERSION
    for loaded in lines:
        census.add(loaded)
    census.finish()
    return census.report()


# --------------------------------------------------------------------------------------
# The original course's inspector (whkp/learn-pi): three counts over any JSONL of objects
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SessionReport:
    """What the original ``inspect_session_jsonl`` reports: every record, roles, compactions."""

    entries: int                           # JSON objects in the file (a header counts too)
    roles: tuple[tuple[str, int], ...]     # (message role, count), sorted by role
    compactions: int


class InvalidRecord(Explained, ValueError):
    """A line ``inspect_session_jsonl`` cannot count. ``reason``: ``invalid-json``,
    ``not-an-object`` or ``line-too-long``; ``line`` is the 1-based line number."""

    ENGLISH = {"invalid-json": "invalid JSON on line {line}",
               "not-an-object": "record on line {line} is not an object",
               "line-too-long": "line {line} is longer than the reader's limit"}

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(self.ENGLISH[reason].format(line=line))
        self.line = line
        self.reason = reason

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return f"inspector.{self.reason}"


def inspect_session_jsonl(path: str | os.PathLike[str], *,
                          limits: Limits | None = None) -> SessionReport:
    """Count the records, message roles and compactions of any JSONL file of objects.

    The strict little sibling of ``inspect_session``: no header is needed and nothing is
    tolerated. Blank lines are skipped; the first line that is not JSON raises
    ``InvalidRecord`` ("invalid JSON on line N"), a JSON value that is not an object
    "record on line N is not an object" (both are ``ValueError``). It reads the file the
    same safe way as everything else: a FIFO or a device is refused (``NotASessionFile``),
    and values are made safe (``jsonl.reader``).
    """
    limits = limits if limits is not None else Limits.from_environment()
    roles: dict[str, int] = {}
    entries = compactions = 0
    for line_no, text in safe_json_lines(path, limits):
        if text is None:
            raise InvalidRecord(line_no, "line-too-long")
        if not text.strip():
            continue
        record = parse_one_value(text, limits)
        if record is UNREADABLE:
            raise InvalidRecord(line_no, "invalid-json")
        if not isinstance(record, dict):
            raise InvalidRecord(line_no, "not-an-object")
        entries += 1
        compactions += record.get("type") == "compaction"
        message = record.get("message")
        if isinstance(message, dict) and isinstance(message.get("role"), str):
            roles[message["role"]] = roles.get(message["role"], 0) + 1
    return SessionReport(entries, tuple(sorted(roles.items())), compactions)
