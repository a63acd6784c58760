"""`make deploy-check`: the shipped deployment, run on this machine and driven
through the proxy.

As root, with Debian's nginx and a self-signed certificate made for the run: private PostgreSQL
and Redis (scripts/test-services.sh); an environment file made from deploy/circolo.env.example;
migrate and collectstatic; two daphne, the Celery worker and beat started with the ExecStart,
WorkingDirectory, Environment and EnvironmentFile of deploy/systemd/ (read from the units, only
/srv/circolo mapped to this checkout and the env file to the run's), by the process harness
(harness/: each in a process group of its own, logging to a file of the run); nginx with
deploy/nginx/circolo.conf (only its ports and paths changed) on free loopback ports. Then,
through https:// and wss:// only: /healthz, static files, the log-in throttle's view of the
client's address, a password reset by mail (a player signed up with an address asks for it on
the form; the worker sends the mail to an SMTP server of the run, tests/mailbox.py, given to
the units as EMAIL_HOST/EMAIL_PORT; its link, under SITE_URL set to nginx's https:// address,
is followed through nginx to a new password, which signs the player in; the new password logs
in on the log-in form; the used link is refused), nginx's limits (limit_req on the account
forms' POSTs, each form's, the analysis board's POSTs and the websocket handshakes,
limit_conn on open sockets per address) refusing
with 429, the daphne unit's MemoryHigh=/MemoryMax= in force where systemd can apply them (else
a "skip" line with the reason) and the daphnes' RSS under MemoryHigh, two players signing up
and playing a rated game in Chromium while the daphne holding their game sockets is
SIGKILLed, an arena pairing, and a tournament dumped with deploy/backup.sh mid-round, restored
with deploy/restore.sh into a new database, and carried on.

One line per check; exit status 1 on any failure. Every process started, and the SMTP server,
is stopped at the end, failure or not (and on SIGINT/SIGTERM).
"""

from __future__ import annotations

import base64
import html
import http.client
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
sys.path.insert(0, str(ROOT))

import harness  # noqa: E402
from deploy import envfile  # noqa: E402
from harness import Processes, free_port  # noqa: E402
from harness.units import (  # noqa: E402
    ANALYSIS,
    BEAT,
    DAPHNE,
    INSTALL_ROOT,
    WORKER,
    UnitError,
    exec_start,
    read_unit,
    unit_environment,
)
from tests.mailbox import Mailbox  # noqa: E402

# The POSTs nginx's form zone must count (deploy/nginx/circolo.conf, $circolo_form_key): each
# checks or hashes a password, or sends a mail.
FORM_POSTS = (
    "/accounts/login/",
    "/accounts/signup/",
    "/accounts/password/",
    "/accounts/password/reset/",
    "/accounts/password/reset/MQ/set-password/",
    "/accounts/settings/email/",
    "/accounts/settings/delete/",
    "/admin/login/",
    "/tournaments/1/join/",
    "/arenas/1/enter/",
)
# Where deploy/README.md puts the environment file: the units name it.
UNIT_ENV_FILE = "/etc/circolo/circolo.env"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
FAILURES: list[str] = []


class CheckFailed(Exception):
    pass


def say(ok: bool, what: str, detail: str = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail else ""), flush=True)
    if not ok:
        FAILURES.append(what)


def skip(what: str, reason: str) -> None:
    """A check this machine cannot make: said, with why, and not counted as a failure."""
    print(f"skip {what}: {reason}", flush=True)


def must(ok: bool, what: str, detail: str = "") -> None:
    """A check the rest depends on: a failure stops the run."""
    say(ok, what, detail)
    if not ok:
        raise CheckFailed(what)


def wait_until(predicate, timeout: float, what: str, interval: float = 0.2):
    """harness.wait_until, a timeout being a failed check."""
    try:
        return harness.wait_until(predicate, timeout, what, interval)
    except TimeoutError as error:
        raise CheckFailed(str(error)) from None


# --- The shipped files --------------------------------------------------------------------


def unit_command(name: str, instance: str | None = None) -> tuple[list[str], dict[str, str]]:
    """ExecStart as argv, with /srv/circolo mapped to this checkout (harness.units); the unit's
    own Environment= values. Checks WorkingDirectory and EnvironmentFile are the README's."""
    unit = read_unit(name)
    if unit.get("WorkingDirectory") != [INSTALL_ROOT]:
        raise CheckFailed(f"{name}: WorkingDirectory is not {INSTALL_ROOT}")
    if unit.get("EnvironmentFile") != [UNIT_ENV_FILE]:
        raise CheckFailed(f"{name}: EnvironmentFile is not {UNIT_ENV_FILE}")
    return exec_start(name, instance), unit_environment(name)


def readme_variables() -> list[str]:
    """Every variable named in the first column of README "Configuration"."""
    text = (ROOT / "README.md").read_text()
    table = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in table.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1])
    return names


def make_env_file(path: Path, overrides: dict[str, str]) -> None:
    """deploy/circolo.env.example with the run's values put in place of its lines (commented
    or not), the others as they are."""
    left = dict(overrides)
    lines = []
    for line in (DEPLOY / "circolo.env.example").read_text().splitlines():
        match = re.match(r"#?([A-Z][A-Z0-9_]*)=", line)
        if match and match.group(1) in left:
            key = match.group(1)
            line = f"{key}={left.pop(key)}"
        lines.append(line)
    lines += [f"{key}={value}" for key, value in left.items()]
    path.write_text("\n".join(lines) + "\n")


