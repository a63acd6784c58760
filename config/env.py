"""Reading deployment settings from the environment.

Pure helpers (no Django import) so that the parsing rules are unit-tested on their own:
every deployment-specific value comes from an environment variable with a safe local default.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


class ConfigError(ValueError):
    """A setting has a value we cannot use; the message says which and why."""


def env_bool(environ: dict[str, str], name: str, default: bool) -> bool:
    raw = environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfigError(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")


def env_list(environ: dict[str, str], name: str, default: list[str]) -> list[str]:
    raw = environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(environ: dict[str, str], name: str, default: int, minimum: int = 1) -> int:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: not a whole number") from None
    if value < minimum:
        raise ConfigError(f"{name}={raw!r}: must be at least {minimum}")
    return value


def env_float(environ: dict[str, str], name: str, default: float, *, zero: bool = False) -> float:
    """A number (`1.5`, `10`): above 0, or at least 0 where `zero` says 0 means something (no
    wait at all, Python's own default)."""
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return float(default)
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: not a number") from None
    if not math.isfinite(value):
        raise ConfigError(f"{name}={raw!r}: not a number")
    if value < 0 or (value == 0 and not zero):
        raise ConfigError(f"{name}={raw!r}: must be {'at least' if zero else 'above'} 0")
    return value


def env_rate(environ: dict[str, str], name: str, default: str) -> tuple[float, float]:
    """A token bucket's shape written `BURST/RATE` (`20/10`: a burst of 20 messages, then 10 a
    second): both numbers, the burst at least 1, the rate above 0."""
    raw = environ.get(name)
    text = default if raw is None or raw.strip() == "" else raw.strip()
    burst, slash, rate = text.partition("/")
    try:
        pair = (float(burst), float(rate)) if slash else None
    except ValueError:
        pair = None
    if pair is None or not (pair[0] >= 1 and pair[1] > 0):
        raise ConfigError(f"{name}={raw!r}: expected BURST/RATE, e.g. 20/10 (burst >= 1, rate > 0)")
    return pair


def env_port(environ: dict[str, str], name: str = "PORT", default: int = 8000) -> int:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        port = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: not a number") from None
    if not 1 <= port <= 65535:
        raise ConfigError(f"{name}={raw!r}: a port is between 1 and 65535")
    return port


def sqlite_config(path: Path | str) -> dict:
    """The embedded default: a SQLite file in WAL mode with immediate transactions.

    WAL lets daphne, the Celery worker and beat read while one of them writes; IMMEDIATE makes
    every transaction take the write lock at BEGIN, so two writers queue (busy timeout) instead
    of failing with "database is locked" halfway through.
    """
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                "PRAGMA foreign_keys=ON;"
                "PRAGMA busy_timeout=20000;"
            ),
        },
    }


