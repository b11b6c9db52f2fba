#!/bin/sh
# Builds testdata/wasm/sdk_as.wasm, the SDK parity plugin (../SDK-PARITY.md),
# with sdk-guest/assemblyscript. Needs Node and npm; installs the pinned
# compiler and PDK (package-lock.json). Silent on success.
set -eu
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/asc ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
mkdir -p ../wasm
node_modules/.bin/asc assembly/index.ts --outFile ../wasm/sdk_as.wasm
