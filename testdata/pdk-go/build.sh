#!/bin/sh
# Builds testdata/wasm/pdk_go.wasm with the plain Extism Go PDK (v1.1.3, from
# the Go module proxy) and standard Go.
set -eu
cd "$(dirname "$0")"
mkdir -p ../wasm
GOOS=wasip1 GOARCH=wasm GOWORK=off go build -buildmode=c-shared -trimpath -o ../wasm/pdk_go.wasm .
