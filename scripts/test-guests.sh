#!/usr/bin/env bash
# Runs the guest SDKs' and plugins' own tests (host-side, no MCP server):
# the Rust SDK and plugins with Debian's cargo, the AssemblyScript SDK and plugins with
# node, the C SDK with the host's C compilers, and the Go SDK and plugins
# with go test.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "test-guests: $*" >&2; }

# Debian's rustdoc too: rustup's cannot read rlibs built by Debian's rustc.
for dir in sdk-guest/rust plugins/*/; do
	[ -f "$dir/Cargo.toml" ] || continue
	say "$dir"
	(cd "$dir" && RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc /usr/bin/cargo test --quiet --offline 2>&1 | grep -v '^$' | tail -3)
done

say "sdk-guest/c"
sdk-guest/c/test.sh

for dir in sdk-guest/assemblyscript plugins/mdtools; do
	say "$dir"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null && npm test --silent 2>&1 | tail -3)
done

for dir in sdk-guest/go plugins/*/; do
	[ -f "$dir/go.mod" ] || continue
	say "$dir"
	(cd "$dir" && GOWORK=off go test ./... 2>&1 | tail -3)
done
