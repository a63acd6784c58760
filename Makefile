# The two commands: `make run` serves the site, `make test` runs the whole suite.
# Both are idempotent and install what they need (see README "Quick start").
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
TEST_DIR ?= /tmp/circolo-test-$(shell id -u)-$(notdir $(CURDIR))
# pytest-xdist workers of make test: the tests that drive real processes and the browser run in
# two groups, each on one worker (tests/conftest.py), the others share out the rest
# (docs/testing.md, "How it runs").
# TEST_WORKERS=0 runs everything in one process.
TEST_WORKERS ?= 3

.PHONY: run test lint venv deps dev-deps lock messages system-run system-test \
        bench-pairing bench-rules bench-draughts-check bench-live bench-analysis bench-tournament bench-arena bench-reminders soak-pairing check-lim test-differential test-chromium clean compile \
        bench-evening bench-round-start bench-game-page \
        attack

$(PY):
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11 ($(PYTHON)) is needed"; exit 1; }
	$(PYTHON) -m venv $(VENV) || { echo "python3.11 -m venv failed: install python3.11-venv"; exit 1; }

# The whole tree is locked with hashes, so a fresh clone gets exactly the tree that was tested
# and a file changed on the index is refused: requirements.txt (what the site runs) and
# requirements-dev.txt (that and the tests' tools), both compiled by `make lock` from the .in
# files, which name only what we import. The installer refuses anything not in the lock or
# whose hash differs. Re-install only when a lock file changed.
# The installer is uv, itself locked (requirements-uv.txt) and installed by pip: it installs
# the same locks with the same hash checks in 11 s where pip took 38 s, most of it pip
# byte-compiling one file after the other (measured on make test from a fresh clone; README
# "Dependencies"). uv keeps its downloads in ~/.cache/uv.
UV := $(VENV)/bin/uv
$(UV): requirements-uv.txt | $(PY)
	$(PY) -m pip install -q --no-deps --require-hashes -r requirements-uv.txt
	touch $@
$(VENV)/.deps: requirements.txt | $(UV)
	$(UV) pip install -q --python $(PY) --compile-bytecode --require-hashes -r requirements.txt
	touch $@
$(VENV)/.dev-deps: requirements.txt requirements-dev.txt | $(UV)
	$(UV) pip install -q --python $(PY) --compile-bytecode --require-hashes -r requirements-dev.txt
	touch $@ $(VENV)/.deps

deps: $(VENV)/.deps
dev-deps: $(VENV)/.dev-deps

# Refresh the lock files from requirements.in / requirements-dev.in. Versions already locked are
# kept unless an .in file asks otherwise; LOCK_ARGS="--upgrade-package NAME" moves one package
# (and what it needs) to its newest release. README "Dependencies".
LOCK := CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile -q --generate-hashes \
        --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links $(LOCK_ARGS)
lock: dev-deps
	$(LOCK) requirements-uv.in -o requirements-uv.txt
	$(LOCK) requirements.in -o requirements.txt
	$(LOCK) requirements-dev.in -o requirements-dev.txt

# System packages: installed with apt when missing and we are root on Debian, otherwise a
# message says what to install.
system-run:
	@scripts/system-packages.sh run
system-test:
	@scripts/system-packages.sh test

messages: | $(PY)
	$(PY) manage.py compilemessages --ignore=.venv -v 0

# Byte-code once at install time: no process (PYTHONDONTWRITEBYTECODE or not) compiles the project.
compile: | $(PY)
	$(PY) -m compileall -q -x '/\.venv/' .

run: system-run deps messages compile
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py collectstatic --noinput -v 0
	PORT=$(PORT) scripts/run.sh

# lint-imports: the dependency contracts of pyproject.toml [tool.importlinter] (STYLE 6), under
# a second; --no-cache, as the graph takes a tenth of a second to build and a cache would be
# one more directory in the tree.
lint: dev-deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache --no-logo

test: system-test dev-deps messages lint compile
	@scripts/test-services.sh down $(TEST_DIR); \
	scripts/test-services.sh up $(TEST_DIR) || exit 1; \
	source $(TEST_DIR)/env; \
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist loadgroup --durations=10 $(PYTEST_ARGS); rc=$$?; \
	scripts/test-services.sh down $(TEST_DIR); exit $$rc

bench-pairing: dev-deps
	$(PY) bench/pairing.py

