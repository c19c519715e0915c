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
# the hash-locked runtime dependencies (`make lock`, below)
LOCK := reconciler/scaffold/reconciler-requirements.txt

.PHONY: demo test check compat env kafka lint schemas

demo: kafka
	BIN=$(CURDIR)/$(BIN) scripts/demo.sh

# The suite waits on brokers, JVMs and child processes more than it computes (a serial run used
# half a core): it runs on $(TEST_WORKERS) pytest-xdist workers, each file whole on one
# (tests/worker_groups.py); each worker starts its own kafka1/kafka3. TEST_WORKERS=0: one process.
# Everything but the `matrix` tests (a Spark version or a way to deploy the fleet job, each in a
# JVM of its own), which `make compat` runs: docs/testing.md. Three workers on 2 cores: with two,
# after issue 40's cuts, the cores were idle 28% of the run (vmstat), the workers waiting on
# brokers and child processes; a third uses that (docs/testing.md, "make test under 20 minutes").
TEST_WORKERS ?= 3

# Every test run compiles each module once, into $(PYCACHE) outside the clone, even where
# PYTHONDONTWRITEBYTECODE is set: without bytecode every worker compiled (and assertion-rewrote)
# every module at each run, and every CLI run or JVM-launching Python a test spawns compiled
# reconciler again (docs/testing.md).
PYCACHE := $(CACHE)/pycache
COMPILED := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(PYCACHE)

test: kafka lint actionlint
	$(COMPILED) $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile -m "not matrix"

# The fast loop: lint, types and every test that starts no Kafka broker or Spark JVM and is not
# marked slow (tests/conftest.py marks them all), on $(CHECK_WORKERS) pytest-xdist workers,
# each test sent to whichever is free. `make test` is the whole suite, as CI runs it.
CHECK_WORKERS ?= 2

# Its property tests draw a fifth of their examples (the `check` profile, tests/conftest.py).
check: lint
	$(COMPILED) $(BIN)/pytest -q -m "not kafka and not spark and not slow" -p no:cacheprovider \
	  --hypothesis-profile=check -n $(CHECK_WORKERS) --dist load

# The version and deployment matrix, as one pytest run on the scheduler of `make test`
# (tests/worker_groups.py), $(COMPAT_WORKERS) units at a time: docs/compatibility.md.
# - the core journey (tests/compat/test_journey.py, marked `journey`) on the newest patch of every
#   minor Kafka line, 2.4 to 4.4 (MATRIX in tests/compat/conftest.py), each version's cluster
#   started once, ZooKeeper mode before 3.9 (`make test` runs only the ends); the jars are
#   fetched first (cached after); COMPAT_BROKERS=3: on three racked brokers;
# - the `matrix` tests: the fleet job on PySpark 3.5 (.venv-spark35, `make spark35`) and 4.x, on
#   a standalone cluster, through spark-submit, over s3a://, and from the installed wheel.
# CI runs it after `make test`.
COMPAT_WORKERS ?= 2
COMPAT_BROKERS ?= 2
COMPAT_VERSIONS ?= matrix

compat: env spark35
	@versions='$(COMPAT_VERSIONS)'; [ "$$versions" != matrix ] || \
	  versions=$$($(BIN)/python -c 'from tests.compat.conftest import MATRIX; print(*MATRIX)'); \
	for v in $${versions//,/ }; do $(BIN)/reconciler local fetch --kafka-version $$v || exit 1; done
	$(COMPILED) $(BIN)/pytest tests -m "journey or matrix" -p no:cacheprovider \
	  --kafka-versions=$(COMPAT_VERSIONS) --kafka-brokers=$(COMPAT_BROKERS) \
	  $(if $(filter 0,$(COMPAT_WORKERS)),,-n $(COMPAT_WORKERS) --dist loadfile)

env: $(STAMP)

# The runtime dependencies are installed at the versions of the lock (LOCK, below), so the
# suite tests what a release pins: the lock's pins, without its hashes, as constraints
# (hash-checking mode cannot install the editable checkout), from a wheelhouse in $(CACHE)
# built once per pyproject.toml and lock (scripts/make_env.sh).
$(STAMP): pyproject.toml $(LOCK) scripts/make_env.sh
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "reconciler needs Python 3.11 or newer: install it and run again (or set PYTHON=python3.11).")'
	PYTHON=$(PYTHON) VENV=$(VENV) LOCK=$(LOCK) scripts/make_env.sh
	@touch $@

