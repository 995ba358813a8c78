# learn-pi-lab. Two commands do everything on a fresh clone:
#   make lab    create the environment (first time only) and open the workbook in JupyterLab
#   make test   run every test: models, harness, notebooks, and the browser test when chromium is present
PYTHON ?= python3
VENV   ?= .venv
LANG_EDITION ?= zh
EX ?=

.PHONY: env lab test test-fast test-grading test-browser test-classroom verify bench notebooks clean pi-diff

ifdef LEARN_PI_LAB_PYTHON
# A prepared environment names its Python (JupyterHub, Binder: classroom/): nothing to create
PY    := $(LEARN_PI_LAB_PYTHON)
STAMP :=
env:
else
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

env: $(STAMP)

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
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not browser and not classroom" --ignore=tests/test_notebooks_execute.py

# Grading alone (the harness, the sandbox, a class with cheats in it): tests/test_harness_*.py
test-grading: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist loadfile $(wildcard tests/test_harness_*.py)

test-browser: $(STAMP)
	$(PY) -m pytest -v -m browser tests

# The course on a real JupyterHub (classroom/): learners log in, follow the nbgitpuller link,
# answer; the teacher collects and grades. Needs root (it creates system users), node, npm
test-classroom: $(STAMP)
	$(PY) -m pytest -v -p no:cacheprovider -m classroom tests

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
	$(PY) tools/build_teacher_notebooks.py

clean:
	rm -rf .verify artifacts .pytest_cache
