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
	# pip's own "No space left on device" names no figure, so say first what the install needs.
	@free=$$(df -Pk . | awk 'NR == 2 {print int($$4 / 1048576)}'); \
	if [ "$$free" -lt 10 ]; then \
	  echo "warning: $$free GB free on this disk; .venv needs about 8 GB (torch 2.9.1 with its CUDA libraries)" >&2; \
	fi
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
