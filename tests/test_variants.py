"""The one list of variants (games/rules/variants.py, docs/adding-a-variant.md): the Django
choices are built from it, and variants declared only there, from a test (copies of Italian
draughts' and chess's rules under other codes), are picked up everywhere the list is used —
choices, rules lookup, export format, board, draw claims, openings, the game page and its
download."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.utils import translation

from games.models import Challenge, Game, PoolEntry, Variant
from games.rules import VARIANT_CODES, variant, variants
from games.rules.draughts import ITALIAN
from tests.processes import process_env

ROOT = Path(__file__).resolve().parents[1]


def test_the_django_choices_are_the_list():
    assert Variant.values == [v.code for v in variants.VARIANTS] == list(VARIANT_CODES)
    assert Variant.choices == [(v.code, v.label) for v in variants.VARIANTS]
    assert Variant.CHESS == "chess" and Variant.INTERNATIONAL.label == "Dama internazionale"
    with translation.override("en"):
        assert [str(label) for label in Variant.labels] == [
            "Chess",
            "Italian draughts",
            "English draughts",
            "International draughts",
        ]
    for model in (Game, Challenge, PoolEntry):
        assert model._meta.get_field("variant").choices == Variant.choices


def test_each_entry_is_its_rules():
    for entry in variants.VARIANTS:
        assert variant(entry.code) is entry.rules
        assert variants.info(entry.code) is entry
        assert entry.label == entry.rules.name_it
    assert variants.export_formats() == ("pgn", "pdn")
    with pytest.raises(KeyError, match="unknown variant 'go'"):
        variants.info("go")


def test_a_declaration_is_checked():
    def toy(**changes):
        fields = dict(
            rules=ITALIAN,
            label="Dama",
            export_format="pdn",
            board_kind="draughts",
            board_size=8,
            draw_claims=False,
            fid_table=None,
            eco_openings=False,
        )
        return variants.VariantInfo(**{**fields, **changes})

    with pytest.raises(ValueError, match="rules' own board"):
        toy(board_size=10)
    with pytest.raises(ValueError, match="export format"):
        toy(export_format="sgf")
    with pytest.raises(ValueError, match="column"):
        toy(fid_table="russian")
    with pytest.raises(ValueError, match="already declared"):
        variants.declare(toy())


# Run in a process of its own: the toys are declared before Django loads the apps (the choices
# are built then), and the process's rows are rolled back, never committed.
TOY = r"""
import copy, json
import django
from games.rules import variants
from games.rules.draughts import ITALIAN

from games.rules.chess_variant import Chess

toy = copy.copy(ITALIAN)  # Italian draughts' rules under another code
toy.code = "toy"
variants.declare(variants.VariantInfo(
    rules=toy, label="Dama giocattolo", export_format="pdn", board_kind="draughts",
    board_size=8, draw_claims=False, fid_table="italian", eco_openings=False,
))
# A new draughts variant as docs/adding-a-variant.md's steps 2 and 3 make one: a 6×6 board
# of the generator's flags, its start, its entry in the list; nothing else written anywhere.
from games.rules.draughts import Board, DraughtsVariant, _start

board6 = Board(size=6, first_row_starts_dark=True, flying_kings=False,
               men_capture_backwards=False, men_capture_kings=False, max_capture=True,
               italian_priorities=False, promotion_ends_capture=True, white_moves_first=True)
toy6 = DraughtsVariant(code="toy6", name="Toy draughts 6x6", name_it="Damina 6x6", board=board6,
                       start=_start(board6, range(4, 6), range(0, 2)), king_only_plies=40,
                       fmjd_endgame=False, pdn_game_type="0")
variants.declare(variants.VariantInfo(
    rules=toy6, label="Damina 6x6", export_format="pdn", board_kind="draughts",
    board_size=6, draw_claims=False, fid_table=None, eco_openings=False,
))
toy_chess = Chess()  # and chess's
toy_chess.code = "toychess"
variants.declare(variants.VariantInfo(
    rules=toy_chess, label="Scacchi giocattolo", export_format="pgn", board_kind="chessground",
    board_size=8, draw_claims=True, fid_table=None, eco_openings=True,
))
django.setup()

from django.apps import apps
from django.db import transaction
from django.db.migrations.autodetector import MigrationAutodetector
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.state import ProjectState
from django.test import Client
from django.test.utils import setup_test_environment
from django.urls import reverse
from django.utils import translation

from arena.forms import ArenaForm
from events import options
from events.forms import thematic_choices
from games import selectors
from games.forms import ChallengeForm, QuickPairingForm
from games.models import Variant
from games.rules import VARIANT_CODES, openings, variant
from games.services import challenges, pools
from games.tests.factories import open_game
from tournaments.forms import TournamentForm

