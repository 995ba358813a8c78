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
import re
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


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_RFC_2822 = re.compile(
    r"(?:(?:mon|tue|wed|thu|fri|sat|sun),?\s+)?(\d{1,2})\s+([a-z]{3})\s+(\d{4})\s+"
    r"(\d{2}):(\d{2})(?::(\d{2}))?\s+(gmt|ut|utc|z|[+-]\d{4})", re.IGNORECASE | re.ASCII)


def rfc_2822_to_ms(timestamp: Any) -> int | None:
    """Epoch milliseconds of an RFC 2822 date with a zone, as JavaScript's ``Date`` reads it.

    ``Thu, 01 Jan 2026 00:00:30 GMT`` (what ``Date#toUTCString`` prints) or ``... +0100``;
    the weekday is optional and, as in JavaScript, not checked. A day past the end of its
    month rolls over (31 Feb is 3 March) and ``24:00:00`` is the next midnight, as in
    JavaScript; day 0 or 32 is unreadable there too. Without a zone JavaScript reads
    the time in the *local* time zone of the machine running Pi, which a file does not tell:
    ``None``, like any other text.
    """
    if not isinstance(timestamp, str):
        return None
    found = _RFC_2822.fullmatch(timestamp.strip())
    if found is None or found[2].lower() not in _MONTHS:
        return None
    day, month, year = int(found[1]), _MONTHS.index(found[2].lower()) + 1, int(found[3])
    hour, minute, second = int(found[4]), int(found[5]), int(found[6] or 0)
    if not 1 <= day <= 31 or minute > 59 or second > 59 or hour > 24 or \
            (hour == 24 and minute + second > 0):   # 24:00:00 is the next midnight, as in JS
        return None
    zone = found[7].lower()
    offset = 0 if zone in ("gmt", "ut", "utc", "z") else \
        (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[3:5]))
    try:   # year 0000 (JavaScript reads it) is beyond Python's dates: unreadable here
        month_start = datetime(year, month, 1, tzinfo=timezone.utc)
    except ValueError:
        return None
    since = timedelta(days=day - 1, hours=hour, minutes=minute - offset, seconds=second)
    return (month_start - _EPOCH + since) // timedelta(milliseconds=1)
