#!/bin/sh
# Builds testdata/wasm/sdk_rust.wasm, the SDK parity plugin
# (testdata/SDK-PARITY.md), with Debian's Rust 1.63 and sdk-guest/rust,
# offline. Silent on success. target/ is gitignored.
set -eu
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
mkdir -p ../wasm
# Panic messages carry source paths: make them independent of the checkout.
RUSTFLAGS="${RUSTFLAGS:-} --remap-path-prefix=$root=/mcpwasm" RUSTC=/usr/bin/rustc \
	/usr/bin/cargo build --quiet --release --offline --locked --target wasm32-wasi
cp target/wasm32-wasi/release/sdk_rust.wasm ../wasm/sdk_rust.wasm
