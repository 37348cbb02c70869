#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the tests (Debian's postgresql package, which
# scripts/setup.sh installs): `start` makes a cluster under $TRIBUNAL_PG_DIR (default
# /tmp/tribunal-pg), trusts loopback connections, starts it on $TRIBUNAL_PG_PORT (default
# 54329) and prints `export TRIBUNAL_TEST_POSTGRES=postgres://tribunal@127.0.0.1:PORT`;
# `stop` stops it. As root the server runs as the `postgres` user (initdb refuses root).
set -euo pipefail
dir=${TRIBUNAL_PG_DIR:-/tmp/tribunal-pg}
port=${TRIBUNAL_PG_PORT:-54329}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "${1:-}" in
  start)
    if [ ! -f "$dir/PG_VERSION" ]; then
      mkdir -p "$dir"
      [ "$(id -u)" = 0 ] && chown postgres: "$dir"
      as_owner "$bin/initdb" -D "$dir" -U tribunal --auth=trust -E UTF8 >/dev/null
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w \
        -o "-h 127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=on" start >/dev/null
    fi
    echo "export TRIBUNAL_TEST_POSTGRES=postgres://tribunal@127.0.0.1:$port"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir" -m fast stop >/dev/null
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