setup_test_environment()
facts = {
    "codes": list(VARIANT_CODES),
    "services": [list(challenges.VARIANT_CODES), list(pools.VARIANT_CODES)],
    "choice": [Variant.TOY.value, str(Variant("toy").label)],
    "models": sorted(
        model._meta.label
        for model in apps.get_models()
        for field in model._meta.fields
        if field.name == "variant" and "toy" in dict(field.choices)
    ),
    "forms": [
        "toy" in dict(form.base_fields["variant"].choices)
        for form in (ChallengeForm, QuickPairingForm, TournamentForm, ArenaForm)
    ],
    "rules": variant("toy") is toy,
    "table": ["toy" in openings.TABLE_VARIANTS, options.mode_allowed("table1", "toy"),
              thematic_choices("toy") == thematic_choices("italian")],
    "geometry": selectors.board_geometry("toy") == selectors.board_geometry("italian"),
    "toy6": {
        "size": selectors.board_geometry("toy6")["size"],
        "squares": len(selectors.board_geometry("toy6")["squares"]),
        "first_moves": sorted(variant("toy6").legal_moves(variant("toy6").start_fen())),
        "table": options.mode_allowed("table1", "toy6"),
    },
}
translation.deactivate_all()  # as makemigrations compares: labels untranslated
loader = MigrationLoader(None, ignore_no_migrations=True)
changes = MigrationAutodetector(loader.project_state(), ProjectState.from_apps(apps)).changes(
    graph=loader.graph
)
facts["migrations"] = sorted(changes)

with transaction.atomic():
    for code in ("toy", "toychess", "toy6"):
        game = open_game(variant_code=code)
        client = Client()
        client.force_login(game.white)
        page = client.get(reverse("games:game", args=[game.pk])).content.decode()
        download = client.get(reverse("games:export", args=[game.pk]))
        text = download.content.decode()
        facts[code if code != "toy6" else "toy6_game"] = {
            "button": "PGN" if "download>PGN</a>" in page else "PDN" * ("download>PDN</a>" in page),
            "draw_claim": 'id="draw-claim"' in page,
            "chessground_css": "chessground.base.css" in page,
            "board": page.split('"kind": "')[1].split('"')[0],
            "chess_opening": 'id="chess-opening"' in page and "chess_opening" in page,
            "file": download["Content-Disposition"].rsplit(".", 1)[1].rstrip('"'),
            "headers": [tag for tag in ("GameType", "UTCDate") if f"[{tag} " in text],
        }
    transaction.set_rollback(True)
print(json.dumps(facts))
"""


@pytest.mark.django_db
def test_a_variant_declared_in_the_list_is_picked_up_everywhere():
    run = subprocess.run(
        [sys.executable, "-c", TOY],
        cwd=ROOT,
        env=process_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    facts = json.loads(run.stdout.strip().splitlines()[-1])
    assert facts["codes"] == [
        "chess", "italian", "english", "international", "toy", "toy6", "toychess"
    ]  # fmt: skip
    assert facts["services"] == [facts["codes"], facts["codes"]]
    assert facts["choice"] == ["toy", "Dama giocattolo"]
    assert facts["models"] == [
        "arena.Arena",
        "games.Challenge",
        "games.Game",
        "games.PoolEntry",
        "otb.OtbTournament",
        "ratings.Rating",
        "ratings.RatingPeriod",
        "teams.League",
        "teams.TeamMatch",
        "tournaments.Tournament",
    ]
    assert facts["forms"] == [True, True, True, True]
    assert facts["rules"] is True
    assert facts["table"] == [True, True, True]
    assert facts["geometry"] is True
    assert facts["toy"] == {
        "button": "PDN",
        "draw_claim": False,
        "chessground_css": False,
        "board": "draughts",
        "chess_opening": False,
        "file": "pdn",
        "headers": ["GameType"],
    }
    assert facts["toychess"] == {
        "button": "PGN",
        "draw_claim": True,
        "chessground_css": True,
        "board": "chessground",
        "chess_opening": True,
        "file": "pgn",
        "headers": ["UTCDate"],
    }
    # A 6×6 board made as the guide says: 18 squares, White's four men each with a move, no
    # F.I.D. table; its game page draws it, its download is PDN.
    assert facts["toy6"]["size"] == 6 and facts["toy6"]["squares"] == 18
    assert len(facts["toy6"]["first_moves"]) >= 3 and facts["toy6"]["table"] is False
    assert facts["toy6_game"] == facts["toy"]
    # What the list cannot do on its own: the choices are in the migrations, so a new variant
    # comes with one migration for these apps.
    assert facts["migrations"] == ["arena", "games", "otb", "ratings", "teams", "tournaments"]
