"""Session files the size of real ones, for the side-by-side bench (never committed).

The writers live in ``learn_pi_lab/course/big_sessions.py``, so that chapter 07 measures on
exactly the files the bench measures on; this module keeps the bench's import name.
"""

from learn_pi_lab.course.big_sessions import (  # noqa: F401
    SHAPES, entries_in, session_file, write_bad_lines, write_branchy, write_chain,
    write_compacted, write_linear)
