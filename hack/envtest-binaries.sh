#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into bin/k8s/, for envtest.
#
# setup-envtest downloads prebuilt binaries from hosts these machines cannot reach, so we build
# them ourselves (see ../shared/ENVTEST.md for why each step is needed). Skips work when the
# binaries already exist at the pinned versions. Prints the assets folder on stdout.
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-v1.36.3}
ETCD_VERSION=${ETCD_VERSION:-v3.6.8} # the etcd that k8s.io/kubernetes ${KUBE_VERSION} requires

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/bin/k8s"
stamp="$dest/.versions"
want="kube-apiserver=$KUBE_VERSION etcd=$ETCD_VERSION"
if [[ -x "$dest/kube-apiserver" && -x "$dest/etcd" && "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
  echo "$dest"
  exit 0
fi
mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GOWORK=off GOFLAGS= CGO_ENABLED=0

log() { echo "envtest-binaries: $*" >&2; }

# kube-apiserver: k8s.io/kubernetes replaces its staging modules with ./staging/..., which a
# module download does not have. Require it from a scratch module and point only the staging
# modules it requires at v0.0.0 to their published v0.<minor>.<patch> twins.
log "building kube-apiserver $KUBE_VERSION (minutes on a cold cache)"
mkdir -p "$work/kube"
cd "$work/kube"
modfile=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
staging_version="v0.${KUBE_VERSION#v1.}"
{
  echo "module gantry.dev/envtest-kube"
  grep -E '^(go|godebug) ' "$modfile"
  echo "require k8s.io/kubernetes $KUBE_VERSION"
  grep -E '^[[:space:]]+k8s\.io/[a-z0-9-]+ v0\.0\.0$' "$modfile" | awk -v v="$staging_version" '{print "replace " $1 " => " $1 " " v}'
} > go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
go mod tidy >&2
go build -trimpath -o "$dest/kube-apiserver" \
  -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2)" \
  k8s.io/kubernetes/cmd/kube-apiserver

log "building etcd $ETCD_VERSION"
mkdir -p "$work/etcd"
cd "$work/etcd"
cat > go.mod <<MOD
module gantry.dev/envtest-etcd
go 1.24
require go.etcd.io/etcd/server/v3 $ETCD_VERSION
MOD
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
go mod tidy >&2
go build -trimpath -ldflags "-s -w" -o "$dest/etcd" go.etcd.io/etcd/server/v3

echo "$want" > "$stamp"
log "done: $dest"
echo "$dest"
