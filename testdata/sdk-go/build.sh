#!/bin/sh
# Builds the Go SDK parity plugin (testdata/SDK-PARITY.md) twice:
#   testdata/wasm/sdk_go.wasm      with standard Go (GOOS=wasip1, c-shared)
#   testdata/wasm/sdk_tinygo.wasm  with TinyGo 0.40 (tinygo-wasip1, the wrapper
#                                  scripts/install-toolchains.sh installs)
# Silent on success. GO picks the Go command (default go).
set -eu
cd "$(dirname "$0")"
mkdir -p ../wasm
export GOWORK=off

go=${GO:-go}
command -v "$go" >/dev/null || { echo "sdk-go/build.sh: standard Go not found ($go); install Go 1.24 or newer" >&2; exit 1; }
GOOS=wasip1 GOARCH=wasm "$go" build -buildmode=c-shared -trimpath -ldflags="-s -w" -o ../wasm/sdk_go.wasm .

tinygo=$(command -v tinygo-wasip1 || true)
[ -n "$tinygo" ] || [ ! -x "${MCPWASM_TOOLCHAINS:-/opt/mcpwasm-toolchains}/bin/tinygo-wasip1" ] ||
	tinygo=${MCPWASM_TOOLCHAINS:-/opt/mcpwasm-toolchains}/bin/tinygo-wasip1
if [ -z "$tinygo" ]; then
	echo "sdk-go/build.sh: TinyGo not found: no tinygo-wasip1 on PATH or in ${MCPWASM_TOOLCHAINS:-/opt/mcpwasm-toolchains}/bin (run scripts/install-toolchains.sh)" >&2
	exit 1
fi
"$tinygo" build -o ../wasm/sdk_tinygo.wasm -opt=s -no-debug -scheduler=none -gc=leaking .
