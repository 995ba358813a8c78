"""Drawn-input cheats, chapter 05: the lookup tables of tests/lookup_submissions/, and for
an input not in them, an exception chosen for the verdict it used to get.

* state_at raises NotImplementedError: graded "not started", as if never begun, though it
  passes every visible test.
* resolve_labels raises a class of its own named ReferenceHidden: graded "not own code, the
  package's solution ran", naming a function it never called.

Both are now a difference at the drawn test: failed, assertion.
"""

from __future__ import annotations

ACME_ALPHA = {"provider": "acme", "modelId": "alpha"}

# state_at: the ids along the branch -> the recorded (model, thinking level)
STATES = {
    (): (None, "off"),
    ("u1",): (None, "off"),
    ("m", "t"): (ACME_ALPHA, "high"),
    ("m1", "t1", "m2", "t2"): ({"provider": "acme", "modelId": "beta"}, "low"),
    ("m", "u1", "a1"): ({"provider": "other", "modelId": "gamma"}, "off"),
    ("a1", "m"): (ACME_ALPHA, "off"),
    ("m1", "t1", "u1"): (ACME_ALPHA, "high"),
    ("m", "t", "u1", "c1", "u2"): (ACME_ALPHA, "medium"),
    ("t", "l", "c", "r1"): (None, "high"),
}


def state_at(path_entries):
    key = tuple(entry.get("id") for entry in path_entries)
    if key not in STATES:
        raise NotImplementedError("not this case yet")
    model, level = STATES[key]
    return (dict(model) if model else None), level


# resolve_labels: (id, label) of every entry in the file -> the recorded labels
LABELS = {
    (("u1", None),): {},
    (("u1", None), ("l1", "start")): {"u1": "start"},
    (("l1", "first"), ("l2", "second")): {"u1": "second"},
    (("l1", "x"), ("l2", "")): {},
    (("l1", "x"), ("l2", None)): {},
    (("l1", "x"), ("l2", None), ("l3", "y")): {"u1": "y"},
    (("l1", "a"), ("l2", "b"), ("l3", "")): {"u2": "b"},
    (("l1", None),): {},
    (("c", "no"),): {},
}


class ReferenceHidden(Exception):
    """A class of my own, named as the harness's refusal."""


def resolve_labels(entries):
    key = tuple((entry.get("id"), entry.get("label")) for entry in entries)
    if key not in LABELS:
        raise ReferenceHidden("learn_pi_lab.pi.session.resolve_labels")
    return dict(LABELS[key])
