"""The workbook's own machinery: how a chapter is written, found on disk and self-checked.

* ``cells``      one chapter source = a ``chapter(...)`` plus a list of ``md(...)`` / ``code(...)``
* ``editions``   turns one source into the zh and en notebooks (the builder uses it)
* ``paths``      where the data, the workspace and the scratch folders are
* ``selfcheck``  self-check questions: choices with a reason for each, or a value computed in the notebook
* ``envcheck``   the [OK]/[FAIL] table of chapter 00

``docs/architecture.md`` section 6 is the contract for chapter writers.
"""
