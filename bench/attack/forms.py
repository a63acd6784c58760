"""Scenario 1: form fuzzing. A few thousand hostile submissions to every form of the site, each
from a valid one with a few fields changed (so the hostile value reaches the code behind the
first check), with the CSRF token and cookie of a real visit; then the probes: holes once found
in the forms and the log-in, each tried again so that it stays closed.

Counted: requests, HTTP 500s (each with the request and the value that caused it), requests
that got no answer, redirects off the site, and hostile values the database ended up holding
(control or bidirectional-override characters in an event's name or description, a
description over DESCRIPTION_LIMIT characters, a username outside the sign-up rule).
"""

from __future__ import annotations

import random
import re
import threading
import unicodedata
import urllib.parse
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from bench.attack import fixtures, hostile
from bench.attack.client import Browser, Response, offsite
from bench.attack.figures import Figures

SHOWN = ("requests", "http_500", "no_response", "tracebacks", "offsite", "stored", "probes")
# Any sensible limit on an event's description is below this (a 2.4 MB one was once accepted).
DESCRIPTION_LIMIT = 20_000
# "Cap open challenges per player (a few)": more than this many open at once is no cap.
CHALLENGE_CAP = 10
BIDI = set(hostile.BIDI)
HINT = {"HX-Request": "true", "HX-Target": "rated-hint"}
WORKERS = 4

# Relative weights of the targets in the fuzzing loop.
WEIGHTS = {
    "signup": 3,
    "login": 3,
    "admin_login": 2,
    "tournament_new": 4,
    "tournament_edit": 3,
    "arena_new": 3,
    "arena_edit": 2,
    "challenge": 3,
    "tournament_join": 2,
    "arena_enter": 2,
    "challenge_cancel": 2,
    "set_language": 1,
    "search": 2,
}


@dataclass
class Cast:
    """Who plays which part (created before the run)."""

    port: int
    ports: list[int]
    creators_t: list[Any]
    creators_a: list[Any]
    editor_t: Any
    editor_a: Any
    joiners: list[Any]
    challengers: list[Any]
    login_target: Any
    tournament_pub: int
    tournament_priv: int
    arena_pub: int
    arena_priv: int
    cookies: dict[int, str] = field(default_factory=dict)
    users_before: int = 0  # the last account before the fuzzing (sign-ups come after)

    def cookie(self, user: Any) -> str:
        return self.cookies[user.pk]


def cast(ports: list[int]) -> Cast:
    u = fixtures.users
    n = fixtures.name
    creators_t = u([n("ct", i) for i in range(WORKERS)])
    creators_a = u([n("ca", i) for i in range(WORKERS)])
    editor_t, editor_a, owner_t, owner_a = u([n("et"), n("ea"), n("ot"), n("oa")])
    joiners = u([n("j", i) for i in range(WORKERS)])
    challengers = u([n("c", i) for i in range(WORKERS)])
    login_target = fixtures.user(n("login"))
    c = Cast(
        port=ports[0],
        ports=ports,
        creators_t=creators_t,
        creators_a=creators_a,
        editor_t=editor_t,
        editor_a=editor_a,
        joiners=joiners,
        challengers=challengers,
        login_target=login_target,
        tournament_pub=fixtures.tournament(editor_t).pk,
        tournament_priv=fixtures.tournament(owner_t, private=True).pk,
        arena_pub=fixtures.arena(editor_a).pk,
        arena_priv=fixtures.arena(owner_a, private=True).pk,
    )
    for user in creators_t + creators_a + joiners + challengers + [editor_t, editor_a]:
        c.cookies[user.pk] = fixtures.session_cookie(user)
    return c


def _logged_in(port: int, cookie: str, source: str = "127.0.0.1") -> Browser:
    key, _, value = cookie.partition("=")
    return Browser(port, source=source, cookies={key: value})


EVENT_BASE = [
    ("name", "Coppa fuzz"),
    ("description", "Una descrizione."),
    ("variant", "chess"),
    ("time_control", "5+3"),
    ("base_minutes", ""),
    ("increment", ""),
    ("starts_at", ""),  # filled in at each request
    ("timezone", "Europe/Rome"),
    ("opening_mode", "free"),
    ("thematic_opening", ""),
    ("rated", "on"),
    ("floor", ""),
    ("password", ""),
]
TOURNAMENT_BASE = EVENT_BASE + [("seats", "16"), ("minimum", "4"), ("threshold", "7")]
TOURNAMENT_EXTRA = ("private", "extra_round", "double_games")
ARENA_BASE = EVENT_BASE + [("duration_minutes", "60")]
CHALLENGE_BASE = [
    ("variant", "chess"),
    ("preset", "5+0"),
    ("base_minutes", "5"),
    ("increment_seconds", "0"),
    ("color", "random"),
    ("rated", "on"),
    ("opponent", ""),
]


