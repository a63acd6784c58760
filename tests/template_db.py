"""One migrated PostgreSQL database from which every test process clones its own.

Under `make test` each pytest-xdist worker gets its own test database. Built the usual way,
each would run every migration itself: three workers, three times the same 4-5 s of CPU plus
the server's share, on a machine whose two cores are the limit of the whole run. Instead the
first worker to get here migrates one template database, and every worker's test database is
created from it with PostgreSQL's `CREATE DATABASE ... TEMPLATE` (Django's documented
`DATABASES[...]["TEST"]["TEMPLATE"]` setting), a file copy of a fraction of a second.

The template's name carries a digest of every installed app's migration files, so a template
left on a developer's long-lived server is never used once a migration changes; and Django
still runs `migrate` on each clone as usual, which finds nothing to do when the template is
current and applies whatever is missing when it is not. Nothing is tested less: the clone is
the very database the migrations made.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import psycopg
from psycopg import sql

from tests.processes import postgres_url

ROOT = Path(__file__).resolve().parent.parent

# pg_advisory_lock key: any fixed number; only test processes on a private server take it.
_LOCK_KEY = 0x7E57_DB


def migrations_digest(migration_dirs: Iterable[Path]) -> str:
    """A short digest of the migration files (names and contents) in the given folders."""
    digest = hashlib.sha256()
    for folder in sorted(migration_dirs):
        for path in sorted(folder.glob("*.py")):
            digest.update(f"{folder.parent.name}/{path.name}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()[:12]


def installed_migration_dirs() -> list[Path]:
    from django.apps import apps

    dirs = (Path(app.path) / "migrations" for app in apps.get_app_configs())
    return [d for d in dirs if d.is_dir()]


def template_name() -> str:
    return f"test_template_{migrations_digest(installed_migration_dirs())}"


def _connect(database: dict) -> psycopg.Connection:
    """A connection to the server's maintenance database, as Django's own creation code uses
    for CREATE DATABASE."""
    return psycopg.connect(
        dbname="postgres",
        user=database["USER"],
        password=database["PASSWORD"] or None,
        host=database["HOST"] or None,
        port=database["PORT"] or None,
        autocommit=True,
    )


def _exists(conn: psycopg.Connection, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    return row is not None


def ensure_template(database: dict, name: str | None = None) -> str:
    """The name of a migrated template database on the server of `database` (Django's
    settings dictionary), migrating one first if none exists for the current migrations.

    Test processes that get here together wait on a PostgreSQL advisory lock while the first
    migrates. The template is migrated under a temporary name and renamed when complete, so
    a process killed halfway leaves no template that looks ready."""
    name = name or template_name()
    with _connect(database) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [_LOCK_KEY])
        try:
            if not _exists(conn, name):
                partial = f"{name}_partial"
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(partial)))
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(partial)))
                env = {**os.environ, "DATABASE_URL": postgres_url(database, partial)}
                done = subprocess.run(
                    [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                    cwd=ROOT,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                if done.returncode != 0:
                    conn.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(partial)))
                    raise RuntimeError(f"migrating the test template failed:\n{done.stderr}")
                conn.execute(
                    sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
                        sql.Identifier(partial), sql.Identifier(name)
                    )
                )
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [_LOCK_KEY])
    return name
