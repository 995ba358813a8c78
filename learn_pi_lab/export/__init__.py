"""A session as one HTML page (``python -m learn_pi_lab export FILE --html --out PAGE.html``).

Pi's own ``/export`` writes the current branch as a page; this one shows the whole tree, as
the playground draws it, and for every node a reader clicks: its JSONL line, its branch from
the root, and what the model would see with that node as the leaf (``pi.context``, the same
code as ``context``), with the reader's diagnostics and their line numbers. One file, for
any browser, from disk: no network, no script or font from elsewhere.

* ``page``: what the page holds (``page_data``: the tree's layout, each entry once, each
  node's context as "its parent's, plus these messages" so a 10,000-entry chain is not
  10,000 copies of its history) and the page itself (``render_page``);
* ``page.js`` and ``page.css``: how a browser shows it (every text from the session is set as
  text, never as markup).
"""
