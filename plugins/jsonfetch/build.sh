#!/bin/sh
# Builds jsonfetch.wasm with standard Go and the plain Extism Go PDK.
set -eu
cd "$(dirname "$0")"
GOOS=wasip1 GOARCH=wasm GOWORK=off go build -buildmode=c-shared -trimpath -o jsonfetch.wasm .
