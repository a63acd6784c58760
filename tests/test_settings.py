"""Settings parsing (config/env.py): pure, no database."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from config.env import (
    PREFIX_NAMES,
    ConfigError,
    database_config,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_port,
    install_name,
    redis_names,
    secret_key,
    socket_sources,
    xdist_worker_names,
)


def test_database_default_is_sqlite_in_wal_mode_with_immediate_transactions(tmp_path):
    config = database_config(None, tmp_path / "db.sqlite3")
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == str(tmp_path / "db.sqlite3")
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]
    assert database_config("  ", "x.db")["NAME"] == "x.db"


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("sqlite:///relative.db", "relative.db"),
        ("sqlite:////abs/path/site.db", "/abs/path/site.db"),
    ],
)
def test_database_sqlite_urls(url, name):
    config = database_config(url, "default.db")
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == name
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


@pytest.mark.parametrize("scheme", ["postgres", "postgresql", "postgresql+psycopg", "pgsql"])
def test_database_postgres_url(scheme):
    config = database_config(f"{scheme}://mario:s%40cret@db.example:6543/circolo", "unused")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("circolo", "mario", "s@cret")
    assert (config["HOST"], config["PORT"]) == ("db.example", "6543")
    # Server-side binding, so psycopg prepares what runs often (games/services/store.py).
    assert config["OPTIONS"] == {
        "server_side_binding": True,
        "prepare_threshold": 5,
        "connect_timeout": 5,  # a server out of reach fails a connect in 5 s, not never
    }


def test_database_postgres_options_socket_and_conn_max_age():
    config = database_config(
        "postgresql:///circolo?host=/run/postgresql&sslmode=require&conn_max_age=60", "unused"
    )
    assert config["HOST"] == "/run/postgresql"
    assert config["PORT"] == ""
    assert config["CONN_MAX_AGE"] == 60
    assert config["OPTIONS"] == {
        "sslmode": "require",
        "server_side_binding": True,
        "prepare_threshold": 5,
        "connect_timeout": 5,
    }


def test_database_postgres_pool():
    """`pool=N`: Django's pool of up to N connections a process, no persistent connections."""
    config = database_config("postgresql://u:p@db/circolo?pool=20", "unused")
    assert config["CONN_MAX_AGE"] == 0
    assert config["OPTIONS"]["pool"] == {"min_size": 2, "max_size": 20, "timeout": 10}
    assert database_config("postgresql://u:p@db/c?pool=1", "x")["OPTIONS"]["pool"]["min_size"] == 1
    for bad, says in (
        ("pool=many", "pool must be a number"),
        ("pool=0", "at least 1"),
        ("pool=10&conn_max_age=60", "exclude each other"),
    ):
        with pytest.raises(ConfigError, match=says):
            database_config(f"postgresql://u:p@db/circolo?{bad}", "unused")


def test_database_postgres_typed_options():
    """psycopg / Django want these typed: "false" must not read as a true string."""
    config = database_config(
        "postgresql://u@h/db?server_side_binding=false&prepare_threshold=3&connect_timeout=2",
        "unused",
    )
    assert config["OPTIONS"] == {
        "server_side_binding": False,
        "prepare_threshold": 3,
        "connect_timeout": 2,
    }
    config = database_config("postgresql://u@h/db?server_side_binding=true", "unused")
    assert config["OPTIONS"]["server_side_binding"] is True
    assert config["OPTIONS"]["prepare_threshold"] == 5
    config = database_config("postgresql://u@h/db?prepare_threshold=none", "unused")
    assert config["OPTIONS"]["prepare_threshold"] is None
    with pytest.raises(ConfigError, match="connect_timeout must be a number"):
        database_config("postgresql://u@h/db?connect_timeout=soon", "unused")


