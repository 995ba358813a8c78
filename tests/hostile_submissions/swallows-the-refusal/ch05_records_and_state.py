"""Cheat: let the package's Session answer, and when its own resolve_labels refuses, catch
the refusal and raise the stub's NotImplementedError instead: "not started" looks better in a
gradebook than "not own code". The refusal is on record with the trusted side before it is
raised (hiding.refusal), so what is raised next changes nothing."""
import json

from learn_pi_lab.pi.session import session_from_text

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z",
          "cwd": "/"}


def resolve_labels(entries):
    text = "\n".join(json.dumps(entry) for entry in [HEADER, *entries]) + "\n"
    try:
        return session_from_text(text, mode="pi").labels()
    except Exception:
        raise NotImplementedError("not started yet, honestly") from None
