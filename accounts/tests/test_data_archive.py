"""The data archive (RULES 10.7): asked on the account page, built by the worker a page of games
per task (accounts/archive.py), handed to its owner only, removed when kept long enough or
with the account. The worker's own run is tests/test_data_archive_worker.py."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import archive
from accounts.models import DataArchive
from accounts.tests.factories import PASSWORD, UserFactory
from games.models import Game
from games.tests.factories import open_game
from mail.models import Mail, Reason
from tests.concurrency import run_at_once

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_counters")]
DATA = reverse("accounts:account_data")


@pytest.fixture(autouse=True)
def archives_folder(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.DATA_ARCHIVE_CHUNK = 3
    return tmp_path / "archives"


def finished_games(user, n: int, variants=("chess", "italian")) -> list[Game]:
    games = []
    for i in range(n):
        colour = "white" if i % 2 else "black"
        game = open_game(variant_code=variants[i % len(variants)], **{colour: user})
        Game.objects.filter(pk=game.pk).update(status="finished", result="1-0")
        games.append(game)
    return games


def ask(user) -> DataArchive:
    """An archive asked for, not built (its task is sent after a commit this test never makes)."""
    return archive.archive_request(user=user)


def build(pk: int) -> list[int]:
    """Run the steps one by one, as the worker's task runs do; the games each wrote."""
    written = []
    while DataArchive.objects.filter(pk=pk, status__in=DataArchive.UNFINISHED).exists():
        before = DataArchive.objects.get(pk=pk).done
        archive.archive_build_step(pk=pk)
        written.append(DataArchive.objects.get(pk=pk).done - before)
    return written


def read(response) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_asking_builds_nothing_in_the_request(client, django_assert_max_num_queries):
    """The page's POST only asks: however many games, the request writes one row and no ZIP
    (the old view built the whole archive inside the request, 22 ms of CPU a game)."""
    user = UserFactory()
    finished_games(user, 8)
    client.force_login(user)
    with django_assert_max_num_queries(12):
        response = client.post(DATA)
    assert response.status_code == 302
    assert response["Content-Type"] != "application/zip"
    [asked] = DataArchive.objects.filter(player=user)
    assert asked.status == "requested" and asked.done == 0


def test_each_step_writes_one_page_at_most(django_assert_max_num_queries):
    """DATA_ARCHIVE_CHUNK (3 here) bounds what one task run does: no step writes more than a
    page of games, and a step's queries do not grow with the games (docs/operations.md)."""
    user = UserFactory(username="Dora")
    finished_games(user, 10)
    asked = ask(user)
    steps = 0
    while DataArchive.objects.filter(pk=asked.pk, status__in=DataArchive.UNFINISHED).exists():
        before = DataArchive.objects.get(pk=asked.pk).done
        # A few per registered section (the head step reads them all), never per game.
        with django_assert_max_num_queries(24):
            archive.archive_build_step(pk=asked.pk)
        assert DataArchive.objects.get(pk=asked.pk).done - before <= 3
        steps += 1
    # head, 4 pages of the list, tail, 2+2 pages of the PGN, 2+1 of the PDN... and the end.
    assert steps >= 10
    asked.refresh_from_db()
    assert asked.status == "ready" and asked.total == 20 and asked.done == 20


