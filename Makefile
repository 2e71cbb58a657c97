# Card Ledger: `make run` serves, `make test` tests. Needs GNU make and python3 (3.11+).
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# HOST=0.0.0.0 serves the club's network too (players' phones); the printed link then names
# this computer's address on it, which is what seat slips and their QR codes carry.
HOST ?= 127.0.0.1
WORKERS ?= 2
THREADS ?= 4
JOB_WORKERS ?= 2
LIVE_WORKERS ?= 2
PYTEST_ARGS ?=
# `make test` spreads its tests over TEST_WORKERS processes (pytest-xdist: `auto` is one per
# CPU, 0 runs them in one process); a module whose tests share a server or an app stays on one
# worker (tests/conftest.py).
TEST_WORKERS ?= auto
XDIST := -n $(TEST_WORKERS) --dist loadgroup

.PHONY: help install run test test-compiled engine engine-clean fuzz browser bench openapi messages worker lint clean

help:
	@echo "make run      serve on $(HOST):$(PORT) with the jobs' workers (installs, migrates, prints the organiser token and console link; HOST=0.0.0.0 for phones on the club's network)"
	@echo "make test     run the tests on every CPU (PYTEST_ARGS=... passes options to pytest; TEST_WORKERS=0: one process)"
	@echo "make fuzz     fuzz the API contract hard, from a random seed (FUZZ_SEED=N repeats one)"
	@echo "make bench    run every bench/*.py"
	@echo "make engine   compile the rules engine's hot path with mypyc (make engine-clean: pure Python again)"
	@echo "make worker   run the jobs' Celery workers (live tables, simulations) and beat, supervised (for REDIS_URL)"
	@echo "make openapi  regenerate openapi.yaml"
	@echo "make messages extract the pages' words into service/web/translations/messages.pot"
	@echo "make lint     ruff check, ruff format --check and the import contracts (lint-imports)"
	@echo "make clean    remove the virtualenv and caches (keeps var/: database and token)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The stamp is newer than pyproject.toml once installed: later runs skip pip entirely.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	@touch $@ $(VENV)/.installed

