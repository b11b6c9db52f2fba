#!/usr/bin/env bash
# Builds the static mcpwasm binary that the container image ships: no cgo,
# no libc, reproducible paths. The Dockerfile runs this script, and so does
# `make test` (deploy/kubernetes/check verifies the result is static), so the
# image's binary is built and checked on every CI run even where Docker is
# not available.
#
#   scripts/build-static.sh [OUT]    (default bin/mcpwasm-static)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bin/mcpwasm-static}
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}" \
	-o "$out" ./cmd/mcpwasm
echo "built $out" >&2
