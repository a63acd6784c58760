#!/usr/bin/env bash
# Debian packages the project needs, installed with apt when missing.
#   system-packages.sh run   -> gettext, redis-server, stockfish (make run)
#   system-packages.sh test  -> + postgresql, chromium-headless-shell, chromium,
#                               nginx, openssl                   (make test, make deploy-check)
# As root on Debian they are installed; otherwise the script says what to install and stops.
set -euo pipefail

# Stockfish: the computer analysis's engine (docs/rules.md 14), Debian's build in /usr/games.
want=(gettext:msgfmt redis-server:redis-server redis-tools:redis-cli stockfish:/usr/games/stockfish)
if [ "${1:-run}" = test ]; then
  # The browser tests drive Debian's headless shell build of Chromium (the same Blink as the
  # full browser, without its windowing parts: a third of the CPU per page); the full
  # `chromium` stays for `make test-chromium` and for screenshots.
  want+=(postgresql:/usr/lib/postgresql chromium-headless-shell:chromium-headless-shell chromium:chromium)
  # make deploy-check: Debian's nginx in front of daphne, a self-signed certificate.
  want+=(nginx:/usr/sbin/nginx openssl:openssl)
fi

missing=()
for item in "${want[@]}"; do
  pkg=${item%%:*}; probe=${item#*:}
  if [[ $probe == /* ]]; then [ -e "$probe" ] && continue
  else command -v "$probe" >/dev/null 2>&1 && continue; fi
  missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The Debian packages start a system-wide Redis (and nginx on port 80 where services may
  # start); we run our own instances on free ports, leave them be.
else
  echo "Missing system packages: ${missing[*]}"
  echo "Install them (e.g. sudo apt-get install ${missing[*]}) and run make again."
  exit 1
fi
