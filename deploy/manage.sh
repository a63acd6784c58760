#!/usr/bin/env bash
# manage.py with exactly the environment the units get: the environment file's values and a
# bare PATH, as the user the units run as.
#   deploy/manage.sh migrate --noinput
#   deploy/manage.sh collectstatic --noinput
#   deploy/manage.sh createsuperuser
# CIRCOLO_ENV: the environment file (default /etc/circolo/circolo.env). CIRCOLO_USER: the user
# (default circolo; empty: whoever runs this). The file is read as systemd reads it
# (deploy/envfile.py), never by the shell: a DATABASE_URL with `&` or `$` stays as it is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
env_file=${CIRCOLO_ENV:-/etc/circolo/circolo.env}
user=${CIRCOLO_USER-circolo}
cd "$root"
mapfile -t vars < <(python3 deploy/envfile.py lines "$env_file")
[ ${#vars[@]} -gt 0 ] || { echo "manage.sh: nothing read from $env_file" >&2; exit 1; }
as=()
if [ -n "$user" ] && [ "$(id -un)" != "$user" ]; then as=(runuser -u "$user" --); fi
exec "${as[@]}" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 "${vars[@]}" "$root/.venv/bin/python" manage.py "$@"
