#!/usr/bin/env bash
# Builds every test fixture from source into testdata/wasm/. Idempotent;
# silent on success. Needs wat2wasm (wabt), Debian's rustc 1.63 and cargo with
# the wasm32-wasi std, Go, node/npm, and TinyGo for sdk_tinygo
# (scripts/install-toolchains.sh installs them all; sdk-go/build.sh names a
# missing TinyGo).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/wasm
mkdir -p "$out"
# need TOOL HINT: stop, naming the missing tool, before building anything.
need() { command -v "$1" >/dev/null 2>&1 || { echo "testdata/build.sh: $1 not found ($2, or scripts/install-toolchains.sh)" >&2; exit 1; }; }
need wat2wasm "apt-get install wabt"
need /usr/bin/rustc "apt-get install rustc libstd-rust-dev-wasm32"
need /usr/bin/cargo "apt-get install cargo"
[ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/wasm32-wasi" ] ||
	{ echo "testdata/build.sh: the wasm32-wasi Rust std is not installed for /usr/bin/rustc (apt-get install libstd-rust-dev-wasm32)" >&2; exit 1; }
need go "Go 1.26 or later"
need node "apt-get install nodejs"
need npm "apt-get install npm"

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

# Every other fixture folder builds itself: testdata/NAME/build.sh writes
# testdata/wasm/*.wasm (the conformance plugin, fsprobe, the plain as-pdk
# servlet, the SDK feature plugins, ...).
for b in "$here"/*/build.sh; do
	"$b" || { echo "testdata/build.sh: fixture $(basename "$(dirname "$b")") failed ($b)" >&2; exit 1; }
done
