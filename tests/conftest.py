"""Settings for the whole test run.

``LEARN_PI_LAB_STRICT_MESSAGES=1``: ``i18n.t`` raises on a message key that is not in the
catalog or a ``{field}`` it was not given, instead of showing the raw text as it does for a
learner. Set in the environment, so the processes the tests start (the harness's children,
the notebook kernels, the command line) are strict too.
"""

import os

os.environ.setdefault("LEARN_PI_LAB_STRICT_MESSAGES", "1")
