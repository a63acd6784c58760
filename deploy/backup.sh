#!/usr/bin/env bash
# Back up Circolo: one pg_dump of the database in PostgreSQL's custom format (compressed, for
# pg_restore; deploy/restore.sh and deploy/README.md "Backups").
#   deploy/backup.sh [ENV_FILE] [BACKUP_DIR]
#     ENV_FILE    default /etc/circolo/circolo.env (its DATABASE_URL is dumped)
#     BACKUP_DIR  default /var/backups/circolo; BACKUP_KEEP (default 14) newest dumps are kept
# Prints the dump's path. Safe while the site runs: pg_dump reads one consistent snapshot.
#
# Only the database is kept. Redis need not be: it holds nothing the database does not make
# again, only
#   - pushes to pages (the Channels layer's pub/sub) — gone once sent; pages resync by
#     themselves on reconnect;
#   - the Celery queue of tasks — the tick's tasks and the ones pages hand off, each safe to
#     run twice and each re-derived by the next tick from the database (docs/architecture.md, "The tick");
#   - the cache: log-in throttle counters and private events' password tries (they restart
#     at zero), the windows of throttled pushes (a second long);
#   - the worker's and beat's heartbeats, written again within a second.
# Also keep, elsewhere: the environment file (SECRET_KEY: sessions and password-reset links
# depend on it), and your nginx site file and certificate if not from certbot.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
env_file=${1:-/etc/circolo/circolo.env}
dir=${2:-/var/backups/circolo}
keep=${BACKUP_KEEP:-14}

url=$(python3 "$here/envfile.py" database "$env_file")
mkdir -p "$dir"
chmod 700 "$dir"  # the dump holds every account's password hash and e-mail
out="$dir/circolo-$(date -u +%Y%m%dT%H%M%SZ).dump"
# Written beside, renamed when complete: a dump cut short never looks like a backup.
pg_dump --format=custom --compress=6 --file="$out.partial" --dbname="$url"
mv "$out.partial" "$out"
# Keep the newest $keep dumps.
ls -1t "$dir"/circolo-*.dump | tail -n +$((keep + 1)) | while read -r old; do rm -f -- "$old"; done
echo "$out"
