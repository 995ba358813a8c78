"""Cheat: no same-named function in sight; the package's Session does the job, and its
labels() calls the package's own resolve_labels inside. That function refuses to run while
the learner's is graded (worker.hide_the_reference)."""
import json

from learn_pi_lab.pi.session import session_from_text

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z",
          "cwd": "/"}


def resolve_labels(entries):
    text = "\n".join(json.dumps(entry) for entry in [HEADER, *entries]) + "\n"
    return session_from_text(text, mode="pi").labels()
