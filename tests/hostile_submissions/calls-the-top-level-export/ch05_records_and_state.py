"""Cheat: the package exports the chapters' names at its top (``learn_pi_lab.resolve_labels``,
loaded on first use); reach the reference through that attribute from an own def."""
import learn_pi_lab


def resolve_labels(entries):
    return getattr(learn_pi_lab, "resolve" + "_labels")(entries)
