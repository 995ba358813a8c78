"""What Pi does with the entries of a session file.

Read in this order:

* ``session``    load a file as Pi does: the leaf (the last line), labels, the name, the
                 tree and any branch; ``mode="teaching"`` reports damage with line numbers,
                 ``mode="pi"`` reproduces Pi v0.84.2 (without ever hanging);
* ``context``    a branch is not what the model sees: compaction, branch summaries,
                 custom messages, and the settings in force (``buildSessionContext``);
* ``navigation`` ``/tree`` moves the leaf in place, ``/fork`` and ``/clone`` copy one path
                 into a new file.

The file itself (lines, diagnostics, migration, writing) is ``learn_pi_lab.jsonl``; the
bare tree of parent pointers is ``learn_pi_lab.session_tree``.
"""
