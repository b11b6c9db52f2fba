#!/bin/sh
# Builds the Go SDK parity plugin (testdata/SDK-PARITY.md) twice:
#   testdata/wasm/sdk_go.wasm      with standard Go 1.24+ (GOOS=wasip1, c-shared)
#   testdata/wasm/sdk_tinygo.wasm  with TinyGo 0.40: tinygo-wasip1, the wrapper
#                                  scripts/install-toolchains.sh installs (on PATH
#                                  or in $MCPWASM_TOOLCHAINS/bin), else a stock tinygo
# Silent on success; names a missing toolchain before building anything.
# GO picks the Go command (default go). Another fixture built the same two
# ways runs this with its folder and name: build.sh DIR NAME writes
# NAME_go.wasm and NAME_tinygo.wasm (testdata/fresh does).
set -eu
cd "$(dirname "$0")"
cd "${1:-.}"
name=${2:-sdk}
export GOWORK=off
go=${GO:-go}
command -v "$go" >/dev/null ||
	{ echo "$0: standard Go not found (\"$go\" is not on PATH); install Go 1.24 or newer" >&2; exit 1; }
wrapper=$(command -v tinygo-wasip1 || true)
[ -n "$wrapper" ] || [ ! -x "${MCPWASM_TOOLCHAINS:-/opt/mcpwasm-toolchains}/bin/tinygo-wasip1" ] ||
	wrapper=${MCPWASM_TOOLCHAINS:-/opt/mcpwasm-toolchains}/bin/tinygo-wasip1
plain=$(command -v tinygo || true)
[ -n "$wrapper$plain" ] || {
	echo "$0: TinyGo not found: no tinygo-wasip1 or tinygo on PATH, nor tinygo-wasip1 in ${MCPWASM_TOOLCHAINS:-/opt/mcpwasm-toolchains}/bin (run scripts/install-toolchains.sh)" >&2
	exit 1
}

mkdir -p ../wasm
GOOS=wasip1 GOARCH=wasm "$go" build -buildmode=c-shared -trimpath -ldflags="-s -w" -o "../wasm/${name}_go.wasm" .
flags="-opt=s -no-debug -scheduler=none -gc=leaking"
if [ -n "$wrapper" ]; then
	"$wrapper" build -o "../wasm/${name}_tinygo.wasm" $flags .
else
	"$plain" build -target=wasip1 -buildmode=c-shared -o "../wasm/${name}_tinygo.wasm" $flags .
fi