soak-pairing: dev-deps
	$(PY) bench/soak_pairing.py

# The Lim checker on a thousand random tournaments, each written as TRF and checked round by round.
check-lim: dev-deps
	$(PY) bench/check_lim.py $(BENCH_ARGS)

# Benchmarks that need PostgreSQL and Redis get private ones unless DATABASE_URL is set.
bench-live: system-test dev-deps
	scripts/with-services.sh $(PY) bench/live.py $(BENCH_ARGS)

# A 40-move game's computer analysis timed through the analysis worker, then bench-live's p99
# and the tick's queue wait quiet, with two analyses running, and quiet again (bench/analysis.py).
bench-analysis: system-test dev-deps
	scripts/with-services.sh $(PY) bench/analysis.py $(BENCH_ARGS)

bench-tournament: system-test dev-deps
	scripts/with-services.sh $(PY) bench/tournament.py $(BENCH_ARGS)

bench-arena: system-test dev-deps messages
	scripts/with-services.sh $(PY) bench/arena.py $(BENCH_ARGS)

# A 200-player tournament's reminder mails through the real worker to an SMTP server of its
# own, against the worker's every-second work (bench/reminders.py).
bench-reminders: system-test dev-deps messages
	scripts/with-services.sh $(PY) bench/reminders.py $(BENCH_ARGS)

# A club's peak evening, everything at once (bench/evening.py): a Swiss, an arena, other games,
# spectators, page fetches, sign-ups, reminders; prints figures, exits 1 if a target is missed.
bench-evening: system-test dev-deps messages
	scripts/with-services.sh $(PY) bench/evening.py $(BENCH_ARGS)

# A round start alone (bench/round_start.py): server CPU per player, requests per game page view;
# and the game and event pages' CPU per view in one process (bench/game_page.py).
bench-round-start: system-test dev-deps messages
	scripts/with-services.sh $(PY) bench/round_start.py $(BENCH_ARGS)

bench-game-page: system-test dev-deps messages
	scripts/with-services.sh $(PY) bench/game_page.py $(BENCH_ARGS)

# Attack a private copy of the site (docs/benchmarks.md, `make attack`); prints figures, exits 1
# unless all are zero.
attack: system-test dev-deps messages
	scripts/with-services.sh $(PY) -m bench.attack $(ATTACK_ARGS)

bench-rules: dev-deps
	$(PY) bench/rules.py

# The draughts tactical check (RULES 14.D): nodes per second, and matches at fixed nodes
# against itself at a lower depth and a greedy player (a few minutes; BENCH_ARGS for more).
bench-draughts-check: dev-deps
	$(PY) bench/draughts_check.py $(BENCH_ARGS)

# The full differential run (docs/benchmarks.md): 100,000 random positions per draughts
# variant compared with pydraughts (about an hour on 2 cores). make test runs a smaller sample
# of the same test.
test-differential: dev-deps
	$(PY) -m games.tests.rules.differential --positions 100000 --workers 2
	CHESS_ORACLE_GAMES=200 $(VENV)/bin/pytest -q -p no:cacheprovider games/tests/rules/test_chess_fen.py

# The browser and process tests once more in the full Chromium browser instead of the headless
# shell make test drives (same engine; the full browser costs about three times the CPU).
test-chromium: system-test dev-deps messages compile
	@scripts/test-services.sh down $(TEST_DIR)-chromium; \
	scripts/test-services.sh up $(TEST_DIR)-chromium || exit 1; \
	source $(TEST_DIR)-chromium/env; \
	CHROMIUM_PATH=/usr/bin/chromium $(VENV)/bin/pytest -m xdist_group -n 2 --dist loadgroup $(PYTEST_ARGS); rc=$$?; \
	scripts/test-services.sh down $(TEST_DIR)-chromium; exit $$rc

clean:
	rm -rf $(VENV) var staticfiles

# The shipped deployment (deploy/: nginx site, systemd units, env file, backups;
# docs/operations.md, "`make deploy-check`") run here as root behind Debian's nginx with a
# self-signed certificate, driven through https:// and wss:// in Chromium; prints a line per
# check, exits 1 on any failure. Not part of `make test` (about three minutes); CI runs both.
.PHONY: deploy-check
deploy-check: system-test dev-deps messages compile
	$(PY) deploy/check.py
