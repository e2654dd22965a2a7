# Two commands for a fresh machine: `make demo` and `make test`.
# Both create .venv if it is missing and install the package with the pinned stack
# (constraints.txt holds the one pin of torch/torchaudio 2.9.1).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test test-fast demo demo-quick lint bench clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --no-compile -c constraints.txt -e '.[all,test,bench]'
	# Bytecode for every installed module and for src (pip skips an editable package), on every core:
	# pip's own pass compiles the 17,000 files of the stack one at a time.
	$(PY) -m compileall -q -j 0 $(VENV)/lib src
	touch $(STAMP)

# The whole suite, slow end-to-end runs included, on 2 workers (the multi-process tests pick free ports).
test: $(STAMP)
	$(PY) -m ruff check src tests benchmarks examples
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -n 2

# The quick loop: everything but the tests marked slow.
test-fast: $(STAMP)
	$(PY) -m ruff check src tests benchmarks examples
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -n 2 -m "not slow"

demo: $(STAMP)
	$(PY) examples/lightning_recipe/run.py

demo-quick: $(STAMP)
	$(PY) examples/lightning_recipe/run.py --quick

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

lint: $(STAMP)
	$(PY) -m ruff check src tests benchmarks examples
	$(PY) -m ruff format --check src tests benchmarks examples

clean:
	rm -rf $(VENV) exp build src/*.egg-info
