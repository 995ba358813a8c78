"""The two things every new line needs: an id and a timestamp, made the way Pi makes them.

* An **entry id** is 8 lowercase hex digits: the first 8 characters of a random UUID, so
  32 random bits. Pi retries while the id is already used *in this file* (ids are unique
  per file only; a fork copies its entries and keeps their ids), up to 100 times, then
  falls back to a full 36-character UUID.
* A **timestamp** is ISO-8601 in UTC with milliseconds, ``2026-03-01T10:00:00.123Z``,
  what JavaScript's ``Date#toISOString`` prints.

Both take an injectable source of randomness or time, so the course's example files come
out byte-identical on every run. ``writer`` re-exports these names; this small module
exists so the reader (which makes ids when it migrates an old file) and the writer can
share one definition without importing each other.
"""

from __future__ import annotations

import random
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Container

Clock = Callable[[], datetime]

ID_ATTEMPTS = 100
ENTRY_ID_DIGITS = 8
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def new_entry_id(existing: Container[str], rng: random.Random | None = None, *,
                 digits: int = ENTRY_ID_DIGITS) -> str:
    """An 8-hex id not in ``existing``; pass ``rng`` (a ``random.Random``) for repeatable ids.

    ``digits`` (at most 32) makes longer ids: 8 hex digits are 32 random bits, enough for
    one writer that checks its own file, but two writers that cannot see each other's ids
    collide with probability about n*n / 2**33 (4 writers x 10,000 entries: 17 %). With 16
    digits (64 bits) the same 40,000 ids collide with probability about 4e-11.
    """
    for _attempt in range(ID_ATTEMPTS):
        if rng is not None:
            candidate = f"{rng.getrandbits(4 * digits):0{digits}x}"
        else:
            candidate = uuid.uuid4().hex[:digits]
        if candidate not in existing:
            return candidate
    return new_session_id(rng)


def new_session_id(rng: random.Random | None = None) -> str:
    """A random (version 4) UUID string, as Pi v0.58 used for session ids."""
    if rng is None:
        return str(uuid.uuid4())
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def iso_now(clock: Clock | None = None) -> str:
    """Now (or ``clock()``) as ``YYYY-MM-DDTHH:MM:SS.mmmZ`` in UTC.

    A naive datetime from ``clock`` is taken to be UTC already.
    """
    moment = clock() if clock is not None else datetime.now(timezone.utc)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def iso_to_ms(timestamp: Any) -> int | None:
    """Epoch milliseconds of an ISO-8601 timestamp, like JavaScript's ``Date.parse``.

    The reverse of ``iso_now``. A timestamp without a zone is read as UTC; anything
    unreadable (not a string, not a date) gives ``None`` (JavaScript would give ``NaN``,
    which JSON writes as ``null``).
    """
    if not isinstance(timestamp, str):
        return None
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment - _EPOCH) // timedelta(milliseconds=1)  # exact integers, no float rounding