def database_config(url: str | None, default_sqlite_path: Path | str) -> dict:
    """Django DATABASES['default'] from DATABASE_URL.

    Accepted: unset/empty (SQLite file default), ``sqlite:///relative.db``,
    ``sqlite:////absolute/path.db``, ``postgres://`` / ``postgresql://`` /
    ``postgresql+psycopg://user:pass@host:port/name?sslmode=require`` (query options are passed
    to psycopg), with a Unix-socket host given as ``?host=/run/postgresql``.
    """
    if url is None or url.strip() == "":
        return sqlite_config(default_sqlite_path)
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        # sqlite:///rel.db -> "rel.db"; sqlite:////abs/x.db -> "/abs/x.db"
        path = unquote(parts.path[1:] if parts.path.startswith("/") else parts.path)
        if not path:
            raise ConfigError(f"DATABASE_URL={url!r}: no file name after sqlite:///")
        return sqlite_config(path)
    if scheme in {"postgres", "postgresql", "pgsql", "postgresql+psycopg"}:
        name = unquote(parts.path.lstrip("/"))
        if not name:
            raise ConfigError(f"DATABASE_URL={url!r}: no database name after the host")
        options: dict = dict(parse_qsl(parts.query))
        host = options.pop("host", None) or unquote(parts.hostname or "")
        # Options psycopg / Django want typed, not as the URL's text. Server-side binding by
        # default: psycopg then prepares a statement the connection has run `prepare_threshold`
        # times, so a live game's two statements (games/services/store.py) are parsed and
        # planned once per connection, not on every move (half of PostgreSQL's CPU under load,
        # bench/live.py), through Django's own cursors. `server_side_binding=false` binds on the
        # client again; `prepare_threshold=none` turns preparing off (a pooler that cannot keep
        # prepared statements).
        options["server_side_binding"] = (
            str(options.get("server_side_binding", "true")).lower() in TRUE_WORDS
        )
        threshold = options.get("prepare_threshold", "5")
        if str(threshold).lower() in ("none", "off"):
            options["prepare_threshold"] = None
        else:
            try:
                options["prepare_threshold"] = int(threshold)
            except ValueError:
                raise ConfigError(
                    f"DATABASE_URL={url!r}: prepare_threshold must be a number or none"
                ) from None
        # libpq's `connect_timeout` (seconds, 2 at least): a connect to a server out of reach,
        # or to one that takes the connection and never answers, fails after it instead of
        # hanging on TCP's minutes or for ever. A pool grows by one connect at a time: one hung
        # connect would keep a process from ever getting a connection back. 5 unless given.
        try:
            options["connect_timeout"] = int(options.get("connect_timeout", 5))
        except ValueError:
            raise ConfigError(f"DATABASE_URL={url!r}: connect_timeout must be a number") from None
        try:
            port = parts.port
        except ValueError:
            raise ConfigError(f"DATABASE_URL={url!r}: the port is not a number") from None
        conn_max_age = int(options.pop("conn_max_age", "0"))
        pool = options.pop("pool", None)
        if pool is not None:
            # Django's pool (psycopg_pool): under daphne each request's view runs in a thread
            # of its own, so a persistent connection dies with it and every page opened a new
            # PostgreSQL session (bench/evening.py). A pooled connection goes back to the pool
            # at the end of the request instead. Up to `pool` connections per process, two kept
            # open; a request that finds all of them busy waits up to 10 s for one. Django
            # refuses a pool beside persistent connections: a pooled process keeps none.
            try:
                size = int(pool)
            except ValueError:
                raise ConfigError(f"DATABASE_URL={url!r}: pool must be a number") from None
            if size < 1:
                raise ConfigError(f"DATABASE_URL={url!r}: pool must be at least 1")
            if conn_max_age:
                raise ConfigError(f"DATABASE_URL={url!r}: pool and conn_max_age exclude each other")
            options["pool"] = {"min_size": min(2, size), "max_size": size, "timeout": 10}
        config = {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": host,
            "PORT": str(port or ""),
            "CONN_MAX_AGE": conn_max_age,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": options,
        }
        return config
    raise ConfigError(
        f"DATABASE_URL={url!r}: unsupported scheme {scheme!r} (use sqlite:/// or postgresql://)"
    )


def secret_key(environ: dict[str, str], key_file: Path) -> str:
    """SECRET_KEY from the environment, else a random key kept in ``key_file``.

    No secret lives in the code: a local install gets its own key on first start, and it stays
    the same across restarts so sessions survive.
    """
    value = environ.get("SECRET_KEY", "").strip()
    if value:
        return value
    if key_file.exists():
        stored = key_file.read_text().strip()
        if stored:
            return stored
    key_file.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(50)
    key_file.write_text(value)
    key_file.chmod(0o600)
    return value


DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
# The names of one install's things in Redis, each from the environment variable of that name.
PREFIX_NAMES = ("CACHE_PREFIX", "CHANNEL_PREFIX", "CELERY_QUEUE")


def install_name(database: dict) -> str:
    """A short name of this install, the same in each of its processes: `circolo-` and a digest
    of where its database lives (the PostgreSQL server and database name, or the SQLite file's
    full path). Two clones side by side have two databases, hence two names; the
    processes of one install, one database, share theirs. `database` is Django's settings
    dictionary (`database_config`); options such as conn_max_age leave the name alone."""
    if database["ENGINE"].endswith("sqlite3"):
        where = f"sqlite:{Path(database['NAME']).resolve()}"
    else:
        host, port = database.get("HOST") or "", database.get("PORT") or ""
        where = f"{database['ENGINE']}:{host}:{port}/{database['NAME']}"
    return "circolo-" + hashlib.sha256(where.encode()).hexdigest()[:10]


def redis_names(environ: dict[str, str], database: dict) -> dict[str, str]:
    """REDIS_URL and this install's names in Redis: CACHE_PREFIX (the cache, the heartbeats
    /healthz reads, the pushes' throttles), CHANNEL_PREFIX (the channel layer's pub/sub
    channels, which every Redis database shares) and CELERY_QUEUE. Each from the environment,
    else from `install_name`: two installs never read each other's keys, pushes or tasks,
    even on one Redis (with shared names, a game opening for user #1 of one clone sends user #1
    of the other to its board). Under pytest-xdist, each worker's own on top
    (`xdist_worker_names`)."""
    install = install_name(database)
    names = {
        "REDIS_URL": environ.get("REDIS_URL", "").strip() or DEFAULT_REDIS_URL,
        "CACHE_PREFIX": environ.get("CACHE_PREFIX", "").strip() or install,
        "CHANNEL_PREFIX": environ.get("CHANNEL_PREFIX", "").strip() or f"{install}:asgi",
        "CELERY_QUEUE": environ.get("CELERY_QUEUE", "").strip() or install,
    }
    return {**names, **xdist_worker_names(environ, names)}


