# reshard: Rust crate + Jupyter notebooks on the evcxr Rust kernel.
#
#   make lab        set up (first time only), then JupyterLab on your own copies of the labs (workspace/)
#   make lab-teacher   JupyterLab on notebooks/, the teacher's edition (every output and answer)
#   make lab-restart LAB=03   start lab 03 over in workspace/ (your copy is kept, dated, in workspace/backups/)
#   make test       rustfmt, cargo test (every feature, none), clippy, set-up and notebook checks
#   make notebooks  re-execute notebooks/*.ipynb in place (commit the result)
#   make handouts   teacher's edition, student's worksheet and answer key (NN-key) of every lab: handouts/{teacher,student}
#   make index      regenerate notebooks/00-index.ipynb and README's notebook list
#   make check NB=notebooks/x.ipynb   check one notebook
#   make setup      venv + evcxr_jupyter + Rust kernelspec (idempotent)
#   make doctor     is everything there? one screen, with the fix for each problem
#   make bench-notebooks   time each notebook on a restarted kernel (cold and warm cache)
#   make nbgrader   nbgrader 0.9.6 into the venv, for teaching a course (README: "Teaching a course with nbgrader")

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
REQUIREMENTS := requirements.txt
VENV_STAMP := $(VENV)/.requirements.stamp
NPM_STAMP := node_modules/.package-lock.json
EVCXR_VERSION := 0.22.0
KERNEL := rust

# cargo-installed tools (evcxr_jupyter, and cargo itself under rustup) live here;
# CI and fresh shells may not have it on PATH.
export PATH := $(HOME)/.cargo/bin:$(PATH)

# Steps run in the order written, even under -j.
.NOTPARALLEL:

.PHONY: help setup evcxr kernel labsettings doctor lab lab-teacher lab-restart nbgrader test leftovers-before leftovers-check fmt rust-test cargo-test cargo-test-alone clippy setup-test nbtest notebooks handouts check index bench-notebooks clean

help:
	@sed -n '3,14s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

setup: $(VENV_STAMP) evcxr kernel labsettings

# Re-run pip whenever requirements.txt changes.
$(VENV_STAMP): $(REQUIREMENTS)
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --disable-pip-version-check -q -r $(REQUIREMENTS)
	@touch $@

# How evcxr_jupyter is compiled. Empty = cargo's release profile (opt-level 3). Measured on
# 2 cores (README, "What the first run costs"): the default took 7 min 06 s / 12.7 CPU-min, and a
# whole `make setup` with a fresh HOME (pip, crate downloads, this build) 6 min 11 s / 11.8 CPU-min;
# opt-level 1 could not be shown to build faster here (measured under heavy load) and made every
# notebook run cost ~10% more CPU (evcxr's embedded rust-analyzer runs slower), so it is not
# used. To try it:
#   make evcxr EVCXR_PROFILE="CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16"
EVCXR_PROFILE :=
# CPU-minutes that build takes; wall time is about that / min(0.9 x cores, 4) on an idle machine.
EVCXR_BUILD_CPU_MIN := 12
NPROC := $(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)

evcxr:
	@if command -v evcxr_jupyter >/dev/null 2>&1; then \
	  echo "evcxr_jupyter: $$(command -v evcxr_jupyter)"; \
	else \
	  echo "Building evcxr_jupyter $(EVCXR_VERSION), the Rust kernel for Jupyter, with cargo (once; later runs skip this)."; \
	  echo "  why: the notebooks run on it, and it is not on PATH or in ~/.cargo/bin"; \
	  echo "  how: cargo install --locked evcxr_jupyter --version $(EVCXR_VERSION) $(if $(EVCXR_PROFILE),with $(EVCXR_PROFILE),(release profile))"; \
	  par=$$(( $(NPROC) * 9 )); [ $$par -gt 40 ] && par=40; \
	  echo "  expected: about $(EVCXR_BUILD_CPU_MIN) CPU-minutes, so about $$(( ($(EVCXR_BUILD_CPU_MIN) * 10 + par - 1) / par )) minutes on this machine's $(NPROC) cores if idle (longer if busy)"; \
	  echo "  (conda users: environment.yml installs conda-forge's prebuilt evcxr instead)"; \
	  env $(EVCXR_PROFILE) cargo install --locked evcxr_jupyter --version $(EVCXR_VERSION); \
	fi

