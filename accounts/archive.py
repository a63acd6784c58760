"""The data archive, "Scarica i miei dati" (RULES 10.7; GDPR art. 15 and 20): the services that
ask for it, build it, hand it over and remove it (STYLE 2: the account's services, split out of
accounts/services.py for their size).

Nothing of it runs in a request: the page asks (`archive_request`: one unfinished archive per
player, DATA_ARCHIVE_DAILY a day) and the worker builds it, one *step* per task run
(`archive_build_step`): the account and its small sections, then a page of at most
DATA_ARCHIVE_CHUNK items of a paged section or file (accounts.personal: the games' list, their
PGN, their PDN), then the next, each appended to the ZIP under VAR_DIR/archives/
(accounts/zipstream.py) and its place saved on the row. So a run costs at most one page
(docs/operations.md, "Data archives"). One step at a time over the whole site (a PostgreSQL
advisory lock, tried, not waited for), so the builder holds at most one of the worker's
processes and the every-second tick keeps the other. The unfinished archive moved least
recently goes next, so several players' archives advance in turn.

Each step queues the next run while work is left; beat's `accounts.archives` runs one when
no archive has moved for STALL_SECONDS (a worker killed mid-step, a lost task), and the step
it runs truncates the file back to what the row says was written. A step begun and never
finished MAX_ATTEMPTS times in a row fails the archive; so does a step that raises. A failed
archive does not count against the day's number: the player asks again.

Locking: a step holds its archive's row (select_for_update) from reading its place to saving
the next; the account's deletion (the eraser, in the deleting transaction) deletes the rows,
waiting for a step under way, and removes the files after its commit. A step that finds its
row gone, or its player deleted, stops there.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts import personal, zipstream
from accounts.models import DataArchive, User
from live.locks import Rank, atomic, lock_one
from mail.models import Reason
from mail.services import mail_queue

log = logging.getLogger(__name__)

Status = DataArchive.Status
# The one builder's advisory lock ("arch" in ASCII), a space apart from the mail sender's.
BUILDER_LOCK = 0x61726368
# No archive moved for this long while some is unfinished: its chain of runs was lost.
STALL_SECONDS = 30.0
MAX_ATTEMPTS = 3
# The daily number counts the archives asked in the last day (RULES 10.7).
DAY = timedelta(days=1)


def archive_dir() -> Path:
    return Path(settings.VAR_DIR) / "archives"


def archive_path(archive: DataArchive | int) -> Path:
    pk = archive if isinstance(archive, int) else archive.pk
    return archive_dir() / f"{pk}.zip"


class ArchiveRefused(Exception):
    """Why an archive may not be asked for now; `code` is "busy" (one is being built) or
    "throttled" (the day's number asked)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


# --- asking, and what the page shows ---------------------------------------------------------


def archive_request(*, user: User, now: datetime | None = None) -> DataArchive:
    """Ask for a new archive of `user`'s data; ArchiveRefused while one is being built or when
    DATA_ARCHIVE_DAILY were asked in the last day (failed ones aside). The player's row is
    held, so two asks at once are counted one after the other."""
    now = now or timezone.now()
    with atomic():
        lock_one(User, user.pk, Rank.USER)
        archives = DataArchive.objects.filter(player=user)
        if archives.filter(status__in=DataArchive.UNFINISHED).exists():
            raise ArchiveRefused(_("Il tuo archivio è già in preparazione."), "busy")
        asked = archives.filter(requested_at__gt=now - DAY).exclude(status=Status.FAILED)
        times = sorted(asked.values_list("requested_at", flat=True))
        if len(times) >= settings.DATA_ARCHIVE_DAILY:
            # The day is the last 24 hours: the player may ask again a day after the ask that
            # leaves the window first.
            again = times[len(times) - settings.DATA_ARCHIVE_DAILY] + DAY
            raise ArchiveRefused(
                _(
                    "Hai già chiesto i tuoi dati %(count)d volte nelle ultime 24 ore: potrai "
                    "chiederli di nuovo dal %(when)s."
                )
                % {
                    "count": settings.DATA_ARCHIVE_DAILY,
                    "when": formats.date_format(timezone.localtime(again), "j F, H:i"),
                },
                "throttled",
            )
        archive = DataArchive.objects.create(player=user, requested_at=now)
        transaction.on_commit(build_soon)
    return archive


def build_soon() -> None:
    """Ask the worker to start building, unless a build is moving already (it takes the new
    archive in turn). If the broker is away, beat's `accounts.archives` starts it."""
    try:
        current_app.tasks["accounts.archives"].apply_async(retry=False)
    except Exception as error:  # the row is the promise; the task only hurries it
        log.warning("archive task not sent, beat will start it: %s", error)


def archive_current(user: User) -> DataArchive | None:
    """The archive the account page shows: the player's newest."""
    return DataArchive.objects.filter(player=user).order_by("-requested_at", "-id").first()


def archive_for_download(*, user: User, pk: int) -> tuple[DataArchive, Path] | None:
    """The player's own ready archive and its file; None for anyone else's, or one not ready,
    expired or gone (the page answers 404)."""
    archive = DataArchive.objects.filter(
        pk=pk, player=user, status=Status.READY, expires_at__gt=timezone.now()
    ).first()
    if archive is None:
        return None
    path = archive_path(archive)
    return (archive, path) if path.is_file() else None


# --- building ----------------------------------------------------------------------------------


def _plan() -> list[tuple[str, str]]:
    """The steps of every archive, in order: account.json (its head, each paged section, its
    end), then each file, then the ZIP's directory."""
    return [
        ("head", ""),
        *(("section", name) for name, _pages in personal.paged_sections()),
        ("tail", ""),
        *(("file", name) for name in personal.file_names()),
        ("end", ""),
    ]


def archives_build(*, chain: bool = False, now: datetime | None = None) -> bool:
    """One step of one unfinished archive, then the next run queued while work is left.
    `chain`: a run queued by the step before (it goes on); otherwise (a request, beat) a run
    that starts building only when no archive moved for STALL_SECONDS, so one chain of runs
    goes at a time. Returns whether work is left."""
    now = now or timezone.now()
    unfinished = DataArchive.objects.filter(status__in=DataArchive.UNFINISHED)
    if (
        not chain
        and unfinished.filter(advanced_at__gt=now - timedelta(seconds=STALL_SECONDS)).exists()
    ):
        return True  # a chain is moving: it takes every unfinished archive in turn
    if not _builder_lock():
        return True  # another step runs now; it queues the next
    try:
        pk = (
            unfinished.order_by(F("advanced_at").asc(nulls_first=True), "id")
            .values_list("pk", flat=True)
            .first()
        )
        if pk is not None:
            archive_build_step(pk=pk)
        more = unfinished.exists()
    finally:
        _builder_unlock()
    if more:
        try:
            # At once, to the back of the queue, behind the tick's tasks. (A countdown to rest
            # between steps made a 6,000-game archive 3 to 7 times slower, every step waiting on
            # Celery's ETA timer, and the tick no better: it has the other process either way.)
            current_app.tasks["accounts.archives"].apply_async(kwargs={"chain": True}, retry=False)
        except Exception as error:
            log.warning("next archive step not sent, beat will resume: %s", error)
    return more


def _builder_lock() -> bool:
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [BUILDER_LOCK])
        return bool(cursor.fetchone()[0])


