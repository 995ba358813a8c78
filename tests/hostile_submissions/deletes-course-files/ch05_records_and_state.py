"""Cheat: delete the exercise catalog and rewrite a test."""
from pathlib import Path

import learn_pi_lab

course = Path(learn_pi_lab.__file__).resolve().parents[1]
(course / "learn_pi_lab" / "harness" / "exercises.json").unlink()
(course / "tests" / "test_05_state.py").write_text("")
