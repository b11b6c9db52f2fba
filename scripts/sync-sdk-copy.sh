#!/bin/sh
# Refreshes sdk-guest/_go, the copy of the Go guest SDK that "mcpwasm new"
# embeds. go:embed cannot read files of another module, and sdk-guest/go is
# one (its own go.mod keeps plugins free of the host's dependencies), so the
# host binary carries this copy instead. sdk-guest's TestGoCopyMatches fails
# when the copy and the SDK differ; run this script and commit both.
#
# Copied: the module's Go sources (tests and examples left out), its README,
# and go.mod renamed go.mod.txt (a go.mod would make the copy a module too).
set -eu
cd "$(dirname "$0")/../sdk-guest"
rm -rf _go
mkdir _go
(cd go && find . -type f \( -name '*.go' -o -name README.md -o -name go.mod \) \
	! -name '*_test.go' ! -path './example/*' ! -path './examples/*' | sort) |
while read -r f; do
	dst=_go/${f#./}
	[ "$(basename "$f")" = go.mod ] && dst=$(dirname "$dst")/go.mod.txt
	mkdir -p "$(dirname "$dst")"
	cp "go/$f" "$dst"
done
echo "sync-sdk-copy: sdk-guest/_go holds $(find _go -type f | wc -l) files" >&2
