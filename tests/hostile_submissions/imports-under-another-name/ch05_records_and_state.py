"""Cheat: the package's own function, imported under another name and called from a def of
the graded name (the same-name checks looked for the name itself)."""
from learn_pi_lab.pi.session import resolve_labels as _resolve


def resolve_labels(entries):
    return _resolve(entries)
