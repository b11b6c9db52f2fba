#!/usr/bin/env bash
# Prints a table of the example plugins: guest language, module size, and the
# wall time of `mcpwasm call` (a whole process: start, load from the warm
# compile cache, one call in a fresh instance, print), median of N runs
# (default 15) after one warm-up that fills the cache. Run after
# scripts/build-plugins.sh.
#
#   scripts/plugin-table.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-15}
bin=$(mktemp -d)/mcpwasm
cache=$(mktemp -d)
trap 'rm -rf "$(dirname "$bin")" "$cache"' EXIT
go build -o "$bin" ./cmd/mcpwasm

row() { # plugin language tool args [call flags...]
	local wasm=plugins/$1/$1.wasm times=() t0 t1 name=$1 lang=$2 tool=$3 args=$4
	shift 4
	[ -f "$wasm" ] || { echo "plugin-table: $wasm is not built (scripts/build-plugins.sh)" >&2; exit 1; }
	"$bin" call --cache-dir "$cache" "$@" "$wasm" "$tool" "$args" >/dev/null
	for _ in $(seq "$n"); do
		t0=$(date +%s%N)
		"$bin" call --cache-dir "$cache" "$@" "$wasm" "$tool" "$args" >/dev/null
		t1=$(date +%s%N)
		times+=($(( (t1 - t0) / 1000 )))
	done
	local med
	med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (n + 1) / 2 ))p")
	printf '| %s | %s | %s KB | %s ms |\n' "$name" "$lang" "$(( $(wc -c < "$wasm") / 1024 ))" \
		"$(awk -v us="$med" 'BEGIN { printf "%.1f", us / 1000 }')"
}

echo "| plugin | language | size | mcpwasm call, median of $n |"
echo "|---|---|---|---|"
row units Rust convert '{"value":1,"from":"mi","to":"km"}'
row fs Rust stat "{\"path\":\"$PWD/plugins/fs/Cargo.toml\"}" --root plugins/fs
row mdtools AssemblyScript to_text '{"markdown":"# Title\n\nSome *bold* text"}'
row textkit TinyGo count '{"text":"two words"}'
row hashkit TinyGo hash '{"text":"abc","algorithm":"sha256"}'
