#!/usr/bin/env bash
# Restore a dump of deploy/backup.sh into a NEW, empty database (deploy/README.md "Restore").
#   deploy/restore.sh DUMP DATABASE_URL
# DATABASE_URL names the new database (created beforehand: createdb -O circolo circolo_new);
# it is refused if it already has tables, so a live database is never overwritten. All in one
# transaction: a restore that fails leaves the database empty. Objects get the connecting
# role as owner (--no-owner), so the dump restores under another role name too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dump=${1:?usage: $0 DUMP DATABASE_URL}
target=${2:?usage: $0 DUMP DATABASE_URL}
[ -s "$dump" ] || { echo "restore: no dump at $dump" >&2; exit 1; }
url=$(python3 "$here/envfile.py" libpq "$target")

tables=$(psql --dbname="$url" -At -c \
  "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")
if [ "$tables" != 0 ]; then
  echo "restore: the target database already has $tables tables; restore into a new one" >&2
  exit 1
fi
pg_restore --exit-on-error --single-transaction --no-owner --no-privileges --dbname="$url" "$dump"
echo "restored $dump"
