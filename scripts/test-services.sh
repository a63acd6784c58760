#!/usr/bin/env bash
# Private PostgreSQL and Redis for one test run: their own data directory and free ports, so
# they never collide with a server already running on this machine.
#   scripts/test-services.sh up   DIR   -> starts both, writes DIR/env (DATABASE_URL, REDIS_URL)
#   scripts/test-services.sh down DIR   -> stops both and removes DIR
set -euo pipefail

cmd=${1:?usage: $0 up|down DIR}
dir=${2:?usage: $0 up|down DIR}

pg_bin() {
  local b
  for b in /usr/lib/postgresql/*/bin; do [ -x "$b/initdb" ] && { echo "$b"; return; }; done
  command -v initdb >/dev/null && dirname "$(command -v initdb)" && return
  echo "PostgreSQL server binaries (initdb) not found: install Debian's postgresql" >&2
  exit 1
}

as_pg() {
  # PostgreSQL refuses to run as root: as root, run it as the 'postgres' system user.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

case "$cmd" in
up)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  bin=$(pg_bin)
  pgdata="$dir/pg"
  pgport=$(free_port)
  redisport=$(free_port)
  mkdir -p "$pgdata"
  if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir"; chmod 755 "$dir"; fi
  as_pg "$bin/initdb" -D "$pgdata" -A trust -U circolo -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  # Tests create and drop databases often: durability is not wanted here, speed is.
  as_pg "$bin/pg_ctl" -D "$pgdata" -l "$dir/pg.log" -w -t 60 \
    -o "-p $pgport -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null
  redis-server --port "$redisport" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$dir" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  for _ in $(seq 50); do redis-cli -p "$redisport" ping >/dev/null 2>&1 && break; sleep 0.1; done
  cat >"$dir/env" <<ENV
export DATABASE_URL=postgresql://circolo@127.0.0.1:$pgport/circolo
export REDIS_URL=redis://127.0.0.1:$redisport/0
export TEST_PG_BIN=$bin
export TEST_PG_DATA=$pgdata
export TEST_REDIS_PORT=$redisport
# Test users need no PBKDF2 (config/settings.py): MD5 for the suite and the processes it starts.
export FAST_PASSWORD_HASHER=1
# The run's own files (secret key, collected static, mail files): never those of a \`make run\`
# in var/, whose collected static files the suite's daphne would otherwise serve first.
export VAR_DIR=$dir/var
ENV
  mkdir -p "$dir/var"
  as_pg "$bin/createdb" -h 127.0.0.1 -p "$pgport" -U circolo circolo
  echo "test services up: PostgreSQL on $pgport, Redis on $redisport ($dir/env)"
  ;;
down)
  [ -d "$dir" ] || exit 0
  if [ -f "$dir/redis.pid" ]; then kill "$(cat "$dir/redis.pid")" 2>/dev/null || true; fi
  if [ -d "$dir/pg" ]; then as_pg "$(pg_bin)/pg_ctl" -D "$dir/pg" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 up|down DIR" >&2; exit 2 ;;
esac
