# reshard: Rust crate + Jupyter notebooks on the evcxr Rust kernel.
#
#   make lab        set up (first time only), then JupyterLab on notebooks/
#   make test       rustfmt, cargo test (with and without default features), clippy, notebook checks
#   make notebooks  re-execute notebooks/*.ipynb in place (commit the result)
#   make handouts   execute notebooks, write handouts/*.html
#   make index      regenerate notebooks/00-index.ipynb and README's notebook list
#   make check NB=notebooks/x.ipynb   check one notebook
#   make setup      venv + evcxr_jupyter + Rust kernelspec (idempotent)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
REQUIREMENTS := requirements.txt
VENV_STAMP := $(VENV)/.requirements.stamp
EVCXR_VERSION := 0.22.0
KERNEL := rust

# cargo-installed tools (evcxr_jupyter, and cargo itself under rustup) live here;
# CI and fresh shells may not have it on PATH.
export PATH := $(HOME)/.cargo/bin:$(PATH)

# Steps run in the order written, even under -j.
.NOTPARALLEL:

.PHONY: help setup evcxr kernel lab test fmt cargo-test clippy nbtest notebooks handouts check index clean

help:
	@sed -n '3,10s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

setup: $(VENV_STAMP) evcxr kernel

# Re-run pip whenever requirements.txt changes.
$(VENV_STAMP): $(REQUIREMENTS)
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --disable-pip-version-check -q -r $(REQUIREMENTS)
	@touch $@

evcxr:
	@if command -v evcxr_jupyter >/dev/null 2>&1; then \
	  echo "evcxr_jupyter: $$(command -v evcxr_jupyter)"; \
	else \
	  echo "Installing evcxr_jupyter $(EVCXR_VERSION) with cargo (about 10 minutes on 2 cores)..."; \
	  cargo install --locked evcxr_jupyter --version $(EVCXR_VERSION); \
	fi

define HAS_KERNEL
import json, os, shutil, sys
spec = json.load(sys.stdin)["kernelspecs"].get(sys.argv[1])
argv0 = spec and spec["spec"]["argv"][0]
sys.exit(not (argv0 and (os.path.exists(argv0) or shutil.which(argv0))))
endef
export HAS_KERNEL

kernel: $(VENV_STAMP) evcxr
	@# present = listed and its evcxr_jupyter binary still exists
	@if $(VENV)/bin/jupyter kernelspec list --json | $(VPY) -c "$$HAS_KERNEL" $(KERNEL); then \
	  echo "Jupyter kernelspec '$(KERNEL)': present"; \
	else \
	  evcxr_jupyter --install; \
	fi

lab: setup
	@mkdir -p notebooks
	@echo "Starting JupyterLab on notebooks/; open the http://127.0.0.1:... URL with the token printed below."
	$(VENV)/bin/jupyter lab --no-browser --ip=127.0.0.1 --ServerApp.root_dir=$(CURDIR)/notebooks \
	  $$( [ "$$(id -u)" = 0 ] && echo --allow-root || true )

test: setup fmt cargo-test clippy nbtest

fmt:
	cargo fmt --check

# Notebooks build the crate with `default-features = false`: every test but
# the CLI's runs in that configuration; the CLI's with the default features.
cargo-test:
	cargo test --no-default-features
	cargo test --test cli
	cargo test --no-default-features --features redis --test redis

clippy:
	cargo clippy --all-targets -- -D warnings
	cargo clippy --no-default-features --features redis --all-targets -- -D warnings

nbtest: setup
	$(VPY) -m pytest tests/notebooks -v -rs --tb=short -p no:cacheprovider

notebooks: setup
	$(VPY) tests/notebooks/nbrun.py --inplace

handouts: setup
	$(VPY) tests/notebooks/nbrun.py --html handouts

check: setup
	@test -n "$(NB)" || { echo "usage: make check NB=notebooks/x.ipynb"; exit 2; }
	$(VPY) tests/notebooks/nbcheck.py $(NB)

index: $(VENV_STAMP)
	$(VPY) scripts/notebook_index.py

clean:
	rm -rf handouts
