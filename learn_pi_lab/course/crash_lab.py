"""Crash injection for chapter 08: kill a writer at every write boundary and count the damage.

A *policy* is how a session store writes: when it calls ``fsync`` and what it does about a
torn last line. The lab runs the same little story under the policy (open, append a few
entries, the process dies, a second process opens the file and appends once more), killing
the first process at each boundary in turn: before or after every ``write``, halfway through
a ``write``, and before or after every ``fsync``. Two kinds of death:

* ``"process"``: the program dies; what it wrote is in the operating system's cache and
  still reaches the disk;
* ``"power"``: the machine loses power; only bytes that an ``fsync`` made durable survive.

For each crash the lab counts what a user would care about:

* ``acknowledged_lost``: entries whose ``append`` had returned (the user saw them saved)
  that are not readable afterwards;
* ``next_lost``: whether the entry appended by the *next* session is unreadable (glued onto
  a torn line);
* ``fsyncs``: how many ``fsync`` calls the policy made: the price of durability.

Everything happens in memory (``Disk``), so it is exact and fast; the model of a disk is
deliberately small: writes append bytes to a file's cache, ``fsync`` makes the cache durable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable


class Crash(Exception):
    """The injected death of the writing process."""


class Disk:
    """One in-memory file: bytes written (cached) and bytes made durable by ``fsync``."""

    def __init__(self, crash_at: int | None = None) -> None:
        self.cached = b""
        self.durable = b""
        self.crash_at = crash_at        # the boundary number at which the process dies
        self.boundary = 0
        self.fsyncs = 0

    def _boundary(self) -> None:
        if self.crash_at is not None and self.boundary == self.crash_at:
            raise Crash(self.boundary)
        self.boundary += 1

    def write(self, data: bytes) -> None:
        """Append ``data``; the process may die before, halfway through, or after it."""
        self._boundary()
        if self.crash_at is not None and self.boundary == self.crash_at:
            self.cached += data[: len(data) // 2]    # died halfway through this write
            raise Crash(self.boundary)
        self.boundary += 1
        self.cached += data
        self._boundary()

    def fsync(self) -> None:
        self._boundary()
        self.durable = self.cached
        self.fsyncs += 1
        self._boundary()

    def last_byte(self) -> bytes:
        return self.cached[-1:]

    def after(self, death: str) -> "Disk":
        """What the next process finds after this one died of ``death``."""
        survivor = Disk()
        survivor.cached = survivor.durable = self.cached if death == "process" else self.durable
        return survivor


@dataclass(frozen=True)
class Policy:
    """How a store writes. ``fsync_every``: 1 = after every append, N = after every N-th,
    0 = never. ``newline_first``: before appending, write a newline if the file does not end
    with one (chapter 04's ``append_line``)."""

    name: str
    fsync_every: int = 0
    newline_first: bool = False

    def append(self, disk: Disk, entry: dict, count: int) -> None:
        line = (json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8")
        if self.newline_first and disk.cached and disk.last_byte() != b"\n":
            line = b"\n" + line
        disk.write(line)
        if self.fsync_every and count % self.fsync_every == 0:
            disk.fsync()


def readable_ids(data: bytes) -> list[str]:
    """Ids of the entries a tolerant reader gets back: every line that parses on its own."""
    ids = []
    for line in data.decode("utf-8", errors="replace").split("\n"):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and "id" in obj:
            ids.append(obj["id"])
    return ids


@dataclass(frozen=True)
class Outcome:
    crash_at: int
    death: str
    acknowledged_lost: int
    next_lost: bool
    fsyncs: int


def story(policy: Policy, crash_at: int | None, death: str, appends: int = 4) -> Outcome:
    """Append ``appends`` entries under ``policy``, die at boundary ``crash_at``, then let the
    next session append one more entry the same way; count the damage."""
    disk = Disk(crash_at)
    acknowledged = []
    try:
        for number in range(1, appends + 1):
            entry = {"type": "message", "id": f"e{number}"}
            policy.append(disk, entry, number)
            acknowledged.append(entry["id"])
    except Crash:
        pass
    fsyncs = disk.fsyncs
    reopened = disk.after(death)
    policy.append(reopened, {"type": "message", "id": "next"}, 1)
    found = set(readable_ids(reopened.cached))
    return Outcome(crash_at if crash_at is not None else -1, death,
                   sum(1 for entry_id in acknowledged if entry_id not in found),
                   "next" not in found, fsyncs)


def boundaries(policy: Policy, appends: int = 4) -> int:
    """How many crash points the story has under ``policy`` (a run that never crashes)."""
    disk = Disk()
    for number in range(1, appends + 1):
        policy.append(disk, {"type": "message", "id": f"e{number}"}, number)
    return disk.boundary


def crash_everywhere(policy: Policy, appends: int = 4) -> list[Outcome]:
    """The story killed at every boundary, by a process crash and by a power loss."""
    return [story(policy, point, death, appends)
            for death in ("process", "power") for point in range(boundaries(policy, appends))]


def summary(policy: Policy, appends: int = 4) -> dict[str, object]:
    """One row of the comparison table for ``policy``."""
    outcomes = crash_everywhere(policy, appends)
    by_death: Callable[[str], list[Outcome]] = lambda death: [o for o in outcomes if o.death == death]
    return {
        "policy": policy.name,
        "crash points": len(by_death("process")),
        "process: worst saved-but-lost": max(o.acknowledged_lost for o in by_death("process")),
        "power: worst saved-but-lost": max(o.acknowledged_lost for o in by_death("power")),
        "next entry lost (of crashes)": sum(o.next_lost for o in outcomes),
        "fsyncs per story": story(policy, None, "process", appends).fsyncs,
    }
