#!/usr/bin/env bash
# Builds every test fixture from source into testdata/wasm/. Idempotent;
# silent on success. Needs wat2wasm (wabt) and Debian's rustc 1.63 with the
# wasm32-wasi std (scripts/install-toolchains.sh installs both).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/wasm
mkdir -p "$out"
command -v wat2wasm >/dev/null || { echo "testdata/build.sh: wat2wasm not found (apt-get install wabt, or scripts/install-toolchains.sh)" >&2; exit 1; }

# WAT fixtures: each file is either a whole module, or extra imports and a
# body separated by ";; ---", assembled around the shared prelude.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for src in "$here"/wat/[!_]*.wat; do
	name=$(basename "$src" .wat)
	if grep -q '^(module' "$src"; then
		cp "$src" "$tmp/$name.wat"
	else
		{
			echo "(module"
			cat "$here/wat/_prelude_imports.wat"
			sed -n '1,/^;; ---$/p' "$src" | { grep -v '^;;' || true; }
			cat "$here/wat/_prelude_body.wat"
			sed -n '/^;; ---$/,$p' "$src" | sed 1d
			echo ")"
		} > "$tmp/$name.wat"
	fi
	wat2wasm --enable-all "$tmp/$name.wat" -o "$out/$name.wasm" || { echo "testdata/build.sh: $src failed to assemble" >&2; exit 1; }
done

# Rust fixtures, with Debian's rustc (rustup's shadows it on PATH).
for dir in "$here"/rust/*/; do
	name=$(basename "$dir")
	(cd "$dir" && RUSTC=/usr/bin/rustc CARGO_TARGET_DIR="$tmp/target-$name" \
		/usr/bin/cargo build --quiet --release --target wasm32-wasi) ||
		{ echo "testdata/build.sh: rust fixture $name failed" >&2; exit 1; }
	cp "$tmp/target-$name/wasm32-wasi/release/$name.wasm" "$out/$name.wasm"
done

# Go fixture: the conformance plugin, a module of its own (standard Go, wasip1).
"$here/conformance/build.sh" || { echo "testdata/build.sh: conformance fixture failed" >&2; exit 1; }
"$here/fsprobe/build.sh" || { echo "testdata/build.sh: fsprobe fixture failed" >&2; exit 1; }
"$here/pdk-as/build.sh" || { echo "testdata/build.sh: pdk-as fixture failed" >&2; exit 1; }
