# Quickstart: `make demo` and `make test` on a fresh machine; both set up .venv first.
# `make demo` installs only the package's required dependencies (what aligning needs: no torch,
# transformers, Dask, Flask, ...); `make test` adds every extra (training's torch among them) and
# the test tools and runs the fast tests; `make test-all` runs them and then the slow and browser tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
CONSTRAINTS := constraints.txt
BASE_STAMP := $(VENV)/.installed-base
STAMP := $(VENV)/.installed

.PHONY: setup setup-base setup-align demo test test-slow test-all browser bench bench-startup bench-peers lint format clean

$(BASE_STAMP): setup.cfg setup.py $(CONSTRAINTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel
	$(PIP) install -q -c $(CONSTRAINTS) --no-build-isolation -e .
	touch $(BASE_STAMP)

$(STAMP): $(BASE_STAMP) requirements-dev.txt
	$(PIP) install -q -c $(CONSTRAINTS) -r requirements-dev.txt
	$(PIP) install -q -c $(CONSTRAINTS) --no-build-isolation -e ".[train,transformers,docmatch,distributed,review,datasets,test]"
	touch $(STAMP)

setup-base: $(BASE_STAMP)

setup: $(STAMP)

demo: $(BASE_STAMP)
	$(PY) -m spacy_simalign demo

# Markers in setup.cfg. pytest's exit status 5 ("no test selected") is not a failure here.
PYTEST := $(PY) -m pytest -q -p no:cacheprovider --durations=15
CHROMIUM := /usr/bin/chromium

# The fast tests run on TEST_WORKERS processes (pytest-xdist); the slow ones one at a time, since
# some of them measure memory and time or start threads and worker processes of their own.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(PYTEST) -n $(TEST_WORKERS) -m "not slow and not browser" || test $$? -eq 5

test-slow: $(STAMP) $(CHROMIUM)
	$(PYTEST) -m "slow or browser" || test $$? -eq 5

# Everything: the fast tests, then the rest (`make test test-all` runs the fast ones once).
test-all: test test-slow

# The browser tests drive Debian's chromium through Playwright (no Playwright browser download).
browser: $(CHROMIUM)

$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo="sudo -n"; \
	else echo "error: installing chromium for the browser tests needs root or sudo"; exit 2; fi; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
	test -x $(CHROMIUM)

# Speed and memory are measured here, never by timed unit tests: the `benchmarks` workflow of
# benchmarks/project.yml (startup, CRF, scale, docmatch, long sentence, hostile input), run in
# benchmarks/; each command prints its table and writes it under benchmarks/metrics/bench/. The data
# sets are read from ../shared/data, or from SIMALIGN_SHARED_DATA when it is set (vars.shared). Its
# commands run `env PYTHONPATH=helpers python`: the venv's bin first on PATH makes that python ours.
BENCH_VARS := $(if $(SIMALIGN_SHARED_DATA),--vars.shared $(abspath $(SIMALIGN_SHARED_DATA)))
BENCH_RUN := cd benchmarks && PATH=$(abspath $(VENV))/bin:$$PATH $(abspath $(PY)) -m spacy project run

bench: $(STAMP)
	$(BENCH_RUN) benchmarks . $(BENCH_VARS)

bench-startup: $(BASE_STAMP)
	$(BENCH_RUN) bench-startup . $(BENCH_VARS)

# bertalign against our aligners on the same USE encoder, every gold set at hand (benchmarks/project.yml's
# bench-peers command, benchmarks/scripts/bench_peers.py): writes benchmarks/metrics/bench/peers.{md,json}
# and rewrites the peer tables of README.md and docs/results.md. Not part of `make test` or `make bench`: it
# builds its own venvs, .venv-peers with Python 3.12 (bertalign 2.0.1 needs it) and .venv-align
# (ours as a user installs it), and runs without the embedding cache so that the whole times
# include encoding.
PEERS_VENV := .venv-peers
PEERS_STAMP := $(PEERS_VENV)/.installed
PYTHON312 ?= $(shell python3.12 -c 'import sys; print(sys.executable)' 2>/dev/null || \
	{ v=$$(pyenv versions --bare 2>/dev/null | grep '^3\.12' | tail -1); test -n "$$v" && \
	PYENV_VERSION=$$v python3.12 -c 'import sys; print(sys.executable)' 2>/dev/null; })

# Ours in the peer table runs as a user installs it: the required dependencies only (no torch,
# which spaCy's thinc imports whenever it is installed), in a venv of its own.
ALIGN_VENV := .venv-align
ALIGN_STAMP := $(ALIGN_VENV)/.installed

$(ALIGN_STAMP): setup.cfg setup.py $(CONSTRAINTS)
	test -x $(ALIGN_VENV)/bin/python || $(PYTHON) -m venv $(ALIGN_VENV)
	$(ALIGN_VENV)/bin/python -m pip install -q --upgrade pip setuptools wheel
	$(ALIGN_VENV)/bin/python -m pip install -q -c $(CONSTRAINTS) --no-build-isolation -e .
	touch $(ALIGN_STAMP)

setup-align: $(ALIGN_STAMP)

$(PEERS_STAMP): benchmarks/requirements-peers.txt
	@test -n "$(PYTHON312)" || { echo "error: python3.12 not found: make bench-peers PYTHON312=/path/to/python3.12"; exit 2; }
	test -x $(PEERS_VENV)/bin/python || $(PYTHON312) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install -q --no-deps -r benchmarks/requirements-peers.txt
	touch $(PEERS_STAMP)

bench-peers: $(STAMP) $(PEERS_STAMP) $(ALIGN_STAMP)
	env -u SPACY_SIMALIGN_CACHE sh -c '$(BENCH_RUN) bench-peers . $(BENCH_VARS)'

# ruff over the code, then mypy over the package (setup.cfg's [mypy]: files and options).
lint: $(STAMP)
	$(PY) -m ruff check spacy_simalign project benchmarks lab tests
	$(PY) -m ruff format --check spacy_simalign project benchmarks lab tests
	$(PY) -m mypy

format: $(STAMP)
	$(PY) -m ruff format spacy_simalign project benchmarks lab tests

clean:
	rm -rf $(VENV) $(PEERS_VENV) $(ALIGN_VENV) build dist *.egg-info
