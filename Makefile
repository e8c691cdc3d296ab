# Two commands: `make report` and `make test`. Both set up the environment first.
#
# With no virtual or conda environment active, a .venv is made with the standard library's venv;
# with one active, it is used as it is. `pip install -e ".[all]"` runs again only when
# pyproject.toml changed since the last install.

SHELL := /bin/bash
PYTHON ?= python3

ACTIVE_ENV := $(strip $(or $(VIRTUAL_ENV),$(CONDA_PREFIX)))
ifeq ($(ACTIVE_ENV),)
  ENV_DIR := .venv
  PY := $(ENV_DIR)/bin/python
else
  ENV_DIR := $(ACTIVE_ENV)
  PY := python
endif
STAMP := $(ENV_DIR)/.privlib-installed

# OpenMP threads that wait passively: the tests run two notebooks at a time on two cores, and
# actively waiting threads of one slow down the other many times over.
export OMP_WAIT_POLICY ?= passive

# Reports go to reports/out/ (git-ignored): `make report` writes reports/out/acs/, `make reports`
# reports/out/<dataset>/ for every bundled dataset, each with its course in course/.
REPORT_PARAMS ?= reports/params/acs.yaml
REPORT_OUT ?= reports/out
REPORT_DIR := $(REPORT_OUT)/$(basename $(notdir $(REPORT_PARAMS)))

.PHONY: all env test unit lint notebooks report reports benchmark pins clean help

help:
	@echo "make test     set up the environment; lint, type-check, run the unit tests and the notebooks"
	@echo "make lint     ruff check, ruff format --check and mypy"
	@echo "make unit     the fast tests: no notebook, no whole audit (pytest -m 'not notebook and not slow')"
	@echo "make report   set up the environment and write the default audit to $(REPORT_DIR)/"
	@echo "make reports  render the audit and the course for every bundled dataset"
	@echo "make benchmark  time the neighbour engine (writes benchmarks/README.md)"
	@echo "make pins     rewrite tests/pinned_audit_metrics.json from fresh audits; prints the diff"

env: $(STAMP)

.venv/bin/python:
	$(PYTHON) -m venv .venv

$(STAMP): pyproject.toml | $(if $(ACTIVE_ENV),,.venv/bin/python)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e ".[all]"
	touch $(STAMP)

# The linter, the formatter's check and the type checker (configured in pyproject.toml).
lint: $(STAMP)
	$(PY) -m ruff check privlib tests benchmarks
	$(PY) -m ruff format --check privlib tests benchmarks
	$(PY) -m mypy

# The lint, the unit tests, the docstring examples of the library, and every notebook under nbval.
# PRIVLIB_COURSE_QUICK=1: a lesson stored with its full experiment (quick = False) runs here on its
# quick settings (notebooks/CONVENTIONS.md).
test: lint
	PRIVLIB_COURSE_QUICK=1 MPLBACKEND=Agg $(PY) -m pytest privlib tests notebooks --doctest-modules --nbval-lax \
		--nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg -p no:cacheprovider --durations=30

# Everything but the tests that execute notebooks or a whole audit end to end (marked `notebook`
# and `slow`; `make test` runs them): a fast loop for contributors. One worker per core (pytest-xdist),
# each test file on one worker so that a file's module-scoped data is made once. Bytecode is
# cached (__pycache__, git-ignored) even where PYTHONDONTWRITEBYTECODE is set: without it, every
# worker compiles the kit and rewrites every test module on every run (about 2 s each).
unit: $(STAMP)
	PYTHONDONTWRITEBYTECODE= MPLBACKEND=Agg $(PY) -m pytest privlib tests --doctest-modules \
		-m "not notebook and not slow" -n auto --dist loadfile

notebooks: $(STAMP)
	PRIVLIB_COURSE_QUICK=1 MPLBACKEND=Agg $(PY) -m pytest notebooks --nbval-lax --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg

report: $(STAMP)
	MPLBACKEND=Agg $(PY) -m privlib.cli audit --params $(REPORT_PARAMS) --out $(REPORT_DIR)

reports: $(STAMP)
	MPLBACKEND=Agg $(PY) -m privlib.cli reports --out $(REPORT_OUT)

benchmark: $(STAMP)
	$(PY) benchmarks/neighbors.py

# The pinned numbers of the ACS and Adult audits, rewritten from fresh audits, with the diff printed
# for review (a pin changes only where a measure or a rule changed on purpose).
pins: $(STAMP)
	MPLBACKEND=Agg PYTHONPATH=$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH} $(PY) tests/pins.py

clean:
	rm -rf .venv .pytest_cache build dist *.egg-info

# The course (issue 16): lesson slides, the course site and its build test. Output is git-ignored.
COURSE_OUT ?= build/course-site

.PHONY: course-slides course-site site-test

course-slides: $(STAMP)
	MPLBACKEND=Agg $(PY) -c "from pathlib import Path; from privlib.slides import render_slides; \
		[print(render_slides(nb, Path('build/slides') / (nb.stem + '.html'))) for nb in sorted(Path('notebooks').glob('[0-9][0-9]_*.ipynb'))]"

course-site: $(STAMP)
	MPLBACKEND=Agg $(PY) -c "from privlib.site import build_site; print(build_site('.', '$(COURSE_OUT)'))"

site-test: $(STAMP)
	PRIVLIB_SITE_FULL=1 MPLBACKEND=Agg $(PY) -m pytest tests/test_site.py -q -p no:cacheprovider
