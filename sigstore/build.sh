#!/bin/sh
# Builds an mcpwasm binary that can also check Sigstore keyless signatures
# (identity, issuer, trusted_root in a [sources] policy).
#
#   sigstore/build.sh [OUT]     default OUT: ./mcpwasm-sigstore
#
# The command is the main module's cmd/mcpwasm, unchanged, built from this
# nested module (so sigstore-go's ~370 modules come from this go.mod, never
# the main one) with one file added through a build overlay: a blank import
# of ./keyless, whose init registers the verifier with host/source. Extra
# go build flags may follow in GOFLAGS, e.g. GOFLAGS=-trimpath.
set -eu
out=$(realpath -m "${1:-mcpwasm-sigstore}")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'package main\n\nimport _ "github.com/mcpwasm/mcpwasm/sigstore/keyless"\n' > "$tmp/keyless.go"
printf '{"Replace":{"%s":"%s"}}\n' "$here/../cmd/mcpwasm/zz_sigstore_keyless.go" "$tmp/keyless.go" > "$tmp/overlay.json"
cd "$here"
CGO_ENABLED=${CGO_ENABLED:-0} ${GO:-go} build -overlay "$tmp/overlay.json" -o "$out" github.com/mcpwasm/mcpwasm/cmd/mcpwasm
echo "built $out (mcpwasm with keyless signature checking)" >&2
