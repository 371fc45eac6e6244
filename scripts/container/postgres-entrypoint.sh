#!/bin/sh
# The locally made PostgreSQL image's entrypoint: a new data directory is initialised as the
# official image does (POSTGRES_USER with POSTGRES_PASSWORD, scram-sha-256 over TCP, POSTGRES_DB),
# then the server runs in the foreground, listening on every address.
set -eu
user="${POSTGRES_USER:-postgres}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "POSTGRES_PASSWORD is not set" >&2; exit 1; }
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  db="${POSTGRES_DB:-$user}"
  if [ "$db" != postgres ]; then
    pg_ctl -w -o "-c listen_addresses=''" start >/dev/null
    createdb --username="$user" "$db"
    pg_ctl -w -m fast stop >/dev/null
  fi
fi
exec postgres -c listen_addresses='*' "$@"