def _builder_unlock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [BUILDER_LOCK])


def archive_build_step(*, pk: int, now: datetime | None = None) -> None:
    """One step of archive `pk` (the module's docstring). Safe to run twice: the place is
    saved with what was written, in one transaction holding the row."""
    now = now or timezone.now()
    # The attempt is counted in a transaction of its own, before the work: a step that kills
    # its worker leaves the count behind.
    begun = DataArchive.objects.filter(pk=pk, status__in=DataArchive.UNFINISHED).update(
        attempts=F("attempts") + 1, status=Status.BUILDING
    )
    if not begun:
        return
    try:
        with transaction.atomic():
            archive = (
                # The archive's row only: the player's stays free (an ask holds it briefly).
                DataArchive.objects.select_for_update(of=("self",))
                .select_related("player")
                .filter(pk=pk, status=Status.BUILDING)
                .first()
            )
            if archive is None:
                return  # deleted with its account meanwhile: the eraser removes the file
            if archive.player.is_deleted:
                archive.delete()
                transaction.on_commit(lambda: _remove(pk))
                return
            if archive.attempts > MAX_ATTEMPTS:
                _fail(archive, f"step begun and never finished {archive.attempts - 1} times")
                return
            _step(archive, now)
            archive.attempts = 0
            archive.advanced_at = now
            archive.save()
    except Exception as error:
        log.exception("data archive %s failed", pk)
        with transaction.atomic():
            archive = DataArchive.objects.select_for_update().filter(pk=pk).first()
            if archive is not None and archive.status in DataArchive.UNFINISHED:
                _fail(archive, f"{type(error).__name__}: {error}")


