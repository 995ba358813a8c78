"""Cheat (or accident): never answers."""


def resolve_labels(entries):
    while True:
        pass
