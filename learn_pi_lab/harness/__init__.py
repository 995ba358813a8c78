"""Exercises and grading: the learner's ``make verify`` and the teacher's ``grade``.

* ``exercises.json`` + ``catalog``: what each exercise asks for and which tests grade it;
* ``runner`` (+ ``child``, the subprocess side): one exercise, one process, a time limit and
  an output cap, four statuses;
* ``report``: the words and tables a person reads;
* ``verify``, ``grade``, ``notebook``: the three ways in (terminal, class, Jupyter).
"""
