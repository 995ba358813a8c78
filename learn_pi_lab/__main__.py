"""``python3 -m learn_pi_lab ...``: see ``learn_pi_lab.cli.commands``."""

from learn_pi_lab.cli.commands import end_process, main

end_process(main(ending_process=True))
