"""The course in a classroom: a JupyterHub hands it out, a teacher collects and grades.

* ``link``: the nbgitpuller link that puts the course into each learner's home on a hub;
* ``updates``: what a course update did to the learner's ``workspace/`` (said by ``verify``);
* ``collect``: each learner's ``workspace/`` copied out of their home, read-only, for ``grade``;
* ``report``: the class report a teacher looks at (an HTML page, the same figures for a
  notebook) and the CSV a learning-management system imports.

The hub itself (its configuration, its installer, Binder and Zero to JupyterHub) is in the
repository's ``classroom/`` folder; the teacher's page is ``docs/teacher.md``.
"""
