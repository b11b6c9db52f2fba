#!/bin/sh
# Builds mdtools.wasm next to this script, from source.
# Needs Node and npm; installs the pinned compiler and SDK (package-lock.json).
set -eu
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/asc ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi
node_modules/.bin/asc assembly/index.ts --outFile mdtools.wasm
echo "built $(pwd)/mdtools.wasm ($(wc -c < mdtools.wasm) bytes)"
