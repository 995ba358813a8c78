"""The course's settings for every learner's JupyterLab on a hub or on Binder.

``classroom/install`` copies this file into the environment
(``<env>/etc/jupyter/jupyter_server_config.py``) and ``binder/postBuild`` into the image's,
so each server started from that environment reads it. It gives a learner's JupyterLab what
``make lab`` gives one on their own machine (``learn_pi_lab/course/lab.py``):

* menus in the edition's language (``LEARN_PI_LAB_EDITION``: ``zh``, the default, or ``en``;
  a learner can still choose another in Settings -> Language);
* no request to the internet for news or updates;
* a chapter the learner only ran is saved back as it is on disk, so outputs and timings do
  not turn every notebook into a local change that the next course update must merge.
"""

import os

c = get_config()  # noqa: F821  (Jupyter provides it)

c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.handlers.announcements.NeverCheckForUpdate"

try:   # the course's own code, from the learner's copy or the environment's
    from learn_pi_lab.course.lab import settings_dir, without_run_noise
except ImportError:   # (a server started from another environment: nothing to add)
    pass
else:
    c.FileContentsManager.pre_save_hook = without_run_noise
    edition = os.environ.get("LEARN_PI_LAB_EDITION", "zh")
    if edition in ("zh", "en"):
        c.LabApp.app_settings_dir = str(settings_dir(edition))
