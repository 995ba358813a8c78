"""Cheat: a class of the graded name whose body copies the package's own methods (no base
class, so the inheritance check alone did not see it)."""
from learn_pi_lab.store import FileBackend as _Reference


class FileBackend:
    __init__ = _Reference.__init__
    append = _Reference.append
    read_all = _Reference.read_all
