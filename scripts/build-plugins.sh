#!/usr/bin/env bash
# Builds every first-party plugin in plugins/*/ from source (each folder's
# build.sh writes <name>.wasm beside it).
#
#   scripts/build-plugins.sh                   build all
#   scripts/build-plugins.sh --update-builtin  build, then copy the built-in set into plugins/builtin/wasm/
#   scripts/build-plugins.sh --check-builtin   build, then fail if plugins/builtin/wasm/ differs from the build
#
# The built-in set is what `mcpwasm serve` runs with no arguments; it is
# committed so that `go run ./cmd/mcpwasm serve` needs nothing but Go, and CI
# proves it is exactly what these sources build.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILTIN=(units mdtools textkit)   # plugins/<name>/<name>.wasm, in more than one guest language
mode=${1:-}

for b in plugins/*/build.sh; do
	dir=$(dirname "$b")
	"$b" >/dev/null || { echo "build-plugins: $dir failed" >&2; exit 1; }
done

case "$mode" in
--update-builtin)
	for n in "${BUILTIN[@]}"; do
		[ -f "plugins/$n/$n.wasm" ] || { echo "build-plugins: plugins/$n/$n.wasm was not built" >&2; exit 1; }
		cp "plugins/$n/$n.wasm" "plugins/builtin/wasm/$n.wasm"
	done
	;;
--check-builtin)
	fail=0
	for n in "${BUILTIN[@]}"; do
		if ! cmp -s "plugins/$n/$n.wasm" "plugins/builtin/wasm/$n.wasm"; then
			echo "build-plugins: plugins/builtin/wasm/$n.wasm does not match a build of plugins/$n (run scripts/build-plugins.sh --update-builtin and commit)" >&2
			fail=1
		fi
	done
	extra=$(cd plugins/builtin/wasm && ls *.wasm 2>/dev/null | grep -vxF -f <(printf '%s.wasm\n' "${BUILTIN[@]}") || true)
	[ -z "$extra" ] || { echo "build-plugins: unexpected files in plugins/builtin/wasm: $extra" >&2; fail=1; }
	exit $fail
	;;
"") ;;
*) echo "usage: $0 [--update-builtin | --check-builtin]" >&2; exit 2 ;;
esac
