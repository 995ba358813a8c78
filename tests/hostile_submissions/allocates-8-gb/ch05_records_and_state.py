"""Cheat (or accident): 8 GB at once."""

BIG = bytearray(8 * 1024 ** 3)


def resolve_labels(entries):
    return {}
