#!/bin/sh
# Builds a Rust plugin folder (plugins/fs, plugins/units) into NAME.wasm in
# that folder, from source, offline; each folder's build.sh runs this from
# itself.
#
# Default: Debian's Rust 1.63 for wasm32-wasi (apt: rustc cargo libstd-rust-dev-wasm32).
# rustup's cargo usually comes first on PATH and cannot build it, so this
# calls Debian's by path. With another toolchain that has wasm32-wasip1:
#   CARGO=cargo TARGET=wasm32-wasip1 ./build.sh
set -eu
name=$(basename "$(pwd)")
[ -f Cargo.toml ] || { echo "build-rust-plugin.sh: run it from a plugin folder holding Cargo.toml (now in $(pwd))" >&2; exit 2; }
if [ -z "${TARGET:-}" ] && [ -z "${CARGO:-}" ] && [ -x /usr/bin/cargo ] && [ -d /usr/lib/rustlib/wasm32-wasi ]; then
	CARGO=/usr/bin/cargo RUSTC=${RUSTC:-/usr/bin/rustc} TARGET=wasm32-wasi
	export RUSTC
fi
CARGO=${CARGO:-cargo}
# Panic locations embed source paths: make them independent of the checkout's
# location so the module is byte-for-byte reproducible.
root=$(cd ../.. && pwd)
RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$root=/mcpwasm"
export RUSTFLAGS
TARGET=${TARGET:-wasm32-wasip1}
"$CARGO" build --release --offline --locked --target "$TARGET"
cp "target/$TARGET/release/$name.wasm" "$name.wasm"
echo "built $(pwd)/$name.wasm ($(wc -c < "$name.wasm") bytes)"
