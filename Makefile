# One install path for developers, CI and the Dockerfile: `make setup`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# torch is installed before anything that depends on it, so that the build chosen here (the CPU
# one where pip's find-links offer it, or TORCH_INDEX's) is not replaced by PyPI's multi-GB CUDA one.
# Elsewhere: make setup TORCH_SPEC=torch==2.13.0+cpu TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup run test test-loaded mutate bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PY) -c "import torch" 2>/dev/null || $(PIP) install -q $(if $(TORCH_INDEX),--index-url "$(TORCH_INDEX)") "$(TORCH_SPEC)"
	$(PIP) install -q -e ".[test]"
	touch $@

run: setup
	$(VENV)/bin/logicparse annotate samples/sample.txt --out out/sample --overwrite
	$(VENV)/bin/logicparse shards stats out/sample

# The service page's browser tests need Chromium; without it they are skipped, and said so.
CHROMIUM_NOTE := echo "NOTE: Chromium is not installed, so the browser tests of the service page (tests/service/test_service_page.py) were SKIPPED. Install Debian's package to run them: sudo apt-get install chromium"

test: setup
	$(PY) -m pytest -q -rs tests; status=$$?; \
	command -v chromium >/dev/null 2>&1 || test -x /usr/bin/chromium || $(CHROMIUM_NOTE); \
	exit $$status

# The suite 3 times in a row with every core kept busy: a test that depends on timing fails here.
test-loaded: setup
	$(PY) benchmarks/speed/suite_under_load.py

# Mutation testing of the code that scores, decides and verifies (scope: [tool.mutmut] in
# pyproject.toml; survivors and why they are harmless: docs/testing.md). Each mutant's tests run in
# a process forked from a server that has collected the tests and run none (docs/testing.md says
# why): about 100 mutants a minute on 2 cores for most, far fewer for those whose tests start the
# batch run's workers or wait on the service's pool: over two hours for the whole scope.
# No thread pool in the process mutmut forks from: OpenMP's and OpenBLAS's pools and pyarrow's
# jemalloc background thread hold locks that do not survive a fork. A test that runs past 30 s
# under a mutant fails (the slowest selected test takes about 6 s): a mutant that makes the
# service's pool hang is killed in seconds instead of waiting out mutmut's wall limit.
MUTATE_JOBS ?= 2
mutate: setup
	rm -rf mutants
	start=$$(date +%s); OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 JE_ARROW_MALLOC_CONF=background_thread:false PYTEST_TIMEOUT=30 \
	  $(VENV)/bin/mutmut run --max-children $(MUTATE_JOBS) >mutants.log 2>&1; \
	status=$$?; tail -c 400 mutants.log | tr '\r' '\n' | tail -2; \
	echo "mutmut run: exit $$status, $$(( $$(date +%s) - start )) s"; \
	$(VENV)/bin/mutmut export-cicd-stats >/dev/null && cat mutants/mutmut-cicd-stats.json; echo; \
	echo "Not killed:"; $(VENV)/bin/mutmut results; exit $$status

bench: setup
	for b in benchmarks/*/[!_]*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf out build dist *.egg-info
