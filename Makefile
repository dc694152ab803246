# One install path for developers, CI and the Dockerfile: `make setup`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# The CPU build of torch must be installed before anything that depends on torch,
# or pip resolves a multi-GB CUDA build.
TORCH_SPEC ?= torch==2.13.0

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup run test bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PIP) install -q "$(TORCH_SPEC)"
	$(PIP) install -q -e ".[test]"
	touch $@

run: setup
	$(VENV)/bin/logicparse annotate samples/sample.txt --out out/sample --overwrite
	$(VENV)/bin/logicparse shards stats out/sample

test: setup
	$(PY) -m pytest -q tests

bench: setup
	for b in benchmarks/[!_]*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf out build dist *.egg-info
