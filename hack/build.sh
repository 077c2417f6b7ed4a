#!/usr/bin/env sh
# Builds a gantry binary as it ships: static (no cgo), paths trimmed, without the symbol table.
# PACKAGE is ./cmd/gantry (the CLI, the default) or ./cmd/gantry-controller (the controller
# alone, what the image ships). The image (Dockerfile), `make build`, the scale harness and the
# fault suite all build with this script, so that what is measured and tested is what users run.
# A cgo build is a different binary: dynamically linked, and since kustomize (through
# cli-runtime) imports "plugin", it exports every Go symbol, 13 MB of dynamic symbol tables; its
# resident memory is about 25 MiB higher (docs/performance.md).
# Usage: hack/build.sh OUTPUT [PACKAGE]
set -eu
out=${1:?usage: hack/build.sh OUTPUT [PACKAGE]}
pkg=${2:-./cmd/gantry}
cd "$(dirname "$0")/.."
CGO_ENABLED=0 exec go build -trimpath -ldflags "-s -w" -o "$out" "$pkg"
