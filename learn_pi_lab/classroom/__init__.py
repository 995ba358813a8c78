"""The course in a classroom: a JupyterHub hands it out, a teacher collects and reports.

The hub's own files are in the repository's ``classroom/`` folder (``jupyterhub_config.py``,
``install``, ``add-users``); this package holds the teacher's commands that go with them:

* ``link``: ``learn-pi-lab hub-link``, the nbgitpuller link that puts the course into each
  learner's home and opens chapter 00 (clicked again, it brings the course's updates and
  keeps the learner's answers);
* ``collect``: ``learn-pi-lab collect``, a copy of every learner's ``workspace/`` for
  ``grade``, taken without trusting anything in their home folders;
* ``class_report``: ``learn-pi-lab class-report``, the class at a glance once ``grade`` has
  run: an HTML page, a notebook, and a CSV a learning-management system imports.

docs/teacher.md walks a teacher through all of it, from an empty machine to a gradebook.
"""
