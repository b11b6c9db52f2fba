#!/bin/sh
# Builds the freshness fixture (main.go) twice, as sdk-go/build.sh builds
# the SDK parity plugin: testdata/wasm/fresh_go.wasm with standard Go and
# testdata/wasm/fresh_tinygo.wasm with TinyGo. Silent on success.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../sdk-go/build.sh" "$here" fresh
