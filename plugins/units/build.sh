#!/bin/sh
# Builds units.wasm next to this script, from source, offline, with Debian's
# Rust by default; CARGO=cargo TARGET=wasm32-wasip1 ./build.sh for another
# toolchain. See scripts/build-rust-plugin.sh.
set -eu
cd "$(dirname "$0")"
exec ../../scripts/build-rust-plugin.sh "$@"
