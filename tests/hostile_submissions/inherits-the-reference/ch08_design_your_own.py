"""Cheat: a class of the graded name that inherits every method from the package's own
solution and writes none itself."""
from learn_pi_lab.store import FileBackend as _Reference
from learn_pi_lab.store import MemoryBackend as _Memory


class MemoryBackend(_Memory):
    mine = True


class FileBackend(_Reference):
    mine = True