def site_config(https_port, http_port, daphne_ports, cert, key, static_dir, webroot) -> str:
    """deploy/nginx/circolo.conf with only its ports and paths changed; each change must find
    its line, so a reshaped file fails here instead of being tested half."""
    text = (DEPLOY / "nginx" / "circolo.conf").read_text()

    def sub(pattern: str, replacement, count_wanted: int | None = 1) -> None:
        nonlocal text
        text, n = re.subn(pattern, replacement, text, flags=re.M)
        if (count_wanted is None and n == 0) or (count_wanted is not None and n != count_wanted):
            raise CheckFailed(f"nginx site file: {pattern!r} matched {n} times")

    sub(r"^(\s*)listen \[::\]:\d+.*;\n", "", 2)  # loopback only for the run
    sub(r"^(\s*)listen 443 ssl http2;", rf"\1listen 127.0.0.1:{https_port} ssl http2;")
    sub(r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{http_port};")
    ports = iter(daphne_ports)

    def upstream(match: re.Match) -> str:
        port = next(ports, None)
        return "" if port is None else f"{match.group(1)}server 127.0.0.1:{port}{match.group(2)}\n"

    sub(r"^(\s*)server 127\.0\.0\.1:\d+( .*;|;)\n", upstream, None)
    if next(ports, None) is not None:
        raise CheckFailed("nginx site file: fewer upstream servers than daphne processes")
    sub(r"ssl_certificate \S+;", f"ssl_certificate {cert};")
    sub(r"ssl_certificate_key \S+;", f"ssl_certificate_key {key};")
    sub(r"alias /var/lib/circolo/staticfiles/;", f"alias {static_dir}/;")
    sub(r"root /var/www/html;", f"root {webroot};")
    return text


def nginx_limits() -> dict[str, float]:
    """The limits of deploy/nginx/circolo.conf, read from it, so the checks follow a tuned file:
    open sockets per address, the handshakes' rate and burst, the forms' rate and burst, the
    analysis board's rate and burst."""
    text = (DEPLOY / "nginx" / "circolo.conf").read_text()
    patterns = {
        "ws_conn": r"^\s*limit_conn circolo_ws_addr (\d+);",
        "ws_rate": r"^limit_req_zone \S+ zone=circolo_ws_handshake:\S+ rate=(\d+)r/s;",
        "ws_burst": r"^\s*limit_req zone=circolo_ws_handshake burst=(\d+)",
        "forms_rate": r"^limit_req_zone \S+ zone=circolo_forms:\S+ rate=(\d+)r/s;",
        "forms_burst": r"^\s*limit_req zone=circolo_forms burst=(\d+)",
        "analysis_rate": r"^limit_req_zone \S+ zone=circolo_analysis:\S+ rate=(\d+)r/s;",
        "analysis_burst": r"^\s*limit_req zone=circolo_analysis burst=(\d+)",
    }
    limits = {}
    for name, pattern in patterns.items():
        match = re.search(pattern, text, re.M)
        if not match:
            raise CheckFailed(f"nginx site file: no line matches {pattern!r}")
        limits[name] = int(match.group(1))
    return limits


def memory_bytes(value: str) -> int | None:
    """systemd's MemoryMax=/MemoryHigh= value in bytes (K, M, G, T: powers of 1024), None for
    infinity. A percentage of the machine's memory is not used in these units."""
    value = value.strip()
    if value == "infinity":
        return None
    match = re.fullmatch(r"(\d+)([KMGT]?)", value)
    if not match:
        raise CheckFailed(f"unexpected memory value {value!r} in a unit")
    return int(match.group(1)) * 1024 ** " KMGT".index(match.group(2) or " ")


def memory_cgroups_unavailable() -> str:
    """Why no process started here can be given a unit's MemoryMax=, or "" when it can: systemd
    must be PID 1 (sd_booted's test, /run/systemd/system) with the memory controller on cgroup
    v2, so that `systemd-run --scope -p MemoryMax=` applies it as the unit would."""
    init = Path("/proc/1/comm").read_text().strip()
    reasons = []
    if not Path("/run/systemd/system").is_dir():
        reasons.append(f"PID 1 is {init}, not systemd: no unit or scope to give MemoryMax=")
    controllers = Path("/sys/fs/cgroup/cgroup.controllers")
    if not controllers.exists() or "memory" not in controllers.read_text().split():
        mounts = Path("/proc/self/mounts").read_text().splitlines()
        v2 = [m.split()[1] for m in mounts if m.split()[2] == "cgroup2"]
        where = ", ".join(
            f"{m} has {Path(m, 'cgroup.controllers').read_text().split() or 'none'}" for m in v2
        )
        reasons.append(
            "the memory controller is not on cgroup v2 here"
            + (f" (cgroup v2: {where})" if where else " (no cgroup v2 mounted)")
        )
    return "; ".join(reasons)


def cgroup_v2_path(pid: int) -> Path:
    """The cgroup v2 directory of a process (its `0::` line)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        if line.startswith("0::"):
            return Path("/sys/fs/cgroup") / line[3:].lstrip("/")
    raise CheckFailed(f"process {pid} has no cgroup v2")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


# --- Commands -----------------------------------------------------------------------------


def run(argv, env=None, **kwargs) -> str:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT, **kwargs)
    if done.returncode != 0:
        raise CheckFailed(f"{' '.join(map(str, argv))} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


# --- HTTPS without a browser --------------------------------------------------------------


class Client:
    """HTTPS to nginx from a chosen loopback address (127.0.0.2, 127.0.0.3, ...): nginx sees a
    different client for each, as it would different machines. Keeps its cookies."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.port, self.source = port, source
        self.cookies: dict[str, str] = {}
        self.context = ssl.create_default_context()
        self.context.check_hostname = False
        self.context.verify_mode = ssl.CERT_NONE  # the run's self-signed certificate

    def request(self, method: str, path: str, body: dict | None = None, headers=None):
        conn = http.client.HTTPSConnection(
            "127.0.0.1",
            self.port,
            context=self.context,
            timeout=20,
            source_address=(self.source, 0),
        )
        sent = {"Accept-Language": "it"} | (headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if body is not None:
            data = urllib.parse.urlencode(body)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            sent["Origin"] = f"https://127.0.0.1:{self.port}"
            sent["Referer"] = f"https://127.0.0.1:{self.port}{path}"
        try:
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            text = response.read().decode("utf-8", "replace")
        finally:
            conn.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response, text

    def failed_log_in(self, username: str, headers=None) -> str:
        _response, page = self.request("GET", "/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        response, page = self.request(
            "POST",
            "/accounts/login/",
            {"csrfmiddlewaretoken": token, "username": username, "password": "sbagliata-0"},
            headers,
        )
        if response.status not in (200, 429):  # 429: refused by the throttle
            raise CheckFailed(f"log-in POST answered {response.status}")
        return f"{response.status} {page}"

    def submit(self, path: str, fields: dict[str, str]):
        """A form of the site as a browser sends it: GET its page (the CSRF cookie and the
        form's token), then POST the fields with the token to the same path."""
        response, page = self.request("GET", path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if response.status != 200 or token is None:
            raise CheckFailed(f"GET {path}: {response.status}, no form with a CSRF token")
        return self.request("POST", path, {"csrfmiddlewaretoken": token.group(1)} | fields)


def signed_in_as(page: str) -> str:
    """The username the page's menu shows (base.html), "" for a guest."""
    match = re.search(r'data-testid="user-menu">([^<]*)<', page)
    return html.unescape(match.group(1)).strip() if match else ""


def table_text(page: str, testid: str) -> str:
    """The text of the <table data-testid=...> of a page, whitespace collapsed."""
    match = re.search(rf'<table[^>]*data-testid="{testid}".*?</table>', page, re.S)
    if not match:
        return ""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", match.group(0))).split())


# --- The run ------------------------------------------------------------------------------


class Run:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        (tmp / "logs").mkdir()
        # Every process of the run (the units' and nginx), each in its own process group.
        self.procs = Processes(tmp / "logs", {})
        self.services = tmp / "svc"
        self.https = free_port()
        self.http = free_port()
        self.daphne_ports = [free_port(), free_port()]
        self.env_file = tmp / "circolo.env"
        self.site = f"https://127.0.0.1:{self.https}"
        # The site's SMTP server for the run, in this process: the worker sends to it.
        self.mailbox = Mailbox()

    # Services, environment, processes.

    def services_up(self) -> dict[str, str]:
        run([ROOT / "scripts" / "test-services.sh", "up", self.services])
        values = {}
        for line in (self.services / "env").read_text().splitlines():
            match = re.match(r"export (\w+)=(.*)", line)
            if match:
                values[match.group(1)] = match.group(2)
        return values

    def process_env(self) -> dict[str, str]:
        """What systemd gives a unit's process: a bare PATH and locale, the env file."""
        return {"PATH": SYSTEM_PATH, "LANG": "C.UTF-8", "HOME": "/root"} | envfile.read(
            str(self.env_file)
        )

    def start_units(self) -> None:
        for port in self.daphne_ports:
            self.start_daphne(port)
        for name, unit in (("worker", WORKER), ("analysis", ANALYSIS), ("beat", BEAT)):
            argv, extra = unit_command(unit)
            self.procs.start(name, argv, self.process_env() | extra)

    def start_daphne(self, port: int) -> None:
        argv, extra = unit_command(DAPHNE, str(port))
        if not memory_cgroups_unavailable():
            # The unit's memory limits, applied by systemd itself to a scope around the same
            # command (--scope runs it in this process's place: same pid, same environment).
            limits = [
                arg
                for key in ("MemoryHigh", "MemoryMax")
                for value in read_unit(DAPHNE).get(key, [])
                for arg in ("-p", f"{key}={value}")
            ]
            scope = [shutil.which("systemd-run"), "--scope", "--quiet", "--collect", *limits]
            argv = [*scope, "--", *argv]
        self.procs.start(f"daphne-{port}", argv, self.process_env() | extra)

    def manage(self, *args: str) -> None:
        """deploy/manage.sh, as deploy/README.md runs it (as root here: no user circolo)."""
        env = {"PATH": SYSTEM_PATH, "CIRCOLO_ENV": str(self.env_file), "CIRCOLO_USER": ""}
        run([DEPLOY / "manage.sh", *args], env=env)

    def healthz(self) -> tuple[int, str]:
        try:
            response, text = Client(self.https).request("GET", "/healthz")
        except OSError as error:
            return 0, str(error)
        return response.status, text

    def wait_healthy(self, what: str) -> None:
        status, text = wait_until(
            lambda: (s := self.healthz())[0] == 200 and s, 90, f"/healthz 200 ({what})", 0.5
        )
        say(status == 200 and '"status": "ok"' in text, f"/healthz 200 through nginx ({what})")

    def nginx(self) -> None:
        base = self.tmp / "nginx"
        tls = self.tmp / "tls"
        webroot = self.tmp / "www"
        for d in (base, tls, webroot):
            d.mkdir()
        cert, key = tls / "cert.pem", tls / "key.pem"
        run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
            + ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
            + ["-keyout", str(key), "-out", str(cert)]
        )
        static = Path(envfile.read(str(self.env_file))["VAR_DIR"]) / "staticfiles"
        site = site_config(self.https, self.http, self.daphne_ports, cert, key, static, webroot)
        (base / "circolo.conf").write_text(site)
        temp = "\n".join(
            f"    {kind}_temp_path {base}/{kind}_temp;"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        # Debian's /etc/nginx/nginx.conf, reduced to what the run needs, in its own prefix.
        (base / "nginx.conf").write_text(
            f"""user www-data;
worker_processes 1;
pid {base}/nginx.pid;
error_log {base}/error.log;
events {{ worker_connections 512; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    access_log {base}/access.log;
{temp}
    include {base}/circolo.conf;
}}
"""
        )
        args = ["nginx", "-p", f"{base}/", "-c", f"{base}/nginx.conf", "-e", f"{base}/error.log"]
        done = subprocess.run([*args, "-t"], capture_output=True, text=True)
        detail = "" if done.returncode == 0 else done.stderr[-800:]
        must(done.returncode == 0, "nginx -t accepts deploy/nginx/circolo.conf", detail)
        self.procs.start("nginx", [*args, "-g", "daemon off;"], {"PATH": SYSTEM_PATH})
        wait_until(lambda: self.healthz()[0] != 0, 30, "nginx to listen")

    # The checks.

    def check_proxy(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.http, timeout=10)
        conn.request("GET", "/play/?x=1")
        response = conn.getresponse()
        location = response.getheader("Location") or ""
        say(
            response.status == 301
            and location.startswith("https://")
            and location.endswith("/play/?x=1"),
            "plain HTTP redirects to HTTPS",
            f"{response.status} {location}",
        )
        conn.close()
        response, text = Client(self.https).request("GET", "/static/live/socket.js")
        cache = response.getheader("Cache-Control") or ""
        say(
            response.status == 200 and "max-age=3600" in cache and "LiveSocket" in text,
            "static files served by nginx from collectstatic's directory",
            f"{response.status} Cache-Control: {cache}",
        )
        response, _text = Client(self.https).request("GET", "/")
        headers = {
            name: response.getheader(name) or ""
            for name in ("Server", "Strict-Transport-Security", "Content-Security-Policy")
        }
        say(
            response.status == 200
            and headers["Server"] == "nginx"
            and "includeSubDomains" in headers["Strict-Transport-Security"]
            and "script-src 'self'" in headers["Content-Security-Policy"],
            "pages through nginx: no nginx version, HSTS with subdomains, the site's CSP",
            str(headers),
        )

    def check_throttle(self, limit: int) -> None:
        """LOGIN_ADDRESS_FAILURE_LIMIT failures from one address, any usernames, then it is
        refused; another client (another address, even one claiming the first's address in its
        own X-Forwarded-For) is not. Every request reaches daphne from nginx's 127.0.0.1: were
        that the address counted, the second client would be refused too."""
        first = Client(self.https, "127.0.0.2")
        pages = [first.failed_log_in(f"nessuno{i}") for i in range(limit + 1)]
        counted = (
            all(p.startswith("200 ") for p in pages[:limit])
            and pages[limit].startswith("429 ")
            and "Troppi tentativi falliti" in pages[limit]
        )
        say(counted, f"log-in throttle: {limit} failures from one client, then refused")
        second = Client(self.https, "127.0.0.3")
        page = second.failed_log_in("nessuno-altro", {"X-Forwarded-For": "127.0.0.2"})
        say(
            page.startswith("200 "),
            "log-in throttle counts the client's address, not nginx's nor a forged X-Forwarded-For",
        )

    def check_password_reset(self) -> None:
        """The password reset end to end, from a loopback address of its own (the sign-up and
        reset counters, and nginx's, are per address): a player signs up with an address and
        follows the check mailed to it; a signed-out client asks for a reset on the form; the worker sends the mail to the run's
        SMTP server; the link in its text, under SITE_URL, is followed through nginx to the form
        of a new password, which signs the player in; the new password logs in on the log-in
        form; the same link again is refused as used."""
        source = "127.0.0.8"
        username = f"smemorato_{secrets.token_hex(3)}"
        address = f"{username}@example.org"
        old, new = (f"Scacco-{secrets.token_urlsafe(9)}" for _ in range(2))
        what = (
            "password reset: the worker's mail reaches an SMTP server, its https:// link through"
            " nginx sets a new password and signs in, the new password logs in, the used link"
            " is refused"
        )

        def expect(ok: bool, step: str) -> None:
            if not ok:
                raise CheckFailed(step)

        def redirect_path(response) -> str:
            location = urllib.parse.urljoin(self.site + "/", response.getheader("Location") or "")
            return urllib.parse.urlsplit(location).path

        try:
            response, page = Client(self.https, source).submit(
                "/accounts/signup/",
                {"username": username, "email": address, "password1": old, "password2": old},
            )
            expect(response.status == 302, f"sign-up with an address answered {response.status}")

            # A reset goes only to a confirmed address (docs/rules.md 10.2): the sign-up's
            # check, mailed by the worker, is followed first, through nginx.
            def verify_link() -> str:
                for received in self.mailbox.to(address):
                    found = re.search(r"\S+/accounts/email/verify/\S+/", received.text)
                    if found:
                        return found.group(0)
                return ""

            link = wait_until(verify_link, 30, f"the address check mailed to {address}")
            expect(link.startswith(self.site + "/"), f"the check's link {link} is not under nginx")
            response, page = Client(self.https, source).request(
                "GET", urllib.parse.urlsplit(link).path
            )
            expect(response.status == 200, f"the address check answered {response.status}")

            asking = Client(self.https, source)
            response, page = asking.submit("/accounts/password/reset/", {"email": address})
            if response.status == 302:
                response, page = asking.request("GET", redirect_path(response))
            expect(
                response.status == 200 and "Controlla la posta" in page,
                f"the reset form answered {response.status}, not the 'Controlla la posta' page",
            )

            # The sign-up's address check goes to the same mailbox: the reset is the mail with
            # the reset link.
            def reset_link() -> str:
                for received in self.mailbox.to(address):
                    found = re.search(r"\S+/accounts/password/reset/\S+/", received.text)
                    if found:
                        return found.group(0)
                return ""

            try:
                link = wait_until(reset_link, 30, f"the reset mail to {address}")
            except CheckFailed as error:
                subjects = [r.subject for r in self.mailbox.to(address)]
                raise CheckFailed(f"{error} (mails to it: {subjects})") from None
            expect(
                link.startswith(self.site + "/"),
                f"the mail's link {link} is not under nginx's {self.site}",
            )
            path = urllib.parse.urlsplit(link).path

            # Django's confirm view keeps the token in the session and redirects to a URL
            # without it, where the form is.
            player = Client(self.https, source)
            response, page = player.request("GET", path)
            form = redirect_path(response)
            expect(
                response.status == 302 and form.endswith("/set-password/"),
                f"the link answered {response.status} to {form!r}, not the new password's form",
            )
            response, page = player.submit(form, {"new_password1": new, "new_password2": new})
            expect(
                response.status == 302 and redirect_path(response) == "/",
                f"the new password's form answered {response.status}"
                f" {response.getheader('Location')}",
            )
            _response, page = player.request("GET", "/")
            settings_page, _ = player.request("GET", "/accounts/settings/")
            expect(
                signed_in_as(page) == username and settings_page.status == 200,
                f"after the reset / shows {signed_in_as(page)!r}, /accounts/settings/ answers"
                f" {settings_page.status}",
            )

            returning = Client(self.https, source)
            response, page = returning.submit(
                "/accounts/login/", {"username": username, "password": new}
            )
            _response, home = returning.request("GET", "/")
            expect(
                response.status == 302 and signed_in_as(home) == username,
                f"log-in with the new password answered {response.status}",
            )

            response, page = Client(self.https, source).request("GET", path)
            expect(
                response.status == 200 and 'data-testid="reset-link-invalid"' in page,
                f"the used link again answered {response.status}, not the invalid-link page",
            )
        except CheckFailed as error:
            say(False, what, str(error))
            return
        say(True, what)

    def ws_handshake(
        self, source: str, path: str = "/ws/lobby/", together: threading.Barrier | None = None
    ) -> tuple[int, ssl.SSLSocket | None]:
        """A websocket handshake through nginx from a chosen loopback address, as a guest's page
        makes it: the HTTP status, and the open socket when it is 101 (the caller closes it).
        With a barrier, the request is sent once every thread has its TLS connection: they
        reach nginx together, however slow the TLS handshakes before."""
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        raw = socket.create_connection(
            ("127.0.0.1", self.https), timeout=20, source_address=(source, 0)
        )
        conn = context.wrap_socket(raw)
        if together is not None:
            together.wait(timeout=60)
        conn.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.https}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
                f"Origin: {self.site}\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(4096)
            if not chunk:
                break
            head += chunk
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
        if status == 101:
            return status, conn
        conn.close()
        return status, None

    def nginx_refusals(self, zone: str) -> int:
        """nginx's error log lines for refusals by one zone ("limiting requests" of limit_req,
        "limiting connections" of limit_conn; a request only delayed is not one)."""
        log = (self.tmp / "nginx" / "error.log").read_text(errors="replace")
        return sum("limiting " in line and f'by zone "{zone}"' in line for line in log.splitlines())

    def burst(self, zone: str, kind: str, sent: int, post) -> None:
        """`sent` POSTs at once, each `post(i) -> (status, text)`: those past the zone's burst
        (and what its rate refilled meanwhile) refused 429 with the site's words, the others
        passed to daphne (403: no CSRF token), every refusal in nginx's log under the zone."""
        limits = nginx_limits()
        answers: list[tuple[int, str]] = []
        logged = self.nginx_refusals(zone)
        started = time.monotonic()
        threads = [
            threading.Thread(target=lambda i=i: answers.append(post(i))) for i in range(sent)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        took = time.monotonic() - started
        refused = [text for status, text in answers if status == 429]
        passed = [status for status, _ in answers if status != 429]
        name = zone.removeprefix("circolo_")
        # At most the burst and the one the rate allows, plus what the rate refilled meanwhile.
        allowed = 1 + limits[f"{name}_burst"] + limits[f"{name}_rate"] * took
        say(
            len(answers) == sent
            and 0 < len(passed) <= allowed
            and refused
            and all("Troppe richieste da questo indirizzo" in text for text in refused)
            and set(passed) == {403}
            and self.nginx_refusals(zone) - logged == len(refused),
            f"nginx limit_req: {sent} POSTs at once to {kind} from one address,"
            f" {len(passed)} let through, {len(refused)} refused 429 by nginx",
            f"{took:.1f} s, statuses {dict(sorted(Counter(s for s, _ in answers).items()))}",
        )

    def check_nginx_limits(self) -> None:
        """The limits of deploy/nginx/circolo.conf in force, each from a loopback address of
        its own (nginx counts per address; the browser's 127.0.0.1 stays untouched): POSTs to
        the account forms past their burst refused 429 while GETs pass, each form counted; the
        analysis board's POSTs past their burst refused 429; more open sockets than
        limit_conn allows refused at the handshake, and one more let in once one closes;
        handshakes faster than their rate past the burst refused."""
        limits = nginx_limits()

        # The forms: POSTs without a CSRF token, so the ones let through cost daphne nothing
        # (403) and nginx's 429 cannot be the site's own throttle.
        def post(i: int) -> tuple[int, str]:
            path = FORM_POSTS[i % len(FORM_POSTS)]
            response, text = Client(self.https, "127.0.0.4").request(
                "POST", path, {"username": f"nessuno{i}", "password": "sbagliata-0"}
            )
            return response.status, text

        self.burst(
            "circolo_forms",
            f"the {len(FORM_POSTS)} account and password forms",
            int(limits["forms_burst"]) * 2 + 10,
            post,
        )
        response, _ = Client(self.https, "127.0.0.4").request("GET", "/accounts/login/")
        other, _ = Client(self.https, "127.0.0.5").request("POST", "/accounts/login/", {})
        say(
            response.status == 200 and other.status == 403,
            "nginx limit_req counts only POSTs, per address (a GET from it and another"
            " address's POST pass)",
            f"GET {response.status}, other address's POST {other.status}",
        )

        # Each form alone past the burst, one form after the other, all its POSTs at once from
        # an address of its own: nginx counts it (a path the zone's key missed would pass every
        # time, 403). 15 past the burst: refused unless they took 15 s to arrive.
        by_form: dict[str, list[int]] = {path: [] for path in FORM_POSTS}

        def post_form(n: int, path: str) -> None:
            response, _text = Client(self.https, f"127.0.1.{n + 1}").request("POST", path, {})
            by_form[path].append(response.status)

        for n, path in enumerate(FORM_POSTS):
            threads = [
                threading.Thread(target=post_form, args=(n, path))
                for _ in range(int(limits["forms_burst"]) + 15)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        missed = [path for path, statuses in by_form.items() if 429 not in statuses]
        say(
            not missed,
            f"nginx limit_req counts each of the {len(FORM_POSTS)} account and password forms",
            f"never refused: {missed}" if missed else "",
        )

        # The analysis board's POSTs: as the forms, all at once from one address.
        def analyse(i: int) -> tuple[int, str]:
            path = ("/games/analysis/move/", "/games/1/analysis/export/")[i % 2]
            response, text = Client(self.https, "127.0.0.8").request("POST", path, {})
            return response.status, text

        self.burst(
            "circolo_analysis",
            "the analysis board",
            int(limits["analysis_burst"]) * 2 + 10,
            analyse,
        )

        # Open sockets per address: as many as limit_conn allows, at the handshakes' own rate
        # (so limit_req is not what refuses), then five more.
        cap = int(limits["ws_conn"])
        pace = 1.5 / limits["ws_rate"]
        held: list[ssl.SSLSocket] = []
        statuses: list[int] = []
        extra: list[int] = []
        after_close: tuple[int, ssl.SSLSocket | None] = (0, None)
        logged = self.nginx_refusals("circolo_ws_addr")
        try:
            for _ in range(cap):
                status, conn = self.ws_handshake("127.0.0.6")
                statuses.append(status)
                if conn is not None:
                    held.append(conn)
                time.sleep(pace)
            for _ in range(5):
                extra.append(self.ws_handshake("127.0.0.6")[0])
                time.sleep(pace)
            held.pop().close()
            after_close = wait_until(
                lambda: (s := self.ws_handshake("127.0.0.6"))[1] and s, 10, "a socket let in"
            )
            held.append(after_close[1])
        except CheckFailed as error:
            say(False, "nginx limit_conn on /ws/: a socket let in once one closes", str(error))
        finally:
            for conn in held:
                conn.close()
        say(
            len(held) == cap
            and extra == [429] * 5
            and after_close[0] == 101
            and self.nginx_refusals("circolo_ws_addr") - logged >= 5,
            f"nginx limit_conn: {cap} open sockets from one address, the next 5 handshakes"
            " refused 429, one let in again once a socket closes",
            f"open {len(held)} of {cap} ({sorted(set(statuses))}), then {extra}",
        )

        # Handshakes faster than their rate: all at once from one address, each socket closed
        # as soon as it opens (so limit_conn is not what refuses).
        sent = int(limits["ws_burst"]) + 40
        codes: list[int] = []
        together = threading.Barrier(sent)

        def handshake() -> None:
            status, conn = self.ws_handshake("127.0.0.7", together=together)
            codes.append(status)
            if conn is not None:
                conn.close()

        logged = self.nginx_refusals("circolo_ws_handshake")
        started = time.monotonic()
        threads = [threading.Thread(target=handshake) for _ in range(sent)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        took = time.monotonic() - started
        allowed = 1 + limits["ws_burst"] + limits["ws_rate"] * took
        accepted, refused = codes.count(101), codes.count(429)
        say(
            len(codes) == sent
            and accepted + refused == sent
            and 0 < accepted <= allowed
            and refused > 0
            and self.nginx_refusals("circolo_ws_handshake") - logged == refused,
            f"nginx limit_req on /ws/: {sent} handshakes at once from one address,"
            f" {accepted} let through, {refused} refused 429",
            f"{took:.1f} s, statuses {dict(sorted(Counter(codes).items()))}",
        )

    def check_memory_limit(self) -> None:
        """The daphne unit's MemoryHigh=/MemoryMax= in force on the daphnes started here: their
        cgroup's memory.high and memory.max as the unit says (systemd-run's scope, see
        start_daphne), or a clear skip where this machine cannot apply them. Their RSS now,
        after the sockets of the checks above, under MemoryHigh either way."""
        unit = read_unit(DAPHNE)
        wanted = {
            key: memory_bytes(values[-1])
            for key, values in unit.items()
            if key.startswith("Memory")
        }
        must(
            wanted.get("MemoryMax") is not None
            and wanted.get("MemoryHigh") is not None
            and wanted["MemoryHigh"] < wanted["MemoryMax"],
            "the daphne unit sets MemoryHigh= below MemoryMax=",
            str(unit.get("MemoryHigh")) + " " + str(unit.get("MemoryMax")),
        )
        pids = [self.procs.pid(f"daphne-{port}") for port in self.daphne_ports]
        rss = [rss_mb(pid) for pid in pids]
        say(
            all(0 < r < wanted["MemoryHigh"] / 2**20 for r in rss),
            f"daphne RSS {' and '.join(f'{r:.0f}' for r in rss)} MB after the checks' sockets,"
            f" under the unit's MemoryHigh ({unit['MemoryHigh'][-1]})",
        )
        why_not = memory_cgroups_unavailable()
        if why_not:
            skip("the daphne unit's MemoryMax= in force", why_not)
            return
        found = []
        for pid in pids:
            group = cgroup_v2_path(pid)
            found.append(
                (
                    group.name,
                    int((group / "memory.max").read_text()),
                    int((group / "memory.high").read_text()),
                )
            )
        say(
            all(
                (limit, high) == (wanted["MemoryMax"], wanted["MemoryHigh"])
                for _, limit, high in found
            )
            and len({name for name, _, _ in found}) == len(pids),
            f"the daphne unit's MemoryMax={unit['MemoryMax'][-1]} and MemoryHigh="
            f"{unit['MemoryHigh'][-1]} in force: each daphne in its own cgroup with that"
            " memory.max and memory.high",
            str(found),
        )

    def play(self, browser) -> None:
        import django.db
        from playwright.sync_api import expect

        from games.models import Game
        from tests.browser import chess_move, open_game_between, sign_up, wait_plies, watch_csp

        contexts = [browser.new_context(locale="it-IT", ignore_https_errors=True) for _ in range(2)]
        violations: list[dict] = []  # the site's Content-Security-Policy, through nginx
        for context in contexts:
            watch_csp(context, violations)
        pages = [c.new_page() for c in contexts]
        sockets: list[list] = [[], []]
        for page, seen in zip(pages, sockets, strict=True):
            page.set_default_timeout(20_000)
            page.on("websocket", lambda ws, seen=seen: seen.append(ws))
            page.on("dialog", lambda dialog: dialog.accept())
        names = [f"bianco_{secrets.token_hex(3)}", f"nero_{secrets.token_hex(3)}"]
        for page, name in zip(pages, names, strict=True):
            sign_up(page, self.site, name)
        say(True, "two players sign up and are logged in over https://")
        protocol = pages[0].evaluate(
            "performance.getEntriesByType('navigation')[0].nextHopProtocol"
        )
        say(protocol == "h2", "pages come over HTTP/2", protocol)

        white, black = pages
        # The challenge form's default: rated (games/forms.py).
        open_game_between(self.site, white, black, variant="chess", color="white")
        game_id = int(re.search(r"/games/(\d+)/$", white.url).group(1))
        plies = ["e2e4", "e7e5", "g1f3", "b8c6"]
        for i, move in enumerate(plies):
            page, side = (white, "white") if i % 2 == 0 else (black, "black")
            chess_move(page, move, side)
            for p in pages:
                wait_plies(p, i + 1)
        django.db.close_old_connections()
        game = Game.objects.get(pk=game_id)
        say(game.rated and len(game.moves) == 4, "a rated game: four moves over wss:// sockets")
        urls = [ws.url for seen in sockets for ws in seen]
        say(
            bool(urls) and all(u.startswith("wss://") for u in urls),
            "every socket is wss:// through nginx",
            ", ".join(sorted(set(urls)))[:300],
        )
        say(
            not violations,
            "the players' pages and wss:// sockets keep to the site's Content-Security-Policy",
            str(violations)[:300],
        )

        # Which daphne holds the game's sockets (daphne's access log, one line per connect): the
        # game page's one socket (the game's, its chat's and the site's news; docs/protocol.md).
        path = f"/ws/page/game/{game_id}/"

        def open_game_sockets(port: int) -> int:
            log = self.procs.log(f"daphne-{port}")
            return log.count(f'"WSCONNECT {path}"') - log.count(f'"WSDISCONNECT {path}"')

        held = {port: open_game_sockets(port) for port in self.daphne_ports}
        victim = max(held, key=held.get)
        must(held[victim] > 0, "the game's sockets are found on a daphne", str(held))
        survivor = next(p for p in self.daphne_ports if p != victim)
        before = [len(seen) for seen in sockets]
        self.procs.stop(f"daphne-{victim}", signal.SIGKILL)
        say(True, f"daphne on {victim} killed with SIGKILL mid-game ({held[victim]} game sockets)")

        def reconnected() -> bool:
            """Every page's newest game socket is open, and the survivor holds them all."""
            for page, seen in zip(pages, sockets, strict=True):
                page.wait_for_timeout(100)  # lets Playwright deliver the page's events
                mine = [ws for ws in seen if ws.url.endswith(path)]
                if not mine or mine[-1].is_closed():
                    return False
            return open_game_sockets(survivor) == 2

        try:
            wait_until(reconnected, 60, "both pages' game sockets open on the survivor")
            renewed = sum(
                any(ws.url.endswith(path) for ws in seen[n:])
                for seen, n in zip(sockets, before, strict=True)
            )
            say(
                renewed == held[victim],
                f"the killed daphne's game sockets ({renewed}) reconnected through nginx to the"
                f" daphne on {survivor}, which now holds both players'",
            )
        except CheckFailed as error:
            say(False, "game sockets reconnect after the SIGKILL", str(error))
        more = ["f1c4", "g8f6", "d2d3"]
        for i, move in enumerate(more, len(plies)):
            page, side = (white, "white") if i % 2 == 0 else (black, "black")
            chess_move(page, move, side)
            for p in pages:
                wait_plies(p, i + 1)
        shown = [p.get_by_test_id("moves").inner_text().split() for p in pages]
        game.refresh_from_db()
        say(
            len(game.moves) == 7
            and all(len([w for w in s if not w.endswith(".")]) == 7 for s in shown),
            "the game goes on after the kill: 7 moves stored, both pages show all 7",
            f"stored {len(game.moves)}, shown {shown}",
        )
        self.start_daphne(victim)  # systemd's Restart=always would bring it back
        black.get_by_test_id("resign").click()
        for p in pages:
            expect(p.get_by_test_id("result")).to_contain_text("1-0")
        say(True, "the game ends by resignation on both pages")
        for context in contexts:
            context.close()

    def arena(self, browser) -> None:
        """An arena starting in a few seconds: two players log in and enter from its page, the
        tick starts it and pairs them, and their pages go to the board by themselves (the site
        socket's push)."""
        from datetime import timedelta

        import django.db
        from django.utils import timezone
        from playwright.sync_api import expect

        from accounts.tests.factories import UserFactory
        from arena.models import Arena, ArenaGame
        from arena.tests.factories import ArenaFactory
        from tests.browser import log_in_through_the_form as log_in

        players = [UserFactory(username=f"arenista_{secrets.token_hex(3)}") for _ in range(2)]
        arena = ArenaFactory(
            name="Arena del controllo",
            starts_at=timezone.now() + timedelta(seconds=15),
            duration_minutes=20,
        )
        contexts = [browser.new_context(locale="it-IT", ignore_https_errors=True) for _ in players]
        try:
            pages = []
            for context, player in zip(contexts, players, strict=True):
                page = context.new_page()
                page.set_default_timeout(20_000)
                log_in(page, self.site, player.username)
                page.goto(f"{self.site}/arenas/{arena.pk}/")
                page.get_by_test_id("enter").click()
                # Entered: before the start it says so; after it (a slow machine), the page
                # offers to leave, or has already taken the player to the board.
                entered = (
                    page.get_by_test_id("entered")
                    .or_(page.get_by_test_id("leave"))
                    .or_(page.get_by_test_id("board"))
                )
                expect(entered.first).to_be_visible(timeout=20_000)
                pages.append(page)
            try:
                for page in pages:
                    expect(page).to_have_url(re.compile(r"/games/\d+/$"), timeout=60_000)
            except AssertionError:
                django.db.close_old_connections()
                state = Arena.objects.get(pk=arena.pk)
                raise CheckFailed(
                    f"arena {state.status}, games {list(ArenaGame.objects.filter(arena=arena).values())}"
                    f", pages at {[p.url for p in pages]}"
                ) from None
            django.db.close_old_connections()
            games = list(ArenaGame.objects.filter(arena=arena).values_list("game_id", flat=True))
            say(
                pages[0].url == pages[1].url
                and len(games) == 1
                and pages[0].url.endswith(f"/games/{games[0]}/"),
                "an arena starts and pairs its two players (their pages go to the board)",
            )
        finally:
            for context in contexts:
                context.close()

    def tournament_backup_restore(self, services_env: dict[str, str]) -> None:
        from datetime import timedelta

        import django.db
        from django.conf import settings
        from django.utils import timezone

        from accounts.tests.factories import UserFactory
        from games.models import Game, Status
        from games.services import game_resign
        from tournaments import services
        from tournaments.models import Pairing
        from tournaments.tests.factories import TournamentFactory

        players = [UserFactory(username=f"socio_{secrets.token_hex(3)}") for _ in range(4)]
        tournament = TournamentFactory(
            name="Torneo del controllo",
            base_seconds=600,
            increment_seconds=5,
            starts_at=timezone.now() + timedelta(seconds=3),
            seats=4,
        )
        for player in players:
            services.registration_join(tournament_id=tournament.pk, player=player)

        def live_games() -> list[Game]:
            return list(
                Game.objects.filter(
                    event_type__model="tournament", event_id=tournament.pk, status=Status.LIVE
                ).order_by("pk")
            )

        def scored() -> int:
            """Games of the tournament scored in its pairings (each pairing's one or two legs,
            RULES 4.5: a scored first leg opens the second)."""
            legs = Pairing.objects.filter(round__tournament=tournament).values_list(
                "white_points1", "white_points2"
            )
            return sum(points is not None for leg in legs for points in leg)

        wait_until(lambda: len(live_games()) >= 2, 60, "the tournament's first round")
        first = live_games()[0]
        game_resign(game_id=first.pk, user_id=first.black_id)
        wait_until(lambda: scored() == 1, 30, "the resignation scored in its pairing")
        detail = f"/tournaments/{tournament.pk}/"
        client = Client(self.https)
        _r, page = client.request("GET", detail)
        before = {t: table_text(page, t) for t in ("standings", "pairings-1")}
        live_before = [g.pk for g in live_games()]
        must(
            all(before.values()),
            "the tournament's page shows its standings and round 1 (through nginx)",
            "" if all(before.values()) else str(before)[:300],
        )

        dump = run([DEPLOY / "backup.sh", self.env_file, self.tmp / "backups"]).strip()
        say(Path(dump).stat().st_size > 0, "deploy/backup.sh dumps mid-tournament", dump)
        # After the dump the site moves on: what the restore brings back is the dump's state.
        game_resign(game_id=live_before[0], user_id=Game.objects.get(pk=live_before[0]).black_id)
        wait_until(lambda: scored() == 2, 30, "a result after the dump")

        # The documented procedure: stop the units, restore into a new database, point the
        # env file at it, migrate, start the units.
        for name in list(self.procs.running):
            if name != "nginx":
                self.procs.stop(name)
        database = services_env["DATABASE_URL"]
        restored = database.rsplit("/", 1)[0] + "/circolo_restored"
        parts = urllib.parse.urlsplit(database)
        run(
            [f"{services_env['TEST_PG_BIN']}/createdb", "-h", parts.hostname, "-p", str(parts.port)]
            + ["-U", parts.username, "circolo_restored"]
        )
        refused = subprocess.run(
            [DEPLOY / "restore.sh", dump, database], capture_output=True, text=True
        )
        say(
            refused.returncode != 0 and "already has" in refused.stderr,
            "deploy/restore.sh refuses a database that has tables (the live one)",
            refused.stderr.strip()[-200:],
        )
        run([DEPLOY / "restore.sh", dump, restored])
        say(True, "deploy/restore.sh restores the dump into a new database")
        text = self.env_file.read_text()
        self.env_file.write_text(
            re.sub(r"^DATABASE_URL=.*$", f"DATABASE_URL={restored}", text, flags=re.M)
        )
        self.manage("migrate", "--noinput", "-v", "0")
        self.start_units()
        self.wait_healthy("restored database")
        django.db.connections.close_all()
        settings.DATABASES["default"]["NAME"] = "circolo_restored"
        _r, page = client.request("GET", detail)
        after = {t: table_text(page, t) for t in ("standings", "pairings-1")}
        say(
            after == before and [g.pk for g in live_games()] == live_before,
            "the restored site shows the standings and the live round as they were at the dump",
            "" if after == before else f"before {before}\nafter  {after}",
        )
        # It carries on from there: a result in the restored round reaches its standings.
        restored_scored = scored()
        game = Game.objects.get(pk=live_before[-1])
        game_resign(game_id=game.pk, user_id=game.white_id)

        try:
            wait_until(lambda: scored() == 2, 30, "the result scored on the restored database")
        except CheckFailed as error:
            say(False, "the tournament continues on the restored database", str(error))
            return
        _r, page = client.request("GET", detail)
        say(
            restored_scored == 1 and table_text(page, "standings") != before["standings"],
            "the tournament continues on the restored database (a result scored, standings moved)",
        )

    def check_units(self) -> None:
        """systemd's own reading of the units (their syntax, their settings' names), where
        systemd-analyze is installed; the one complaint expected here is that /srv/circolo,
        where deploy/README.md installs, does not exist on this machine."""
        if shutil.which("systemd-analyze") is None:
            say(True, "systemd units: systemd-analyze not installed, syntax not verified")
            return
        units = self.tmp / "units"
        units.mkdir()
        for unit in (DEPLOY / "systemd").iterdir():
            # A template is verified as one of its instances.
            shutil.copy(unit, units / unit.name.replace("@.service", "@8001.service"))
        done = subprocess.run(
            ["systemd-analyze", "verify", *sorted(map(str, units.iterdir()))],
            capture_output=True,
            text=True,
            timeout=120,
        )
        complaints = [
            line
            for line in (done.stdout + done.stderr).splitlines()
            if line.strip() and f"Command {INSTALL_ROOT}/" not in line
        ]
        say(not complaints, "systemd-analyze verify accepts the units", "; ".join(complaints))

    def main(self) -> None:
        must(os.geteuid() == 0, "running as root")
        for tool in ("nginx", "openssl", "pg_dump", "pg_restore", "psql"):
            must(shutil.which(tool) is not None, f"{tool} is installed")
        names = readme_variables()
        example = (DEPLOY / "circolo.env.example").read_text()
        missing = [n for n in names if not re.search(rf"^#?{n}=", example, re.M)]
        say(
            bool(names) and not missing,
            "circolo.env.example lists every README variable",
            str(missing),
        )

        self.check_units()
        self.mailbox.start()
        services_env = self.services_up()
        var = self.tmp / "var"
        var.mkdir()
        limit = 3
        make_env_file(
            self.env_file,
            {
                "DATABASE_URL": services_env["DATABASE_URL"] + "?pool=20",
                "REDIS_URL": services_env["REDIS_URL"],
                "SECRET_KEY": secrets.token_urlsafe(50),
                "ALLOWED_HOSTS": "127.0.0.1",
                "CSRF_TRUSTED_ORIGINS": self.site,
                "VAR_DIR": str(var),
                "LOGIN_ADDRESS_FAILURE_LIMIT": str(limit),
                "EMAIL_HOST": self.mailbox.host,
                "EMAIL_PORT": str(self.mailbox.port),
                "EMAIL_USE_TLS": "0",  # the run's own server speaks plain SMTP on loopback
                # Links in mails go through nginx, as a real SITE_URL's would.
                "SITE_URL": self.site,
            },
        )
        os.chmod(self.env_file, 0o640)
        self.manage("migrate", "--noinput", "-v", "0")
        self.manage("collectstatic", "--noinput", "-v", "0")
        say(True, "migrate and collectstatic with the environment file (deploy/manage.sh)")

        # This process reads and writes through the ORM too (players, the arena and the
        # tournament are set up there): the same settings as the units.
        os.environ.update(envfile.read(str(self.env_file)))
        # ...but without the units' pool: Django keeps a process's pool for the life of the
        # process, whatever the settings say later, so after the restore this process went on
        # reading and writing the dumped-from database through it while the units served the
        # restored one (both restore checks failed on a restore that was right).
        os.environ["DATABASE_URL"] = services_env["DATABASE_URL"]
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "1"  # Playwright's loop in this thread
        import django

        django.setup()
        # aiosmtpd logs each SMTP command of the run's server at INFO on "mail.log", which the
        # site's root logger (INFO) would print between the check's lines; its warnings stay.
        logging.getLogger("mail.log").setLevel(logging.WARNING)

        self.start_units()
        self.nginx()
        self.wait_healthy("two daphne, worker, beat")
        self.check_proxy()
        self.check_throttle(limit)
        self.check_password_reset()
        self.check_nginx_limits()
        self.check_memory_limit()

        from playwright.sync_api import sync_playwright

        from tests.processes import CHROMIUM, CHROMIUM_ARGS

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--ignore-certificate-errors"]
            )
            try:
                self.play(browser)
                self.arena(browser)
            finally:
                browser.close()
        self.tournament_backup_restore(services_env)


def main() -> int:
    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="circolo-deploy-check-"))
    tmp.chmod(0o755)  # nginx's workers (www-data) read the static files under it
    check = Run(tmp)

    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        check.main()
    except (CheckFailed, UnitError, KeyboardInterrupt) as error:
        say(False, "the run stopped", str(error))
    except Exception:
        say(False, "the run stopped on an error", traceback.format_exc())
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if FAILURES:
            for log in sorted((tmp / "logs").glob("*.log")) + [tmp / "nginx" / "error.log"]:
                if log.exists():
                    tail = log.read_text(errors="replace")[-1500:]
                    print(f"--- {log.name} (last lines) ---\n{tail}")
        check.procs.stop_all()
        check.mailbox.stop()
        subprocess.run(
            [ROOT / "scripts" / "test-services.sh", "down", check.services], capture_output=True
        )
        shutil.rmtree(tmp, ignore_errors=True)
    took = time.monotonic() - started
    if FAILURES:
        print(f"deploy-check: {len(FAILURES)} failed ({took:.0f} s)")
        return 1
    print(f"deploy-check: all passed ({took:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