def _fail(archive: DataArchive, error: str) -> None:
    archive.status = Status.FAILED
    archive.error = error[:300]
    archive.state = {}
    archive.save()
    pk = archive.pk
    transaction.on_commit(lambda: _remove(pk))


def _step(archive: DataArchive, now: datetime) -> None:
    path = archive_path(archive)
    state: dict[str, Any] = archive.state
    if not state:
        archive_dir().mkdir(parents=True, exist_ok=True)
        state = {"step": 0, "after": 0, "written": 0, "zip": zipstream.new_state(now)}
    zip_state = state["zip"]
    zipstream.resume(path, zip_state)
    kind, name = _plan()[state["step"]]
    user = archive.player
    limit = settings.DATA_ARCHIVE_CHUNK
    finished_part = True
    if kind == "head":
        archive.total = sum(pages.count(user) for _name, pages in personal.paged_sections()) + sum(
            pages.count(user)
            for pages in map(personal.file, personal.file_names())
            if isinstance(pages, personal.Pages)
        )
        zipstream.entry_open(path, zip_state, "account.json")
        text = json.dumps(_account(user), ensure_ascii=False, indent=2, default=str)
        zipstream.entry_write(path, zip_state, text[: -len("\n}")])
    elif kind == "section":
        pages = dict(personal.paged_sections())[name]
        items, last = pages.page(user, state["after"], limit)
        count = state["written"]
        pieces = [] if state.get("opened") else [f',\n  "{name}": [']
        for item in items:
            body = json.dumps(item, ensure_ascii=False, indent=2, default=str)
            pieces.append(("," if count else "") + "\n    " + body.replace("\n", "\n    "))
            count += 1
        finished_part = len(items) < limit
        if finished_part:
            pieces.append("\n  ]" if count else "]")
        zipstream.entry_write(path, zip_state, "".join(pieces))
        archive.done += len(items)
        state.update(opened=True, written=count, after=last or state["after"])
    elif kind == "tail":
        zipstream.entry_write(path, zip_state, "\n}")
        zipstream.entry_close(path, zip_state)
    elif kind == "file":
        source = personal.file(name)
        if zip_state["open"] is None:
            zipstream.entry_open(path, zip_state, name)
        if isinstance(source, personal.Pages):
            texts, last = source.page(user, state["after"], limit)
            text = "\n".join(texts)
            zipstream.entry_write(
                path, zip_state, ("\n" if state["written"] and text else "") + text
            )
            finished_part = len(texts) < limit
            archive.done += len(texts)
            state["written"] += len(texts)
            state["after"] = last or state["after"]
        else:
            zipstream.entry_write(path, zip_state, source(user))
        if finished_part:
            zipstream.entry_close(path, zip_state)
    else:  # end
        archive.size = zipstream.finish(path, zip_state)
        _ready(archive, now)
        return
    if finished_part:
        state.update(step=state["step"] + 1, after=0, written=0, opened=False)
    archive.state = state


