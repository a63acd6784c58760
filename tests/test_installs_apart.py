"""Two installs on one machine never talk to each other, even on one Redis.

Two whole sites side by side, each with its daphne, Celery worker and beat and a database of
its own, both on the suite's Redis and with no Redis name set: each names its things in Redis
after its database (config.env.redis_names). Were they to share names, a game opening for user
#1 of one would take user #1 of the other to its board, and each /healthz would see the
other's worker. Here both sites have a user #N, signed in on both:

- a push to user #N on one site reaches their site socket there, never the other site's;
- each /healthz sees its own worker only: with B's worker stopped, B's /healthz says the
  worker is down while A's says up, and the ticks B's beat sends wait for B's worker (A's
  worker takes none of them).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import urllib.request
import uuid
from dataclasses import dataclass

import psycopg
import pytest
import redis
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection

from accounts.models import User
from accounts.tests.factories import UserFactory
from config.env import PREFIX_NAMES, database_config, redis_names
from harness import environment, free_port, wait_until
from live.layers import PubSubChannelLayer
from live.pushes import user_group
from tests.browser import session_cookie
from tests.processes import Processes, postgres_url
from tests.template_db import ensure_template

# A heartbeat older than this is a process down (/healthz): short, so B's stopped worker
# shows within seconds.
STALE_SECONDS = "2"


@dataclass
class Install:
    name: str
    database: str
    url: str  # the site's address
    env: dict[str, str]
    procs: Processes

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    @property
    def names(self) -> dict[str, str]:
        """Its names in Redis, as its processes work them out from their environment."""
        return redis_names(self.env, database_config(self.env["DATABASE_URL"], "unused"))

    def healthz(self) -> dict:
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=2) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:  # 503: something is down, said in the body
            return json.loads(error.read())
        except OSError:
            return {}


def copy_row(model, pk: str | int, database_url: str) -> None:
    """The row of `model` with this primary key, from the test database into another database
    of the same schema, as it is (JSON in between, so every column type makes the trip)."""
    table = connection.ops.quote_name(model._meta.db_table)
    column = connection.ops.quote_name(model._meta.pk.column)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT row_to_json(t)::text FROM {table} t WHERE {column} = %s", [pk])
        (row,) = cursor.fetchone()
    with psycopg.connect(database_url, autocommit=True) as other:
        other.execute(
            f"INSERT INTO {table} SELECT * FROM json_populate_record(NULL::{table}, %s)", [row]
        )


@pytest.fixture
def two_installs(transactional_db, tmp_path):
    """Sites A and B, each on a database of its own cloned from the migrated template, both
    with the test database's user and session copied in (the same user #N, signed in on both,
    by the same cookie). Yields (A, B, username, cookie)."""
    username = f"u_{uuid.uuid4().hex[:8]}"
    user = UserFactory(username=username)
    cookie = session_cookie("http://127.0.0.1", username)
    default = settings.DATABASES["default"]
    template = ensure_template(default)
    inherited = {key: value for key, value in os.environ.items() if key not in PREFIX_NAMES}
    installs = []
    try:
        for name in ("a", "b"):
            database = f"{default['NAME']}_install_{name}"
            with connection.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
                cursor.execute(f'CREATE DATABASE "{database}" TEMPLATE "{template}"')
            database_url = postgres_url(default, database)
            copy_row(User, user.pk, database_url)
            copy_row(Session, cookie["value"], database_url)
            env = environment(
                inherited,
                DATABASE_URL=database_url,
                REDIS_URL=settings.REDIS_URL,  # one Redis for both, the suite's
                HEARTBEAT_STALE_SECONDS=STALE_SECONDS,
            )
            log_dir = tmp_path / name
            log_dir.mkdir()
            port = free_port()
            install = Install(
                name, database, f"http://127.0.0.1:{port}", env, Processes(log_dir, env)
            )
            installs.append(install)
            install.procs.start_daphne(port)
            install.procs.start_worker()
            install.procs.start_beat()
        for install in installs:
            install.procs.wait_healthy(install.url, 60)
        yield installs[0], installs[1], username, f"{cookie['name']}={cookie['value']}"
    finally:
        for install in installs:
            install.procs.stop_all()
        with connection.cursor() as cursor:
            for install in installs:
                cursor.execute(f'DROP DATABASE IF EXISTS "{install.database}" WITH (FORCE)')


async def pushes_seen(installs, cookie: str, user_id: int) -> dict[str, list[str]]:
    """User #N's site socket open on each site; then one push to user #N through each site's
    channel layer (its names in Redis). What each socket received, by the site pushed from."""
    from bench.live import Socket

    sockets = {i.name: await Socket.connect(i.port, "/ws/me/", cookie) for i in installs}
    seen: dict[str, list[str]] = {name: [] for name in sockets}

    async def read(name: str, sock: Socket) -> None:
        """Until the site's own push has come (10 s at most), and half a second more for a
        push of the other site's, sent at the same time, to show up."""
        try:
            async with asyncio.timeout(10) as timeout:
                while (message := await sock.receive()) is not None:
                    if message.get("what") == "mygame":
                        seen[name].append(message["from"])
                        if message["from"] == name:
                            timeout.reschedule(asyncio.get_running_loop().time() + 0.5)
        except TimeoutError:
            pass

    try:
        # The socket joins its group before it accepts, so each push finds it.
        for install in installs:
            layer = PubSubChannelLayer([settings.REDIS_URL], prefix=install.names["CHANNEL_PREFIX"])
            message = {"type": "user.changed", "what": "mygame", "game": 1, "from": install.name}
            await layer.group_send(user_group(user_id), message)
            await layer.flush()
        await asyncio.gather(*(read(name, sock) for name, sock in sockets.items()))
    finally:
        for sock in sockets.values():
            sock.writer.close()
    return seen


def test_two_installs_on_one_redis_never_talk_to_each_other(two_installs):
    site_a, site_b, username, cookie = two_installs
    a_names, b_names = site_a.names, site_b.names
    assert a_names["REDIS_URL"] == b_names["REDIS_URL"]
    for name in PREFIX_NAMES:
        assert a_names[name] != b_names[name], name

    user_id = User.objects.get(username=username).pk
    seen = asyncio.run(pushes_seen([site_a, site_b], cookie, user_id))
    assert seen == {"a": ["a"], "b": ["b"]}, seen

    # B's worker dies: B's /healthz says so, A's worker (beating on) is not taken for B's.
    site_b.procs.stop("worker", signal.SIGKILL)
    wait_until(
        lambda: site_b.healthz().get("worker", {}).get("up") is False,
        timeout=10,
        what="B's /healthz to see its worker down",
    )
    a_health, b_health = site_a.healthz(), site_b.healthz()
    assert a_health["status"] == "ok" and a_health["worker"]["up"], a_health
    assert b_health["beat"]["up"] and b_health["redis"]["up"], b_health
    # B's beat goes on sending its ticks; they wait in B's queue for B's worker.
    queues = redis.Redis.from_url(settings.REDIS_URL)
    wait_until(
        lambda: queues.llen(b_names["CELERY_QUEUE"]) >= 5, timeout=10, what="B's ticks queued"
    )
    assert queues.llen(a_names["CELERY_QUEUE"]) < 5
