"""One way to pause Python's cyclic garbage collector around bulk work, restored after.

Reading a session builds millions of small objects (dicts, lists, strings) that all stay
alive. Every few hundred new objects the cyclic collector wakes up and, now and then,
rescans *every* live object looking for reference cycles. JSON data has none, so on a large
file that rescanning is pure waste: it took more than half of the time of loading a
200,000-entry session. Objects are still freed the usual way (reference counting); only
the cycle search waits.

``collector_paused`` is the one helper the reader, the session loader and the command line
share. It nests (an inner pause leaves the collector off for the outer one), and it turns
the collector back on, if it was on, however the block ends, so a notebook that called a
loader keeps its usual collector even after an error.

Pausing alone would only postpone the waste: the collector sorts objects into three
generations and scans each new object once per generation on its way to the oldest one.
Millions of objects built during the pause would be scanned three times by the first
collections after it. So when the outermost pause ends, the objects it leaves alive go
straight to the oldest generation (``settle_in_oldest_generation``), where the collector
looks only now and then.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the ``with`` block; restore it afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            settle_in_oldest_generation()
            gc.enable()


def settle_in_oldest_generation() -> None:
    """Move every object the collector tracks into its oldest generation, scanning none.

    ``gc.freeze`` moves them all aside (a generation the collector never scans) and
    ``gc.unfreeze`` puts them back as the oldest generation: together, a move without a
    scan. Nothing stays frozen, so reference cycles are still found by the next full
    collection.
    """
    gc.freeze()
    gc.unfreeze()
