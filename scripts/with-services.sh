#!/usr/bin/env bash
# Run a command with a private PostgreSQL and Redis (scripts/test-services.sh), unless
# DATABASE_URL is already set, in which case the command runs against that.
#   scripts/with-services.sh CMD ARGS...
set -uo pipefail
if [ -n "${DATABASE_URL:-}" ]; then exec "$@"; fi
dir=/tmp/circolo-bench-$$
here=$(dirname "$0")
"$here/test-services.sh" up "$dir" || exit 1
trap '"$here/test-services.sh" down "$dir"' EXIT
# shellcheck disable=SC1091
source "$dir/env"
"$@"
