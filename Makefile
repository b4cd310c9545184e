# Quickstart: `make demo` and `make test` on a fresh machine; both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
CONSTRAINTS := constraints.txt
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-fast bench lint clean

$(STAMP): setup.cfg setup.py $(CONSTRAINTS) requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel
	$(PIP) install -q -c $(CONSTRAINTS) torch==2.13.0
	$(PIP) install -q -c $(CONSTRAINTS) -r requirements-dev.txt
	$(PIP) install -q -c $(CONSTRAINTS) --no-build-isolation -e ".[transformers,docmatch,distributed,review,datasets,test]"
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(PY) -m spacy_simalign demo

test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow and not browser"

# Speed and memory targets are checked here, never by timed unit tests: each script prints a table.
bench: $(STAMP)
	$(PY) project/bench_crf.py
	$(PY) project/bench_align_scale.py --method crf --pairs 1000 --big 5000
	$(PY) project/bench_docmatch.py

lint: $(STAMP)
	$(PY) -m ruff check spacy_simalign project tests

clean:
	rm -rf $(VENV) build dist *.egg-info
