"""Real processes for integration and end-to-end tests: daphne, a Celery worker and Celery beat,
started against the test database and the test Redis, stopped at the end."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
    env = dict(os.environ)
    env.update(
        DATABASE_URL=test_database_url(),
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONUNBUFFERED="1",
        **redis_names(),
    )
    env.update(extra)
    return env


@dataclass
class Processes:
    log_dir: Path
    env: dict[str, str]
    running: dict[str, subprocess.Popen] = field(default_factory=dict)

    def start(self, name: str, argv: list[str]) -> subprocess.Popen:
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.running[name] = proc
        return proc

    def start_worker(self) -> subprocess.Popen:
        return self.start(
            "worker",
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                "--loglevel=WARNING",
                "--concurrency=2",
                "--pool=prefork",
                "--without-gossip",  # as deployed (deploy/systemd/circolo-worker.service)
                "--without-mingle",
                "-n",
                f"test-{os.getpid()}@%h",
                # The content types' cache, emptied before every task (see the module).
                "--include",
                "tests.celery_hooks",
            ],
        )

    def start_beat(self) -> subprocess.Popen:
        return self.start(
            "beat",
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "beat",
                "--loglevel=WARNING",
                "--scheduler",
                "config.beat:HeartbeatScheduler",
                "--pidfile=",
            ],
        )

    def start_daphne(self, port: int) -> subprocess.Popen:
        return self.start(
            "daphne",
            [str(BIN / "python"), "-m", "config.serve", "-b", "127.0.0.1", "-p", str(port)]
            # config.asgi's application, with the content types' cache emptied per request
            # (see the module).
            + ["tests.asgi_under_test:application"],
        )

    def stop(self, name: str) -> None:
        proc = self.running.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)

    def stop_all(self) -> None:
        """Every process told to stop at once, then waited for: a Celery worker takes seconds
        to shut down, and one after the other their times added up."""
        stopping = [proc for proc in self.running.values() if proc.poll() is None]
        self.running.clear()
        for proc in stopping:
            os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for proc in stopping:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)

    def log(self, name: str) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""


def wait_until(predicate, timeout: float, what: str, interval: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s waiting for {what}")


def http_status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None
