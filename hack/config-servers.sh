#!/usr/bin/env bash
# Installs the real nginx and haproxy binaries that confquote's oracle tests run, from Debian's
# packages (nginx, haproxy), when they are missing. Idempotent and quiet: does nothing when both
# are already installed. Starts no system service: while apt-get runs, a policy-rc.d that refuses
# every start is in place (any existing one is put back afterwards), and on a systemd host the
# services it installed are disabled so that they do not start at the next boot either. The
# tests run their own nginx and haproxy processes. Prints the path of each binary on stdout, one
# a line: nginx first, then haproxy.
set -euo pipefail

log() { echo "config-servers: $*" >&2; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  else
    sudo "$@"
  fi
}

find_bin() {
  local name=$1 dir
  if command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    return 0
  fi
  for dir in /usr/sbin /usr/local/sbin /sbin; do
    if [[ -x "$dir/$name" ]]; then
      echo "$dir/$name"
      return 0
    fi
  done
  return 1
}

policy=/usr/sbin/policy-rc.d
policy_backup=

# deny_service_starts installs a policy-rc.d that refuses every service start, keeping a copy of
# any existing one for restore_policy.
deny_service_starts() {
  if [[ -e $policy ]]; then
    policy_backup=$(mktemp)
    as_root cp -p "$policy" "$policy_backup"
  fi
  trap restore_policy EXIT
  printf '#!/bin/sh\n# hack/config-servers.sh: no service starts while it installs packages.\nexit 101\n' |
    as_root tee "$policy" >/dev/null
  as_root chmod 755 "$policy"
}

restore_policy() {
  if [[ -n $policy_backup ]]; then
    as_root cp -p "$policy_backup" "$policy"
    as_root rm -f "$policy_backup"
  else
    as_root rm -f "$policy"
  fi
}

install_packages() {
  local aptlog
  aptlog=$(mktemp)
  if ! { as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } >"$aptlog" 2>&1; then
    cat "$aptlog" >&2
    rm -f "$aptlog"
    log "installing $* failed"
    exit 1
  fi
  rm -f "$aptlog"
}

missing=()
find_bin nginx >/dev/null || missing+=(nginx)
find_bin haproxy >/dev/null || missing+=(haproxy)

if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]] && ! command -v sudo >/dev/null 2>&1; then
    log "need root or sudo to install ${missing[*]}"
    exit 1
  fi
  log "installing ${missing[*]}"
  deny_service_starts
  install_packages "${missing[@]}"
  if [[ -d /run/systemd/system ]]; then
    as_root systemctl disable --quiet "${missing[@]}" >/dev/null 2>&1 || true
  fi
fi

find_bin nginx
find_bin haproxy