# The pages' catalogues (README.md, Languages): each language's messages.po compiled into its
# messages.mo, which is build output (ignored by git), rebuilt whenever its .po changes.
CATALOGUES := $(patsubst %.po,%.mo,$(wildcard service/web/translations/*/LC_MESSAGES/messages.po))

install: $(VENV)/.installed $(CATALOGUES)

service/web/translations/%/LC_MESSAGES/messages.mo: service/web/translations/%/LC_MESSAGES/messages.po | $(VENV)/.installed
	@$(BIN)/pybabel -q compile -l $* -i $< -o $@

var:
	@mkdir -p var

run: install | var
	@host="$(HOST)"; \
	if [ "$$host" = 0.0.0.0 ]; then \
	  host="$$( (hostname -I 2>/dev/null || ipconfig getifaddr en0 2>/dev/null) | awk '{print $$1}')"; \
	  host="$${host:-<address of this computer>}"; \
	fi; \
	if [ -n "$${CARDLEDGER_ADMIN_TOKEN:-}" ]; then \
	  echo "Organiser token: taken from CARDLEDGER_ADMIN_TOKEN"; \
	  echo "Organiser's console: http://$$host:$(PORT)/console?token=<CARDLEDGER_ADMIN_TOKEN>"; \
	else \
	  token="$$($(BIN)/cardledger token)" && echo "Organiser token (var/admin-token): $$token" && \
	  echo "Organiser's console: http://$$host:$(PORT)/console?token=$$token"; \
	fi
	@$(BIN)/python -m domain.engine  # which rules engine serves: pure Python or compiled (make engine)
	$(BIN)/alembic upgrade head
	exec $(BIN)/cardledger serve --host $(HOST) --port $(PORT) --workers $(WORKERS) \
	  --threads $(THREADS) --job-workers $(JOB_WORKERS) --live-workers $(LIVE_WORKERS)

test: install browser | var
	@if [ -f domain/_engine.json ]; then $(MAKE) --no-print-directory engine; fi
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)
	@$(MAKE) --no-print-directory test-compiled

# The compiled engine (README.md, "A compiled engine"): mypyc over the modules listed under
# [tool.cardledger.engine] in pyproject.toml, each extension module left beside its .py.
engine: install
	nice -n 10 $(BIN)/python scripts/build_engine.py

engine-clean: install
	$(BIN)/python scripts/build_engine.py --clean

# `make test`'s second run: the domain and contract suites on a compiled copy of the checkout
# (compiled once per state of the engine's sources, in build/engine/). ENGINE_TEST=0 skips it.
ENGINE_TEST ?= 1
test-compiled: install
	@if [ "$(ENGINE_TEST)" = 0 ]; then echo "ENGINE_TEST=0: the compiled engine's run skipped"; else \
	  tree="$$(mktemp -d)/cardledger" && trap 'rm -rf "$$(dirname "$$tree")"' EXIT && \
	  nice -n 10 $(BIN)/python scripts/build_engine.py --into "$$tree" && \
	  mkdir -p "$$tree/var" && cd "$$tree" && \
	  CARDLEDGER_ENGINE_EXPECTED=compiled PYTHONPATH=. $(CURDIR)/$(BIN)/python -m pytest \
	    $(XDIST) -p no:cacheprovider tests/domain tests/contract; fi

# `make test` runs tests/service/test_contract.py on a fixed sample; this draws
# FUZZ_EXAMPLES requests per operation from a fresh seed, on SQLite and PostgreSQL (~10 min).
FUZZ_EXAMPLES ?= 500
fuzz: install | var
	@seed="$${FUZZ_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"; \
	echo "fuzz seed $$seed (repeat with FUZZ_SEED=$$seed)"; \
	CARDLEDGER_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest \
	  tests/service/test_contract.py --hypothesis-seed="$$seed" $(PYTEST_ARGS)

# The browser tests drive Debian's chromium (never a browser Playwright downloads). Installed
# here when missing and apt-get is usable (root); otherwise they skip, or fail under CI=true.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Debian's chromium for the browser tests (tests/pages/test_browser.py)"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
	      >/dev/null; } || echo "could not install chromium: the browser tests will not run"; \
	  else \
	    echo "chromium is missing and apt-get is not usable here (not root): the browser tests" \
	         "will be skipped (under CI=true they fail). Install it with: apt-get install chromium"; \
	  fi; }

bench: $(VENV)/.installed-bench
	@shopt -s nullglob; files=(bench/engine.py); \
	for f in bench/*.py; do \
	  case "$$f" in bench/engine.py|bench/_*) ;; *) files+=("$$f");; esac; \
	done; \
	failed=(); \
	for f in "$${files[@]}"; do \
	  [ -f "$$f" ] || { echo "== $$f: missing, skipped"; continue; }; \
	  echo "== $$f"; $(BIN)/python "$$f" || failed+=("$$f"); \
	done; \
	if [ $${#failed[@]} -gt 0 ]; then echo "failed: $${failed[*]}"; exit 1; fi

openapi: install
	$(BIN)/cardledger openapi

# Every word the pages show (templates, page modules, the games' option descriptions: babel.cfg)
# into the template catalogue; each language's translator then runs `pybabel update` for theirs.
messages: install
	$(BIN)/pybabel -q extract -F babel.cfg -k lazy_gettext -k lazy_ngettext:1,2 --sort-by-file \
	  --add-comments=Translators: --no-wrap --project=cardledger --copyright-holder="Card Ledger" \
	  -o service/web/translations/messages.pot .

# `make run` starts its own workers on a SQLite broker (service/running/serve.py); this is for
# REDIS_URL deployments: a worker of the live tables' queue (LIVE_WORKERS processes), one of
# the simulations' queue (JOB_WORKERS processes) and Celery beat (the bots' sweep, the
# heartbeats, the reaper), each restarted when it dies (`cardledger workers`).
worker: install | var
	exec $(BIN)/cardledger workers --live-workers $(LIVE_WORKERS) --job-workers $(JOB_WORKERS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy domain

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .mypy_cache .import_linter_cache .hypothesis tests/artifacts
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
