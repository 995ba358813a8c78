"""JupyterHub for learn-pi-lab on one machine: the learners are the machine's own users.

    sudo classroom/hub/install.sh                      # once: /opt/learn-pi-lab
    sudo /opt/learn-pi-lab/venv/bin/jupyterhub -f classroom/hub/jupyterhub_config.py

Who may log in: the members of one Unix group (``LEARN_PI_LAB_HUB_GROUP``, default
``learn-pi-lab``), with their own login password (PAM, the machine's own accounts); the
teachers (``LEARN_PI_LAB_HUB_TEACHERS``, comma-separated user names) are the hub's admins.
Each learner's JupyterLab runs as that learner, in their home folder (made private before it
starts, if it was not), from the environment
``install.sh`` made; the course arrives there through an nbgitpuller link
(``python -m learn_pi_lab link``) into ``~/learn-pi-lab``, and a learner's kernels and
terminals import the course from that copy, so ``make verify`` and the check cells grade
the learner's own ``workspace/``. The teacher's page says the rest (docs/teacher.md).

Settings, from the environment of the hub's process (every one has a default):

=============================  ===========================================================
``LEARN_PI_LAB_HUB_PREFIX``    where install.sh installed (``/opt/learn-pi-lab``)
``LEARN_PI_LAB_HUB_STATE``     the hub's database and cookie secret (``/var/lib/learn-pi-lab-hub``)
``LEARN_PI_LAB_HUB_URL``       where the hub listens (``http://127.0.0.1:8000``: put HTTPS in front)
``LEARN_PI_LAB_HUB_GROUP``     the learners' (and teachers') Unix group (``learn-pi-lab``)
``LEARN_PI_LAB_HUB_TEACHERS``  the hub's admins, comma-separated (none)
``LEARN_PI_LAB_HUB_EDITION``   JupyterLab's menus: ``zh`` (default) or ``en``
``LEARN_PI_LAB_HUB_IDLE_MINUTES`` a learner's server idle this long is stopped (60)
``LEARN_PI_LAB_HUB_EXTRA``     a JupyterHub config file of your own, read last (HTTPS, ports...)
=============================  ===========================================================
"""

import os
import pwd
import stat
from pathlib import Path

from learn_pi_lab.course.lab import settings_dir

c = get_config()  # noqa: F821  (JupyterHub defines it when it reads this file)

PREFIX = Path(os.environ.get("LEARN_PI_LAB_HUB_PREFIX", "/opt/learn-pi-lab"))
STATE = Path(os.environ.get("LEARN_PI_LAB_HUB_STATE", "/var/lib/learn-pi-lab-hub"))
GROUP = os.environ.get("LEARN_PI_LAB_HUB_GROUP", "learn-pi-lab")
TEACHERS = {name.strip() for name in os.environ.get("LEARN_PI_LAB_HUB_TEACHERS", "").split(",")
            if name.strip()}
EDITION = os.environ.get("LEARN_PI_LAB_HUB_EDITION", "zh")
COURSE_FOLDER = "learn-pi-lab"   # in each home: the nbgitpuller link's targetPath
VENV = PREFIX / "venv"

# -- the hub ------------------------------------------------------------------------------
c.JupyterHub.bind_url = os.environ.get("LEARN_PI_LAB_HUB_URL", "http://127.0.0.1:8000")
STATE.mkdir(mode=0o700, parents=True, exist_ok=True)
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.command = [str(PREFIX / "proxy" / "node_modules" / ".bin"
                                       / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

# -- who may log in: the machine's own accounts, one group ---------------------------------
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {GROUP}
c.Authenticator.admin_users = TEACHERS

# -- each learner's JupyterLab: their own process, in their home ---------------------------
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.args = [
    # a chapter only opened or run is saved back as it is, so the next nbgitpuller link
    # meets no change of the learner's in it (learn_pi_lab.course.lab.without_run_noise)
    "--ContentsManager.pre_save_hook=learn_pi_lab.course.lab.without_run_noise",
    f"--LabApp.app_settings_dir={settings_dir(EDITION)}",   # JupyterLab's menus
]


def course_copy(spawner) -> str:
    """The learner's copy of the course (nbgitpuller's target in their home)."""
    return str(Path(pwd.getpwnam(spawner.user.name).pw_dir) / COURSE_FOLDER)


c.Spawner.environment = {
    "PYTHONPATH": course_copy,                 # the learner's copy first, then the installed one
    "PATH": f"{VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
    "LEARN_PI_LAB_PYTHON": str(VENV / "bin" / "python"),   # make verify: no .venv to create
    "LEARN_PI_LAB_EDITION": EDITION,           # the reports' language in a terminal
}


def private_home(spawner) -> None:
    """Before a learner's JupyterLab starts: their home readable by them alone. An account
    made with ``useradd -m`` without ``HOME_MODE=0700`` (Debian's default gives 0755) would
    let every classmate read its answers; the hub closes it rather than trust each account."""
    home = pwd.getpwnam(spawner.user.name).pw_dir
    mode = stat.S_IMODE(os.stat(home).st_mode)
    if mode & 0o077:
        os.chmod(home, mode & 0o700)
        spawner.log.info("learn-pi-lab: %s was mode %o, now %o (private)", home, mode,
                         mode & 0o700)


c.Spawner.pre_spawn_hook = private_home

# -- idle learners' servers stop (memory is what one machine runs out of: docs/teacher.md) ---
IDLE_MINUTES = int(os.environ.get("LEARN_PI_LAB_HUB_IDLE_MINUTES", "60"))
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [str(VENV / "bin" / "python"), "-m", "jupyterhub_idle_culler",
                f"--timeout={IDLE_MINUTES * 60}"],
}]

# -- your own settings, last ---------------------------------------------------------------
if os.environ.get("LEARN_PI_LAB_HUB_EXTRA"):
    load_subconfig(os.environ["LEARN_PI_LAB_HUB_EXTRA"])  # noqa: F821  (JupyterHub's)
