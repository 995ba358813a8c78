"""Cheat: a def that reads as the learner's own, whose code is swapped for the package's
after it is defined (a teacher reading the file sees only `return None`)."""
import learn_pi_lab.session_tree as _reference
from learn_pi_lab.session_tree import DanglingParent, ParentCycle  # noqa: F401


def path_to(entries_by_id, leaf_id):
    return None


path_to.__code__ = _reference.path_to.__code__
