#!/bin/sh
# Builds a Go plugin folder (plugins/textkit, plugins/hashkit) into
# NAME.wasm in that folder; each folder's build.sh runs this from itself.
#
#   ./build.sh          TinyGo if it is installed (a module 5-8x smaller, and
#                       calls several times faster), else standard Go
#   ./build.sh tinygo   TinyGo only (COMPILER=tinygo does the same)
#   ./build.sh go       standard Go (GOOS=wasip1 GOARCH=wasm, c-shared)
#   GO=go1.26 ./build.sh go
#
# TinyGo is found as tinygo-wasip1, the wrapper scripts/install-toolchains.sh
# installs (on PATH, or in $MCPWASM_TOOLCHAINS/bin, default
# /opt/mcpwasm-toolchains/bin; it adds a wasip1 target linked against
# Debian's wasi-libc), or else as tinygo with its own wasip1 target.
set -eu
name=$(basename "$(pwd)")
[ -f go.mod ] || { echo "build-go-plugin.sh: run it from a plugin folder holding go.mod (now in $(pwd))" >&2; exit 2; }
compiler=${1:-${COMPILER:-auto}}
# -scheduler=none: no goroutines, so no asyncify pass (smaller, faster).
# -gc=leaking: never collect. mcpwasm runs every call in a fresh instance, so
# garbage only lives for one call, and TinyGo's collector is what makes its
# calls slow: it rescans all of the module's data (hashkit's 450 KB zone
# database included) on every cycle, starting from a heap of a few dozen KB. In our
# measurements leaking is 2-20x faster than -gc=precise (a 1 MB regex
# replace: 0.7 s against 14 s); the cost is that a call can allocate only
# about the plugin's memory limit in total, enough for inputs of 1-2 MB.
# TINYGO_FLAGS replaces these flags.
tinygo_flags=${TINYGO_FLAGS:-"-opt=s -no-debug -scheduler=none -gc=leaking"}

wrapper=$(command -v tinygo-wasip1 || true)
for w in "${MCPWASM_TOOLCHAINS:-/opt/mcpwasm-toolchains}/bin/tinygo-wasip1" /opt/wasm-toolchains/bin/tinygo-wasip1; do
	[ -n "$wrapper" ] || [ ! -x "$w" ] || wrapper=$w
done
plain=$(command -v tinygo || true)
if [ "$compiler" = auto ]; then
	if [ -n "$wrapper$plain" ]; then compiler=tinygo; else compiler=go; fi
fi

case "$compiler" in
tinygo)
	if [ -n "$wrapper" ]; then
		"$wrapper" build -o "$name.wasm" $tinygo_flags .
	elif [ -n "$plain" ]; then
		"$plain" build -target=wasip1 -buildmode=c-shared -o "$name.wasm" $tinygo_flags .
	else
		echo "build.sh: TinyGo not found (tinygo-wasip1 or tinygo); use ./build.sh go" >&2
		exit 1
	fi
	;;
go)
	GOOS=wasip1 GOARCH=wasm ${GO:-go} build -buildmode=c-shared -trimpath -ldflags="-s -w" -o "$name.wasm" .
	;;
*)
	echo "usage: $0 [tinygo | go]" >&2
	exit 2
	;;
esac
echo "built $(pwd)/$name.wasm with $compiler ($(wc -c < "$name.wasm") bytes)"
