#!/usr/bin/env bash
# Runs the guest SDKs' and plugins' own tests (host-side, no MCP server):
# the Rust SDK and plugins with Debian's cargo, the AssemblyScript SDK and plugins with
# node, and the Go SDK with go test when it is present.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "test-guests: $*" >&2; }

# Debian's rustdoc too: rustup's cannot read rlibs built by Debian's rustc.
for dir in sdk-guest/rust plugins/*/; do
	[ -f "$dir/Cargo.toml" ] || continue
	say "$dir"
	(cd "$dir" && RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc /usr/bin/cargo test --quiet --offline 2>&1 | grep -v '^$' | tail -3)
done

for dir in sdk-guest/assemblyscript plugins/mdtools; do
	say "$dir"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null && npm test --silent 2>&1 | tail -3)
done

for dir in sdk-guest/go plugins/*/; do
	[ -f "$dir/go.mod" ] || continue
	say "$dir"
	(cd "$dir" && GOWORK=off go test ./... 2>&1 | tail -3)
done
