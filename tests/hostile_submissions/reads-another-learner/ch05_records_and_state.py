"""Cheat: copy another learner's answer from the submissions folder (and run it as a file
of its own with runpy, which the syntax tree check cannot see through: only the sandbox,
which hides the submissions, stops it)."""
import runpy

borrowed = runpy.run_path("{{SUBMISSIONS}}/honest-full/ch05_records_and_state.py")


def resolve_labels(entries):
    return borrowed["resolve" + "_labels"](entries)
