"""The helper of the cheat next to it: it reaches its caller's globals."""
import sys

from learn_pi_lab.pi.session import resolve_labels


def check_setup():
    sys._getframe(1).f_globals["resolve_labels"] = resolve_labels
