#!/bin/sh
# Regenerates the .wasm files beside their .wat sources with wabt's wat2wasm
# (1.0.32). The .wasm files are checked in so the tests need no wabt. Each
# .wat names its own command; only segments.wat wants a name section.
set -e
cd "$(dirname "$0")"
for f in *.wat; do
	case "$f" in
	segments.wat) wat2wasm --debug-names "$f" -o "${f%.wat}.wasm" ;;
	*) wat2wasm "$f" -o "${f%.wat}.wasm" ;;
	esac
done
