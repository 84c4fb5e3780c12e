# Two entry points for a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED ?= ../shared/data/labeled/real_dev.jsonl

.PHONY: venv install dev compile demo judge-demo chromium test lint typecheck pytest bench-real bench-speed clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	VQAGRADE_COMPILE=0 $(BIN)/pip install -q -e .
	touch $@

$(VENV)/.dev-installed: $(VENV)/.installed
	VQAGRADE_COMPILE=0 $(BIN)/pip install -q -e '.[dev]'
	touch $@

# The rule modules (every module in src/vqagrade/rules/) compiled to C extensions with mypyc,
# in place, by the same code the package build runs (hatch_build.py): about 2x faster
# labelling, same code. Rebuilt when one of them changes. Without a C compiler the build is
# skipped with a note and vqagrade runs them as plain Python, just slower.
RULES_PY := $(wildcard src/vqagrade/rules/*.py)

$(VENV)/.compiled: $(VENV)/.installed $(RULES_PY) hatch_build.py
	@echo "compiling the rule modules with mypyc (about 2 minutes; once per change)"
	@$(BIN)/python -c "import mypy, setuptools" 2>/dev/null || $(BIN)/pip install -q 'mypy>=1.10' 'setuptools>=69'
	@$(BIN)/python hatch_build.py
	@touch $@

install: $(VENV)/.installed $(VENV)/.compiled
dev: $(VENV)/.dev-installed $(VENV)/.compiled
compile: $(VENV)/.compiled

demo: install
	$(BIN)/vqagrade score examples/sample.jsonl

# The judge fallback end to end, without an account: a local scripted OpenAI-compatible
# server answers the rows the rules cannot settle.
judge-demo: install
	@$(BIN)/python tests/judge/openai_server.py --port 8765 --mode demo & pid=$$!; \
	trap 'kill $$pid' EXIT; \
	$(BIN)/python tests/judge/openai_server.py --port 8765 --wait-ready && \
	OPENAI_API_KEY= $(BIN)/vqagrade score examples/sample.jsonl --judge-model demo \
	  --judge-base-url http://127.0.0.1:8765/v1 --cache "$$(mktemp -d)/judge.sqlite3"

lint: dev
	$(BIN)/ruff check src tests benchmarks hatch_build.py
	$(BIN)/ruff format --check src tests benchmarks hatch_build.py

typecheck: dev
	$(BIN)/mypy

# Headless Chromium renders the HTML report in tests/test_report.py; installed when missing.
CHROMIUM ?= chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

chromium:
	@command -v $(CHROMIUM) >/dev/null 2>&1 || { \
	  echo "installing chromium with apt-get"; \
	  $(SUDO) apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }

pytest: dev chromium
	$(BIN)/pytest -q

test: lint typecheck pytest

bench-real: install
	@if [ -f $(SHARED) ]; then $(BIN)/vqagrade bench $(SHARED); else echo "skip: $(SHARED) not found"; fi

bench-speed: install
	$(BIN)/python benchmarks/speed.py

clean:
	rm -rf $(VENV) build dist src/build .pytest_cache .mypy_cache .ruff_cache
	rm -f src/vqagrade/rules/*.so src/*__mypyc*.so
