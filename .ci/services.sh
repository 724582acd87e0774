#!/usr/bin/env bash
# Installs and starts what the integration tests need, on loopback only: bubblewrap for the
# sandbox runtime, PostgreSQL and Redis for the session stores. Safe to run more than once.
set -euo pipefail

need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v redis-server >/dev/null || need+=(redis-server)
command -v pg_ctlcluster >/dev/null || need+=(postgresql)
# The sandbox sees only /usr, so skill scripts need the distribution's python3, not a user-local one.
[ -x /usr/bin/python3 ] || need+=(python3)
# Tests build archives with Info-ZIP and tar, limit runs with prlimit and drop capabilities with setpriv.
command -v zip >/dev/null || need+=(zip)
command -v tar >/dev/null || need+=(tar)
# The hub's git source is tested against a real `git http-backend` on loopback.
command -v git >/dev/null || need+=(git)
# The container engine's socket is probed with curl.
command -v curl >/dev/null || need+=(curl)
{ command -v prlimit && command -v setpriv; } >/dev/null || need+=(util-linux)
# The compiled sandbox prelude (native/build-prelude.mjs, run by `npm run build`) is what CI must
# test: musl for the fast static build, gcc and libc6-dev under it (and for the glibc fall-back).
command -v gcc >/dev/null || need+=(gcc libc6-dev)
command -v musl-gcc >/dev/null || need+=(musl-tools)
# The failover tests put haproxy in front of their workers; the container runtime's tests need podman
# with runc (crun fails on hybrid cgroups) and debootstrap to make their image.
command -v haproxy >/dev/null || need+=(haproxy)
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null || need+=("$tool"); done
# Docker's own daemon (Debian's docker.io, dockerd 20.10) for the smaller set of container tests that
# shows both daemons work; .ci/dockerd.sh starts it on a socket of its own only for them.
command -v dockerd >/dev/null || need+=(docker.io)
# gVisor's runsc (Debian's, ptrace platform), registered with that dockerd: podman 4.3's compatible
# API ignores the OCI runtime a container asks for, Docker's daemon honours it.
command -v runsc >/dev/null || need+=(runsc)
# The inspector's pages are tested in Debian's headless Chromium, driven by playwright-core.
command -v chromium >/dev/null || need+=(chromium)
if [ "${#need[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

# Redis on loopback, no persistence: tests flush their own key prefix.
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no >/dev/null
  for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

# PostgreSQL: the distribution's cluster, listening on loopback, with a test role and database.
cluster=$(pg_lsclusters --no-header | awk 'NR==1 {print $1" "$2}')
if [ -z "$cluster" ]; then
  version=$(ls /usr/lib/postgresql | sort -n | tail -1)
  pg_createcluster "$version" main >/dev/null
  cluster="$version main"
fi
# shellcheck disable=SC2086
set -- $cluster
if ! pg_lsclusters --no-header | awk -v v="$1" -v c="$2" '$1==v && $2==c {print $4}' | grep -q online; then
  pg_ctlcluster "$1" "$2" start -o "-c listen_addresses=127.0.0.1"
fi
for _ in $(seq 1 50); do pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1 && break; sleep 0.2; done
su postgres -c "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname='skillbox'\"" | grep -q 1 ||
  su postgres -c "psql -qc \"CREATE ROLE skillbox LOGIN PASSWORD 'skillbox'\""
su postgres -c "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname='skillbox_test'\"" | grep -q 1 ||
  su postgres -c "psql -qc \"CREATE DATABASE skillbox_test OWNER skillbox\""

# The Restate server for the durable-turn tests (skillbox/restate): installed from npm into a folder
# of its own (224 MB with its Linux binary; not a project dependency), found by the tests through
# SKILLBOX_RESTATE_SERVER or this path. Each test starts its own server on loopback ports.
restate_dir=/opt/skillbox-restate
if [ ! -x "$restate_dir/node_modules/.bin/restate-server" ]; then
  mkdir -p "$restate_dir"
  npm install --prefix "$restate_dir" --no-save --no-audit --no-fund @restatedev/restate-server@1.7.12 >/dev/null
fi

# The container runtime's tests: podman with runc (crun fails on hybrid cgroups) serving the Docker
# Engine API on a socket, and a small image made from Debian's archive (there is no registry to pull
# from). The root file system is kept as a tarball under /var/cache/skillbox, so a rerun on a machine
# that keeps it imports in seconds instead of bootstrapping for minutes.
container_image=localhost/skillbox-test:bookworm
if ! podman image exists "$container_image"; then
  rootfs_cache=/var/cache/skillbox/skillbox-test-bookworm-rootfs.tar
  if [ ! -s "$rootfs_cache" ]; then
    mkdir -p /var/cache/skillbox
    rootfs=$(mktemp -d)
    debootstrap --variant=minbase --include=python3-minimal,ca-certificates bookworm "$rootfs" http://deb.debian.org/debian >/dev/null
    tar -C "$rootfs" -cf "$rootfs_cache.partial" .
    mv "$rootfs_cache.partial" "$rootfs_cache"
    rm -rf "$rootfs"
  fi
  podman import "$rootfs_cache" "$container_image" >/dev/null
fi
# A second image FROM it, for the image-per-skill tests (a skill naming the image it needs).
if ! podman image exists localhost/skillbox-test:extra; then
  podman build --ulimit nofile=4096:4096 --ulimit nproc=2048:2048 -t localhost/skillbox-test:extra \
    -f "$(dirname "${BASH_SOURCE[0]}")/skillbox-test-extra.Containerfile" "$(dirname "${BASH_SOURCE[0]}")" >/dev/null
fi
# The service cleans an exec up as soon as it ends (.ci/podman-containers.conf says why); one started
# without that setting (an older run of this script) is restarted with it.
container_socket=/run/podman/podman.sock
container_conf=/etc/skillbox/podman-containers.conf
install -D -m 0644 "$(dirname "${BASH_SOURCE[0]}")/podman-containers.conf" "$container_conf"
service_pid=$(pgrep -f "^podman system service --time=0 unix://$container_socket\$" || true)
if [ -n "$service_pid" ] && ! tr '\0' '\n' <"/proc/$service_pid/environ" | grep -qx "CONTAINERS_CONF=$container_conf"; then
  kill "$service_pid"
  for _ in $(seq 1 50); do kill -0 "$service_pid" 2>/dev/null || break; sleep 0.1; done
fi
if ! curl -fsS --unix-socket "$container_socket" http://d/v1.41/_ping >/dev/null 2>&1; then
  mkdir -p /run/podman
  CONTAINERS_CONF=$container_conf nohup podman system service --time=0 "unix://$container_socket" >/var/log/skillbox-podman-service.log 2>&1 &
  for _ in $(seq 1 50); do curl -fsS --unix-socket "$container_socket" http://d/v1.41/_ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
