# floe — two commands matter: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
BIN := bin/floe
# GOFILES are our hand-written Go files, tracked or new (generated templ and
# protobuf code is left as its generator wrote it).
GOFILES = $$(git ls-files --cached --others --exclude-standard '*.go' | grep -v -E '(_templ|\.pb)\.go$$')
DATA ?= ./floe-data

.PHONY: run run-s3 build test test-go test-node fuzz lint vet fmt-check staticcheck lint-js lint-lock fmt generate check-generated vendor bench node-deps lock clean

## run: build floe and start it with a Lance worker on the embedded defaults
run: build node-deps
	./$(BIN) serve --data $(DATA) --with-worker

## run-s3: the same on object storage: a local SeaweedFS S3 store (built on first use) and floe with its warehouse there
run-s3: build node-deps
	DATA=$(DATA)-s3 scripts/run-s3.sh

build:
	$(GO) build -o $(BIN) ./cmd/floe

## test: everything CI runs (lint, generated-code freshness, Go tests with -race incl. the browser journey and the real LanceDB client, worker tests)
test: node-deps lint test-go test-node fuzz

test-go:
	$(GO) test -race -count=1 -timeout 30m ./...

# FUZZ_TARGETS are package:Target pairs; each explores for FUZZTIME beyond its
# committed corpus in testdata/fuzz (the corpus also runs in test-go).
FUZZTIME ?= 10s
FUZZ_TARGETS := \
	./jsonstrict:FuzzCheck \
	./iceberg:FuzzSchema ./iceberg:FuzzBindFilter ./iceberg:FuzzParseFilter ./icebergrest:FuzzDecodeBody ./icebergrest:FuzzDecodeCommitAndPlan \
	./lancerest:FuzzDecodeCreateNamespace ./lancerest:FuzzDecodeList ./lancerest:FuzzDecodeRegisterTable \
	./taskapi:FuzzReadBody ./catalog:FuzzParsePageToken ./catalog:FuzzSearch \
	./handlers:FuzzSafeNext \
	./lancemeta:FuzzDecodeManifest ./lancemeta:FuzzFragmentSet ./observe:FuzzReadFigures \
	./lancerest:FuzzDecodeVersionBodies ./warehouse:FuzzParseObjectPath \
	./form:FuzzValidate ./tasks:FuzzValidateParams ./handlers:FuzzActivityFilter \
	./oidc:FuzzGroupsFrom ./oidc:FuzzParseKeySet

## fuzz: run each fuzz target for a bounded time (FUZZTIME, default 10s)
# A run that ends on "context deadline exceeded" without writing a failing
# input is Go's fuzz coordinator timing out on a worker still busy when
# FUZZTIME ran out, not a finding: that target runs once more. A found input
# (written under testdata/fuzz) fails at once.
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		out=$$($(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg 2>&1) && { echo "$$out" | tail -2; continue; }; \
		echo "$$out"; \
		if echo "$$out" | grep -q 'context deadline exceeded' && ! echo "$$out" | grep -q 'Failing input written'; then \
			echo "fuzz $$pkg $$name: the coordinator timed out, not a finding; once more"; \
			$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; \
		else exit 1; fi; \
	done

test-node:
	@if ls workers/lance/*.test.mjs >/dev/null 2>&1; then node --test workers/lance/; else echo "no worker tests yet"; fi

# node-deps installs the pinned Node packages when the lock changed, exactly
# as the lock says (npm ci; see lock for why the lock needs completing).
node-deps:
	@if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.floe-lock; then \
		npm ci --no-audit --no-fund && cp package-lock.json node_modules/.floe-lock; \
	fi

## lock: rewrite package-lock.json after changing package.json (npm, then the
## platform builds the registry here does not serve: scripts/npm-lock.mjs)
lock:
	npm install --package-lock-only --no-audit --no-fund
	node scripts/npm-lock.mjs
	npm install --package-lock-only --no-audit --no-fund
	node scripts/npm-lock.mjs --check

## lint: vet, generated-code freshness, gofmt, staticcheck, templ fmt, eslint (workers/, static/js) and a complete lock
lint: vet check-generated fmt-check staticcheck lint-js lint-lock
	$(GO) tool templ fmt -fail views

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "not gofmt'ed (run 'make fmt'):"; echo "$$out"; exit 1; fi

staticcheck:
	$(GO) tool staticcheck ./...

lint-js: node-deps
	npx --no-install eslint workers static/js scripts/npm-lock.mjs eslint.config.js

lint-lock:
	node scripts/npm-lock.mjs --check

fmt:
	gofmt -w $(GOFILES)
	$(GO) tool templ fmt views

## generate: templ components and protobuf code (both committed)
generate:
	$(GO) tool templ generate
	@if [ -f proto/generate.sh ]; then bash proto/generate.sh; fi

check-generated: generate
	@git diff --exit-code -- '*_templ.go' 'plugin/pluginpb/' 'lancemeta/lancepb/' || { echo "generated code is stale: run 'make generate' and commit"; exit 1; }

## vendor: copy the pinned htmx 2 and its ws extension from node_modules into static/vendor (committed)
vendor: node-deps
	cp node_modules/htmx.org/dist/htmx.min.js static/vendor/htmx.min.js
	cp node_modules/htmx-ext-ws/dist/ws.min.js static/vendor/ws.min.js

## bench: benchmarks that print ratios measured in one run
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./bench/... ./lancerest/... ./plugin/... ./observe/... ./preview/... ./iceberg/... ./taskapi/... ./web/... ./handlers/...
	node workers/lance/bench.mjs

clean:
	rm -rf bin
