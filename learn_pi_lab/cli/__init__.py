"""The command line, ``python3 -m learn_pi_lab ...``, and the text it prints.

* ``commands``       the commands (``tree``, ``path``, ``context``, ``inspect``, ``export``,
                     ``lab``; ``verify``/``grade`` and the classroom's, loaded when asked for)
* ``arguments``      one argument parser for every command: errors in one line, in the
                     learner's language
* ``tree_text``, ``report_text``   a session's tree and the inspector's report as text
* ``terminal_text``  text made safe for a terminal (no escape sequence from a file gets
                     through)

Everything here only reads a session file; ``docs/command-line.md`` is the user's guide.
"""
