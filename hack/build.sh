#!/usr/bin/env sh
# Builds the gantry binary as it ships: static (no cgo), paths trimmed, without the symbol table.
# The image (Dockerfile), `make build`, the scale harness and the fault suite all build with this
# script, so that what is measured and tested is what users run. A cgo build is a different
# binary: dynamically linked, and since kustomize (through cli-runtime) imports "plugin", it
# exports every Go symbol, 13 MB of dynamic symbol tables; its resident memory is about 25 MiB
# higher (docs/performance.md).
# Usage: hack/build.sh OUTPUT
set -eu
out=${1:?usage: hack/build.sh OUTPUT}
cd "$(dirname "$0")/.."
CGO_ENABLED=0 exec go build -trimpath -ldflags "-s -w" -o "$out" ./cmd/gantry
