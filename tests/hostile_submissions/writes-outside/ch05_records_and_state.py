"""Cheat: write outside the sandbox: into the course, into another learner's folder, into
its own original folder, into the teacher's home and /tmp."""
from pathlib import Path

import learn_pi_lab

for marker in (Path.home() / "hostile-was-here", Path("/tmp/hostile-was-here")):
    marker.write_text("private tmpfs: gone when the run ends")
course = Path(learn_pi_lab.__file__).resolve().parents[1]
(course / "hostile-was-here").write_text("the course is read-only")
