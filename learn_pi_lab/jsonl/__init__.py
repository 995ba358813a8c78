"""The file layer: a Pi session on disk is one JSON object per line.

* ``records``   typed models of the header and every entry type, grouped by purpose
* ``reader``    tolerant streaming reader: ``read_session`` -> ``SessionFile`` + diagnostics
* ``writer``    append-only writer: ``append_line``, ``SessionWriter``, ``write_new_file``
* ``ids``       8-hex entry ids and ISO-8601 millisecond timestamps, as Pi makes them
* ``migration`` v1 / v2 files brought up to v3, in memory only

Nothing in this package ever rewrites a file it has read.
"""