@dataclass
class Shot:
    request: str  # "POST /tournaments/new/", the path with the ids folded for grouping
    response: Response
    fields: str  # the names of the fields made hostile
    what: str  # the values they were given
    event: tuple[str, int] | None = None  # the event a successful create or edit wrote


class Attacker:
    """One thread of the fuzzing loop, with its own visitors."""

    def __init__(self, k: int, c: Cast, seed: int) -> None:
        self.k, self.c = k, c
        self.rng = random.Random(seed * 1000 + k)
        port = c.ports[k % len(c.ports)]
        self.port = port
        self.anon: dict[str, Browser] = {}
        self.creator_t = _logged_in(port, c.cookie(c.creators_t[k]))
        self.creator_a = _logged_in(port, c.cookie(c.creators_a[k]))
        self.editor_t = _logged_in(port, c.cookie(c.editor_t))
        self.editor_a = _logged_in(port, c.cookie(c.editor_a))
        self.joiner = _logged_in(port, c.cookie(c.joiners[k]))
        self.challenger = _logged_in(port, c.cookie(c.challengers[k]))
        self.signups = 0

    def visitor(self, part: str, source: str = "127.0.0.1") -> Browser:
        browser = self.anon.get(part)
        if browser is None:
            browser = self.anon[part] = Browser(self.port, source=source)
        return browser

    def submit(
        self,
        browser: Browser,
        form_page: str,
        path: str,
        base: list[tuple[str, str]],
        *,
        extra: tuple[str, ...] = (),
        hint: bool = False,
    ) -> Shot:
        fields, names, what = hostile.mutate(self.rng, base, extra_fields=extra)
        browser.ensure_csrf(form_page)
        headers = dict(HINT) if hint else {}
        roll = self.rng.random()
        if roll < 0.03:  # the token wrong or missing: 403, never 500
            fields = [("csrfmiddlewaretoken", hostile.text(self.rng, max_len=64))] + fields
            response = browser.post(path, fields, csrf=False, headers=headers)
            names, what = names + ", csrfmiddlewaretoken", what + ", csrf token hostile"
        elif roll < 0.06:  # the wrong body type
            kind = self.rng.choice(["application/json", "multipart/form-data", "text/plain", ""])
            body = hostile.encode_text(hostile.text(self.rng, max_len=200))
            response = browser.post(path, body, content_type=kind, headers=headers)
            names, what = "the body", f"body of type {kind or 'none'!r}"
        else:
            response = browser.post(path, fields, headers=headers)
        if response.status == 403:
            browser.csrf = ""  # a new token next time (log-in rotates it)
        request = re.sub(r"/\d+/", "/<id>/", path.split("?")[0])
        return Shot(f"POST {request}", response, names, what)

    # --- the targets ---------------------------------------------------------------------------

    def signup(self) -> Shot:
        browser = self.visitor("signup")
        self.signups += 1
        base = [
            ("username", fixtures.name("s", f"{self.k}{self.signups}")),
            ("email", "a@example.com"),
            ("password1", fixtures.PASSWORD),
            ("password2", fixtures.PASSWORD),
        ]
        found = self.submit(browser, "/accounts/signup/", "/accounts/signup/", base)
        if found.response.status == 302:  # signed up and logged in: the next visitor is new
            self.anon.pop("signup").close()
        return found

    def login(self) -> Shot:
        # Spread over addresses so the per-address counter does not refuse everything.
        source = f"127.0.0.{10 + self.rng.randrange(100)}"
        browser = self.visitor(f"login{source}", source)
        base = [
            ("username", self.c.login_target.username),
            ("password", "wrong-" + str(self.rng.random())),
            ("next", "/play/"),
        ]
        found = self.submit(browser, "/accounts/login/", "/accounts/login/", base)
        if found.response.status == 302:
            self.anon.pop(f"login{source}").close()
        return found

    def admin_login(self) -> Shot:
        source = f"127.0.0.{110 + self.rng.randrange(50)}"
        browser = self.visitor(f"admin{source}", source)
        base = [
            ("username", self.c.login_target.username),
            ("password", "wrong"),
            ("next", "/admin/"),
        ]
        path = "/admin/login/?next=/admin/"
        return self.submit(browser, path, path, base)

    def _event_base(self, base: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(k, hostile.start_at() if k == "starts_at" else v) for k, v in base]

    def _event(self, kind: str, browser: Browser, path: str, pk: int | None) -> Shot:
        tournament = kind == "tournament"
        base = self._event_base(TOURNAMENT_BASE if tournament else ARENA_BASE)
        extra = TOURNAMENT_EXTRA if tournament else ("private",)
        shot = self.submit(browser, path, path, base, extra=extra, hint=self.rng.random() < 0.1)
        if shot.response.status == 302:  # created or changed: what did the database keep?
            found = re.search(r"/(\d+)/$", shot.response.header("Location") or "")
            if pk is None and found:
                pk = int(found.group(1))
            if pk is not None:
                shot.event = (kind, pk)
        return shot

    def tournament_new(self) -> Shot:
        return self._event("tournament", self.creator_t, "/tournaments/new/", None)

    def tournament_edit(self) -> Shot:
        pk = self.c.tournament_pub
        return self._event("tournament", self.editor_t, f"/tournaments/{pk}/edit/", pk)

    def arena_new(self) -> Shot:
        return self._event("arena", self.creator_a, "/arenas/new/", None)

    def arena_edit(self) -> Shot:
        pk = self.c.arena_pub
        return self._event("arena", self.editor_a, f"/arenas/{pk}/edit/", pk)

    def challenge(self) -> Shot:
        headers_hx = self.rng.random() < 0.3
        fields, names, what = hostile.mutate(self.rng, CHALLENGE_BASE)
        self.challenger.ensure_csrf("/play/")
        response = self.challenger.post(
            "/play/", fields, headers={"HX-Request": "true"} if headers_hx else None
        )
        if response.status == 403:
            self.challenger.csrf = ""
        return Shot("POST /play/", response, names, what)

    def tournament_join(self) -> Shot:
        path = f"/tournaments/{self.c.tournament_priv}/join/"
        page = f"/tournaments/{self.c.tournament_priv}/"
        return self.submit(self.joiner, page, path, [("password", "wrong")])

    def arena_enter(self) -> Shot:
        path = f"/arenas/{self.c.arena_priv}/enter/"
        page = f"/arenas/{self.c.arena_priv}/"
        return self.submit(self.joiner, page, path, [("password", "wrong")])

    def challenge_cancel(self) -> Shot:
        pk = self.rng.choice([1, 2, 10**6, 2**31, 2**63, 10**20])
        path = f"/play/{pk}/cancel/"
        headers_hx = self.rng.random() < 0.3
        nxt = hostile.value(self.rng, "next")
        self.challenger.ensure_csrf("/play/")
        response = self.challenger.post(
            path, [("next", nxt)], headers={"HX-Request": "true"} if headers_hx else None
        )
        if response.status == 403:
            self.challenger.csrf = ""
        return Shot("POST /play/<id>/cancel/", response, "next", hostile.describe([("next", nxt)]))

    def set_language(self) -> Shot:
        browser = self.visitor("lang")
        fields, names, what = hostile.mutate(self.rng, [("language", "en"), ("next", "/play/")])
        browser.ensure_csrf("/")
        return Shot("POST /i18n/setlang/", browser.post("/i18n/setlang/", fields), names, what)

    def search(self) -> Shot:
        """The GET forms and query parameters: player search, list filters, pages, ids."""
        v = hostile.value(self.rng)
        # At most 4 KB in the address: longer ones never reach the site behind a proxy
        # (nginx refuses them with 414), and daphne drops them without an answer.
        q = urllib.parse.quote(hostile.encode_text(v) if isinstance(v, str) else v)[:4096]
        big = self.rng.choice([0, 2**31, 2**63, 10**20])
        template = self.rng.choice(
            [
                "/players/?q={q}",
                "/players/?page={q}",
                "/tournaments/?variant={q}&cadence={q}",
                "/arenas/?variant={q}&cadence={q}",
                "/arenas/{arena}/?page={q}",
                "/play/?follow={q}",
                "/@/{q}/",
                "/games/{big}/",
                "/tournaments/{big}/",
                "/arenas/{big}/",
                "/games/{big}/export/",
                "/tournaments/{tournament}/player/{big}/",
            ]
        )
        path = template.format(
            q=q, big=big, arena=self.c.arena_pub, tournament=self.c.tournament_pub
        )
        browser = self.challenger if self.rng.random() < 0.5 else self.visitor("search")
        headers = {"HX-Request": "true"} if self.rng.random() < 0.3 else None
        what = hostile.describe([("q", v)]) if "{q}" in template else f"id {big}"
        return Shot(f"GET {template}", browser.get(path, headers=headers), "", what)


