# The two commands a developer needs: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements-dev.lock pyproject.toml | cksum | cut -d' ' -f1)
WEB_PORT ?= 8000
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: run test test-fast install lint bench messages lock setup clean

# Development installs the dev lock (production's pins plus the test and lint tools); the
# Docker image installs requirements.lock alone.
$(STAMP): requirements-dev.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -r requirements-dev.lock 2>&1 | grep -v "^WARNING: Location" || true
	@$(BIN)/python -c "import django, celery, weasyprint" || { echo "install failed" >&2; exit 1; }
	@rm -f $(VENV)/.installed-*; touch $(STAMP)

install: $(STAMP)

setup: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py setup_roles
	@if $(BIN)/python manage.py help load_catalog >/dev/null 2>&1; then $(BIN)/python manage.py load_catalog; fi
	$(BIN)/python manage.py create_demo_user

run: setup
	@echo ""
	@echo "  Open http://127.0.0.1:$(WEB_PORT)/ in your browser (Ctrl-C stops web and worker)."
	@echo ""
	WEB_PORT=$(WEB_PORT) $(BIN)/honcho -f Procfile.dev start

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/python manage.py makemigrations --check --dry-run

# Every test, on two pytest-xdist workers (one per core here), each with a test database
# (`test_<name>_gw0`, ...) and broker queues of its own (config/settings/test.py). Measured on a
# clean clone of this quiet 2-core machine at ee10b18: 1,610 tests in 9.9 min on PostgreSQL and
# Redis (.ci/run's services), 1,594 (16 need those services) in 7.0 min on SQLite; the last
# one-process CI run had taken 32.6 min for 1,528, before the slowest tests were made cheaper.
# The second worker helps because the browser, gunicorn and Celery-worker tests wait on
# processes of their own, and the other xdist worker runs meanwhile. `make test TEST_WORKERS=0`
# runs in one process.
TEST_WORKERS ?= 2
test: lint
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal

# The edit loop: everything but the tests marked slow (browsers, worker processes, PDF
# rendering, whole-catalog sweeps; tests/conftest.py marks most of them by their fixtures).
# These start no processes of their own, so two pytest-xdist workers use both cores: 1,412
# tests in 1.7 min (7e505d2) against 4.1 min in one process on this 2-core machine.
FAST_WORKERS ?= 2
test-fast: install
	$(BIN)/pytest -n $(FAST_WORKERS) --dist worksteal -m "not slow" -q

bench: install
	$(BIN)/python -m bench

messages: install
	$(BIN)/python manage.py makemessages -l zh_Hans -l en --ignore=.venv --ignore=tests
	$(BIN)/python manage.py compilemessages --ignore=.venv

# Both locks from pyproject.toml, keeping the pins they already have (needs `uv`).
lock:
	uv pip compile pyproject.toml --python-version 3.11 -o requirements.lock
	uv pip compile pyproject.toml --extra dev --python-version 3.11 -o requirements-dev.lock

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .mypy_cache .ruff_cache
