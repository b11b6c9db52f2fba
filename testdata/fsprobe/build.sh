#!/bin/sh
# Builds testdata/wasm/fsprobe.wasm (standard Go, wasip1 reactor).
set -eu
cd "$(dirname "$0")"
mkdir -p ../wasm
GOWORK=off GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags='-s -w' -o ../wasm/fsprobe.wasm .
