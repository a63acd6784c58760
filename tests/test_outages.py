"""An outage of PostgreSQL or Redis: pages answer 503 with a page that needs
neither, sockets answer "unavailable" within SOCKET_ANSWER_SECONDS and stay, the logs say it in
one line."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time

import pytest
from django.conf import settings
from django.db import OperationalError
from django.test import override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from bench.attack.client import AttackSocket, HandshakeRefused
from bench.live import Socket
from config.logs import ClientErrorInOneLine, OutageInOneLine
from games.services import now_ms
from games.tests.factories import open_game
from harness import environment, free_port, listening, wait_listening, wait_until
from live.outages import CLOSE_UNAVAILABLE, is_outage
from tests.browser import session_cookie
from tests.processes import Processes, postgres_url, process_env


def record(error: BaseException, name: str = "x", level: int = logging.ERROR):
    try:
        raise error
    except BaseException:
        import sys

        return logging.LogRecord(name, level, __file__, 1, "failed %s", ("here",), sys.exc_info())


def test_outages_are_told_apart_from_bugs():
    assert is_outage(OperationalError("connection refused"))
    assert is_outage(RedisConnectionError("Error 111"))
    wrapped = RuntimeError("while handling")
    wrapped.__cause__ = RedisConnectionError("gone")
    assert is_outage(wrapped)
    assert not is_outage(ValueError("a bug"))
    assert not is_outage(None)


def test_an_outage_is_one_line_a_bug_keeps_its_traceback():
    outage = record(OperationalError("server closed the connection"))
    assert OutageInOneLine().filter(outage) and outage.exc_info is None
    assert "OperationalError" in outage.getMessage() and "failed here" in outage.getMessage()
    bug = record(KeyError("x"))
    assert OutageInOneLine().filter(bug) and bug.exc_info is not None


def test_a_clients_bad_request_is_one_line():
    from django.core.exceptions import RequestDataTooBig

    warning = record(
        RequestDataTooBig("too big"), "django.security.RequestDataTooBig", logging.WARNING
    )
    assert ClientErrorInOneLine().filter(warning) and warning.exc_info is None
    suspicious = record(RequestDataTooBig("too big"), "django.security.RequestDataTooBig")
    assert ClientErrorInOneLine().filter(suspicious) and suspicious.exc_info is None
    error = record(KeyError("x"), "django.request", logging.ERROR)
    assert ClientErrorInOneLine().filter(error) and error.exc_info is not None


@pytest.mark.django_db
def test_a_page_answers_503_when_its_database_is_away(client, monkeypatch):
    from games import views

    def away(*args, **kwargs):
        raise OperationalError("connection to server failed")

    monkeypatch.setattr(views.selectors, "open_challenges", away)
    response = client.get("/play/")
    assert response.status_code == 503
    assert "non disponibile" in response.content.decode()


@pytest.mark.django_db
def test_a_path_with_nul_is_no_page(client):
    assert client.get("/@/a%00b/").status_code == 404


@override_settings(
    CACHES={
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.2},
        }
    }
)
@pytest.mark.django_db
def test_log_in_with_redis_away_is_still_a_clear_page(client):
    response = client.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 503


# --- PostgreSQL away under a game's sockets ------------------------------------------------------


class PostgresOnAPort:
    """The test database's PostgreSQL on a port of its own, which the test takes away and
    gives back as a restart does: `stop()` cuts every connection made through it (the pool's
    included: dead, as after a restart) and refuses new ones; `start()` listens again."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.port = free_port()
        self.lock = threading.Lock()
        self.sockets: set[socket.socket] = set()
        self.listener: socket.socket | None = None

    def start(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port))  # SO_REUSEADDR: same port
        listener.settimeout(0.1)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        self.listener = None  # its thread closes it: connects are refused
        with self.lock:
            cut = list(self.sockets)
        self._cut(*cut)
        wait_until(lambda: not listening(self.port), 5, "the port closed")

    def _accept(self, listener: socket.socket) -> None:
        while self.listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            client.settimeout(None)
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets |= {client, server}
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()
        listener.close()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        self._cut(source, target)

    def _cut(self, *sockets: socket.socket) -> None:
        for sock in sockets:
            with self.lock:
                self.sockets.discard(sock)
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


