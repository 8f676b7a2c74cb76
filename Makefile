# Two commands set up a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint bench soak topology clean

$(INSTALLED): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(INSTALLED)

run: $(INSTALLED)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py ensure_demo_host
	$(BIN)/python manage.py serve --host $(HOST) --port $(PORT)

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	DEBUG=1 $(BIN)/python manage.py check --fail-level WARNING
	DEBUG=1 $(BIN)/python manage.py makemigrations --check --dry-run

# pytest-xdist processes, whole files each, the longest first (tests/conftest.py): one more than
# the cores, so that a process waiting on an animation or a clock leaves its core to another (four
# on two cores, each with a browser and a worker, overloaded them). Each process has its own test
# database and channel prefix (gemsite/test_settings.py).
TEST_PROCESSES ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))

test: lint
	$(BIN)/python -m pytest -n $(TEST_PROCESSES) --dist loadfile

bench: $(INSTALLED)
	$(BIN)/python -m benchmarks.run

# Long randomised runs: the property tests drawing new examples (hypothesis's "soak" profile), the
# fuzzers ten times as long, then the fault scripts at length (benchmarks/soak.py: its own
# PostgreSQL cluster and redis-server).
soak: $(INSTALLED)
	HYPOTHESIS_PROFILE=soak GEM_FUZZ_SCALE=10 $(BIN)/python -m pytest -n $(TEST_PROCESSES) \
		--dist loadfile -o timeout=3600 tests/*/test_engine.py tests/bejeweled_dm/test_solver.py \
		tests/core/test_fuzz.py tests/core/test_host_fuzz.py
	$(BIN)/python -m benchmarks.soak

# The production shape without Docker: nginx (docker/nginx.conf) in front of two Daphne workers
# and a scheduler, on DATABASE_URL and REDIS_URL (gemsite/topology.py).
topology: $(INSTALLED)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py ensure_demo_host
	$(BIN)/python -m gemsite.topology --port $(PORT)

clean:
	rm -rf $(VENV) db.sqlite3
