#!/bin/sh
# Builds testdata/wasm/sdk_c.wasm, the SDK parity plugin
# (testdata/SDK-PARITY.md), with clang-19, Debian's wasi-libc and
# sdk-guest/c/mcpwasm.h. Silent on success.
set -eu
cd "$(dirname "$0")"
CC=${CC:-clang-19}
if ! command -v "$CC" >/dev/null 2>&1; then
	echo "sdk-c: $CC not found (apt: clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32)" >&2
	exit 1
fi
if [ ! -f /usr/lib/wasm32-wasi/libc.a ] && [ ! -f /usr/lib/wasm32-wasip1/libc.a ]; then
	echo "sdk-c: wasi-libc not found in /usr/lib/wasm32-wasi (apt: wasi-libc)" >&2
	exit 1
fi
mkdir -p ../wasm
"$CC" --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2 -std=c11 \
	-Wall -Wextra -Werror -I../../sdk-guest/c -Wl,--strip-all \
	-o ../wasm/sdk_c.wasm plugin.c
