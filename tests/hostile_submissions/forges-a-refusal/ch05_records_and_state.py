"""Cheat: raise an exception of the learner's own that calls itself the package's refusal
(learn_pi_lab.errors.ReferenceHidden), naming another learner's package call, so that the
gradebook says the package's solution ran when it never did (to muddy the evidence, or to
frame the verdict). Only the refusal's own record with the trusted side counts as that
evidence; this is an ordinary error."""


class ReferenceHidden(Exception):
    pass


ReferenceHidden.__module__ = "learn_pi_lab.errors"


def resolve_labels(entries):
    raise ReferenceHidden("learn_pi_lab.pi.session.resolve_labels is the package's own "
                          "solution: it does not run while yours is graded")