def record(
    figures: Figures, lock: threading.Lock, shot: Shot, port: int, statuses: Counter
) -> None:
    response = shot.response
    where = shot.request + (f" ({shot.fields})" if shot.fields else "")
    with lock:
        figures.add("requests")
        statuses[response.status] += 1
        if response.status == 500:
            figures.add("http_500", detail=where, example=shot.what)
        elif response.status == 0:
            figures.add("no_response", detail=f"{where}: {response.error}", example=shot.what)
        for header in ("Location", "HX-Redirect"):
            if offsite(response.header(header), port):
                figures.add(
                    "offsite",
                    detail=f"{shot.request} -> {header}",
                    example=repr(response.header(header)),
                )
    if shot.event is not None:
        why = fixtures.db(_kept, *shot.event)
        if why:
            with lock:
                figures.add("stored", detail=f"{shot.request}: {why}", example=shot.what)


def fuzz(c: Cast, figures: Figures, count: int, seed: int) -> Counter:
    from accounts.models import User

    c.users_before = User.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    statuses: Counter = Counter()
    lock = threading.Lock()
    rng = random.Random(seed)
    names = list(WEIGHTS)
    jobs = rng.choices(names, weights=[WEIGHTS[n] for n in names], k=count)

    def run(k: int) -> None:
        attacker = Attacker(k, c, seed)
        for job in jobs[k::WORKERS]:
            record(figures, lock, getattr(attacker, job)(), attacker.port, statuses)

    with ThreadPoolExecutor(WORKERS) as pool:
        for future in [pool.submit(run, k) for k in range(WORKERS)]:
            future.result()
    return statuses


