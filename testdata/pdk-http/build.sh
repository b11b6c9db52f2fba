#!/bin/sh
# Builds testdata/wasm/pdk_http.wasm: a plugin calling Extism's http_request
# through the plain Extism Go PDK (v1.1.3, from the Go module proxy), with
# standard Go. mcpwasm must serve it unchanged through its guarded client.
set -eu
cd "$(dirname "$0")"
mkdir -p ../wasm
GOOS=wasip1 GOARCH=wasm GOWORK=off go build -buildmode=c-shared -trimpath -o ../wasm/pdk_http.wasm .
