"""The learners' environment everywhere but one machine: Binder and Zero to JupyterHub.

One recipe, ``binder/`` (repo2docker's configuration files), makes the image of both; what
can be checked without Docker or Kubernetes is checked here: repo2docker itself reads the
recipe (``jupyter-repo2docker --no-build``, which writes the Dockerfile it would build) and
it says what the course needs; the start script and ``postBuild`` do what they say; the
single-user settings file loads and gives JupyterLab the course's settings; the Zero to
JupyterHub values name the course folder the link uses. Building and running the image and
installing the chart are documented with their exact commands (docs/teacher.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn_pi_lab.classroom.link import COURSE_FOLDER
from learn_pi_lab.course.lab import settings_dir, without_run_noise
from tests.browser_support import REPO, copy_repo

REPO2DOCKER = Path(sys.executable).parent / "jupyter-repo2docker"


@pytest.fixture(scope="module")
def dockerfile(tmp_path_factory) -> str:
    if not REPO2DOCKER.exists():
        pytest.fail("jupyter-repo2docker is missing: it is in the test extra (make env)")
    course = copy_repo(tmp_path_factory.mktemp("recipe"))
    done = subprocess.run([str(REPO2DOCKER), "--no-build", "--debug", "--user-id", "1000",
                           "--user-name", "jovyan", str(course)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Building conda environment for python=3.11" in done.stderr + done.stdout
    return done.stdout


def test_repo2docker_reads_the_recipe(dockerfile):
    lines = dockerfile.splitlines()
    apt = next(line for line in lines if "apt-get install --yes" in line and "fonts" in line)
    assert "fonts-noto-cjk" in apt and "bubblewrap" in apt
    copy_course = lines.index("COPY --chown=1000:1000 src/ ${REPO_DIR}/")
    install = next(number for number, line in enumerate(lines)
                   if 'pip install --no-cache-dir -r "binder/requirements.txt"' in line)
    assert install > copy_course, "requirements.txt installs the course: it must come after it"
    assert lines.index("RUN ./binder/postBuild") > install
    assert 'ENV R2D_ENTRYPOINT="${REPO_DIR}/binder/start"' in lines


def test_the_requirements_install_the_course_with_its_notebooks_packages():
    wanted = [line for line in (REPO / "binder" / "requirements.txt").read_text().splitlines()
              if line and not line.startswith("#")]
    assert wanted == ["-e .[workbook]", "nbgitpuller>=1.2"]


def test_the_start_script_points_make_at_the_images_python():
    done = subprocess.run([str(REPO / "binder" / "start"), "env"], capture_output=True,
                          text=True, env={"PATH": os.environ["PATH"],
                                          "NB_PYTHON_PREFIX": "/srv/conda/envs/notebook"})
    values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    assert values["LEARN_PI_LAB_PYTHON"] == "/srv/conda/envs/notebook/bin/python"
    assert values["LEARN_PI_LAB_EDITION"] == "zh"


def test_post_build_puts_the_settings_into_the_images_jupyter(tmp_path):
    prefix = tmp_path / "env"
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python").write_text(f"#!/bin/sh\necho {prefix}\n")   # what `python` answers
    (shim / "python").chmod(0o755)
    done = subprocess.run([str(REPO / "binder" / "postBuild")], cwd=REPO, capture_output=True,
                          text=True, env={"PATH": f"{shim}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    assert (prefix / "etc" / "jupyter" / "jupyter_server_config.py").read_bytes() == \
        (REPO / "classroom" / "jupyter_server_config.py").read_bytes()


@pytest.mark.parametrize("edition", ["zh", "en"])
def test_the_server_settings_give_jupyterlab_what_make_lab_gives(edition, monkeypatch):
    from traitlets.config.loader import PyFileConfigLoader
    monkeypatch.setenv("LEARN_PI_LAB_EDITION", edition)
    config = PyFileConfigLoader("jupyter_server_config.py",
                                path=str(REPO / "classroom")).load_config()
    assert config.FileContentsManager.pre_save_hook is without_run_noise
    assert config.LabApp.app_settings_dir == str(settings_dir(edition))
    assert config.LabApp.news_url is None


def test_the_zero_to_jupyterhub_values_use_the_links_course_folder():
    from ruamel.yaml import YAML
    values = YAML(typ="safe").load((REPO / "classroom" / "z2jh" / "config.yaml").read_text())
    single = values["singleuser"]
    assert single["extraEnv"]["PYTHONPATH"] == f"/home/jovyan/{COURSE_FOLDER}"
    assert single["defaultUrl"] == "/lab"
    assert single["memory"]["limit"] and single["memory"]["guarantee"]
    assert values["cull"]["enabled"] is True
    text = (REPO / "classroom" / "z2jh" / "config.yaml").read_text()
    assert "--target-repo-dir /srv/learn-pi-lab" in text   # the course outside the home
