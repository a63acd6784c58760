"""Django settings. Everything deployment-specific comes from the environment (README:
"Configuration"); the defaults are safe for one local machine."""

from __future__ import annotations

import os
from pathlib import Path

from csp.constants import NONE, SELF
from django.utils.translation import gettext_lazy as _

from config.env import (
    ConfigError,
    database_config,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_port,
    env_rate,
    mail_config,
    redis_names,
    secret_key,
    site_url,
    socket_sources,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))

SECRET_KEY = secret_key(os.environ, VAR_DIR / "secret_key")
DEBUG = env_bool(os.environ, "DEBUG", False)
ALLOWED_HOSTS = env_list(os.environ, "ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list(os.environ, "CSRF_TRUSTED_ORIGINS", [])
PORT = env_port(os.environ)

INSTALLED_APPS = [
    "daphne",
    "config.apps.AdminConfig",  # django.contrib.admin with the site's AdminSite
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "csp",
    "channels",
    "live",
    "mail",
    "accounts",
    "games",
    "ratings",
    "clubs",
    "events",
    "tournaments",
    "arena",
    "teams",
    "chat",
    "analysis",
    "fairplay",
    "otb",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.SessionMiddleware",
    "config.middleware.ChosenLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.middleware.ServiceUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": database_config(os.environ.get("DATABASE_URL"), VAR_DIR / "db.sqlite3")}
# Redis, and this install's names in it (config.env.redis_names): CACHE_PREFIX, CHANNEL_PREFIX
# and CELERY_QUEUE default to a name derived from the database above, so two installs on one
# machine keep apart even on one Redis (one clone's push must never reach the other's players).
# In `make test`, each pytest-xdist worker has names of its own too.
_REDIS = redis_names(os.environ, DATABASES["default"])
REDIS_URL = _REDIS["REDIS_URL"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Django's hashers, PBKDF2 first as by default, hashed one at a time on the machine
# (accounts/hashers.py).
PASSWORD_HASHERS = [
    "accounts.hashers.OneAtATimePBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
# The nice value of each process's password-hashing thread (0 to 19; 0 = the process's own):
# pages waiting for a core are served before a hash (accounts/hashers.py).
PASSWORD_HASHING_NICE = min(env_int(os.environ, "PASSWORD_HASHING_NICE", 10, minimum=0), 19)
# Tests only (FAST_PASSWORD_HASHER=1, set by the test suite for itself and the processes it
# starts): MD5 instead of PBKDF2, which made creating players most of a test's time.
if env_bool(os.environ, "FAST_PASSWORD_HASHER", False):
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Repeated failed logins are throttled per username and per (username, address) at
# LOGIN_FAILURE_LIMIT, and per address alone only at the much higher
# LOGIN_ADDRESS_FAILURE_LIMIT: a club or school behind one router shares one address
# (accounts/throttle.py).
# Mail (README "Configuration"): SMTP from EMAIL_*, else files under VAR_DIR/mail.
globals().update(mail_config(os.environ, VAR_DIR))
SITE_URL = site_url(os.environ, ALLOWED_HOSTS, PORT)
# How long a password-reset link works, in seconds (Django's setting; its default is 3 days).
PASSWORD_RESET_TIMEOUT = env_int(os.environ, "PASSWORD_RESET_TIMEOUT", 3600)
EMAIL_VERIFY_TIMEOUT = env_int(os.environ, "EMAIL_VERIFY_TIMEOUT", 3 * 24 * 3600)
# Reset requests: per e-mail address and per client address, within PASSWORD_RESET_WINDOW.
PASSWORD_RESET_EMAIL_LIMIT = env_int(os.environ, "PASSWORD_RESET_EMAIL_LIMIT", 3)
PASSWORD_RESET_ADDRESS_LIMIT = env_int(os.environ, "PASSWORD_RESET_ADDRESS_LIMIT", 10)
PASSWORD_RESET_WINDOW = env_int(os.environ, "PASSWORD_RESET_WINDOW", 3600)
# A mail that cannot be sent is tried again after 10 s, 20 s, 40 s, … (at most MAIL_RETRY_MAX
# seconds apart), MAIL_ATTEMPTS times in all.
MAIL_ATTEMPTS = env_int(os.environ, "MAIL_ATTEMPTS", 12)
MAIL_RETRY_MAX = env_int(os.environ, "MAIL_RETRY_MAX", 600)
# Account mails (verification, reset, …) queued to one mailbox in a day, whatever the account
# and the request; of them, verification mails (RULES 10.3).
MAILBOX_DAILY_LIMIT = env_int(os.environ, "MAILBOX_DAILY_LIMIT", 5)
MAILBOX_VERIFY_DAILY_LIMIT = env_int(os.environ, "MAILBOX_VERIFY_DAILY_LIMIT", 3)

LOGIN_FAILURE_LIMIT = env_int(os.environ, "LOGIN_FAILURE_LIMIT", 5)
LOGIN_FAILURE_WINDOW = env_int(os.environ, "LOGIN_FAILURE_WINDOW", 900)  # seconds
LOGIN_ADDRESS_FAILURE_LIMIT = env_int(os.environ, "LOGIN_ADDRESS_FAILURE_LIMIT", 50)

# Sign-ups that create an account: per address within SIGNUP_WINDOW seconds, and over the whole
# site a minute (accounts/throttle.py).
SIGNUP_ADDRESS_LIMIT = env_int(os.environ, "SIGNUP_ADDRESS_LIMIT", 5)
SIGNUP_WINDOW = env_int(os.environ, "SIGNUP_WINDOW", 3600)
SIGNUP_GLOBAL_LIMIT = env_int(os.environ, "SIGNUP_GLOBAL_LIMIT", 30)
# Sign-up links a player hands out (RULES 10.6): sign-ups each allows, days it lasts, and how
# many a player may hold at once (not expired; a revoked one while anyone signed up through it).
SIGNUP_LINK_USES = env_int(os.environ, "SIGNUP_LINK_USES", 40)
SIGNUP_LINK_DAYS = env_int(os.environ, "SIGNUP_LINK_DAYS", 7)
SIGNUP_LINK_LIVE = env_int(os.environ, "SIGNUP_LINK_LIVE", 3)
# Wrong passwords of private events within PRIVATE_PASSWORD_WINDOW seconds: per player and
# event, per event whoever tries, per address whatever the event (events/services.py).
PRIVATE_PASSWORD_TRIES = env_int(os.environ, "PRIVATE_PASSWORD_TRIES", 5)
PRIVATE_EVENT_TRIES = env_int(os.environ, "PRIVATE_EVENT_TRIES", 20)
PRIVATE_ADDRESS_TRIES = env_int(os.environ, "PRIVATE_ADDRESS_TRIES", 20)
PRIVATE_PASSWORD_WINDOW = env_int(os.environ, "PRIVATE_PASSWORD_WINDOW", 900)

# What a socket, a player and an address may send, per daphne process (live/budget.py,
# docs/protocol.md "Budgets"): a burst, then a steady rate a second. A game page sends a move or
# a `sync` now and then; the other pages send nothing but an occasional `ping`.
SOCKET_BUDGET_GAME = env_rate(os.environ, "SOCKET_BUDGET_GAME", "20/10")
SOCKET_BUDGET_PAGE = env_rate(os.environ, "SOCKET_BUDGET_PAGE", "10/2")
SOCKET_BUDGET_PLAYER = env_rate(os.environ, "SOCKET_BUDGET_PLAYER", "60/20")  # all their sockets
SOCKET_BUDGET_GUEST = env_rate(os.environ, "SOCKET_BUDGET_GUEST", "60/20")  # an address's guests
# What one player, or a guest's address, may ask of the analysis board's HTTP endpoints per
# daphne process (games/analysis_views.py), in tokens: one per 25 positions a request makes the
# server read or replay, at least one (docs/operations.md, "The analysis board's cost").
ANALYSIS_BUDGET = env_rate(os.environ, "ANALYSIS_BUDGET", "60/6")
# The moves of an analysis tree the PGN / PDN export plays, at most (the rules' cap, 3000, above).
ANALYSIS_MAX_POSITIONS = env_int(os.environ, "ANALYSIS_MAX_POSITIONS", 500)
SOCKET_QUEUE = env_int(os.environ, "SOCKET_QUEUE", 16)  # client frames waiting, per socket
# Refusals forgiven in a row, and forgotten a second; past them the socket is closed (4429) and
# its owner refused new sockets for SOCKET_ABUSE_COOLDOWN seconds.
SOCKET_ABUSE = env_rate(os.environ, "SOCKET_ABUSE", "50/5")
SOCKET_ABUSE_COOLDOWN = env_int(os.environ, "SOCKET_ABUSE_COOLDOWN", 30)
SOCKET_USER_CAP = env_int(os.environ, "SOCKET_USER_CAP", 20)  # open sockets of one player
SOCKET_ADDRESS_CAP = env_int(os.environ, "SOCKET_ADDRESS_CAP", 100)  # of one address, all told
# The threads a daphne process runs its sockets' database work in, each with its connection
# (live/sockets.py).
SOCKET_DB_THREADS = env_int(os.environ, "SOCKET_DB_THREADS", 6)
# And those in which the players' actions in their games run, apart (live/threads.py).
SOCKET_PLAY_THREADS = env_int(os.environ, "SOCKET_PLAY_THREADS", 4)
# And those in which a socket's handshake and first reads run (who it is, its game, its presence):
# few, so a round start's hundreds of connects take turns there instead of crowding the process
# (live/threads.py).
SOCKET_CONNECT_THREADS = env_int(os.environ, "SOCKET_CONNECT_THREADS", 2)
# Pages a daphne process serves at once (config/asgi.py, PageGate); more wait their turn. 0: no
# limit.
HTTP_CONCURRENCY = env_int(os.environ, "HTTP_CONCURRENCY", 2, minimum=0)
# The account forms whose POST hashes a password or queues an account mail: one at a time per
# process, in a lane of their own beside the pages' HTTP_CONCURRENCY (config/asgi.py PageGate).
ACCOUNT_FORM_PATHS = (
    "/accounts/signup/",
    "/accounts/login/",
    "/accounts/password/",
    "/accounts/settings/email/",
    "/accounts/settings/delete/",
    "/admin/login/",
)
# And at this pace per process, BURST/RATE (a second): the lane's posts past it wait, and one
# that would wait over ACCOUNT_FORM_WAIT seconds is answered 429 (config/asgi.py Pace).
ACCOUNT_FORM_RATE = env_rate(os.environ, "ACCOUNT_FORM_RATE", "10/5")
ACCOUNT_FORM_WAIT = env_float(os.environ, "ACCOUNT_FORM_WAIT", 20.0)
# The part of an event's live page that is the same for every viewer is rendered once per
# change and kept at most this long when nothing pushes a change (events/shared_part.py); 0
# renders it for every request (the in-process tests, which commit nothing).
EVENT_PART_SECONDS = env_float(os.environ, "EVENT_PART_SECONDS", 60.0, zero=True)
# daphne's switch interval in milliseconds (config/asgi.py); 0 keeps Python's default.
ASGI_SWITCH_INTERVAL_MS = env_float(os.environ, "ASGI_SWITCH_INTERVAL_MS", 1.0, zero=True)
# Each daphne process refreshes its sockets' presence rows this often; a row older than the
# stale window belongs to a dead process (live/presence.py). Not read from the environment.
GAME_PRESENCE_HEARTBEAT_SECONDS = 10.0
GAME_PRESENCE_STALE_SECONDS = 30

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": _REDIS["CACHE_PREFIX"],
        # A Redis that accepts connections but never answers must fail a request (log-in
        # fails closed), not hang it.
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
    }
}

# Redis pub/sub: a group send is one PUBLISH and each daphne process reads one subscription,
# against a sorted set, a Lua script and a blocking pop per message for the list-based
# `channels_redis.core` layer: 1.6 ms less daphne CPU per move (bench/live.py). What it gives
# up is delivery to a process that is disconnected from Redis at that moment; our sockets
# re-read the full state when they reconnect (docs/protocol.md), so nothing is lost for good.
# CHANNEL_LAYER_BACKEND=channels_redis.core.RedisChannelLayer uses that list-based layer instead
# (channels_redis' own pub/sub layer stalled at 1,000 games: docs/architecture.md). Ours speaks to Redis
# itself over two connections per process (live/layers.py); `max_connections` is for that one.
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": os.environ.get("CHANNEL_LAYER_BACKEND", "live.layers.PubSubChannelLayer"),
        "CONFIG": {
            # redis-py fails rather than waits past its pool size (100 by default): a round start
            # or a burst of sockets on one daphne process needs more (channels_redis only).
            "hosts": [
                {
                    "address": REDIS_URL,
                    "max_connections": env_int(os.environ, "CHANNEL_REDIS_MAX_CONNECTIONS", 1000),
                }
            ],
            "prefix": _REDIS["CHANNEL_PREFIX"],
        },
    }
}

