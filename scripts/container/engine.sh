#!/usr/bin/env bash
# Makes a container engine ready for the container suite: installs Debian's docker.io and a compose
# CLI where they are missing, and starts dockerd (in the background, logging to a file) when none
# answers. Prints `docker compose` or `docker-compose` (the compose command to use) on its last line.
# Exits 77 with the reason on stderr when no engine can be had here (not root, not Debian, dockerd
# will not start): the suite is then skipped, not passed.
set -euo pipefail

skip() {
  echo "skipped: $*" >&2
  exit 77
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif sudo -n true 2>/dev/null; then sudo "$@"; else return 1; fi
}

engine_answers() { docker info >/dev/null 2>&1; }

if ! command -v dockerd >/dev/null 2>&1 && ! engine_answers; then
  command -v apt-get >/dev/null 2>&1 || skip "no container engine and no apt-get to install Debian's docker.io"
  as_root true 2>/dev/null || skip "no container engine, and installing docker.io needs root (or sudo without a password)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq docker.io >&2
fi

if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null 2>&1; then
  if as_root true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
    # Debian packages compose v1 (docker-compose); the v2 plugin comes from Docker's own repository.
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq docker-compose >&2 \
      || DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq docker-compose-plugin >&2 \
      || skip "no compose CLI, and apt-get offers neither docker-compose nor docker-compose-plugin"
  else
    skip "no compose CLI, and installing one needs root"
  fi
fi

if ! engine_answers; then
  as_root true 2>/dev/null || skip "dockerd is not running, and starting it needs root"
  log="${BERTH_DOCKERD_LOG:-/var/log/berth-dockerd.log}"
  echo "starting dockerd (log: $log)" >&2
  # setsid: dockerd outlives this script and the CI step that ran it; later runs find it answering.
  as_root setsid dockerd >>"$log" 2>&1 </dev/null &
  for _ in $(seq 1 60); do
    engine_answers && break
    sleep 0.5
  done
  engine_answers || skip "dockerd did not start within 30 s; the end of $log: $(tail -n 5 "$log" | tr '\n' ' ')"
fi

echo "engine: $(docker version --format 'server {{.Server.Version}}, client {{.Client.Version}}') storage $(docker info --format '{{.Driver}}')" >&2
if docker compose version >/dev/null 2>&1; then echo "docker compose"; else echo "docker-compose"; fi
