#!/bin/sh
# Builds example/hello.wasm from example/hello.c with clang-19 and Debian's
# wasi-libc. Silent on success. Usage: sdk-guest/c/build-example.sh [file.c ...]
set -eu
cd "$(dirname "$0")"
CC=${CC:-clang-19}
command -v "$CC" >/dev/null 2>&1 || { echo "build-example: $CC not found (apt: clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32)" >&2; exit 1; }
[ -f /usr/lib/wasm32-wasi/libc.a ] || { echo "build-example: wasi-libc not found in /usr/lib/wasm32-wasi (apt: wasi-libc)" >&2; exit 1; }
[ $# -gt 0 ] || set -- example/hello.c
for src in "$@"; do
	"$CC" --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2 -std=c11 -Wall -Wextra -Werror \
		-I. -Wl,--strip-all -o "${src%.c}.wasm" "$src"
done
