# The two commands of the README: `make demo` and `make test`. The other targets are their steps.
# Downloads (pip wheels, Maven jars) are cached in $(CACHE), outside the clone.

SHELL := /bin/bash
PYTHON ?= python3
CACHE ?= $(or $(RECONCILER_CACHE),$(HOME)/.cache/reconciler)
export RECONCILER_CACHE := $(CACHE)
export PIP_CACHE_DIR := $(CACHE)/pip
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test env kafka lint schemas

demo: kafka
	BIN=$(CURDIR)/$(BIN) scripts/demo.sh

test: kafka lint
	$(BIN)/pytest

env: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "reconciler needs Python 3.11 or newer: install it and run again (or set PYTHON=python3.11).")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	@touch $@

kafka: env
	$(BIN)/reconciler local fetch

lint: env
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The top-level schemas/ are the source; the package ships copies (tests/adopt/test_packaging.py).
schemas:
	cp schemas/*.json reconciler/schemas/
