"""The private site under attack: two daphne processes, a Celery worker and beat on the
PostgreSQL and Redis of scripts/with-services.sh, on loopback only and free ports; what the
fault scenarios do to them (kill -9 and restart, Redis and PostgreSQL stopped and started);
and the tracebacks in their logs.

Every process writes to its own log in the run's directory (appended across restarts).
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.live import BIN, ROOT, free_port, server_environment

TRACEBACK = "Traceback (most recent call last)"


def site_environment(run_dir: Path) -> dict[str, str]:
    """What every process of the site (and the attacker's own Django, which writes the
    sessions it presents) shares: one secret key, a var directory of the run's own."""
    env = server_environment()
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(40))
    env["VAR_DIR"] = str(run_dir / "var")
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["PYTHONUNBUFFERED"] = "1"
    env["DEBUG"] = "0"
    env.setdefault("LOG_LEVEL", "INFO")
    return env


@dataclass
class Site:
    run_dir: Path
    env: dict[str, str]
    ports: dict[str, int] = field(default_factory=dict)  # daphne name -> port
    running: dict[str, subprocess.Popen] = field(default_factory=dict)
    argv: dict[str, list[str]] = field(default_factory=dict)

    @property
    def log_dir(self) -> Path:
        return self.run_dir / "logs"

    # --- processes -----------------------------------------------------------------------------

    def start(
        self, name: str, argv: list[str] | None = None, env: dict[str, str] | None = None
    ) -> subprocess.Popen:
        argv = argv or self.argv[name]
        self.argv[name] = argv
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env or self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: a kill reaches the worker's children too
        )
        log.close()
        self.running[name] = proc
        return proc

    def start_daphne(self, name: str, env: dict[str, str] | None = None) -> None:
        port = self.ports.get(name) or free_port()
        self.ports[name] = port
        self.start(
            name,
            [str(BIN / "python"), "-m", "config.serve", "-b", "127.0.0.1", "-p", str(port)]
            + ["config.asgi:application"],
            env,
        )

    def restart_daphnes(self, **extra: str) -> None:
        """Both daphne processes stopped and started again with `extra` in their environment
        (nothing: the site's own), on the same ports."""
        for name in ("daphne-a", "daphne-b"):
            self.kill(name, signal.SIGTERM)
        for name in ("daphne-a", "daphne-b"):
            self.start_daphne(name, {**self.env, **extra})
        for name in ("daphne-a", "daphne-b"):
            wait_port(self.ports[name], 60)
        self.wait_healthy(90)

    def start_all(self) -> None:
        for name in ("daphne-a", "daphne-b"):
            self.start_daphne(name)
        self.start(
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
                f"attack-{os.getpid()}@%h",
            ],
        )
        self.start(
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
        for port in self.ports.values():
            wait_port(port, 60)
        self.wait_healthy(90)

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        proc = self.running.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)

    def restart(self, name: str) -> None:
        self.start(name)
        if name in self.ports:
            wait_port(self.ports[name], 60)

    def stop_all(self) -> None:
        for name in list(self.running):
            self.kill(name, signal.SIGTERM)

    def healthz(self) -> tuple[int, str]:
        port = next(iter(self.ports.values()))
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                return r.status, r.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")
        except OSError as error:
            return 0, str(error)

    def wait_healthy(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.healthz()[0] == 200:
                return True
            time.sleep(0.5)
        return False

    # --- the services (scripts/test-services.sh) ----------------------------------------------

    @property
    def services_dir(self) -> Path | None:
        data = os.environ.get("TEST_PG_DATA")
        return Path(data).parent if data else None

    def can_stop_services(self) -> bool:
        return bool(os.environ.get("TEST_PG_DATA") and os.environ.get("TEST_REDIS_PORT"))

    def redis_stop(self) -> None:
        """`redis-cli shutdown nosave`: Redis goes away with everything it held (queued tasks,
        heartbeats, throttle counters, pub/sub subscriptions), as in a crash and restart."""
        port = os.environ["TEST_REDIS_PORT"]
        subprocess.run(
            ["redis-cli", "-p", port, "shutdown", "nosave"], capture_output=True, timeout=20
        )
        for _ in range(100):
            if subprocess.run(["redis-cli", "-p", port, "ping"], capture_output=True).returncode:
                return
            time.sleep(0.1)

    def redis_start(self) -> None:
        """The same command line as scripts/test-services.sh."""
        port, where = os.environ["TEST_REDIS_PORT"], self.services_dir
        subprocess.run(
            [
                "redis-server",
                "--port",
                port,
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(where),
                "--daemonize",
                "yes",
                "--pidfile",
                str(where / "redis.pid"),
                "--logfile",
                str(where / "redis.log"),
            ],
            check=True,
            timeout=20,
        )
        for _ in range(100):
            ping = subprocess.run(["redis-cli", "-p", port, "ping"], capture_output=True)
            if ping.stdout.strip() == b"PONG":
                return
            time.sleep(0.1)

    def _as_postgres(self, argv: list[str]) -> list[str]:
        # scripts/test-services.sh runs PostgreSQL as the 'postgres' user when root.
        return ["runuser", "-u", "postgres", "--", *argv] if os.getuid() == 0 else argv

    def pg_stop(self) -> None:
        """`pg_ctl stop -m fast`: every connection is cut, new ones are refused."""
        pg_ctl = str(Path(os.environ["TEST_PG_BIN"]) / "pg_ctl")
        data = os.environ["TEST_PG_DATA"]
        # The options it was started with, to start it again the same way.
        self._pg_opts = (Path(data) / "postmaster.opts").read_text()
        subprocess.run(
            self._as_postgres([pg_ctl, "-D", data, "-m", "fast", "-w", "stop"]),
            capture_output=True,
            timeout=60,
        )

    def pg_start(self) -> None:
        """`pg_ctl start` on the same data directory with the options of its first start
        (postmaster.opts, written by PostgreSQL: the port, the socket directory, fsync=off…)."""
        pg_ctl = str(Path(os.environ["TEST_PG_BIN"]) / "pg_ctl")
        data = os.environ["TEST_PG_DATA"]
        words = shlex.split(self._pg_opts)[1:]  # without the postgres binary
        options = []
        while words:
            word = words.pop(0)
            if word == "-D":  # pg_ctl gives the data directory itself
                words.pop(0)
                continue
            options.append(shlex.quote(word))
        subprocess.run(
            self._as_postgres(
                [
                    pg_ctl,
                    "-D",
                    data,
                    "-l",
                    str(self.services_dir / "pg.log"),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    " ".join(options),
                    "start",
                ]
            ),
            capture_output=True,
            timeout=90,
            check=True,
        )

    def keep_service_logs(self) -> None:
        """Copy PostgreSQL's and Redis's logs beside the site's (their directory is removed when
        scripts/with-services.sh exits)."""
        where = self.services_dir
        if where is None:
            return
        for name in ("pg.log", "redis.log"):
            if (where / name).exists():
                shutil.copy(where / name, self.log_dir / name)

    # --- logs ----------------------------------------------------------------------------------

    def mark(self, text: str) -> None:
        """A line in every log, so a reader finds where a scenario or a fault began."""
        line = f"=== bench.attack {time.strftime('%H:%M:%S')}: {text} ===\n".encode()
        for path in sorted(self.log_dir.glob("*.log")):
            with path.open("ab") as f:
                f.write(line)

    def log_sizes(self) -> dict[str, int]:
        return {p.name: p.stat().st_size for p in sorted(self.log_dir.glob("*.log"))}

    def tracebacks_between(
        self, start: dict[str, int], end: dict[str, int] | None = None
    ) -> list[Traceback]:
        """The tracebacks written to the logs between two `log_sizes()` (end None: until now)."""
        found = []
        for path in sorted(self.log_dir.glob("*.log")):
            with path.open("rb") as f:
                f.seek(start.get(path.name, 0))
                size = None if end is None else end.get(path.name, 0) - start.get(path.name, 0)
                text = f.read(size if size is None or size >= 0 else 0).decode(errors="replace")
            found.extend(parse_tracebacks(path.name, text))
        return found


@dataclass(frozen=True)
class Traceback:
    log: str
    message: str  # the log line just before it ("Internal Server Error: /x", "push … failed")
    exception: str  # its last line ("ValueError: …")
    where: str = ""  # its deepest frame in the project's code ("games/views.py:83 cancel")


_ADDRESSES = re.compile(r"\[[0-9a-f-]{36}\]|0x[0-9a-f]+|\b\d+\b")
_LOG_PREFIX = re.compile(r"^\[\d{4}-\d\d-\d\d [^\]]*\]\s*")
_FRAME = re.compile(r'\s+File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>.+)')


def parse_tracebacks(log: str, text: str) -> list[Traceback]:
    """One entry per "Traceback (most recent call last)" line (a chained exception makes two),
    each with the log line that announced it (for a chain, the one before its first
    traceback), its deepest frame in the project and the exception it ended with."""
    found: list[Traceback] = []
    message = chain_message = ""
    state, current = "normal", None
    for line in text.splitlines():
        if TRACEBACK in line:
            if current is not None:
                found.append(current)
            if state != "chained":
                chain_message = message
            current, state = Traceback(log, chain_message[:160], ""), "frames"
            continue
        indented = not line.strip() or line[:1] in (" ", "\t")
        if state == "frames":
            frame = _FRAME.match(line)
            if frame and frame["path"].startswith(str(ROOT)) and ".venv" not in frame["path"]:
                path = frame["path"].removeprefix(str(ROOT) + "/")
                where = f"{path}:{frame['line']} {frame['function']}"
                current = Traceback(log, current.message, "", where)
            if not indented:  # the exception that ended it
                current = Traceback(log, current.message, line.strip()[:200], current.where)
                found.append(current)
                current, state = None, "after"
            continue
        if line.startswith(("During handling", "The above exception")):
            state = "chained"
            continue
        if state == "chained" or indented or line.startswith("['  File"):
            continue  # the rest of an exception's message; celery's stack dump
        state = "normal"
        message = _LOG_PREFIX.sub("", line.strip())
    if current is not None:
        found.append(current)
    return found


def describe(tb: Traceback) -> tuple[str, str]:
    """A traceback as (what it is, its exception in full): the process, the log line that
    announced it, the exception's type and our deepest frame, ids and addresses folded, so
    that alike ones count together; the exception's message, which may hold the hostile
    value, is the example."""
    process = tb.log.removesuffix(".log").removesuffix("-a").removesuffix("-b")
    kind = tb.exception.split(":", 1)[0]
    where = f" at {tb.where}" if tb.where else ""
    message = _ADDRESSES.sub("N", tb.message)
    if len(message) > 110:
        message = message[:110] + "…"
    return f"{process}: {message} -> {kind}{where}", tb.exception[:160]


def summarize(tracebacks: list[Traceback], limit: int = 12) -> list[str]:
    """The distinct tracebacks, most frequent first (numbers and addresses folded together)."""
    counts: Counter[tuple[str, str, str]] = Counter()
    example: dict[tuple[str, str, str], Traceback] = {}
    for tb in tracebacks:
        key = (tb.log, _ADDRESSES.sub("N", tb.message), _ADDRESSES.sub("N", tb.exception))
        counts[key] += 1
        example.setdefault(key, tb)
    lines = []
    for key, n in counts.most_common(limit):
        tb = example[key]
        lines.append(f"{n:5d} x {tb.log}: {tb.message!s} -> {tb.exception}")
    if len(counts) > limit:
        lines.append(f"      … and {len(counts) - limit} other kinds")
    return lines


def wait_port(port: int, timeout: float) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {timeout:.0f} s")
