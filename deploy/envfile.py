"""The environment file (/etc/circolo/circolo.env) as systemd reads it, and DATABASE_URL as
pg_dump and pg_restore take it. Standard library only: deploy/backup.sh and deploy/restore.sh
run it with the system's python3, deploy/check.py imports it.

    python3 deploy/envfile.py database ENV_FILE   -> libpq URI of the file's DATABASE_URL
    python3 deploy/envfile.py libpq URL           -> libpq URI of a DATABASE_URL
    python3 deploy/envfile.py lines ENV_FILE      -> its KEY=value pairs, one a line, unquoted
                                                     (for `env`, deploy/manage.sh)
"""

from __future__ import annotations

import sys
import urllib.parse

# Query options config/env.py gives to Django, which libpq would refuse ("invalid URI query
# parameter"); every other option (sslmode, host=/run/postgresql, ...) is libpq's own.
DJANGO_OPTIONS = {"conn_max_age", "pool", "server_side_binding", "prepare_threshold"}


def read(path: str) -> dict[str, str]:
    """KEY=value lines as systemd's EnvironmentFile= reads them: blank lines and lines starting
    with # or ; are skipped, whitespace around the key and value is dropped, and a value in
    matching single or double quotes loses them. (Enough for deploy/circolo.env.example; no
    line continuations or escapes.)"""
    values: dict[str, str] = {}
    with open(path, encoding="utf-8") as lines:
        for number, raw in enumerate(lines, 1):
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            key, sep, value = line.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not key.isidentifier():
                raise ValueError(f"{path}:{number}: not KEY=value: {raw.rstrip()}")
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            values[key] = value
    return values


def libpq_url(url: str) -> str:
    """DATABASE_URL (config/env.py's forms) as a libpq connection URI."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme not in {"postgresql", "postgres"}:
        raise ValueError(f"DATABASE_URL is not PostgreSQL ({parts.scheme or 'unset: SQLite'})")
    query = [
        (key, value)
        for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        if key not in DJANGO_OPTIONS
    ]
    return urllib.parse.urlunsplit(
        ("postgresql", parts.netloc, parts.path, urllib.parse.urlencode(query), "")
    )


def main(argv: list[str]) -> int:
    command, arg = (argv[1], argv[2]) if len(argv) == 3 else ("", "")
    try:
        if command == "lines":
            for key, value in read(arg).items():
                print(f"{key}={value}")
        elif command == "database":
            print(libpq_url(read(arg).get("DATABASE_URL", "")))
        elif command == "libpq":
            print(libpq_url(arg))
        else:
            print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
            return 2
    except (OSError, ValueError) as error:
        print(f"envfile: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
