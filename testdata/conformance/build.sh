#!/usr/bin/env bash
# Builds the conformance fixture plugin (standard Go, a WASI reactor) into
# testdata/wasm/conformance.wasm. Needs only the Go toolchain.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../wasm
mkdir -p "$out"
cd "$here"
GOWORK=off GOFLAGS= CGO_ENABLED=0 GOOS=wasip1 GOARCH=wasm \
	go build -buildmode=c-shared -trimpath -ldflags='-s -w' -o "$out/conformance.wasm" .
