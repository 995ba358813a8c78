"""A lookup-table cheat: the answers of the visible tests, keyed on their inputs.

Every visible input is public (tests/test_04_failures.py), so this file passes every visible
test of load-diagnostics without reading a single line: it looks the text's digest up in a
table of the recorded answers. The drawn inputs (tests/drawn.py) are not in its table: it
fails there.
"""

from __future__ import annotations

import hashlib

# load_diagnostics: the first 16 hex digits of the text's SHA-256 -> the recorded problems
PROBLEMS = {
    "19a53f5751b81b11": [],
    "ca8ad48c01fa9a1e": [(7, "dangling-parent")],
    "aea2561d117ccad1": [(7, "torn-last-line")],
    "46f09c6effcdc330": [(7, "corrupt-line")],
    "7acdb2ac4544de07": [(7, "duplicate-entry")],
    "c14f78d61431b2fd": [(7, "conflicting-duplicate")],
    "16af5c2ec28b37ab": [(7, "dangling-parent")],
    "f895d176a78c19d2": [(7, "dangling-parent")],
    "0ace0cdf2bb17861": [(4, "corrupt-line"), (5, "dangling-parent")],
    "91bb9b31752765e6": [],
    "d8fa803e60b17016": [(7, "glued-objects")],
    "8cf1c0852eae5f38": [(7, "glued-objects")],
    "85d4ecd21c5e229c": [(7, "self-parent")],
    "18780b899b413951": [(7, "cycle")],
    "ba1e598a9f95d10b": [(8, "cycle")],
    "96618c21de3666af": [(4, "blank-line"), (8, "dangling-parent"), (9, "duplicate-entry"),
                         (10, "torn-last-line")],
}


def load_diagnostics(text):
    return list(PROBLEMS.get(hashlib.sha256(text.encode()).hexdigest()[:16], []))
