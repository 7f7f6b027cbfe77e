# Set-up is part of every target: a fresh clone needs only `make run` or `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test test-slow bench bench-scale setup clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m pipeline.warm
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/hilo run data/sample/pokerstars --out hilo-out --rake-schedule generated

# Two test processes (pytest-xdist): most tests use one core, and the machines hilo is
# developed and tested on have two. A plain `pytest` runs them in one process.
test: $(STAMP)
	$(PY) -m pytest -q -n 2

test-slow: $(STAMP)
	$(PY) -m pytest -q -n 2 -m slow

bench: $(STAMP)
	$(PY) -m bench

# 5M hands by default (HILO_SCALE_HANDS=1000000 for a quicker run); not part of `make bench`.
bench-scale: $(STAMP)
	$(PY) -m bench scale

clean:
	rm -rf hilo-out .pytest_cache