# --- what the database ended up holding ---------------------------------------------------------


def _hostile_text(value: str, *, multiline: bool) -> str | None:
    for ch in value:
        if ch in BIDI:
            return f"bidi override U+{ord(ch):04X}"
        if unicodedata.category(ch) == "Cc" and not (multiline and ch in "\n\r\t"):
            return f"control character U+{ord(ch):04X}"
    return None


def _kept(kind: str, pk: int) -> str | None:
    """Why the event's name or description, as the database now holds it, is hostile."""
    from arena.models import Arena
    from tournaments.models import Tournament

    event = (Tournament if kind == "tournament" else Arena).objects.filter(pk=pk).first()
    if event is None:
        return None
    why = _hostile_text(event.name, multiline=False)
    if why:
        return f"name kept with a {why}"
    why = _hostile_text(event.description, multiline=True)
    if why:
        return f"description kept with a {why}"
    if len(event.description) > DESCRIPTION_LIMIT:
        return f"description of more than {DESCRIPTION_LIMIT:,} characters kept"
    return None


def stored(c: Cast, figures: Figures) -> None:
    """Accounts made by the sign-up fuzzing outside the username rule."""
    from accounts.models import User

    rule = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
    for username in User.objects.filter(pk__gt=c.users_before).values_list("username", flat=True):
        if not rule.match(username):
            figures.add(
                "stored", detail="sign-up: a username outside the rule", example=repr(username)
            )


# --- probes: holes once found in log-in, passwords, redirects, challenges ---------------------


def _wide(name: str) -> str:
    """Full-width letters and digits (NFKC folds them back: the same account)."""
    return "".join(chr(ord(ch) + 0xFEE0) if ch.isascii() and ch.isalnum() else ch for ch in name)


def _login(browser: Browser, path: str, username: str, password: str) -> Response:
    browser.ensure_csrf(path)
    response = browser.post(path, [("username", username), ("password", password)])
    if response.status == 403:
        browser.csrf = ""
    return response


