"""What Pi does with the entries of a session file.

Read in this order:

* ``session``    load a file as Pi does: the leaf (the last line), labels, the name, the
                 tree and any branch; ``mode="teaching"`` reports damage with line numbers,
                 ``mode="pi"`` reproduces Pi (without ever hanging);
* ``context``    a branch is not what the model sees: compaction, branch summaries,
                 custom messages, context edits, and the settings in force
                 (``buildSessionContext``);
* ``navigation`` ``/tree`` moves the leaf in place, ``/fork`` and ``/clone`` copy one path
                 into a new file.

Two versions of Pi side by side (``pi_version``): 0.84.2, the course's baseline and the
default of the Python functions, and 1.6.0, the Pi learners run today (the command line's
default). ``tests/test_pi_differential.py`` checks both against Pi's own published code.

The file itself (lines, diagnostics, migration, writing) is ``learn_pi_lab.jsonl``; the
bare tree of parent pointers is ``learn_pi_lab.session_tree``.
"""
