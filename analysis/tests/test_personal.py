"""A player's analysis requests in their data download (RULES 10.7, 14.6): each request with its
game, time, whether it counted and where the analysis stands, in the archive's account.json;
they go with the account, while the analysis stays with the game."""

from __future__ import annotations

import json
import zipfile

import pytest

from accounts import archive
from accounts.services import user_delete
from analysis import services
from analysis.models import AnalysisRequest, GameAnalysis
from analysis.tests.test_services import SCHOLAR, played

pytestmark = pytest.mark.django_db


def test_the_requests_are_in_the_data_archive_and_go_with_the_account(
    settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.VAR_DIR = tmp_path
    game = played(SCHOLAR)
    player = game.white
    with django_capture_on_commit_callbacks(execute=False):  # queued, not run
        services.analysis_request(user=player, game_id=game.pk)
    other = played(SCHOLAR)  # somebody else's request is not in this player's data
    with django_capture_on_commit_callbacks(execute=False):
        services.analysis_request(user=other.black, game_id=other.pk)
    asked = archive.archive_request(user=player)
    for _ in range(50):
        archive.archive_build_step(pk=asked.pk)
        asked.refresh_from_db()
        if asked.status == "ready":
            break
    assert asked.status == "ready"
    account = json.loads(zipfile.ZipFile(archive.archive_path(asked)).read("account.json"))
    [request] = account["analysis_requests"]
    assert request["game"] == game.pk and request["state"] == "queued"
    assert request["counted"] is True and request["asked_at"].startswith(str(game.created_at.year))
    # The account deleted: its requests go, the game's analysis stays for everyone.
    user_delete(user_id=player.pk)
    assert not AnalysisRequest.objects.filter(player=player).exists()
    assert GameAnalysis.objects.filter(game=game).exists()
    assert AnalysisRequest.objects.filter(player=other.black).count() == 1
