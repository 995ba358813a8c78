"""Cheat: read another learner's answer from the submissions folder. (Running it needs a
loader, runpy, exec, importlib, that the syntax tree check refuses on its own; this case
proves the sandbox too: the submissions are hidden, so the read itself fails. Were they
visible, the error would quote the file instead.)"""

with open("{{SUBMISSIONS}}/honest-full/ch05_records_and_state.py", encoding="utf-8") as other:
    raise RuntimeError("read another learner's file: " + other.readline())


def resolve_labels(entries):
    raise NotImplementedError("exercise resolve-labels is not implemented yet")
