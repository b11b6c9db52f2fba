#!/usr/bin/env bash
# Installs what mcpwasm's build and tests need on a fresh Debian 12 machine,
# using only apt, the Go module proxy and npm. Idempotent: a second run only
# checks. Prints one line per step on stderr.
#
#   wabt                 wat2wasm, for the WAT test fixtures
#   binaryen             wasm-opt, which TinyGo runs on optimised builds
#   rustc 1.63 + wasm32  Rust SDK, Rust plugins and fixtures (Debian's packages,
#                        with lld-14, the wasm linker rustc runs as rust-lld)
#   TinyGo 0.40.1        built from the Go module proxy against Debian's LLVM 19
#
# Node and npm come with the machine; each AssemblyScript package installs
# its own pinned compiler with `npm ci`.
set -euo pipefail
TC=${MCPWASM_TOOLCHAINS:-/opt/mcpwasm-toolchains}
say() { echo "install-toolchains: $*" >&2; }
t0=$(date +%s)

need_apt=()
command -v wat2wasm >/dev/null || need_apt+=(wabt)
# TinyGo runs binaryen's wasm-opt on -opt=s builds (textkit, hashkit and the
# built-in textkit.wasm, which CI rebuilds byte for byte with Debian's 108).
command -v wasm-opt >/dev/null || need_apt+=(binaryen)
# The Redis task store's tests (host/tasks/redisstore, TestScaleOutTasks)
# start Debian's redis-server 7 themselves.
command -v redis-server >/dev/null || need_apt+=(redis-server)
# rustc links wasm32 with rust-lld, a symlink to lld-14 that rustc only
# suggests, so --no-install-recommends leaves it out: ask for it by name.
[ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/wasm32-wasi ] && [ -x /usr/bin/lld-14 ] ||
	need_apt+=(rustc cargo libstd-rust-dev-wasm32 lld-14)
[ -x /usr/bin/clang-19 ] && [ -f /usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a ] && [ -f /usr/lib/wasm32-wasi/libc.a ] ||
	need_apt+=(llvm-19-dev libclang-19-dev clang-19 lld-19 libclang-rt-19-dev-wasm32 wasi-libc)
if [ ${#need_apt[@]} -gt 0 ]; then
	say "apt: ${need_apt[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >&2
fi

# TinyGo 0.40.1. `go install tinygo@v0.40.1` fails on this proxy (it reads the
# module's version list, which the proxy refuses), so build it from a small
# wrapper module instead. Module zips carry no git submodules, so TinyGo's
# own wasi-libc and src/net are missing: link Debian's wasi-libc and
# compiler-rt through a custom target, and give net/http an empty folder.
if [ ! -x "$TC/bin/tinygo" ]; then
	say "building TinyGo 0.40.1 into $TC"
	mkdir -p "$TC/src" "$TC/bin"
	cd "$TC/src"
	printf 'module local/tinygobuild\n\ngo 1.24\n' > go.mod
	printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/tinygo-org/tinygo"\n' > tools.go
	GOFLAGS=-mod=mod go get github.com/tinygo-org/tinygo@v0.40.1 >&2
	GOFLAGS=-mod=mod go build -tags=llvm19 -o "$TC/bin/tinygo" github.com/tinygo-org/tinygo >&2
	src=$(GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' github.com/tinygo-org/tinygo)
	rm -rf "$TC/root" && cp -r "$src" "$TC/root" && chmod -R u+w "$TC/root"
	mkdir -p "$TC/root/src/net/http"
	cat > "$TC/root/targets/wasip1-debian.json" <<'JSON'
{
	"llvm-target": "wasm32-unknown-wasi",
	"cpu": "generic",
	"features": "+bulk-memory,+mutable-globals,+nontrapping-fptoint,+sign-ext,-multivalue,-reference-types",
	"build-tags": ["tinygo.wasm"],
	"goos": "wasip1",
	"goarch": "wasm",
	"linker": "wasm-ld",
	"libc": "",
	"rtlib": "",
	"gc": "precise",
	"scheduler": "asyncify",
	"default-stack-size": 65536,
	"cflags": ["-mbulk-memory", "-mnontrapping-fptoint", "-mno-multivalue", "-mno-reference-types", "-msign-ext",
	           "-isystem", "/usr/include/wasm32-wasi"],
	"ldflags": ["--stack-first", "--no-demangle", "/usr/lib/wasm32-wasi/libc.a",
	            "/usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a"],
	"extra-files": ["src/runtime/asm_tinygowasm.S", "src/runtime/gc_boehm.c"]
}
JSON
fi
# TinyGo 0.40 accepts Go 1.19 to 1.25; the wrapper pins go1.25.5 (fetched
# once from the module proxy as golang.org/toolchain).
cat > "$TC/bin/tinygo-wasip1" <<WRAP
#!/bin/sh
# tinygo-wasip1 build -o plugin.wasm [flags] [pkg]: TinyGo for mcpwasm plugins (wasip1, c-shared).
export TINYGOROOT="$TC/root" GOTOOLCHAIN=go1.25.5
if [ "\$1" = build ]; then shift; exec "$TC/bin/tinygo" build -target=wasip1-debian -buildmode=c-shared "\$@"; fi
exec "$TC/bin/tinygo" "\$@"
WRAP
chmod +x "$TC/bin/tinygo-wasip1"
"$TC/bin/tinygo-wasip1" version >/dev/null
say "ready in $(( $(date +%s) - t0 ))s (TinyGo: $TC/bin/tinygo-wasip1)"
