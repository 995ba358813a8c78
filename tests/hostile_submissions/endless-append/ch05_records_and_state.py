"""Cheat (or accident): an endless loop that keeps appending."""


def resolve_labels(entries):
    kept = []
    while True:
        kept.append("x" * 10_000)
