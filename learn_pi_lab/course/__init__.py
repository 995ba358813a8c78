"""The workbook's own machinery: how a chapter is written, found on disk and self-checked.

* ``cells``      one chapter source = a ``chapter(...)`` plus a list of ``md(...)`` / ``code(...)``
* ``editions``   turns one source into the zh and en notebooks (the builder uses it)
* ``paths``      where the data, the workspace and the scratch folders are
* ``selfcheck``  self-check questions: choices with a reason for each, or a value computed in the notebook
* ``envcheck``   the [OK]/[FAIL] table of chapter 00
* ``text``       ``L(zh, en)``: a printed label in the edition's language; ``figure_fonts()``
* ``act``        predict / reveal, ``your_turn``, the ``use_my_code`` switch
* ``lab``        the JupyterLab launcher behind ``make lab`` (and the browser test)
* ``labs``       the built-in example sessions (the original course's four entries, the story)
* ``write_path``, ``rewrite_stores``, ``crash_lab``   helpers of the chapters' experiments

``docs/writing-a-chapter.md`` is the contract for chapter writers.
"""
