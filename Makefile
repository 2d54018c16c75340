# Trazo: make run | make test | make lint | make migrate | make openapi
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
FLASK := $(BIN)/flask --app wsgi
PO_FILES := $(wildcard src/trazo/translations/*/LC_MESSAGES/*.po)
MO_FILES := $(PO_FILES:.po=.mo)

.PHONY: install system-tools run test test-pg fuzz bench soak lint migrate migration openapi i18n clean

$(STAMP): requirements.txt requirements-dev.txt requirements-assets.txt setup.cfg pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt
	$(BIN)/pip install -q --no-deps -r requirements-assets.txt
	$(BIN)/pip install -q --no-deps -e .
	touch $(STAMP)

install: $(STAMP) i18n

i18n: $(MO_FILES)

%.mo: %.po $(STAMP)
	$(BIN)/pybabel compile -i $< -o $@

# Local serving: development settings unless APP_ENV says otherwise (production needs its secrets).
run: export APP_ENV ?= development
# gthread workers run many threads; sharing two malloc arenas keeps their memory from growing per thread.
run: export MALLOC_ARENA_MAX ?= 2
run: install
	mkdir -p instance
	$(FLASK) db upgrade
	exec $(BIN)/gunicorn -c gunicorn.conf.py

# Graphviz renders in the local-backend tests; install it when this machine lacks it and allows it.
system-tools:
	@command -v dot >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq graphviz >/dev/null) \
		|| echo "graphviz (dot) is missing: the local render backend cannot be tested here"

test: install system-tools
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The suite on PostgreSQL + Redis (the services this machine runs).
test-pg: install system-tools
	TEST_DATABASE_URL=$${TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test} \
	TEST_REDIS_URL=$${TEST_REDIS_URL:-redis://127.0.0.1:6379/0} $(BIN)/python -m pytest $(PYTEST_ARGS)

# Property-based fuzzing of every route from our OpenAPI document (schemathesis), bounded for CI.
fuzz: install
	$(BIN)/python -m pytest tests/fuzz -m fuzz -q $(PYTEST_ARGS)

# Load benchmarks against production gunicorn settings (PostgreSQL + Redis, and SQLite); needs wrk.
bench: install
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# 60 s of mixed load while a worker is killed and PostgreSQL restarts; fails if a write is lost.
soak: install
	$(BIN)/python -m bench.soak $(SOAK_ARGS)

# ruff, then the import contracts of setup.cfg (layers point one way; API areas never import each other).
lint: install
	$(BIN)/ruff check src tests tools bench wsgi.py gunicorn.conf.py
	$(BIN)/lint-imports --no-logo --no-cache

migrate: install
	mkdir -p instance
	APP_ENV=$${APP_ENV:-development} $(FLASK) db upgrade

# make migration MESSAGE="add x"  (autogenerate a revision from the models)
migration: install
	APP_ENV=$${APP_ENV:-development} $(FLASK) db migrate -m "$(MESSAGE)"

openapi: install
	APP_ENV=$${APP_ENV:-development} $(FLASK) openapi write --format=json openapi.json
	@echo "wrote openapi.json"

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache src/*.egg-info
	find src tests -name __pycache__ -prune -exec rm -rf {} +
	find src -name '*.mo' -delete
