"""Cheat: copy another learner's answer from the submissions folder."""
from pathlib import Path

exec(Path("{{SUBMISSIONS}}/honest-full/ch05_records_and_state.py").read_text())
