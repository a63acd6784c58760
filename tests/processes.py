"""The suite's side of the process harness (harness/): the processes it starts run on the test
database and this process's names in Redis (`process_env`), with the suite's hooks loaded
(`Processes`); and Chromium's flags for the browser tests and `make deploy-check`."""

from __future__ import annotations

import os
from urllib.parse import quote

from django.conf import settings

import harness

# The apps' tests (live/tests, games/tests) import these from here.
from harness import ROOT, environment, free_port, wait_until  # noqa: F401

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium-headless-shell")
# Flags for a sandboxed machine with no network but loopback (see docs/testing.md).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def postgres_url(database: dict, name: str) -> str:
    """DATABASE_URL (as config.env reads it) of database `name` on the server of `database`,
    a Django settings dictionary."""
    auth = quote(database["USER"], safe="")
    if database["PASSWORD"]:
        auth += ":" + quote(database["PASSWORD"], safe="")
    host = database["HOST"] or "localhost"
    if host.startswith("/"):  # a Unix socket folder: config.env reads it from ?host=
        return f"postgresql://{auth}@/{name}?host={quote(host, safe='')}"
    port = f":{database['PORT']}" if database["PORT"] else ""
    return f"postgresql://{auth}@{host}{port}/{name}"


def test_database_url() -> str:
    """DATABASE_URL of the database pytest-django created (call after django_db_setup)."""
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    return postgres_url(db, db["NAME"])


def redis_names() -> dict[str, str]:
    """This process's names in Redis, as environment variables. A process started on the test
    database would otherwise name its install after that database (config.env.redis_names),
    where this one was named after DATABASE_URL's before pytest-django created it: this
    process's pushes, tasks and heartbeat reads would miss it."""
    return {
        "REDIS_URL": settings.REDIS_URL,
        "CACHE_PREFIX": settings.CACHES["default"]["KEY_PREFIX"],
        "CHANNEL_PREFIX": settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"],
        "CELERY_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
    }


def process_env(**extra: str) -> dict[str, str]:
    """The environment of the suite's processes: the test database (through Django's pool of
    connections on PostgreSQL, as the README deploys it), this process's names in Redis, then
    `extra`."""
    url = test_database_url()
    if url.startswith("postgres"):
        url += ("&" if "?" in url else "?") + "pool=20"
    return environment(DATABASE_URL=url, **{**redis_names(), **extra})


class Processes(harness.Processes):
    """The harness's processes with the suite's hooks, which empty the content types' cache
    before each request and each task: daphne serves tests.asgi_under_test, the worker loads
    tests.celery_hooks (see the modules)."""

    def start_daphne(self, port: int, name: str = "daphne", **options):
        options.setdefault("app", "tests.asgi_under_test:application")
        return super().start_daphne(port, name, **options)

    def start_worker(self, name: str = "worker", **options):
        options.setdefault("node", f"test-{os.getpid()}")
        options["include"] = [*options.get("include", ()), "tests.celery_hooks"]
        return super().start_worker(name, **options)

    def start_analysis_worker(self, name: str = "analysis", **options):
        options.setdefault("node", f"test-analysis-{os.getpid()}")
        options["include"] = [*options.get("include", ()), "tests.celery_hooks"]
        return super().start_analysis_worker(name, **options)
