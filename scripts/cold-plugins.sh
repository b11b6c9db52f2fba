#!/bin/sh
# Assembles the ten plugins of the start-up figures (issue 25) into DIR, for
#   go run ./cmd/mcpwasm-bench --only 3 --cold-plugins DIR [--cold-baseline OLD_MCPWASM]
#   MCPWASM_COLD_PLUGINS=DIR go test -run '^$' -bench ColdLoad ./host/plugin   (CPU per cold load)
# Four standard-Go modules of 3.3-3.6 MB (jsonfetch built with standard Go,
# and the Go PDK, Go SDK parity and conformance fixtures), two TinyGo
# (textkit, hashkit), two Rust (units, fs), one AssemblyScript (mdtools) and
# the WAT echo: 69 tools. Run testdata/build.sh and scripts/build-plugins.sh
# first (the TinyGo, Rust and AssemblyScript builds).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
mkdir -p "$dir"
for f in testdata/wasm/sdk_go.wasm testdata/wasm/pdk_go.wasm testdata/wasm/conformance.wasm testdata/wasm/echo.wasm \
	plugins/textkit/textkit.wasm plugins/hashkit/hashkit.wasm plugins/units/units.wasm plugins/fs/fs.wasm \
	plugins/mdtools/mdtools.wasm; do
	[ -f "$root/$f" ] || { echo "$0: $f is not built (testdata/build.sh, scripts/build-plugins.sh)" >&2; exit 1; }
	cp "$root/$f" "$dir/"
done
(cd "$root/plugins/jsonfetch" && GOWORK=off GOOS=wasip1 GOARCH=wasm ${GO:-go} build -buildmode=c-shared -trimpath \
	-ldflags="-s -w" -o "$(cd "$dir" && pwd)/jsonfetch.wasm" .)
ls -l "$dir"
