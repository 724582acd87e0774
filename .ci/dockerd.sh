#!/usr/bin/env bash
# The container runtime against Docker's own daemon (dockerd 20.10 from Debian's docker.io): the
# runtime conformance suite's run, limit and file cases and the key attacks (host environment,
# network, writing outside the workspace). Not the background-process cases: each makes a
# container, and with vfs storage every container is a full copy of the image. dockerd runs only for these tests, on a
# socket of its own (podman's service keeps /run/podman/podman.sock), with vfs storage, no bridge
# and no iptables; the test image is imported from the root file system .ci/services.sh cached, or
# copied from podman's store. gVisor's runsc is registered as the runtime `runsc`
# (.ci/dockerd-daemon.json), for the attacks run again under gVisor. Root only (a rootful daemon); elsewhere it says so and does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null; then
  echo "dockerd: skipped (needs root and Debian's docker.io: bash .ci/services.sh)"
  exit 0
fi
socket=/run/skillbox-docker.sock
state=/run/skillbox-docker
image=localhost/skillbox-test:bookworm
docker=(docker -H "unix://$socket")
started=
if ! curl -fsS --unix-socket "$socket" http://d/v1.41/_ping >/dev/null 2>&1; then
  mkdir -p "$state"
  dockerd --config-file .ci/dockerd-daemon.json --storage-driver vfs --bridge none --iptables=false --ip6tables=false --host "unix://$socket" \
    --pidfile "$state/dockerd.pid" --exec-root "$state/exec" --data-root /var/lib/skillbox-docker \
    >/var/log/skillbox-dockerd.log 2>&1 &
  started=$!
  for _ in $(seq 1 100); do curl -fsS --unix-socket "$socket" http://d/v1.41/_ping >/dev/null 2>&1 && break; sleep 0.2; done
fi
stop() { if [ -n "$started" ]; then kill "$started"; wait "$started" || true; fi; }
trap stop EXIT
if ! "${docker[@]}" image inspect "$image" >/dev/null 2>&1; then
  rootfs_cache=/var/cache/skillbox/skillbox-test-bookworm-rootfs.tar
  if [ -s "$rootfs_cache" ]; then "${docker[@]}" import "$rootfs_cache" "$image" >/dev/null
  else podman save --format docker-archive "$image" | "${docker[@]}" load >/dev/null; fi
fi
SKILLBOX_TEST_DOCKERD_SOCKET=$socket npx vitest run \
  src/runtime/container/container-runtime.integration.test.ts test/security/runtime-container.test.ts \
  -t '^(?!.*background processes).*dockerd'