# Celery: Redis is the broker; beat's schedule is declared in config/celery.py.
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task sent from a request or a socket (a game's settle task) must not hold it for long when
# the broker is away: the tick catches up on whatever was not sent.
CELERY_BROKER_CONNECTION_TIMEOUT = 1.0
CELERY_TASK_DEFAULT_QUEUE = _REDIS["CELERY_QUEUE"]
# Remote control (`celery inspect`) of this install's workers only.
CELERY_CONTROL_EXCHANGE = CELERY_TASK_DEFAULT_QUEUE
CELERY_TASK_ALWAYS_EAGER = env_bool(os.environ, "CELERY_TASK_ALWAYS_EAGER", False)
TICK_SECONDS = env_float(os.environ, "TICK_SECONDS", 1.0)
# A heartbeat older than this means the process that writes it is down (/healthz).
HEARTBEAT_STALE_SECONDS = env_float(os.environ, "HEARTBEAT_STALE_SECONDS", 10.0)

# RULES 3: after one's own first move, this long away loses the game by abandonment.
GAME_ABANDON_SECONDS = env_int(os.environ, "GAME_ABANDON_SECONDS", 30)

# A live game's page that has heard nothing for this long asks for the state (`sync`): a push
# lost on the way is made good (game.js). The suite's processes wait 3 s (tests/conftest.py): no
# test waits on a wall clock it can set.
GAME_RESYNC_SECONDS = env_float(os.environ, "GAME_RESYNC_SECONDS", 15.0)

# RULES 4.8: pause between the end of a round and the pairing of the next.
ROUND_PAUSE_SECONDS = env_int(os.environ, "ROUND_PAUSE_SECONDS", 30, minimum=0)

# A row held longer than this by another transaction makes the waiter fail (live.locks).
LOCK_TIMEOUT_MS = env_int(os.environ, "LOCK_TIMEOUT_MS", 5000)
# A socket's message is answered within this many seconds of its coming, PostgreSQL there or
# not: its result, or the error `unavailable` (live.threads.answering, docs/protocol.md). Its
# database work is given up half a second before, for the reply; that is still past
# LOCK_TIMEOUT_MS, so a row held too long is answered `busy`.
SOCKET_ANSWER_SECONDS = env_float(os.environ, "SOCKET_ANSWER_SECONDS", 6.0)
if SOCKET_ANSWER_SECONDS * 1000 < LOCK_TIMEOUT_MS + 1000:
    raise ConfigError(
        f"SOCKET_ANSWER_SECONDS={SOCKET_ANSWER_SECONDS:g}: must be at least 1 s above "
        f"LOCK_TIMEOUT_MS ({LOCK_TIMEOUT_MS} ms), or a row held too long is answered "
        "`unavailable`, not `busy`"
    )

# A socket process remembers its live games, so a move is one statement, decided from memory
# (games.services.memory, PostgreSQL only). 0: every move reads the row first.
GAMES_IN_MEMORY = env_bool(os.environ, "GAMES_IN_MEMORY", True)

# RULES 8: pairing passes of an arena are coalesced over this many seconds.
ARENA_PAIRING_COALESCE_SECONDS = env_float(
    os.environ, "ARENA_PAIRING_COALESCE_SECONDS", 2.0, zero=True
)

# RULES 7.1: a new player's rating in every variant and cadence.
RATING_INITIAL = env_int(os.environ, "RATING_INITIAL", 1500)

# RULES 10.7: the data archive, built by the worker (accounts/archive.py): this many asked per
# player a day, kept this many hours, and at most this many games written by one task run.
DATA_ARCHIVE_DAILY = env_int(os.environ, "DATA_ARCHIVE_DAILY", 2)
DATA_ARCHIVE_KEEP_HOURS = env_int(os.environ, "DATA_ARCHIVE_KEEP_HOURS", 72)
DATA_ARCHIVE_CHUNK = env_int(os.environ, "DATA_ARCHIVE_CHUNK", 200)

# RULES 14: the computer analysis (analysis/). Stockfish is Debian's package; its analyses run
# on a Celery queue of their own, taken only by the analysis worker (ANALYSIS_WORKER=1, its own
# unit, at most ANALYSIS_CONCURRENCY engines at once, niced), never by the tick's worker.
STOCKFISH_PATH = os.environ.get("STOCKFISH_PATH", "/usr/games/stockfish")
ANALYSIS_NODES = env_int(os.environ, "ANALYSIS_NODES", 200_000)  # per position (RULES 14.2)
# The draughts check's nodes per move (RULES 14.10): our Python search makes about 20,000-40,000
# a second (make bench-draughts-check), so an 80-ply game takes a minute or two of one core.
ANALYSIS_DRAUGHTS_NODES = env_int(os.environ, "ANALYSIS_DRAUGHTS_NODES", 30_000)
ANALYSIS_BOARD_NODES = env_int(os.environ, "ANALYSIS_BOARD_NODES", 1_000_000)  # the free board
ANALYSIS_DAILY = env_int(os.environ, "ANALYSIS_DAILY", 10)  # game analyses a player asks a day
ANALYSIS_WORKER = env_bool(os.environ, "ANALYSIS_WORKER", False)
ANALYSIS_QUEUE = CELERY_TASK_DEFAULT_QUEUE + "-analysis"
# An analysis still "running" this long after it started lost its worker: it may be asked again.
ANALYSIS_STALE_SECONDS = env_int(os.environ, "ANALYSIS_STALE_SECONDS", 900)

LANGUAGE_CODE = "it"
LANGUAGES = [("it", _("Italiano")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates as Italian writes them ("1 dicembre 2026"; config/formats/it).
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = "Europe/Rome"
# Zone for entering tournament start times when the browser does not send its own.
TOURNAMENT_DEFAULT_TIME_ZONE = os.environ.get("TOURNAMENT_DEFAULT_TIME_ZONE", "Europe/Rome")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns when it is missing
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Serve straight from the app/static folders too, so a forgotten collectstatic never breaks
# the site (whitenoise still prefers STATIC_ROOT).
WHITENOISE_USE_FINDERS = True

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool(os.environ, "SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# Behind a trusted reverse proxy that sets X-Forwarded-Proto and appends the client's address
# to X-Forwarded-For (docs/operations.md, "Deploying"); the log-in throttle reads that address.
BEHIND_PROXY = env_bool(os.environ, "BEHIND_PROXY", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_PROXY else None

# Content-Security-Policy (django-csp): a page runs, styles and loads only the site's own files,
# so markup that ever slipped into a page unescaped could run nothing and send nothing away.
# - script-src 'self', no nonce: every script is a static file; behaviour is bound from data-
#   attributes by static/js/site.js (data-confirm, data-select-on-click, data-print), never an
#   inline handler or <script> body; htmx's eval paths (hx-on, trigger filters, js: values)
#   are switched off by base.html's htmx-config, and nothing else evaluates strings.
# - style-src 'self': no style= attribute or <style> anywhere; htmx's own indicator <style>
#   is switched off in the same htmx-config and its rules live in site.css. Scripts still
#   move things through element.style (chessground), which the CSP does not govern.
# - img-src data:: chessground's piece sets are data: URIs in its CSS.
# - connect-src: the site's own sockets (config.env.socket_sources).
# - object-src, base-uri, form-action, frame-ancestors: no plugins, no <base> or form posting
#   elsewhere, no framing (X-Frame-Options says the same to older browsers).
# The admin (Django 5.2) ships its scripts as files and keeps within it. tests/test_csp.py
# opens every kind of page in Chromium under this policy and fails on any violation, and every
# browser test does too (conftest.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF, *socket_sources(ALLOWED_HOSTS)],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # config/logs.py: an outage of PostgreSQL or Redis in one line per failure; a client's bad
    # request (4xx) without a traceback. Real errors keep theirs.
    "filters": {
        "outage": {"()": "config.logs.OutageInOneLine"},
        "client_errors": {"()": "config.logs.ClientErrorInOneLine"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["outage", "client_errors"]}
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        # A line per task run or received is noise (a game's settle task at every game's end).
        "celery": {"level": "WARNING"},
    },
}
# The worker and beat log through the configuration above (its filters), not Celery's own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
