"""Old session files (v1, v2) brought up to v3, in memory only.

Pi's file format changed twice:

* **v1** (Pi up to v0.30): a linear log. Entries had no ``id`` and no ``parentId``; the
  order of the lines *was* the conversation. A compaction said where the kept history
  started with a line number, ``firstKeptEntryIndex``.
* **v2** (v0.31): every entry got an ``id`` and a ``parentId``, so the log became a tree.
* **v3** (v0.35): only a rename: messages with role ``hookMessage`` became ``custom``.

Pi migrates on load and then rewrites the file in place. This course never rewrites a file
it reads: the migrated entries live in memory, and the file on disk keeps its old bytes.

``migrate_to_v3`` follows Pi's algorithm (pi-session-format.md section 5.4) step by step,
including its quirks, because a reader that "improves" on them would disagree with Pi
about which history a compaction keeps:

* new keys (``id``, ``parentId``, ``firstKeptEntryId``, ``version``) are added at the
  *end* of each object, the way assigning a new property in JavaScript does;
* ``firstKeptEntryIndex`` counts positions in the whole file *with the header at index 0*;
* it is always deleted; when it points forward or out of range, no ``firstKeptEntryId``
  is written, and the compaction then keeps nothing from before itself.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Container

from learn_pi_lab.jsonl.ids import new_entry_id

CURRENT_VERSION = 3

NewId = Callable[[Container[str]], str]


def header_version(header: dict[str, Any]) -> int | None:
    """The header's version as a number: absent means 1 (v1 headers had no version key).

    A value that is not a finite number (a hand-edited ``"3"``, a list, infinity) gives
    ``None``: the file is left as it is rather than migrated on a guess. (Pi compares
    ``Infinity < 3``, which is false, so it does not migrate either.)
    """
    version = header.get("version")
    if version is None:                      # Pi: `header.version ?? 1`
        return 1
    if not _is_number(version) or not math.isfinite(version):
        return None
    return int(version)


def migrate_to_v3(header: dict[str, Any], entries: list[dict[str, Any]], *,
                  new_id: NewId = new_entry_id
                  ) -> tuple[dict[str, Any], list[dict[str, Any]], int | None]:
    """Return ``(header, entries, source_version)`` brought up to v3.

    A file that needs migrating is migrated on copies (each entry, and each ``message``
    that is renamed), so the caller's objects still show the file as it was. Only top-level
    keys and a message's ``role`` change, so nothing deeper is copied: no recursion, however
    deeply a value nests. A file that is already v3 or newer comes back as given (the
    same objects, nothing copied); so does one whose version is not a number, with
    ``source_version`` None. ``new_id(taken)`` makes each new entry id; inject a
    deterministic one in tests.

    ``entries`` are all the objects after the header in file order, stray extra headers
    included, because ``firstKeptEntryIndex`` counts them too.
    """
    source_version = header_version(header)
    if source_version is None or source_version >= CURRENT_VERSION:
        return header, entries, source_version

    header = dict(header)
    entries = [dict(entry) for entry in entries]
    if source_version < 2:
        _add_ids_and_parents(header, entries, new_id)
    _rename_hook_messages(entries)
    header["version"] = CURRENT_VERSION
    return header, entries, source_version


def _add_ids_and_parents(header: dict[str, Any], entries: list[dict[str, Any]],
                         new_id: NewId) -> None:
    """v1 -> v2: one linear chain, in file order. Mutates the (copied) objects.

    Pi's own collision set is never filled during migration; this one is, which only
    matters when ``new_id`` is a small deterministic generator.
    """
    header["version"] = 2
    whole_file = [header, *entries]          # index 0 is the header, as Pi counts
    taken: set[str] = set()
    previous_id: str | None = None
    for entry in entries:
        if entry.get("type") == "session":   # a stray second header: Pi only bumps it too
            entry["version"] = 2
            continue
        entry["id"] = new_id(taken)
        taken.add(entry["id"])
        entry["parentId"] = previous_id
        previous_id = entry["id"]
        if entry.get("type") == "compaction" and _is_number(entry.get("firstKeptEntryIndex")):
            index = entry["firstKeptEntryIndex"]
            in_range = 0 <= index < len(whole_file) and index == int(index)
            target = whole_file[int(index)] if in_range else None
            # An entry later in the file has no id yet, so a forward index keeps nothing.
            if target is not None and target.get("type") != "session" and "id" in target:
                entry["firstKeptEntryId"] = target["id"]
            del entry["firstKeptEntryIndex"]


def _rename_hook_messages(entries: list[dict[str, Any]]) -> None:
    """v2 -> v3: the role ``hookMessage`` is called ``custom`` from v0.35 on."""
    for entry in entries:
        if entry.get("type") == "session":
            entry["version"] = CURRENT_VERSION
            continue
        message = entry.get("message")
        if entry.get("type") == "message" and isinstance(message, dict) \
                and message.get("role") == "hookMessage":
            entry["message"] = {**message, "role": "custom"}   # a copy: the input stays as read


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