@pytest.mark.parametrize(
    "url",
    [
        "mysql://u@h/db",
        "postgresql://u@h/db?prepare_threshold=often",
        "postgresql://u@h:5432/",
        "sqlite:///",
        "postgresql://u@h:port/db",
    ],
)
def test_database_bad_urls_say_what_is_wrong(url):
    with pytest.raises(ConfigError, match="DATABASE_URL"):
        database_config(url, "unused")


def test_env_bool():
    assert env_bool({}, "DEBUG", False) is False
    assert env_bool({}, "DEBUG", True) is True
    for word in ["1", "true", "Yes", "ON"]:
        assert env_bool({"DEBUG": word}, "DEBUG", False) is True
    for word in ["0", "false", "no", "off", ""]:
        assert env_bool({"DEBUG": word}, "DEBUG", True) is False
    with pytest.raises(ConfigError, match="DEBUG"):
        env_bool({"DEBUG": "maybe"}, "DEBUG", False)


def test_env_list_and_port():
    assert env_list({}, "ALLOWED_HOSTS", ["127.0.0.1"]) == ["127.0.0.1"]
    assert env_list({"ALLOWED_HOSTS": "a.it, b.it,,"}, "ALLOWED_HOSTS", []) == ["a.it", "b.it"]
    assert env_port({}) == 8000
    assert env_port({"PORT": "9000"}) == 9000
    for bad in ["0", "70000", "http"]:
        with pytest.raises(ConfigError, match="PORT"):
            env_port({"PORT": bad})


def test_env_int_and_env_float_refuse_a_bad_value_naming_it():
    assert env_int({}, "SOCKET_QUEUE", 16) == 16
    assert env_int({"SOCKET_QUEUE": " "}, "SOCKET_QUEUE", 16) == 16
    assert env_int({"ROUND_PAUSE_SECONDS": "0"}, "ROUND_PAUSE_SECONDS", 30, minimum=0) == 0
    for bad in ["many", "2.5", "0", "-3"]:
        with pytest.raises(ConfigError, match="SOCKET_QUEUE"):
            env_int({"SOCKET_QUEUE": bad}, "SOCKET_QUEUE", 16)
    assert env_float({}, "TICK_SECONDS", 1.0) == 1.0
    assert env_float({"TICK_SECONDS": ""}, "TICK_SECONDS", 1.0) == 1.0
    assert env_float({"TICK_SECONDS": " 0.25 "}, "TICK_SECONDS", 1.0) == 0.25
    assert env_float({"TICK_SECONDS": "2"}, "TICK_SECONDS", 1.0) == 2.0
    # 0 only where it means something (no coalescing, Python's own switch interval).
    assert env_float({"ASGI_SWITCH_INTERVAL_MS": "0"}, "ASGI_SWITCH_INTERVAL_MS", 1, zero=True) == 0
    for bad in ["soon", "1,5", "nan", "inf", "-1", "0"]:
        with pytest.raises(ConfigError, match="TICK_SECONDS"):
            env_float({"TICK_SECONDS": bad}, "TICK_SECONDS", 1.0)
    with pytest.raises(ConfigError, match="ARENA_PAIRING_COALESCE_SECONDS"):
        env_float(
            {"ARENA_PAIRING_COALESCE_SECONDS": "-0.5"},
            "ARENA_PAIRING_COALESCE_SECONDS",
            2.0,
            zero=True,
        )


SETTINGS_FILE = Path(__file__).resolve().parent.parent / "config" / "settings.py"


