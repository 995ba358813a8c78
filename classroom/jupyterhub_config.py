"""JupyterHub for one machine: the course for a class, each learner an ordinary system user.

Started by ``classroom/learn-pi-lab-hub.service`` (or by hand, as root)::

    /opt/learn-pi-lab/env/bin/jupyterhub -f /opt/learn-pi-lab/course/classroom/jupyterhub_config.py

What it sets up (docs/teacher.md walks through it):

* **Who logs in**: the machine's own accounts, with their own passwords (PAM, JupyterHub's
  ``PAMAuthenticator``): members of the group ``learners`` and of the group ``teachers``;
  teachers are the hub's admins. ``classroom/add-users`` makes such accounts.
* **What each one gets**: a JupyterLab server of their own, started as that user
  (JupyterHub's ``LocalProcessSpawner``), in their home folder, from the environment
  ``classroom/install`` made (``ENV`` below: the Python running this hub). Before it starts,
  the home folder is made private (``private_home``), so no learner can read another's work.
* **The course**: not installed per learner. The nbgitpuller link (``learn-pi-lab hub-link``)
  clones it into ``~/learn-pi-lab``; ``PYTHONPATH`` points there, so the notebooks, the check
  cells and ``make verify`` run the learner's own copy of the course with the hub's packages
  (``LEARN_PI_LAB_PYTHON`` tells the Makefile to use them instead of making a ``.venv``).
* **Idle servers stop** after an hour (``jupyterhub-idle-culler``): memory is what limits a
  machine (docs/teacher.md has the figures).

Settings a teacher may change are read from the environment (the service file sets them):
``LEARN_PI_LAB_EDITION`` (``zh`` or ``en``: the language of JupyterLab's menus and of the
reports in the terminal), ``LEARN_PI_LAB_HUB_STATE`` (where the hub keeps its database and
secret), ``LEARN_PI_LAB_HUB_URL`` (the address it listens on, default ``http://:8000``; put
it behind HTTPS, see docs/teacher.md). Anything else: JupyterHub's own options, on the
command line or below.
"""

import grp
import os
import pwd
import stat
import sys
from pathlib import Path

c = get_config()  # noqa: F821  (JupyterHub provides it)

ENV = Path(sys.prefix)          # the environment classroom/install made, running this hub
PREFIX = ENV.parent             # /opt/learn-pi-lab: env/, proxy/, course/
COURSE_FOLDER = "learn-pi-lab"  # where the nbgitpuller link puts the course in each home
EDITION = os.environ.get("LEARN_PI_LAB_EDITION", "zh")
STATE = Path(os.environ.get("LEARN_PI_LAB_HUB_STATE", "/var/lib/learn-pi-lab-hub"))
LEARNERS, TEACHERS = "learners", "teachers"
IDLE_MINUTES = 60

STATE.mkdir(mode=0o700, parents=True, exist_ok=True)

# --- the hub itself --------------------------------------------------------------------
c.JupyterHub.bind_url = os.environ.get("LEARN_PI_LAB_HUB_URL", "http://:8000")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.command = [str(PREFIX / "proxy" / "node_modules" / ".bin"
                                       / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

# --- who logs in -------------------------------------------------------------------------
def groups_that_exist(*names):
    """JupyterHub fails every login (an error 500) when an admin group does not exist:
    only the groups there are (classroom/install makes both; a new one needs a restart)."""
    found = set()
    for name in names:
        try:
            grp.getgrnam(name)
            found.add(name)
        except KeyError:
            print(f"learn-pi-lab: no group {name!r} on this machine (classroom/install "
                  f"makes it)", file=sys.stderr)
    return found


c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = groups_that_exist(LEARNERS, TEACHERS)
c.PAMAuthenticator.admin_groups = groups_that_exist(TEACHERS)

# --- each learner's server ---------------------------------------------------------------
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(ENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.http_timeout = 60
c.Spawner.start_timeout = 120


def home_of(spawner):
    return pwd.getpwnam(spawner.user.name).pw_dir


def course_in_home(spawner):
    """``~/learn-pi-lab``: the learner's copy of the course, first on ``PYTHONPATH``."""
    return os.path.join(home_of(spawner), COURSE_FOLDER)


c.Spawner.environment = {
    "PYTHONPATH": course_in_home,
    "LEARN_PI_LAB_PYTHON": str(ENV / "bin" / "python"),   # make verify: the hub's packages
    "LEARN_PI_LAB_EDITION": EDITION,                      # menus and reports in this language
    "PATH": f"{ENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
}


def private_home(spawner):
    """Before a server starts: its user's home folder readable by that user alone (some
    systems make homes readable by everyone: Debian's ``useradd -m`` does)."""
    home = home_of(spawner)
    mode = os.stat(home).st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        os.chmod(home, stat.S_IMODE(mode) & ~(stat.S_IRWXG | stat.S_IRWXO))
        spawner.log.info("learn-pi-lab: made %s private (it was %o)", home, stat.S_IMODE(mode))


c.Spawner.pre_spawn_hook = private_home

# --- idle servers stop ---------------------------------------------------------------------
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [str(ENV / "bin" / "python"), "-m", "jupyterhub_idle_culler",
                f"--timeout={IDLE_MINUTES * 60}"],
}]