# The lock: every runtime dependency of pyproject.toml, transitively, pinned, with the sha256 of
# every file of that version on PyPI (wheels for each platform and Python, and the sdist), for
# CPython 3.11 and newer on any platform (uv's universal resolution). Shipped in the package
# (init writes it into spec repositories; the workflows install with --require-hashes from it)
# and attached to each release. Existing pins are kept; `make lock UPGRADE=1` moves them to the
# newest releases allowed. tests/adopt/test_release.py checks it against pyproject.toml.
export UV_CACHE_DIR := $(CACHE)/uv

.PHONY: lock release
lock: env
	$(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
	  --custom-compile-command 'make lock' --quiet $(if $(UPGRADE),--upgrade,) -o $(LOCK)

# The release's three files in dist/: the wheel, the sdist and the lock
# (kafka_topic_reconciler-VERSION-requirements.txt), and SHA256SUMS of the three (the wheel's
# hash is what the workflows' package-sha256 input takes). .github/workflows/release.yml runs
# the same script, then attaches them to the GitHub release and publishes to PyPI.
release: env
	$(BIN)/python scripts/release.py dist

kafka: env
	$(BIN)/reconciler local fetch

# lint-imports checks the layer contracts of pyproject.toml ([tool.importlinter]); --no-cache
# leaves no cache folder in the clone (it takes well under a second without).
lint: env
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# The top-level schemas/ are the source; the package ships copies (tests/adopt/test_packaging.py).
schemas:
	cp schemas/*.json reconciler/schemas/

# topics.schema.json is generated from the config catalog (tests/spec/test_schema_gen.py checks it).
.PHONY: topics-schema
topics-schema: env
	$(BIN)/python -m reconciler.spec.schema_gen > schemas/topics.schema.json
	cp schemas/topics.schema.json reconciler/schemas/

# actionlint, the GitHub workflow linter tests/adopt/test_workflows.py runs on the workflows (with
# ShellCheck from the dev dependencies on their scripts): built from source at the pinned version
# with Go 1.25+ into the cache, once; the exported path tells the tests where it is.
ACTIONLINT_VERSION := v1.7.12
export ACTIONLINT := $(CACHE)/go/actionlint-$(ACTIONLINT_VERSION)/actionlint
GO ?= $(or $(shell command -v go 2>/dev/null),/usr/local/go/bin/go)

.PHONY: actionlint
actionlint: $(ACTIONLINT)

$(ACTIONLINT):
	@test -x "$(GO)" || { echo "make actionlint needs Go 1.25 or newer: put go on PATH or set GO=/path/to/go" >&2; exit 1; }
	GOPATH=$(CACHE)/go GOMODCACHE=$(CACHE)/go/mod GOCACHE=$(CACHE)/go/build GOFLAGS=-modcacherw \
	  GOBIN=$(dir $(ACTIONLINT)) $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# The fleet job runs on PySpark 3.5 as well as on the 4.x of .venv (`make compat` proves it): a
# second virtualenv with the newest 3.5 patch and reconciler (editable), in which
# tests/fleet/test_spark_versions.py runs the same job on the same snapshots and compares the
# tables, and type-checks the job against PySpark 3.5's annotations (hence the stubs mypy needs
# beside them). pyspark is a ~300 MB source distribution: pip builds its wheel once into
# $(PIP_CACHE_DIR), then reuses it.
SPARK35_VERSION := 3.5.9
SPARK35 := .venv-spark35
export RECONCILER_SPARK35 := $(CURDIR)/$(SPARK35)/bin/python

.PHONY: spark35
spark35: $(SPARK35)/.installed-$(SPARK35_VERSION)

# (named by the version: a new one installs again; so does a change of pyproject.toml)
$(SPARK35)/.installed-$(SPARK35_VERSION): pyproject.toml
	$(PYTHON) -m venv $(SPARK35)
	$(SPARK35)/bin/pip install -q --upgrade pip
	$(SPARK35)/bin/pip install -q -e . 'pyspark==$(SPARK35_VERSION)' 'matplotlib>=3.9' \
	  types-PyYAML types-jsonschema types-regex
	@touch $@