def probes(c: Cast, figures: Figures) -> None:
    from django.conf import settings

    from games.models import Challenge, ChallengeStatus
    from tournaments.models import Participant

    port = c.port
    limit = settings.LOGIN_FAILURE_LIMIT
    u = fixtures.users
    n = fixtures.name
    staff, dave, eve, frank = u([n("staff"), n("dave"), n("eve"), n("frank")])
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    inactive = fixtures.user(n("gone"), active=False)
    prober, capper = u([n("pj"), n("cap")])
    failed = 0

    def fail(what: str) -> None:
        nonlocal failed
        failed += 1
        figures.add("probes", detail=what)

    def count(response: Response) -> None:
        figures.add("requests")
        if response.status == 500:
            figures.add("http_500", detail=f"probe request answered 500 ({response.body[:60]!r})")

    # The admin's log-in is throttled like the site's.
    b = Browser(port, source="127.0.0.201")
    for _ in range(limit + 7):
        count(_login(b, "/admin/login/?next=/admin/", staff.username, "wrong"))
    right = _login(b, "/admin/login/?next=/admin/", staff.username, fixtures.PASSWORD)
    count(right)
    if right.status == 302 and b.get("/admin/").status == 200:
        fail(
            f"/admin/login/: {limit + 7} wrong passwords for a staff account, then the right one logged in"
        )

    # Parallel wrong passwords: at most the limit may reach the password check.
    def attempt(_: int) -> Response:
        return _login(
            Browser(port, source="127.0.0.202"), "/accounts/login/", dave.username, "nope"
        )

    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(attempt, range(30)))
    for r in replies:
        count(r)
    checked = sum(1 for r in replies if r.status == 200)
    if checked > limit:
        fail(f"/accounts/login/: 30 parallel wrong passwords, {checked} checked (limit {limit})")
    b = Browser(port, source="127.0.0.202")
    right = _login(b, "/accounts/login/", dave.username, fixtures.PASSWORD)
    count(right)
    if right.status == 302:
        fail("/accounts/login/: after 30 parallel wrong passwords the right one logged in")

    # The counter is the account's, however the name is spelt.
    b = Browser(port, source="127.0.0.203")
    for _ in range(limit):
        count(_login(b, "/accounts/login/", eve.username, "nope"))
    right = _login(b, "/accounts/login/", _wide(eve.username), fixtures.PASSWORD)
    count(right)
    if right.status == 302:
        fail(
            f"/accounts/login/: after {limit} failures for {eve.username!r} its full-width spelling logged in"
        )

    # Typos by others behind one address do not lock everybody out.
    b = Browser(port, source="127.0.0.204")
    for i in range(limit + 1):
        count(_login(b, "/accounts/login/", n("typo", i), "nope"))
    right = _login(b, "/accounts/login/", frank.username, fixtures.PASSWORD)
    count(right)
    if right.status != 302:
        fail(
            f"/accounts/login/: {limit + 1} failures by other names from one address refused a right password ({right.status})"
        )

    # Wrong private-tournament passwords are throttled.
    b = _logged_in(port, fixtures.session_cookie(prober), "127.0.0.205")
    path = f"/tournaments/{c.tournament_priv}/join/"
    b.ensure_csrf(f"/tournaments/{c.tournament_priv}/")
    for i in range(20):
        count(b.post(path, [("password", f"guess{i}")]))
    count(b.post(path, [("password", fixtures.PASSWORD)]))
    if Participant.objects.filter(tournament_id=c.tournament_priv, player=prober).exists():
        fail("/tournaments/<id>/join/: 20 wrong passwords, then the right one joined (no throttle)")

    # Cancelling a challenge never redirects off the site.
    challenge = Challenge.objects.create(
        challenger=capper, variant="chess", base_seconds=300, increment_seconds=0, color="random"
    )
    b = _logged_in(port, fixtures.session_cookie(capper), "127.0.0.206")
    b.ensure_csrf("/play/")
    r = b.post(f"/play/{challenge.pk}/cancel/", [("next", "https://evil.example/")])
    count(r)
    if offsite(r.header("Location"), port):
        fail(
            f"/play/<id>/cancel/ next=https://evil.example/ redirected to {r.header('Location')!r}"
        )

    # No challenge to a deactivated account.
    fields = dict(CHALLENGE_BASE) | {"opponent": inactive.username}
    count(b.post("/play/", list(fields.items())))
    if Challenge.objects.filter(opponent=inactive).exists():
        fail("/play/: a challenge addressed to a deactivated account was posted")

    # Open challenges are capped.
    for _ in range(30):
        count(b.post("/play/", CHALLENGE_BASE))
    held = Challenge.objects.filter(challenger=capper, status=ChallengeStatus.OPEN).count()
    if held > CHALLENGE_CAP:
        fail(
            f"/play/: one account holds {held} open challenges after posting 30 (cap expected ≤ {CHALLENGE_CAP})"
        )
    figures.info.append(f"probes: {failed} of 8 failed")
