# mcpwasm build and test entry points. `make test` is what CI runs.
GO ?= go

.PHONY: test toolchains wasm fixtures plugins check-builtin vet guests conformance run bench

## test: install missing toolchains, build every plugin and fixture from source, vet, test.
## MCPWASM_REQUIRE_FIXTURES=1 makes a test that lacks a fixture or toolchain fail
## instead of skipping (internal/fixture), so nothing passes by skipping here.
test: export MCPWASM_REQUIRE_FIXTURES = 1
# TestInterruptionPointsChangeNothing and TestDifferentialExtism (Extism's
# go-sdk as the reference of the ABI the host serves) run every module this
# repository builds twice and compare the answers: guest semantics, no host
# concurrency to race on. They skip themselves under -race
# (fixture.Differential) and run here without it.
DIFFERENTIAL = ^(TestInterruptionPointsChangeNothing|TestDifferentialExtism)$$
test: toolchains wasm vet guests
	$(GO) test -race -count=1 -timeout 25m ./...
	$(GO) test -count=1 -run '$(DIFFERENTIAL)' ./host/plugin/...
	# issue 41: host/server's and the binary's suites again with every plugin
	# in a worker process (docs/operating.md, "Isolation")
	$(GO) build -o $(CURDIR)/.isolation-worker ./cmd/mcpwasm
	MCPWASM_ISOLATION=process MCPWASM_TEST_WORKER_BIN=$(CURDIR)/.isolation-worker $(GO) test -count=1 ./host/server/ ./cmd/mcpwasm/
	rm -f $(CURDIR)/.isolation-worker
	# the escape probes (issue 41): only this test binary has them, never the product's
	$(GO) test -count=1 -tags isolateprobe ./host/isolate/
	cd sigstore && $(GO) vet ./... && $(GO) test -race -count=1 ./...
	cd deploy/kubernetes/check && $(GO) test -count=1 ./...
	./scripts/conformance.sh

## conformance: the official MCP conformance suite and SDK clients against the real binary
conformance:
	./scripts/conformance.sh

## guests: the guest SDKs' and plugins' own tests
guests:
	./scripts/test-guests.sh

toolchains:
	./scripts/install-toolchains.sh

## wasm: build test fixtures and plugins from source, and check the embedded ones match
wasm: fixtures plugins check-builtin

fixtures:
	./testdata/build.sh

plugins:
	./scripts/build-plugins.sh

check-builtin:
	./scripts/build-plugins.sh --check-builtin

vet:
	$(GO) vet ./...

## run: serve the built-in example plugins over stdio
run:
	$(GO) run ./cmd/mcpwasm serve

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./host/...
