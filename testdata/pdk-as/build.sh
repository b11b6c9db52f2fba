#!/bin/sh
# Builds testdata/wasm/pdk_as.wasm with the plain Extism AssemblyScript PDK.
set -eu
cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/asc ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
mkdir -p ../wasm
node_modules/.bin/asc assembly/index.ts --outFile ../wasm/pdk_as.wasm -O3 --use abort=assembly/index/myAbort
