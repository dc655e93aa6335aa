#!/usr/bin/env bash
# Runs a command with a PostgreSQL server of its own to talk to.
#
# Starts Debian's PostgreSQL (the `postgresql` package) on a temporary folder,
# listening on a Unix socket in that folder only (no TCP port: nothing is
# reachable from outside and no firewall is touched), with a database
# `dlcbench`; runs the command with DLCBENCH_TEST_POSTGRES set to the server's
# URL; then stops the server by its PID and deletes the folder. initdb
# refuses root: as root the server runs as the `postgres` user.
#
#   scripts/with-postgres.sh build/dlcbench store list --store '$DLCBENCH_TEST_POSTGRES'
set -uo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

bin=""
for candidate in /usr/lib/postgresql/*/bin; do
  [ -x "$candidate/initdb" ] && bin=$candidate
done
if [ -z "$bin" ]; then
  echo "$0: no PostgreSQL server here: run \`apt-get install postgresql\` (scripts/install-deps.sh does)" >&2
  exit 2
fi

dir=$(mktemp -d /tmp/dlcbench-postgres-XXXXXX) || exit 1
as_server() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
  if ! id postgres >/dev/null 2>&1; then
    echo "$0: running as root, and there is no postgres user to run the server as (the postgresql package makes it)" >&2
    rm -rf "$dir"
    exit 2
  fi
  chown postgres "$dir"
  as_server() { runuser -u postgres -- "$@"; }
fi
pid=""     # what this script started (runuser, as root)
server=""  # the server itself, from its postmaster.pid
cleanup() {
  for p in $server $pid; do
    kill -0 "$p" 2>/dev/null || continue
    kill -INT "$p" 2>/dev/null  # fast shutdown
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
  done
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! as_server "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-sync >"$dir/initdb.log" 2>&1; then
  echo "$0: initdb failed:" >&2
  cat "$dir/initdb.log" >&2
  exit 1
fi
# Any port number will do: with listen_addresses empty it only names the socket.
port=5432
as_server "$bin/postgres" -D "$dir/data" -p "$port" -k "$dir" -c listen_addresses= -c fsync=off \
  >"$dir/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  "$bin/pg_isready" -q -h "$dir" -p "$port" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if ! "$bin/pg_isready" -q -h "$dir" -p "$port"; then
  echo "$0: the server did not start:" >&2
  cat "$dir/server.log" >&2
  exit 1
fi
server=$(head -n 1 "$dir/data/postmaster.pid")
if ! as_server "$bin/createdb" -h "$dir" -p "$port" -U postgres dlcbench; then
  echo "$0: createdb failed" >&2
  exit 1
fi

export DLCBENCH_TEST_POSTGRES="postgresql://postgres@/dlcbench?host=$dir&port=$port"
"$@"
status=$?
exit $status
