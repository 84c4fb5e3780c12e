# Two entry points for a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED ?= ../shared/data/labeled/real_dev.jsonl

.PHONY: venv install dev demo judge-demo chromium test lint typecheck pytest bench-real bench-speed clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.dev-installed: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(VENV)/.installed
dev: $(VENV)/.dev-installed

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
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

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
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