# The kernelspec `rust` in .venv/share/jupyter/kernels (the venv's Jupyter finds it
# before ~/.local/share/jupyter): it starts evcxr_jupyter through kernel/launch.py,
# which keeps each notebook folder's build directory and adds kernel/init.evcxr.
# Rewritten every time (cheap), so it always points at this checkout and binary.
kernel: $(VENV_STAMP) evcxr
	@$(VPY) kernel/launch.py --prefix $(VENV) --evcxr "$$(command -v evcxr_jupyter)"

doctor:
	@$(PYTHON) scripts/doctor.py

# JupyterLab's settings for this project (kernel/jupyterlab-overrides.json, copied into the
# venv where JupyterLab reads them): no news or update pop-up over the lab on first start.
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json
labsettings: $(LAB_OVERRIDES)
$(LAB_OVERRIDES): kernel/jupyterlab-overrides.json $(VENV_STAMP)
	@mkdir -p $(dir $@)
	cp $< $@

JUPYTER_LAB = $(VENV)/bin/jupyter lab --no-browser --ip=127.0.0.1 \
	  $$( [ "$$(id -u)" = 0 ] && echo --allow-root || true )

# The learner's edition: your own copies in workspace/ (made once, never overwritten;
# scripts/workspace.py), opened on the index.
lab:
	@$(PYTHON) scripts/doctor.py --before-setup --problems-only
	@$(MAKE) --no-print-directory setup
	@$(PYTHON) scripts/doctor.py --problems-only
	@$(VPY) scripts/workspace.py sync
	@echo "Starting JupyterLab on workspace/; open the http://127.0.0.1:... URL with the token printed below."
	$(JUPYTER_LAB) --ServerApp.root_dir=$(CURDIR)/workspace --ServerApp.default_url=/lab/tree/00-index.ipynb

# The teacher's edition: the committed notebooks, every output and answer shown.
lab-teacher: setup
	@echo "Starting JupyterLab on notebooks/ (the teacher's edition; your edits there are yours to commit or not)."
	$(JUPYTER_LAB) --ServerApp.root_dir=$(CURDIR)/notebooks --ServerApp.default_url=/lab/tree/00-index.ipynb

lab-restart: $(VENV_STAMP)
	@$(VPY) scripts/workspace.py restart "$(LAB)"

# nbgrader (README: "Teaching a course with nbgrader"): installed into the venv only when
# asked for (this target, or the nbgrader test), pinned in requirements-nbgrader.txt; its
# JupyterLab panels are switched off so a learner's `make lab` looks as before.
NBGRADER_STAMP := $(VENV)/.nbgrader.stamp
nbgrader: $(NBGRADER_STAMP)
$(NBGRADER_STAMP): requirements-nbgrader.txt $(VENV_STAMP)
	$(VPY) scripts/course.py install
	@touch $@

# Before the first test, a snapshot of the servers, temp folders and /dev/shm segments of the kind
# the tests make; after the last, anything of ours that is new fails the run (scripts/leftovers.py).
LEFTOVERS := target/leftovers-before.json
test: setup leftovers-before fmt rust-test setup-test nbtest leftovers-check

leftovers-before:
	@mkdir -p target && $(PYTHON) scripts/leftovers.py snapshot $(LEFTOVERS)

leftovers-check:
	$(PYTHON) scripts/leftovers.py check $(LEFTOVERS)
	@echo "---- make test ends at $$(date +%T) ----"

# Each phase of `make test` says when it starts: a slow run's log shows where its time went.
PHASE = @echo "---- $@ starts at $$(date +%T) ----"

fmt:
	$(PHASE)
	cargo fmt --check

