#!/bin/sh
# Builds this plugin's .wasm next to this script: TinyGo if installed, else
# standard Go. ./build.sh tinygo | go picks one; see scripts/build-go-plugin.sh.
set -eu
cd "$(dirname "$0")"
exec ../../scripts/build-go-plugin.sh "$@"
