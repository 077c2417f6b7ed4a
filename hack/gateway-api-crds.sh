#!/usr/bin/env bash
# Copies the standard-channel Gateway API CRDs of the gateway-api module version in go.mod into
# config/gateway-api/, for envtest, the playground and installs. `make generate` runs it, so the
# drift check catches a go.mod bump that was not followed by a copy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=$(cd "$root" && go list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api)/config/crd/standard
dest="$root/config/gateway-api"
rm -rf "$dest" && mkdir -p "$dest"
for f in "$src"/gateway.networking.k8s.io_*.yaml; do
  install -m 0644 "$f" "$dest/"
done
