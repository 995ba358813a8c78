"""Cheat: hand in the package's own functions."""
from learn_pi_lab.session_tree import path_to, validate  # noqa: F401