async def answer(sock: Socket, seconds: float, want) -> tuple[dict, float]:
    """The first message `want` accepts and when it came (`time.monotonic()`); AssertionError
    after `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            while (message := await sock.receive()) is not None:
                if want(message):
                    return message, time.monotonic()
    except TimeoutError:
        raise AssertionError(f"no answer within {seconds:g} s") from None
    raise AssertionError("the socket closed instead of answering")


def both_connected(message: dict) -> bool:
    """A game's state in which both players' sockets are recorded."""
    return message["type"] == "state" and all(
        message[color]["connected"] for color in ("white", "black")
    )


async def refused(port: int, path: str, cookie: str, seconds: float) -> tuple[int | None, float]:
    """A socket opened now: the code it was closed with and when; AssertionError if it was
    neither closed nor refused within `seconds`. The server may close the connection so fast
    that it is reset under the client before the code is read: then it is opened again."""
    for _attempt in range(3):
        try:
            async with asyncio.timeout(seconds):
                sock = await AttackSocket.open(port, path, cookie)
                while await sock.next(seconds) is not None:
                    pass
                return sock.close_code, time.monotonic()
        except HandshakeRefused as error:
            return error.status, time.monotonic()
        except ConnectionResetError:
            continue
        except TimeoutError:
            raise AssertionError(f"a handshake not answered within {seconds:g} s") from None
    raise AssertionError("every handshake was reset before its close code was read")


@pytest.mark.django_db(transaction=True)
def test_a_move_while_postgresql_is_away_is_answered_in_time(tmp_path):
    """PostgreSQL stops under a game (every pooled connection cut, new ones refused): a move,
    a draw offer, a sync and a chat line sent then are each answered within
    SOCKET_ANSWER_SECONDS, with `unavailable` (docs/protocol.md), and a new socket's handshake
    closed with 4503 "try again later", by a real daphne on Django's pool, whose own wait for a
    connection is 10 s. Nothing of them is done; once PostgreSQL is back the move is played,
    once."""
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3") or str(database["HOST"]).startswith("/"):
        pytest.skip("PostgreSQL over TCP")
    postgres = PostgresOnAPort(database["HOST"] or "127.0.0.1", int(database["PORT"] or 5432))
    postgres.start()
    proxied = {**database, "HOST": "127.0.0.1", "PORT": str(postgres.port)}
    env = environment(
        process_env(), DATABASE_URL=postgres_url(proxied, database["NAME"]) + "?pool=4"
    )
    game = open_game(at_ms=now_ms(), base_seconds=300)
    cookies = {}
    for color, user in (("white", game.white), ("black", game.black)):
        cookie = session_cookie("http://127.0.0.1", user.username)
        cookies[color] = f"{cookie['name']}={cookie['value']}"
    bound = settings.SOCKET_ANSWER_SECONDS
    port = free_port()

    async def play() -> list[tuple[str, float]]:
        path = f"/ws/game/{game.pk}/"
        white = await Socket.connect(port, path, cookies["white"])
        black = await Socket.connect(port, path, cookies["black"])
        chat = await Socket.connect(port, f"/ws/chat/game/{game.pk}/", cookies["black"])
        try:
            # A state read, then both players' presence written (a newer state each socket
            # hears): the pool in use, and no handshake's work left when PostgreSQL stops (a
            # presence write failing then would close its socket "try again later", rightly).
            for sock in (white, black):
                await answer(sock, 10, both_connected)
            await answer(chat, 10, lambda m: m["type"] == "chat")
            await asyncio.to_thread(postgres.stop)
            sent = time.monotonic()
            white.send({"type": "move", "ply": 0, "move": "e2e4", "id": 1})
            black.send({"type": "draw_offer", "id": 2})
            white.send({"type": "sync", "id": 3})  # waits behind the move on its socket
            chat.send({"type": "say", "part": "players", "text": "ci sei?", "id": 7})
            # A new socket's handshake (its session read) is answered in time too: refused.
            handshake = asyncio.create_task(refused(port, path, cookies["white"], bound + 2))
            answered = []
            for sock, number in ((white, 1), (black, 2), (white, 3), (chat, 7)):
                reply, came = await answer(sock, bound + 2, lambda m, n=number: m.get("id") == n)
                answered.append((reply["code"], came - sent))
            code, came = await handshake
            answered.append((f"handshake closed {code}", came - sent))
            postgres.start()
            # Back: the pool connects again by itself (its attempts back off: a few seconds).
            until = time.monotonic() + 30
            while time.monotonic() < until:
                white.send({"type": "move", "ply": 0, "move": "e2e4", "id": 4})
                reply, _ = await answer(
                    white, bound + 2, lambda m: m.get("id") == 4 or m["type"] == "played"
                )
                if reply["type"] == "played":
                    break
                await asyncio.sleep(0.5)
            return answered
        finally:
            for sock in (white, black, chat):
                sock.close()

    with Processes(tmp_path, env) as procs:
        procs.start_daphne(port)
        wait_listening(port, 60)
        answered = asyncio.run(play())
    # Each measured from its sending (the sync's time includes its wait behind the move).
    codes = [code for code, _ in answered]
    assert codes == ["unavailable"] * 4 + [f"handshake closed {CLOSE_UNAVAILABLE}"], answered
    assert max(after for _, after in answered) <= bound, answered
    game.refresh_from_db()
    assert (game.ply, game.moves, game.draw_offer) == (1, ["e2e4"], "")


@pytest.mark.django_db(transaction=True)
def test_work_whose_connection_comes_after_its_answer_is_not_done(monkeypatch):
    """A socket thread's work that gets its connection only after its message was answered
    (the pool's wait, a slow connect) stops before its first statement; the connection is
    given back, so the next one is set up whole (its lock timeout, live.locks)."""
    from django.db import connection

    from live.locks import LOCK_TIMEOUT_MS
    from live.threads import NoAnswerInTime, _in_pool

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's lock timeout")
    ran = []

    def work() -> None:
        time.sleep(0.2)  # waiting for a connection, here in the work itself
        with connection.cursor() as cursor:  # connects: after its answer
            cursor.execute("SELECT 1")
        ran.append("the statement")

    # Kept between calls, as a socket thread keeps its own (the pool's, or CONN_MAX_AGE's).
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 600)
    connection.close()  # the thread's connection handed back, as the checks do
    with pytest.raises(NoAnswerInTime):
        _in_pool(work, (), {}, time.monotonic() + 0.1)
    assert ran == [] and connection.connection is None
    with connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == f"{LOCK_TIMEOUT_MS // 1000}s"
    connection.close()
