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

# Four processes (pytest-xdist) on two cores: the browser and live tests spend much of their time
# waiting on animations and clocks, which the others fill. Each process has its own test database
# and channel prefix (gemsite/test_settings.py); a file's tests stay in one process, sharing its
# fixtures; the longest files go first (tests/conftest.py).
test: lint
	$(BIN)/python -m pytest -n 4 --dist loadfile

bench: $(INSTALLED)
	$(BIN)/python -m benchmarks.run

# The fault scripts at length (benchmarks/soak.py): its own PostgreSQL cluster and redis-server.
soak: $(INSTALLED)
	$(BIN)/python -m benchmarks.soak

# The production shape without Docker: nginx (docker/nginx.conf) in front of two Daphne workers
# and a scheduler, on DATABASE_URL and REDIS_URL (gemsite/topology.py).
topology: $(INSTALLED)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py ensure_demo_host
	$(BIN)/python -m gemsite.topology --port $(PORT)

clean:
	rm -rf $(VENV) db.sqlite3
