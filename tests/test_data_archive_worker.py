"""The data archive built by the real Celery worker (RULES 1.4): asked by the page, built off
the request by the worker's chain of steps, mailed to the verified address through the suite's
SMTP server, downloaded by its owner."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import DataArchive
from accounts.tests.factories import UserFactory
from games.models import Game
from games.tests.factories import open_game
from harness import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_worker_builds_the_archive_and_mails_its_owner(client, background, mailbox):
    from config.celery import app

    user = UserFactory(username="Vera", email="vera@example.org", email_verified_at=timezone.now())
    for i in range(5):
        game = open_game(variant_code=("chess", "italian")[i % 2], white=user)
        Game.objects.filter(pk=game.pk).update(status="finished", result="1-0")
    client.force_login(user)
    # The task goes through Redis to the suite's worker, not inline in this process.
    app.conf.task_always_eager = False
    try:
        response = client.post(reverse("accounts:account_data"))
    finally:
        app.conf.task_always_eager = True
    assert response.status_code == 302
    asked = DataArchive.objects.get(player=user)
    wait_until(
        lambda: DataArchive.objects.get(pk=asked.pk).status == "ready",
        timeout=30,
        what="the archive built by the worker",
    )
    [mail] = mailbox.wait_for("vera@example.org")
    assert mail.subject == "I tuoi dati sono pronti"
    assert "/accounts/settings/" in mail.text
    response = client.get(reverse("accounts:account_data_download", args=[asked.pk]))
    files = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert len(json.loads(files.read("account.json"))["games"]) == 5
    assert files.read("games.pgn").decode().count("[Event ") == 3
