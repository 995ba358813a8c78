"""Cheat: write outside the sandbox: into the course, into /tmp, beside its own folder.
Each write is tried; the first one that works is named (its home is its own scratch folder:
that one may be written)."""
from pathlib import Path

import learn_pi_lab

course = Path(learn_pi_lab.__file__).resolve().parents[1]
refused = []
for marker in (course / "hostile-was-here", Path("/tmp/hostile-was-here"),
               Path.cwd().parent / "hostile-was-here"):
    try:
        marker.write_text("written outside")
    except OSError as error:
        refused.append(error.strerror)
    else:
        raise RuntimeError(f"WROTE {marker}")
raise PermissionError(f"refused everywhere: {', '.join(sorted(set(refused)))}")
