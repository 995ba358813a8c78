"""Cheat: copy another learner's answer from the submissions folder (and run it as a module
of its own, so the syntax tree shows no exec)."""
import importlib.util

spec = importlib.util.spec_from_file_location(
    "borrowed", "{{SUBMISSIONS}}/honest-full/ch05_records_and_state.py")
borrowed = importlib.util.module_from_spec(spec)
spec.loader.exec_module(borrowed)


def resolve_labels(entries):
    return borrowed.resolve_labels(entries)
