#!/usr/bin/env bash
# `make run`: make sure Redis answers, then run daphne, a Celery worker and Celery beat
# together; Ctrl-C (or any of them dying) stops all three.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
PORT=${PORT:-8000}
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/0}
mkdir -p var/log var/redis

# Redis: use the one at REDIS_URL if it answers; if it is local and silent, start our own.
if ! redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1; then
  host=$(python3 -c 'import sys,urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(p.hostname or "127.0.0.1", p.port or 6379)' "$REDIS_URL")
  read -r rhost rport <<<"$host"
  case "$rhost" in
    127.*|localhost|::1)
      command -v redis-server >/dev/null || { echo "redis-server is missing: install Debian's redis-server"; exit 1; }
      echo "Starting Redis on $rhost:$rport (data in var/redis)"
      redis-server --port "$rport" --bind "$rhost" --dir "$PWD/var/redis" --daemonize yes \
        --pidfile "$PWD/var/redis/redis.pid" --logfile "$PWD/var/log/redis.log" --save 60 1
      for _ in $(seq 50); do redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1 && break; sleep 0.1; done
      started_redis=1
      ;;
    *) echo "Redis at $REDIS_URL does not answer"; exit 1 ;;
  esac
fi

pids=()
stop() {
  # A second Ctrl-C or SIGTERM (the whole process group gets one, and make may pass another
  # on) must not cut the clean-up short and leave our Redis running: ignored from here.
  trap '' INT TERM
  trap - EXIT
  echo; echo "Stopping..."
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  # Stop Redis too if this script started it (an existing one is left alone).
  if [ -n "${started_redis:-}" ]; then kill "$(cat var/redis/redis.pid)" 2>/dev/null || true; fi
}
trap stop INT TERM EXIT

# No gossip or mingle (nothing here asks other workers anything): restarting gossip after
# Redis came back killed the worker once (kombu#582; deploy/systemd/circolo-worker.service).
"$VENV/bin/celery" -A config worker --loglevel=WARNING --concurrency=2 -n "worker-$PORT@%h" \
  --without-gossip --without-mingle \
  >var/log/worker.log 2>&1 &
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
  Create a staff account with:  .venv/bin/python manage.py createsuperuser
$mail_note

MSG
# Stop everything as soon as any of the three exits.
wait -n "${pids[@]}"
echo "A process exited; see var/log/ and the output above."
exit 1
