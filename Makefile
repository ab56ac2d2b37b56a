# Two commands: `make demo` runs the main job, `make test` runs the tests.
# Each creates the virtual environment it needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
NODE_BOT := sample_bots/node

.PHONY: demo test venv node bench clean proto typecheck wheel

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# Ray (issue 15), an optional extra: `make test` installs it so the cluster tests run.
RAY_STAMP := $(VENV)/.ray-installed
$(RAY_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[ray]'
	touch $(RAY_STAMP)

demo: $(STAMP)
	$(PY) -m harness.cli demo

test: $(STAMP) $(RAY_STAMP) node typecheck
	$(PY) -m pytest -q -rs

# Static types of the harness, the benchmarks, the sample bots and the tests (settings in pyproject.toml); `make test` runs it first.
typecheck: $(STAMP)
	$(PY) -m mypy

# The Node.js sample bot's packages (used by a test that plays a match against it).
node: $(NODE_BOT)/node_modules/.installed

$(NODE_BOT)/node_modules/.installed: $(NODE_BOT)/package.json
	cd $(NODE_BOT) && npm install --no-audit --no-fund --silent
	touch $@

proto: $(STAMP)
	$(PY) -m harness.wire.generate

# An installable wheel of the SDK and the harness, for bot authors on other machines (README, Writing a bot).
wheel: $(STAMP)
	$(PY) -m pip wheel --quiet --no-deps --wheel-dir dist .
	@ls dist/*.whl

bench: $(STAMP)
	$(PY) benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) $(NODE_BOT)/node_modules dist build
