"""A lookup-table cheat: the answers of the visible tests, keyed on their inputs.

Every visible input is public (tests/test_05_state.py), so this file passes every visible
test of state-at and resolve-labels without reading a single setting or label. The drawn
inputs (tests/drawn.py) are not in its tables: it fails there.
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
    model, level = STATES.get(tuple(entry.get("id") for entry in path_entries),
                              (None, "off"))
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


def resolve_labels(entries):
    key = tuple((entry.get("id"), entry.get("label")) for entry in entries)
    return dict(LABELS.get(key, {}))