def _account(user: User) -> dict[str, Any]:
    """The account itself and the sections given whole (ratings, events, chat)."""
    return {
        "username": user.username,
        "email": user.email,
        "email_verified_at": _iso(user.email_verified_at),
        "date_joined": _iso(user.date_joined),
        "last_login": _iso(user.last_login),
        "language": user.language,
        "text_mode": user.text_mode,
        "reminders": {
            "by_email": user.remind_by_email,
            "minutes_before": user.remind_minutes,
            "on_site": user.remind_on_site,
            "in_browser": user.remind_in_browser,
        },
        **personal.sections(user),
    }


def _iso(moment) -> str | None:
    return moment.isoformat() if moment is not None else None


def _ready(archive: DataArchive, now: datetime) -> None:
    """The archive is ready: kept DATA_ARCHIVE_KEEP_HOURS; the player's older one goes (one
    kept per player); a mail tells them, at a verified address only (RULES 10.7: nothing is
    mailed to an address not shown to be theirs but its own check)."""
    user = archive.player
    archive.status = Status.READY
    archive.state = {}
    archive.done = archive.total
    archive.ready_at = now
    archive.expires_at = now + timedelta(hours=settings.DATA_ARCHIVE_KEEP_HOURS)
    archive.file_name = f"circolo-{user.username}-{timezone.localdate(now).isoformat()}.zip"
    older = list(
        DataArchive.objects.filter(player=user, status=Status.READY)
        .exclude(pk=archive.pk)
        .values_list("pk", flat=True)
    )
    if older:
        DataArchive.objects.filter(pk__in=older).update(status=Status.EXPIRED)
        transaction.on_commit(lambda: [_remove(pk) for pk in older])
    if user.email_verified:
        mail_queue(
            user=user,
            reason=Reason.ARCHIVE,
            key=str(archive.pk),
            template="accounts/mail/archive",
            language=user.language,
            context={
                "username": user.username,
                "account_url": settings.SITE_URL + reverse("accounts:account") + "#account-data",
                "keep_hours": settings.DATA_ARCHIVE_KEEP_HOURS,
            },
            useful_until=archive.expires_at,
        )


# --- removing ----------------------------------------------------------------------------------


def _remove(pk: int) -> None:
    archive_path(pk).unlink(missing_ok=True)


def archives_cleanup(*, now: datetime | None = None) -> int:
    """Beat's: archives past their DATA_ARCHIVE_KEEP_HOURS lose their file; rows that no longer
    count for the day's number are deleted, and any file no row owns. Returns the files
    removed."""
    now = now or timezone.now()
    expired = list(
        DataArchive.objects.filter(status=Status.READY, expires_at__lte=now).values_list(
            "pk", flat=True
        )
    )
    DataArchive.objects.filter(pk__in=expired).update(status=Status.EXPIRED)
    DataArchive.objects.filter(
        status__in=[Status.EXPIRED, Status.FAILED], requested_at__lte=now - DAY
    ).delete()
    removed = 0
    for pk in expired:
        _remove(pk)
        removed += 1
    folder = archive_dir()
    if folder.is_dir():
        kept = set(
            DataArchive.objects.exclude(status__in=[Status.EXPIRED, Status.FAILED]).values_list(
                "pk", flat=True
            )
        )
        for path in folder.glob("*.zip"):
            if path.stem.isdigit() and int(path.stem) not in kept:
                # A file whose row is gone or done with (a removal lost with its process).
                if now.timestamp() - path.stat().st_mtime > STALL_SECONDS:
                    path.unlink(missing_ok=True)
                    removed += 1
    return removed


def erase(user: User) -> None:
    """accounts.personal's eraser: the deleted account's archives go, their files after the
    commit (a step under way is waited for: it holds its row)."""
    pks = list(DataArchive.objects.filter(player=user).values_list("pk", flat=True))
    DataArchive.objects.filter(pk__in=pks).delete()
    transaction.on_commit(lambda: [_remove(pk) for pk in pks])
