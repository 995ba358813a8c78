"""The one garbage-collector pause (learn_pi_lab/collector.py): always restored, never frozen."""

from __future__ import annotations

import gc

import pytest

from learn_pi_lab.collector import collector_paused
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.session import session_from_text

HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}'
ENTRY = ('{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z",'
         '"message":{"role":"user","content":"hi"}}')


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if was:   # every test leaves the collector as it found it
        gc.enable()
    else:
        gc.disable()


def test_paused_inside_restored_after():
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0, "objects are moved to the oldest generation, not frozen"


def test_restored_after_an_error():
    with pytest.raises(RuntimeError):
        with collector_paused():
            raise RuntimeError("failed while loading")
    assert gc.isenabled()


def test_nested_pause_keeps_outer_pause():
    with collector_paused():
        with collector_paused():
            pass
        assert not gc.isenabled(), "the inner pause must not switch the collector back on"
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_cycles_made_during_a_pause_are_still_collected():
    class Node:
        pass

    with collector_paused():
        node = Node()
        node.self = node
    del node
    assert gc.collect() >= 1, "nothing stays frozen: the next full collection finds the cycle"


def test_loading_and_context_leave_the_collector_on():
    session = session_from_text(HEADER + "\n" + ENTRY + "\n")
    assert gc.isenabled()
    context = build_session_context(session.branch())
    assert gc.isenabled() and [m["entryId"] for m in context.messages] == ["a"]
    gc.disable()
    build_session_context(session.branch())
    assert not gc.isenabled(), "a caller's own pause is left as it was"
