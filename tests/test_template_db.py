"""The test databases are clones of one migrated template (tests/template_db.py)."""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from tests import template_db
from tests.processes import postgres_url

pytestmark = pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
    reason="template databases are PostgreSQL's",
)


def test_the_digest_follows_the_migration_files(tmp_path):
    app = tmp_path / "app" / "migrations"
    app.mkdir(parents=True)
    (app / "0001_initial.py").write_text("operations = []\n")
    first = template_db.migrations_digest([app])
    assert template_db.migrations_digest([app]) == first
    (app / "0002_more.py").write_text("operations = []\n")
    second = template_db.migrations_digest([app])
    assert second != first
    (app / "0002_more.py").write_text("operations = ['changed']\n")
    assert template_db.migrations_digest([app]) not in {first, second}


@pytest.mark.django_db
def test_this_database_was_cloned_from_the_current_template():
    database = settings.DATABASES["default"]
    template = template_db.template_name()
    assert database["TEST"]["TEMPLATE"] == template

    with connection.cursor() as cursor:
        cursor.execute("SELECT app, name FROM django_migrations")
        applied = set(cursor.fetchall())
    # Every migration of the project is applied here, and nothing else ...
    assert applied == set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    # ... and the template holds exactly the same: the clone added nothing to it.
    with psycopg.connect(postgres_url(database, template)) as conn:
        in_template = set(conn.execute("SELECT app, name FROM django_migrations").fetchall())
    assert in_template == applied


def test_a_failed_migration_leaves_no_template_and_frees_the_lock(tmp_path, monkeypatch):
    database = settings.DATABASES["default"]
    # No manage.py there: the migrate process fails at once.
    monkeypatch.setattr(template_db, "ROOT", tmp_path)
    with pytest.raises(RuntimeError, match="migrating the test template failed"):
        template_db.ensure_template(database, name="failing_template")
    with template_db._connect(database) as conn:
        left = conn.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s", ["failing%"]
        ).fetchall()
        assert left == []
        # The advisory lock was given back: another process could take it now.
        assert conn.execute("SELECT pg_try_advisory_lock(%s)", [template_db._LOCK_KEY]).fetchone()[
            0
        ]
        conn.execute("SELECT pg_advisory_unlock(%s)", [template_db._LOCK_KEY])