@pytest.mark.parametrize(
    "name",
    [
        "LOGIN_FAILURE_LIMIT",
        "LOGIN_FAILURE_WINDOW",
        "CHANNEL_REDIS_MAX_CONNECTIONS",
        "TICK_SECONDS",
        "HEARTBEAT_STALE_SECONDS",
        "GAME_ABANDON_SECONDS",
        "GAME_RESYNC_SECONDS",
        "ROUND_PAUSE_SECONDS",
        "LOCK_TIMEOUT_MS",
        "SOCKET_ANSWER_SECONDS",
        "ARENA_PAIRING_COALESCE_SECONDS",
        "RATING_INITIAL",
        "SOCKET_DB_THREADS",
        "ASGI_SWITCH_INTERVAL_MS",
    ],
)
def test_the_settings_refuse_a_number_that_is_not_one(monkeypatch, name):
    """Every number of config/settings.py is read through config.env: a process started with
    a bad value stops at once, saying which variable, instead of a ValueError from int() or,
    worse, a value nothing checked."""
    monkeypatch.setenv(name, "lots")
    with pytest.raises(ConfigError, match=name):
        runpy.run_path(str(SETTINGS_FILE))


def test_a_socket_is_answered_after_a_held_row_is_given_up(monkeypatch):
    """SOCKET_ANSWER_SECONDS a second above LOCK_TIMEOUT_MS: a row held too long is answered
    `busy` before the answer's time is up (`unavailable`)."""
    monkeypatch.setenv("LOCK_TIMEOUT_MS", "5000")
    monkeypatch.setenv("SOCKET_ANSWER_SECONDS", "5.5")
    with pytest.raises(ConfigError, match="SOCKET_ANSWER_SECONDS=5.5: must be at least 1 s"):
        runpy.run_path(str(SETTINGS_FILE))
    monkeypatch.setenv("SOCKET_ANSWER_SECONDS", "6")
    assert runpy.run_path(str(SETTINGS_FILE))["SOCKET_ANSWER_SECONDS"] == 6.0


def test_secret_key_from_environment_or_a_kept_file(tmp_path):
    key_file = tmp_path / "var" / "secret_key"
    assert secret_key({"SECRET_KEY": "from-env"}, key_file) == "from-env"
    assert not key_file.exists()
    generated = secret_key({}, key_file)
    assert len(generated) >= 50
    assert secret_key({}, key_file) == generated  # stable across restarts
    assert key_file.stat().st_mode & 0o077 == 0  # readable by the owner only


def test_running_settings_come_from_the_environment():
    from django.conf import settings

    # make test runs on PostgreSQL through DATABASE_URL (RULES: tests on the real database).
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    assert settings.AUTH_USER_MODEL == "accounts.User"
    assert settings.LANGUAGE_CODE == "it"


def test_each_install_has_names_of_its_own_in_redis(tmp_path):
    """Two clones on one machine, each with its database, share no cache key,
    heartbeat, channel or queue, even on one Redis; the processes of one install (the same
    database, whatever its connection options) share theirs; the environment still decides."""
    first = database_config(None, tmp_path / "one" / "db.sqlite3")
    second = database_config(None, tmp_path / "two" / "db.sqlite3")
    names = redis_names({}, first)
    assert names == redis_names({}, database_config(f"sqlite:///{tmp_path}/one/db.sqlite3", ""))
    other = redis_names({}, second)
    assert names["REDIS_URL"] == other["REDIS_URL"] == "redis://127.0.0.1:6379/0"
    for name in PREFIX_NAMES:
        assert names[name] != other[name]
    assert names["CACHE_PREFIX"] == names["CELERY_QUEUE"] == install_name(first)
    assert names["CHANNEL_PREFIX"] == f"{install_name(first)}:asgi"

    def postgres(url: str) -> dict[str, str]:
        return redis_names({}, database_config(url, "unused"))

    assert postgres("postgresql://u@db:5432/club") == postgres(
        "postgres://other:pw@db:5432/club?conn_max_age=600"
    )
    assert postgres("postgresql://u@db:5432/club") != postgres("postgresql://u@db:5433/club")
    assert postgres("postgresql://u@db:5432/club") != postgres("postgresql://u@db:5432/club2")
    assert postgres("postgresql://u@db/club") != postgres("postgresql://u@db2/club")

    chosen = {"CACHE_PREFIX": "c", "CHANNEL_PREFIX": "c:asgi", "CELERY_QUEUE": "q"}
    assert redis_names({**chosen, "REDIS_URL": "redis://r:1/2"}, first) == {
        **chosen,
        "REDIS_URL": "redis://r:1/2",
    }