# Two full sets run every unit, integration and doc test: one with every feature
# (charts, serde, the CLI and its binary, the live drivers and their servers) and
# one bare (the library without plotters, serde or live/). They run in the
# `checked` profile (Cargo.toml: optimised, overflow checks on, as in a notebook's
# build): the tests run about five times faster than at opt-level 0, which saves
# more than the optimised build costs. The labs' own configurations (`charts`,
# and `charts` with `live`) are built and run by the notebook tests.
#
# cargo-test-alone: each live feature alone (redis, proxies, postgres, etcd) runs the
# doctests of what it adds (the live floor, its tables in present, its checks in
# tutor), in `dev` (they compile longer than they run); the CLI must also build
# without charts (it draws nothing), and nothing but the binary may depend on the
# `cli` feature (the grep). It runs beside the run of every feature, niced: that
# run spends most of its time waiting on the servers its tests start, and the
# builds take the idle cores (its own directory, target/debug, so neither waits on
# the other's lock). Its output follows, once both have ended. `make test` runs
# rust-test: the same, with clippy beside it too (after cargo-test-alone).
LIVE_DOCS := src/live/ src/present/live.rs src/present/proxies.rs src/present/postgres.rs src/present/etcd.rs src/tutor/observed
ALONE_LOG := target/cargo-test-alone.log
# Not $(MAKE) in the recipe itself: `make -n` would run that line.
ALONE_MAKE = $(MAKE) --no-print-directory $(BESIDE)
cargo-test: BESIDE = cargo-test-alone
rust-test: BESIDE = cargo-test-alone clippy
cargo-test rust-test:
	$(PHASE)
	cargo test --profile checked --no-default-features
	cargo test --profile checked --all-features --no-run
	@mkdir -p target
	@echo "make $(BESIDE) runs beside the next command (niced); its output follows it ($(ALONE_LOG))"
	nice -n 19 $(ALONE_MAKE) > $(ALONE_LOG) 2>&1 & alone=$$!; \
	  status=0; cargo test --profile checked --all-features || status=$$?; \
	  wait $$alone || { status=1; echo "make $(BESIDE) FAILED (its output below)"; }; \
	  echo "---- make $(BESIDE) ----"; cat $(ALONE_LOG); exit $$status

cargo-test-alone:
	cargo build --no-default-features --features cli --bin reshard
	! grep -rn --include='*.rs' 'feature = "cli"' src --exclude-dir=bin
	cargo test --no-default-features --features redis --doc -- $(LIVE_DOCS)
	cargo test --no-default-features --features proxies --doc -- $(LIVE_DOCS)
	cargo test --no-default-features --features postgres --doc -- $(LIVE_DOCS)
	cargo test --no-default-features --features etcd --doc -- $(LIVE_DOCS)

clippy:
	cargo clippy --all-targets -- -D warnings
	cargo clippy --no-default-features --features charts,proxies,postgres,etcd --all-targets -- -D warnings
	cargo clippy --no-default-features --all-targets -- -D warnings

setup-test: $(VENV_STAMP)
	$(PHASE)
	$(VPY) -m pytest tests/setup -v -rs --tb=short -p no:cacheprovider

nbtest: setup $(NPM_STAMP)
	$(PHASE)
	$(VPY) -m pytest tests/notebooks -v -rs --tb=short -p no:cacheprovider --durations=20

notebooks: setup
	$(VPY) tests/notebooks/nbrun.py --inplace

# Teacher's and student's editions (HTML, PDF where a Chromium is found, student .ipynb) and
# the answer keys handouts/teacher/NN-key.{html,pdf}, from the committed notebooks:
# scripts/handouts.py (editions: scripts/editions.py; keys: scripts/answer_key.py).
handouts: $(VENV_STAMP) $(NPM_STAMP)
	$(VPY) scripts/handouts.py --out handouts

# Vega, Vega-Lite 5 and vega-embed (package.json, pinned by package-lock.json: the versions
# JupyterLab ships), inlined by scripts/vega_inline.py into each HTML page that shows an
# explorable, so its slider works offline. Installed into node_modules/ when missing or changed;
# without npm the pages show each explorable's picture instead (and say so).
$(NPM_STAMP): package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then npm ci --no-audit --no-fund --ignore-scripts; \
	else echo "npm not found: the HTML edition's explorables show their picture, without a slider (Debian: apt install npm)"; fi

check: setup
	@test -n "$(NB)" || { echo "usage: make check NB=notebooks/x.ipynb"; exit 2; }
	$(VPY) tests/notebooks/nbcheck.py $(NB)

index: $(VENV_STAMP)
	$(VPY) scripts/notebook_index.py

bench-notebooks: setup
	$(VPY) scripts/bench_notebooks.py

clean:
	rm -rf handouts
