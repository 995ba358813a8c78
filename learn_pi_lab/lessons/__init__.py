"""Each chapter's idea as plain code, written the way a learner would write it.

One file per chapter with exercises: ``ch02_parent_pointers.py`` is ``path_to`` and
``validate`` in about 60 lines. Each file is also the chapter's model answer: the exercise's
tests grade it as a learner's workspace (``tests/test_harness_solutions.py``), so a lesson
cannot drift from what it teaches. The package's own versions (``session_tree``,
``pi.context``, ``jsonl.reader``, ...) are the engines: the same rules made fast, tolerant and
exact to Pi, held to the same tests. Nothing in the package imports a lesson, and the grading
sandbox hides this folder: a learner's code cannot hand one in.
"""
