"""``python3 -m learn_pi_lab ...``: see ``learn_pi_lab.cli``."""

import sys

from learn_pi_lab.cli import main

sys.exit(main())
