# learn-pi-lab. Two commands do everything on a fresh clone:
#   make lab    create the environment (first time only) and open the workbook in JupyterLab
#   make test   run every test: models, harness, notebooks, and the browser test when chromium is present
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# On a classroom hub (classroom/jupyterhub_config.py) the course runs on the hub's environment:
# LEARN_PI_LAB_PYTHON names its Python, and make uses it instead of making a .venv of its own
ifneq ($(strip $(LEARN_PI_LAB_PYTHON)),)
PY     := $(LEARN_PI_LAB_PYTHON)
STAMP  :=
endif
LANG_EDITION ?= zh
EX ?=

.PHONY: env lab test test-fast test-notebooks test-browser test-classroom verify bench notebooks clean pi-diff

env: $(STAMP)

ifneq ($(STAMP),)
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[workbook,test]'
	$(PY) -m ipykernel install --sys-prefix --name python3 > /dev/null
	touch $(STAMP)
endif

# JupyterLab's root is the repository (both editions, workspace/, docs/), landing on chapter 00
# of LANG_EDITION; the launcher adds --allow-root when run as root. The browser test uses it too.
lab: $(STAMP)
	$(PY) -m learn_pi_lab.course.lab --edition $(LANG_EDITION)

test: $(STAMP)
	$(PY) tools/run_tests.py

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not browser and not classroom" --ignore=tests/test_notebooks_execute.py

test-browser: $(STAMP)
	$(PY) -m pytest -v -m browser tests

# The classroom's tests: the end to end one (pytest marker "classroom": a real JupyterHub on
# 127.0.0.1, system accounts, chromium; as root) and collect, the report, the link, course
# updates, the Binder recipe. make test runs them too; docs/teacher.md says what they cover.
test-classroom: $(STAMP)
	$(PY) -m pytest -v tests/test_classroom_*.py

# The report's language: LANG_EDITION when given to make (make verify LANG_EDITION=zh), else
# the edition `make lab` opened (a terminal inside that JupyterLab), else the locale.
verify: $(STAMP)
	$(PY) -m learn_pi_lab verify $(if $(filter command line environment,$(origin LANG_EDITION)),--lang $(LANG_EDITION)) $(if $(EX),--exercise $(EX))

bench: $(STAMP)
	$(PY) bench/run.py

# The library against Pi's own code (0.84.2 and 1.6.0, installed by npm) on N generated cases
pi-diff: $(STAMP)
	PI_DIFF_CASES=$(or $(N),2000) $(PY) -m pytest -q tests/test_pi_differential.py tests/test_pi_generated.py

notebooks: $(STAMP)
	$(PY) tools/build_notebooks.py

clean:
	rm -rf .verify artifacts .pytest_cache