def test_each_test_worker_keeps_its_own_redis_names(tmp_path):
    """pytest-xdist workers share one Redis; each gets a database number and names
    of its own (pub/sub channels are shared by every database), the same when applied again
    (its daphne and Celery are given its names, tests/processes.py), and nothing changes
    outside a worker."""
    database = database_config(None, tmp_path / "db.sqlite3")
    base = {"REDIS_URL": "redis://127.0.0.1:6390/0"}
    outside = redis_names(base, database)
    assert xdist_worker_names(base, outside) == {}
    first = redis_names({**base, "PYTEST_XDIST_WORKER": "gw0"}, database)
    second = redis_names({**base, "PYTEST_XDIST_WORKER": "gw1"}, database)
    assert first["REDIS_URL"] == "redis://127.0.0.1:6390/1"
    assert second["REDIS_URL"] == "redis://127.0.0.1:6390/2"
    for name in PREFIX_NAMES:
        assert first[name] != second[name] != outside[name]
        assert first[name] == outside[name] + "-gw0"
    # A worker's process, given the worker's names on another database, keeps them.
    other = database_config(None, tmp_path / "test.sqlite3")
    assert redis_names({**base, **first, "PYTEST_XDIST_WORKER": "gw0"}, other) == first


def test_socket_sources_name_each_plain_host_the_site_answers_to():
    """CSP's connect-src: ws:// and wss:// of each host name; patterns and IPv6 literals,
    which a CSP source cannot spell, are left to 'self'."""
    assert socket_sources(["circolo.example", ".circolo.example", "*", "[::1]", ""]) == [
        "ws://circolo.example",
        "wss://circolo.example",
    ]
    assert socket_sources([]) == []


def test_mail_goes_to_files_without_an_smtp_server(tmp_path):
    from config.env import mail_config

    config = mail_config({}, tmp_path)
    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.filebased.EmailBackend"
    assert config["EMAIL_FILE_PATH"] == str(tmp_path / "mail")


def test_mail_through_the_smtp_server_of_the_environment(tmp_path):
    from config.env import mail_config

    config = mail_config(
        {
            "EMAIL_HOST": "smtp.example.net",
            "EMAIL_USE_TLS": "1",
            "EMAIL_HOST_USER": "u",
            "DEFAULT_FROM_EMAIL": "Club <c@example.net>",
        },
        tmp_path,
    )
    assert config["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (config["EMAIL_HOST"], config["EMAIL_PORT"], config["EMAIL_USE_TLS"]) == (
        "smtp.example.net",
        587,
        True,
    )
    assert config["DEFAULT_FROM_EMAIL"] == "Club <c@example.net>"


def test_mail_settings_refused_with_a_reason(tmp_path):
    from config.env import ConfigError, mail_config, site_url

    with pytest.raises(ConfigError, match="not both"):
        mail_config({"EMAIL_HOST": "h", "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"}, tmp_path)
    with pytest.raises(ConfigError, match="EMAIL_PORT"):
        mail_config({"EMAIL_HOST": "h", "EMAIL_PORT": "smtp"}, tmp_path)
    with pytest.raises(ConfigError, match="SITE_URL"):
        site_url({"SITE_URL": "circolo.example"}, [], 8000)


def test_the_site_address_of_mails():
    from config.env import site_url

    assert site_url({}, ["127.0.0.1"], 8000) == "http://127.0.0.1:8000"
    assert site_url({}, ["circolo.example", "www.circolo.example"], 8000) == (
        "https://circolo.example"
    )
    assert site_url({"SITE_URL": "https://x.example/"}, [], 8000) == "https://x.example"
