# Two entry points for a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED ?= ../shared/data/labeled/real_dev.jsonl

.PHONY: venv install dev demo test lint typecheck pytest bench-real bench-speed clean

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

lint: dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: dev
	$(BIN)/mypy

pytest: dev
	$(BIN)/pytest -q

test: lint typecheck pytest

bench-real: install
	@if [ -f $(SHARED) ]; then $(BIN)/vqagrade bench $(SHARED); else echo "skip: $(SHARED) not found"; fi

bench-speed: install
	$(BIN)/python benchmarks/speed.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
