#!/usr/bin/env bash
# `make run`: Redis, then daphne, a Celery worker and Celery beat together; Ctrl-C, SIGTERM
# (to this script or its process group) or any of them dying stops all of them, and the Redis
# this script started.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
PORT=${PORT:-8000}
mkdir -p var/log var/redis

pids=()
started_redis=
# Stop the redis-server of a pid file, if it runs, and wait until it has saved and exited.
stop_redis() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  [ "$(ps -o comm= -p "$pid" 2>/dev/null)" = redis-server ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
}
stop() {
  # A second Ctrl-C or SIGTERM (the whole process group gets one, and make may pass another
  # on) must not cut the clean-up short and leave our Redis running: ignored from here.
  trap '' INT TERM
  trap - EXIT
  echo; echo "Stopping..."
  if [ ${#pids[@]} -gt 0 ]; then kill "${pids[@]}" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  # Redis last, once nothing uses it; only if this script started it.
  if [ -n "$started_redis" ]; then stop_redis var/redis/redis.pid; fi
}
trap stop INT TERM EXIT

# A Redis of this clone's own, data in var/redis (it detaches from the process group, so this
# script stops it, in `stop`).
start_redis() { # HOST PORT
  command -v redis-server >/dev/null || { echo "redis-server is missing: install Debian's redis-server"; exit 1; }
  stop_redis var/redis/redis.pid # one left behind by a run that was killed (kill -9)
  echo "Starting Redis on $1:$2 (data in var/redis)"
  started_redis=1
  redis-server --port "$2" --bind "$1" --dir "$PWD/var/redis" --daemonize yes \
    --pidfile "$PWD/var/redis/redis.pid" --logfile "$PWD/var/log/redis.log" --save 60 1
  for _ in $(seq 50); do redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1 && return; sleep 0.1; done
  echo "Redis did not start: see var/log/redis.log"; exit 1
}

if [ -z "${REDIS_URL:-}" ]; then
  # No REDIS_URL: a Redis of our own on a free port, never whatever answers on 6379, which may
  # be another install's. The site's names in Redis are its own anyway
  # (config.env.redis_names): a shared Redis would also do, through REDIS_URL.
  rport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  export REDIS_URL="redis://127.0.0.1:$rport/0"
  start_redis 127.0.0.1 "$rport"
elif ! redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1; then
  # REDIS_URL's Redis is silent: start it if it is local.
  host=$(python3 -c 'import sys,urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(p.hostname or "127.0.0.1", p.port or 6379)' "$REDIS_URL")
  read -r rhost rport <<<"$host"
  case "$rhost" in
    127.*|localhost|::1) start_redis "$rhost" "$rport" ;;
    *) echo "Redis at $REDIS_URL does not answer"; exit 1 ;;
  esac
fi

# No gossip or mingle (nothing here asks other workers anything): restarting gossip after
# Redis came back killed the worker once (kombu#582; deploy/systemd/circolo-worker.service).
"$VENV/bin/celery" -A config worker --loglevel=WARNING --concurrency=2 -n "worker-$PORT@%h" \
  --without-gossip --without-mingle \
  >var/log/worker.log 2>&1 &
pids+=($!)
# The computer analysis's worker (docs/rules.md 14): the analysis queue only, one engine at a
# time, niced (deploy/systemd/circolo-analysis.service).
ANALYSIS_WORKER=1 nice -n 19 "$VENV/bin/celery" -A config worker --loglevel=WARNING --concurrency=1 \
  -n "analysis-$PORT@%h" --without-gossip --without-mingle \
  >var/log/analysis.log 2>&1 &
pids+=($!)
"$VENV/bin/celery" -A config beat --loglevel=WARNING --scheduler config.beat:HeartbeatScheduler \
  --pidfile= >var/log/beat.log 2>&1 &
pids+=($!)
"$VENV/bin/python" -m config.serve -b 127.0.0.1 -p "$PORT" config.asgi:application &
pids+=($!)

# Mails: through EMAIL_HOST when set, else written to files (config/env.py mail_config).
if [ -n "${EMAIL_HOST:-}" ]; then
  mail_note="  Mails are sent through $EMAIL_HOST."
else
  mail_note="  No EMAIL_HOST set: mails are written to files in ${VAR_DIR:-$PWD/var}/mail/"
fi

cat <<MSG

  Circolo is running on http://127.0.0.1:$PORT/
  (worker and beat logs in var/log/; Ctrl-C stops everything)
  Redis: $REDIS_URL${started_redis:+ (started here, data in var/redis/)}
  Create a staff account with:  .venv/bin/python manage.py createsuperuser
$mail_note

MSG
# Stop everything as soon as any of the three exits.
wait -n "${pids[@]}"
echo "A process exited; see var/log/ and the output above."
exit 1