def xdist_worker_names(environ: dict[str, str], names: dict[str, str]) -> dict[str, str]:
    """What one pytest-xdist worker of the suite keeps to itself in Redis (docs/testing.md): its own
    database number in REDIS_URL (the cache, the Celery broker, the heartbeats) and its own
    channel, cache and queue names (pub/sub channels are shared by every Redis database), from
    `names` (`redis_names`). Empty outside a worker (`PYTEST_XDIST_WORKER` unset), which is
    always the case but in `make test`. The worker's own processes (daphne, Celery) inherit its
    environment and are given its names (tests/processes.py): applied to names it made, it
    gives them back unchanged."""
    worker = environ.get("PYTEST_XDIST_WORKER", "")
    if not worker:
        return {}
    number = int(worker.removeprefix("gw")) if worker.removeprefix("gw").isdigit() else 0
    url = urlsplit(names["REDIS_URL"])
    # Database 0 stays the one of runs without workers; workers take 1, 2, ... (16 by default).
    database = 1 + number % 15
    suffix = f"-{worker}"
    return {
        "REDIS_URL": url._replace(path=f"/{database}").geturl(),
        **{
            key: names[key] if names[key].endswith(suffix) else names[key] + suffix
            for key in PREFIX_NAMES
        },
    }


def socket_sources(allowed_hosts: list[str]) -> list[str]:
    """The site's own websocket origins for CSP's connect-src, one `ws://` and one `wss://` per
    host the site answers to. CSP Level 3's 'self' already matches them (Chromium since 71,
    Firefox, Safari since 16); naming them keeps older browsers' sockets working on the default
    ports (behind nginx: `wss://` on 443). Host
    patterns (`*`, `.example.org`) and IPv6 literals, which a CSP host-source cannot spell, are
    left to 'self'."""
    sources = []
    for host in allowed_hosts:
        if not host or host.startswith(".") or "*" in host or "[" in host:
            continue
        sources += [f"ws://{host}", f"wss://{host}"]
    return sources


def mail_config(environ: dict[str, str], var_dir: Path) -> dict:
    """Django's EMAIL_* settings. With EMAIL_HOST set, its SMTP server (EMAIL_PORT,
    EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS or EMAIL_USE_SSL, EMAIL_TIMEOUT);
    without it, each mail is written to a file under VAR_DIR/mail, so a local site sends
    nothing anywhere and the mails can still be read (`make run` says where)."""
    use_tls = env_bool(environ, "EMAIL_USE_TLS", False)
    use_ssl = env_bool(environ, "EMAIL_USE_SSL", False)
    if use_tls and use_ssl:
        raise ConfigError("EMAIL_USE_TLS and EMAIL_USE_SSL: set one of them, not both")
    config = {
        "DEFAULT_FROM_EMAIL": environ.get("DEFAULT_FROM_EMAIL", "").strip()
        or "Circolo <noreply@localhost>",
        "EMAIL_TIMEOUT": env_int(environ, "EMAIL_TIMEOUT", 10),
    }
    config["SERVER_EMAIL"] = config["DEFAULT_FROM_EMAIL"]
    host = environ.get("EMAIL_HOST", "").strip()
    if not host:
        return {
            **config,
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": str(Path(var_dir) / "mail"),
        }
    return {
        **config,
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": host,
        "EMAIL_PORT": env_port(environ, "EMAIL_PORT", 465 if use_ssl else 587 if use_tls else 25),
        "EMAIL_HOST_USER": environ.get("EMAIL_HOST_USER", ""),
        "EMAIL_HOST_PASSWORD": environ.get("EMAIL_HOST_PASSWORD", ""),
        "EMAIL_USE_TLS": use_tls,
        "EMAIL_USE_SSL": use_ssl,
    }


def site_url(environ: dict[str, str], allowed_hosts: list[str], port: int) -> str:
    """The site's address as a mail links to it (SITE_URL, no trailing slash): a mail is sent by
    the worker, with no request to take the host from. Without it, the first allowed host,
    over HTTPS when it is a real name, else the local `make run` address."""
    raw = environ.get("SITE_URL", "").strip().rstrip("/")
    if raw:
        parts = urlsplit(raw)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path:
            raise ConfigError(f"SITE_URL={raw!r}: expected e.g. https://circolo.example")
        return raw
    host = next((h for h in allowed_hosts if h and not h.startswith((".", "*"))), "127.0.0.1")
    if host in ("127.0.0.1", "localhost", "[::1]"):
        return f"http://{host}:{port}"
    return f"https://{host}"