def test_the_archive_holds_what_the_download_held(client):
    user = UserFactory(username="Dora")
    for variant_code, colour in (("chess", "white"), ("italian", "black")):
        game = open_game(variant_code=variant_code, **{colour: user})
        Game.objects.filter(pk=game.pk).update(status="finished", result="1-0")
    finished_games(user, 5)
    build(ask(user).pk)
    client.force_login(user)
    ready = DataArchive.objects.get(player=user)
    response = client.get(reverse("accounts:account_data_download", args=[ready.pk]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "application/zip"
    stamp = timezone.localdate().isoformat()
    assert f'filename="circolo-Dora-{stamp}.zip"' in response["Content-Disposition"]
    files = read(response)
    assert files.testzip() is None
    assert set(files.namelist()) == {"account.json", "games.pgn", "games.pdn"}
    account = json.loads(files.read("account.json"))
    assert account["username"] == "Dora" and len(account["games"]) == 7
    assert [g["id"] for g in account["games"]] == sorted(g["id"] for g in account["games"])
    assert {"ratings", "tournaments", "arenas", "chat"} <= set(account)
    pgn, pdn = files.read("games.pgn").decode(), files.read("games.pdn").decode()
    assert '[White "Dora"]' in pgn and '[Black "Dora"]' in pdn
    assert pgn.count("[Event ") == 4 and pdn.count("[Event ") == 3


def test_an_empty_account_has_an_archive_too():
    user = UserFactory()
    asked = ask(user)
    build(asked.pk)
    files = zipfile.ZipFile(archive.archive_path(asked))
    account = json.loads(files.read("account.json"))
    assert account["games"] == [] and files.read("games.pgn") == b""


def test_only_its_owner_downloads_it(client):
    owner, other = UserFactory(), UserFactory()
    asked = ask(owner)
    build(asked.pk)
    url = reverse("accounts:account_data_download", args=[asked.pk])
    client.force_login(other)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302  # to the log-in page
    client.force_login(owner)
    assert client.get(url).status_code == 200


def test_one_at_a_time_and_so_many_a_day(client, settings):
    settings.DATA_ARCHIVE_DAILY = 2
    user = UserFactory()
    client.force_login(user)
    assert client.post(DATA).status_code == 302
    busy = client.post(DATA)
    assert busy.status_code == 409
    assert "già in preparazione" in busy.content.decode()
    build(DataArchive.objects.get(player=user).pk)
    assert client.post(DATA).status_code == 302
    build(DataArchive.objects.get(player=user, status="requested").pk)
    throttled = client.post(DATA)
    assert throttled.status_code == 429
    assert 'data-testid="archive-refused"' in throttled.content.decode()
    first = DataArchive.objects.filter(player=user).earliest("requested_at").requested_at
    again = timezone.localtime(first + timedelta(days=1))
    assert f"di nuovo dal {again.day} " in throttled.content.decode()
    assert DataArchive.objects.filter(player=user).count() == 2
    # One kept: the newer one replaced the older.
    assert DataArchive.objects.filter(player=user, status="ready").count() == 1
    # A day later the player may ask again.
    DataArchive.objects.filter(player=user).update(requested_at=timezone.now() - timedelta(days=1))
    assert client.post(DATA).status_code == 302


def test_the_page_asks_with_htmx_and_gets_its_section(client):
    """The page's form (hx-post) is answered with the data section alone, its refusal too."""
    user = UserFactory()
    client.force_login(user)
    htmx = {"HX-Request": "true"}
    asked = client.post(DATA, headers=htmx)
    assert asked.status_code == 200
    body = asked.content.decode()
    assert 'data-status="requested"' in body and "<html" not in body
    busy = client.post(DATA, headers=htmx)
    assert busy.status_code == 409
    body = busy.content.decode()
    assert 'data-testid="archive-refused"' in body and "<html" not in body
    assert DataArchive.objects.filter(player=user).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_asks_at_once_make_one_archive(monkeypatch):
    """Fails if the player's row is not held: both would count none unfinished, and the
    second would hit the constraint (an IntegrityError, a 500) instead of being told. The
    build is not started on commit here: the suite's eager task could otherwise finish the
    first archive before the second ask reads it, and a finished one does not refuse."""
    monkeypatch.setattr(archive, "build_soon", lambda: None)
    user = UserFactory()
    results = run_at_once(lambda: ask(user), lambda: ask(user), errors=True)
    refused = [r for r in results if not isinstance(r, DataArchive)]
    assert len(refused) == 1 and "già in preparazione" in str(refused[0].error)
    assert DataArchive.objects.filter(player=user).count() == 1


def test_a_failed_archive_does_not_count_and_can_be_asked_again(client, settings):
    settings.DATA_ARCHIVE_DAILY = 1
    user = UserFactory()
    asked = ask(user)
    # A step that kept killing its worker: begun MAX_ATTEMPTS times, never finished.
    DataArchive.objects.filter(pk=asked.pk).update(attempts=archive.MAX_ATTEMPTS)
    archive.archive_build_step(pk=asked.pk)
    asked.refresh_from_db()
    assert asked.status == "failed" and "never finished" in asked.error
    assert not archive.archive_path(asked).exists()
    client.force_login(user)
    page = client.get(reverse("accounts:account")).content.decode()
    assert 'data-status="failed"' in page and "Riprova" in page
    assert client.post(DATA).status_code == 302


def test_a_step_killed_midway_is_resumed_from_what_was_saved():
    user = UserFactory()
    finished_games(user, 7)
    asked = ask(user)
    for _ in range(4):
        archive.archive_build_step(pk=asked.pk)
    # The worker wrote a piece and died before saving its place: bytes past the saved length.
    with archive.archive_path(asked).open("ab") as file:
        file.write(b"half a page of games")
    build(asked.pk)
    files = zipfile.ZipFile(archive.archive_path(asked))
    assert files.testzip() is None
    assert len(json.loads(files.read("account.json"))["games"]) == 7


def test_a_lost_chain_is_resumed_by_beat_and_a_moving_one_is_left_alone():
    user = UserFactory()
    asked = ask(user)
    archive.archive_build_step(pk=asked.pk)
    asked.refresh_from_db()
    # Moving (a step a moment ago): beat's run starts no second chain.
    archive.archives_build(now=asked.advanced_at + timedelta(seconds=1))
    assert DataArchive.objects.get(pk=asked.pk).state == asked.state
    # Nothing moved for STALL_SECONDS: beat's run goes on with it (to the end, inline here).
    archive.archives_build(now=asked.advanced_at + timedelta(seconds=archive.STALL_SECONDS + 1))
    assert DataArchive.objects.get(pk=asked.pk).status == "ready"


def test_ready_mail_only_to_a_verified_address(mailbox):
    unverified = UserFactory(email="u@example.org", email_verified_at=None)
    verified = UserFactory(email="v@example.org", email_verified_at=timezone.now())
    for user in (unverified, verified):
        build(ask(user).pk)
    assert not Mail.objects.filter(user=unverified).exists()
    [mail] = Mail.objects.filter(user=verified)
    assert mail.reason == Reason.ARCHIVE and mail.is_account_mail
    assert mail.useful_until == DataArchive.objects.get(player=verified).expires_at


def test_the_page_shows_each_state(client):
    user = UserFactory()
    client.force_login(user)
    account = reverse("accounts:account")
    page = client.get(account).content.decode()
    assert 'data-status="none"' in page and 'data-testid="request-data"' in page
    asked = ask(user)
    archive.archive_build_step(pk=asked.pk)
    fragment = client.get(DATA, headers={"HX-Request": "true"}).content.decode()
    assert 'data-status="building"' in fragment and "hx-trigger" in fragment
    assert "<html" not in fragment
    build(asked.pk)
    page = client.get(account).content.decode()
    assert 'data-status="ready"' in page
    assert reverse("accounts:account_data_download", args=[asked.pk]) in page


def test_kept_for_its_hours_then_removed(settings):
    settings.DATA_ARCHIVE_KEEP_HOURS = 12  # less than the day its row counts for
    user = UserFactory()
    asked = ask(user)
    build(asked.pk)
    path = archive.archive_path(asked)
    assert path.exists()
    asked.refresh_from_db()
    assert asked.expires_at == asked.ready_at + timedelta(hours=settings.DATA_ARCHIVE_KEEP_HOURS)
    archive.archives_cleanup(now=asked.expires_at - timedelta(minutes=1))
    assert path.exists()
    archive.archives_cleanup(now=asked.expires_at)
    assert not path.exists()
    assert DataArchive.objects.get(pk=asked.pk).status == "expired"
    # A day after it was asked the row goes too.
    archive.archives_cleanup(now=asked.requested_at + timedelta(days=1, minutes=1))
    assert not DataArchive.objects.filter(pk=asked.pk).exists()


def test_deleting_the_account_removes_its_archives(client, django_capture_on_commit_callbacks):
    user = UserFactory()
    finished_games(user, 7)
    ready = ask(user)
    build(ready.pk)
    DataArchive.objects.filter(pk=ready.pk).update(requested_at=timezone.now() - timedelta(days=1))
    building = ask(user)
    for _ in range(3):
        archive.archive_build_step(pk=building.pk)
    assert archive.archive_path(ready).exists() and archive.archive_path(building).exists()
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("accounts:account_delete"), {"password": PASSWORD, "confirm": "on"}
        )
    assert response.status_code == 302
    assert not DataArchive.objects.filter(player=user).exists()
    assert not archive.archive_path(ready).exists()
    # The build under way notices and stops: its next step writes nothing.
    archive.archive_build_step(pk=building.pk)
    assert not archive.archive_path(building).exists()


def test_a_page_of_tournament_games_is_exported_in_a_few_queries():
    """Each game's event and round were asked one game at a time (a query for the event, one
    over all the tournament's pairings for its round): a page's queries grew with its games."""
    from games.personal import games_file
    from tournaments.tests.factories import TournamentFactory

    user = UserFactory()
    tournament = TournamentFactory()
    games = finished_games(user, 6, variants=("chess",))
    Game.objects.filter(pk__in=[g.pk for g in games]).update(
        event_type_id=_content_type_id(tournament), event_id=tournament.pk
    )
    page = games_file("pgn").page
    with CaptureQueriesContext(connection) as three:
        page(user, 0, 3)
    with CaptureQueriesContext(connection) as six:
        texts, _last = page(user, 0, 6)
    assert len(texts) == 6 and f'[Event "{tournament.name}"]' in texts[0]
    assert len(six.captured_queries) == len(three.captured_queries)


def _content_type_id(model) -> int:
    from django.contrib.contenttypes.models import ContentType

    return ContentType.objects.get_for_model(model).pk
