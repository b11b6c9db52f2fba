#!/bin/sh
# Native tests of mcpwasm.h (JSON layer, URI templates, exports through the
# native kernel stand-in), with every C compiler found among cc, gcc and
# clang; with AddressSanitizer and UBSan where they link. Exits non-zero on
# any failure.
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ran=0
for cc in ${CC:-gcc clang clang-19}; do
	command -v "$cc" >/dev/null 2>&1 || continue
	flags="-std=c11 -Wall -Wextra -Werror -O1 -g"
	san="-fsanitize=address,undefined -fno-sanitize-recover=all"
	if echo 'int main(void){return 0;}' | "$cc" $san -x c -o "$out/probe" - 2>/dev/null; then flags="$flags $san"; fi
	"$cc" $flags -o "$out/test-$cc" tests/test.c -lm
	printf '%s: ' "$cc"
	# The SDK never frees (each plugin call is a fresh instance): no leak check.
	ASAN_OPTIONS=detect_leaks=0 "$out/test-$cc"
	ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || { echo "sdk-guest/c/test.sh: no C compiler (gcc or clang) found" >&2; exit 1; }
