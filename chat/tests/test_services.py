"""The chat's rules (docs/rules.md §9) on PostgreSQL, counted in the real Redis."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.utils import timezone

from accounts import personal
from accounts.tests.factories import UserFactory
from accounts.tests.test_login_throttle import redis_down  # noqa: F401 - a fixture
from arena.tests.factories import ArenaFactory
from chat import rooms, selectors, services
from chat.models import Message, Report
from chat.services import ChatError
from games.models import Game
from games.services import game_resign
from games.tests.factories import open_game
from live import locks
from tournaments.models import Tournament
from tournaments.tests.factories import TournamentFactory

pytestmark = pytest.mark.django_db


def viewer(user) -> rooms.Viewer:
    return rooms.viewer_of(user)


def parts(kind, pk, user) -> list[str]:
    return [room.part for room in rooms.place_rooms(kind, pk, viewer(user))]


def refused(code: str, func, **kwargs) -> ChatError:
    with pytest.raises(ChatError) as caught:
        func(**kwargs)
    assert caught.value.code == code, caught.value.message
    return caught.value


def test_text_is_kept_as_typed_without_control_characters():
    assert services.clean_text("  ciao\nAnna\t<b>!</b>  ") == "ciao Anna <b>!</b>"
    assert services.clean_text("è" * 200) == "è" * 200
    for bad in ("", "   ", "\n\r", None, 7):
        with pytest.raises(ChatError, match="write something"):
            services.clean_text(bad)
    with pytest.raises(ChatError) as caught:
        services.clean_text("x" * 201)
    assert (caught.value.code, caught.value.data) == ("too_long", {"max": 200})


def test_format_characters_go_from_a_line_but_the_zero_width_joiner():
    """RULES 9.2, as names refuse them: a right-to-left override (U+202E) made "gnp.exe" read
    "exe.png", isolates, zero-width spaces and tags hid or reordered text."""
    assert services.clean_text("ciao \u202eeliF\u202c fine") == "ciao eliF fine"
    assert services.clean_text("a\u2066b\u2069c\u200bd\ufeffe\U000e0041") == "abcde"
    # The joiner of emoji sequences stays: a family is one picture.
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert services.clean_text(f"la mia {family}") == f"la mia {family}"
    with pytest.raises(ChatError, match="write something"):
        services.clean_text("\u202e\u200b\u2066")


def test_a_rated_games_players_read_only_their_own_room_until_the_end():
    game = open_game(rated=True)
    white, black, watcher = game.white, game.black, UserFactory()
    assert parts("game", game.pk, white) == ["players"]
    assert parts("game", game.pk, watcher) == ["spectators"]
    assert parts("game", game.pk, None) == ["spectators"]
    refused("no_room", services.say, kind="game", pk=game.pk, part="spectators",
            viewer=viewer(white), text="aiuto?")  # fmt: skip
    refused("no_room", services.say, kind="game", pk=game.pk, part="players",
            viewer=viewer(watcher), text="ciao")  # fmt: skip
    game_resign(game_id=game.pk, user_id=black.pk)
    assert parts("game", game.pk, white) == ["players", "spectators"]
    services.say(kind="game", pk=game.pk, part="spectators", viewer=viewer(white), text="gg")


def test_an_event_game_is_shielded_even_casual_and_a_casual_game_is_not():
    casual = open_game(rated=False)
    assert parts("game", casual.pk, casual.white) == ["players", "spectators"]
    tournament = TournamentFactory()
    event_game = open_game(rated=False)
    Game.objects.filter(pk=event_game.pk).update(
        event_type=ContentType.objects.get_for_model(Tournament), event_id=tournament.pk
    )
    assert parts("game", event_game.pk, event_game.black) == ["players"]


def test_guests_read_and_never_write_and_unknown_places_are_none():
    tournament = TournamentFactory()
    assert parts("tournament", tournament.pk, None) == ["event"]
    refused("sign_in", services.say, kind="tournament", pk=tournament.pk, part="event",
            viewer=viewer(None), text="ciao")  # fmt: skip
    assert rooms.place_rooms("tournament", 10**9, viewer(None)) is None
    assert rooms.place_rooms("game", 10**9, viewer(None)) is None
    assert rooms.place_rooms("nonsense", 1, viewer(None)) is None
    assert Message.objects.count() == 0


def test_a_line_is_kept_with_its_room_and_read_back_in_order():
    arena = ArenaFactory()
    anna, bruno = UserFactory(), UserFactory()
    for who, text in ((anna, "buonasera"), (bruno, "ciao a tutti"), (anna, "<i>forza</i>")):
        services.say(kind="arena", pk=arena.pk, part="event", viewer=viewer(who), text=text)
    lines = selectors.history(rooms.event_room("arena", arena.pk), "event")
    assert [(line["author"]["name"], line["text"]) for line in lines] == [
        (anna.username, "buonasera"),
        (bruno.username, "ciao a tutti"),
        (anna.username, "<i>forza</i>"),
    ]


def test_six_lines_in_ten_seconds_are_one_too_many():
    tournament = TournamentFactory()
    anna = UserFactory()
    say = dict(kind="tournament", pk=tournament.pk, part="event", viewer=viewer(anna))
    for n in range(5):
        services.say(text=f"riga {n}", **say)
    error = refused("too_fast", services.say, text="la sesta", **say)
    assert 0 < error.data["wait"] <= 10
    assert Message.objects.count() == 5
    # Bad lines are not counted: a typo costs nothing.
    cache.clear()
    for _n in range(6):
        refused("empty", services.say, text=" ", **say)
    services.say(text="ancora io", **say)


def test_with_redis_away_a_line_is_refused_and_nothing_written(redis_down):  # noqa: F811
    tournament = TournamentFactory()
    refused("unavailable", services.say, kind="tournament", pk=tournament.pk, part="event",
            viewer=viewer(UserFactory()), text="ciao")  # fmt: skip
    assert Message.objects.count() == 0


def test_a_silenced_player_reads_but_does_not_write_until_the_end():
    tournament, anna, staff = TournamentFactory(), UserFactory(), UserFactory(is_staff=True)
    until = timezone.now() + timedelta(hours=1)
    services.silence(user_id=anna.pk, until=until, by_id=staff.pk)
    error = refused("silenced", services.say, kind="tournament", pk=tournament.pk, part="event",
                    viewer=viewer(anna), text="ciao")  # fmt: skip
    assert error.data["until"] == until.isoformat()
    assert parts("tournament", tournament.pk, anna) == ["event"]
    later = timezone.now() + timedelta(hours=2)
    assert services.silenced_until(anna.pk, now=later) is None


def test_the_organizer_closes_and_opens_the_event_room_and_nobody_else_can():
    tournament = TournamentFactory()
    organizer, anna, staff = tournament.opened_by, UserFactory(), UserFactory(is_staff=True)
    place = dict(kind="tournament", pk=tournament.pk)
    services.say(part="event", viewer=viewer(anna), text="prima", **place)
    refused("not_organizer", services.set_closed, viewer=viewer(anna), closed=True, **place)
    refused("no_room", services.set_closed, viewer=viewer(anna), closed=True, kind="game", pk=1)
    services.set_closed(viewer=viewer(organizer), closed=True, **place)
    (room,) = rooms.place_rooms("tournament", tournament.pk, viewer(anna))
    assert room.closed and not room.closable
    refused("closed", services.say, part="event", viewer=viewer(anna), text="dopo", **place)
    services.set_closed(viewer=viewer(staff), closed=False, **place)
    services.say(part="event", viewer=viewer(anna), text="dopo", **place)
    texts = [line["text"] for line in selectors.history(room.key, "event")]
    assert texts == ["prima", "dopo"]


def test_muting_hides_a_players_lines_from_the_muter_only():
    arena = ArenaFactory()
    anna, bruno, carla = UserFactory(), UserFactory(), UserFactory()
    services.say(kind="arena", pk=arena.pk, part="event", viewer=viewer(anna), text="uffa")
    assert services.mute(user_id=bruno.pk, muted_id=anna.pk) == [anna.pk]
    services.mute(user_id=bruno.pk, muted_id=anna.pk)  # twice is once
    key = rooms.event_room("arena", arena.pk)
    muted = frozenset(selectors.muted_ids(bruno.pk))
    assert selectors.history(key, "event", muted) == []
    assert len(selectors.history(key, "event", frozenset(selectors.muted_ids(carla.pk)))) == 1
    refused("no_player", services.mute, user_id=bruno.pk, muted_id=bruno.pk)
    refused("no_player", services.mute, user_id=bruno.pk, muted_id="anna")
    refused("no_player", services.mute, user_id=bruno.pk, muted_id=10**9)
    assert services.unmute(user_id=bruno.pk, muted_id=anna.pk) == []


def test_a_report_is_once_per_player_and_only_of_a_line_one_can_read():
    game = open_game(rated=True)
    watcher, other = UserFactory(), UserFactory()
    private = services.say(kind="game", pk=game.pk, part="players", viewer=viewer(game.white),
                           text="solo per te")  # fmt: skip
    public = services.say(kind="game", pk=game.pk, part="spectators", viewer=viewer(watcher),
                          text="che mossa")  # fmt: skip
    place = dict(kind="game", pk=game.pk)
    refused("no_line", services.report, viewer=viewer(other), line_id=private["line"], **place)
    refused("no_line", services.report, viewer=viewer(watcher), line_id=public["line"], **place)
    refused("no_line", services.report, viewer=viewer(other), line_id="x", **place)
    refused("sign_in", services.report, viewer=viewer(None), line_id=public["line"], **place)
    services.report(viewer=viewer(other), line_id=public["line"], **place)
    services.report(viewer=viewer(other), line_id=public["line"], **place)
    services.report(viewer=viewer(game.black), line_id=private["line"], **place)
    assert Report.objects.count() == 2


def test_a_removed_line_is_gone_from_every_page():
    tournament, anna = TournamentFactory(), UserFactory()
    line = services.say(kind="tournament", pk=tournament.pk, part="event", viewer=viewer(anna),
                        text="brutta parola")  # fmt: skip
    assert services.remove_lines([line["line"]]) == 1
    assert services.remove_lines([line["line"]]) == 0
    assert selectors.history(rooms.event_room("tournament", tournament.pk), "event") == []


def test_a_players_lines_go_with_their_data_and_their_account():
    tournament, anna = TournamentFactory(), UserFactory()
    services.say(kind="tournament", pk=tournament.pk, part="event", viewer=viewer(anna),
                 text="ciao")  # fmt: skip
    section = personal.sections(anna)["chat"]
    assert [(line["room"], line["text"]) for line in section] == [
        (f"tournament:{tournament.pk}", "ciao")
    ]
    with locks.atomic():  # erasers run in the deleting transaction (accounts.personal)
        personal.erase(anna)
    assert not Message.objects.filter(author=anna).exists()
