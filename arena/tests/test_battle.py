"""Club battles on real PostgreSQL and Redis (RULES 12.7): opening one and its refusals, who
enters and for which club, a member leaving mid-battle, a club dissolved with a live battle,
and a battle of 3 clubs × 4 players played to the end over the game sockets, its scores
checked by hand against the N-best rule."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena import selectors, services
from arena.models import Arena, ArenaGame, Entry
from arena.running import arena_advance
from arena.services import ArenaError, ArenaOptions
from arena.tests.factories import on_page, tick
from clubs import services as clubs
from clubs.models import Club
from clubs.tests.factories import club_with
from games.models import Game, Status
from games.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db
application = URLRouter(websocket_urlpatterns)


def options(*, clubs_ids=(), top_n=5, club_only=False, **kw) -> ArenaOptions:
    return ArenaOptions(
        name=kw.get("name", "Battaglia di primavera"),
        description="",
        variant="chess",
        base_seconds=180,
        increment_seconds=2,
        starts_at=kw.get("starts_at", timezone.now() + timedelta(minutes=10)),
        opening_mode="free",
        thematic_opening=None,
        rated=False,
        floor=None,
        password="",
        duration_minutes=60,
        club_only=club_only,
        battle_club_ids=tuple(clubs_ids),
        battle_top_n=top_n,
    )


def three_clubs(size: int = 4) -> tuple[list[Club], list[list]]:
    rosters, found = [], []
    for letter in "ABC":
        players = [UserFactory(username=f"{letter.lower()}{i}") for i in range(size)]
        found.append(club_with(president=players[0], members=players[1:], short_name=letter * 2))
        rosters.append(players)
    return found, rosters


def test_a_battle_needs_two_to_ten_clubs_and_an_officer_of_one_of_them():
    (a, b, c), rosters = three_clubs(size=1)
    captain = rosters[0][0]
    with pytest.raises(ArenaError, match="da 2 a 10"):
        services.arena_create(opener=captain, data=options(clubs_ids=[a.pk]))
    with pytest.raises(ArenaError, match="da 3 a 10"):
        services.arena_create(opener=captain, data=options(clubs_ids=[a.pk, b.pk], top_n=2))
    outsider = UserFactory()
    with pytest.raises(ArenaError, match="consigliere"):
        services.arena_create(opener=outsider, data=options(clubs_ids=[a.pk, b.pk]))
    with pytest.raises(ArenaError, match="consigliere"):  # captain of A, battle of B and C
        services.arena_create(opener=captain, data=options(clubs_ids=[b.pk, c.pk]))
    assert not Arena.objects.exists()  # nothing half-saved
    arena = services.arena_create(opener=captain, data=options(clubs_ids=[a.pk, b.pk, c.pk]))
    assert arena.battle_top_n == 5 and arena.opened_by == captain
    assert set(arena.battle_clubs.values_list("club_id", flat=True)) == {a.pk, b.pk, c.pk}


def test_only_members_of_the_invited_clubs_enter_each_for_their_club():
    (a, b, c), rosters = three_clubs(size=2)
    arena = services.arena_create(opener=rosters[0][0], data=options(clubs_ids=[a.pk, b.pk]))
    entry = services.entry_enter(arena_id=arena.pk, player=rosters[1][1])
    assert entry.club_id == b.pk
    for stranger in (rosters[2][1], UserFactory()):  # of club C (not invited), of no club
        with pytest.raises(ArenaError, match="tra circoli"):
            services.entry_enter(arena_id=arena.pk, player=stranger)
    assert Entry.objects.filter(arena=arena).count() == 1


def test_a_member_leaving_mid_battle_is_refused_until_it_ends():
    (a, b, _c), rosters = three_clubs(size=2)
    arena = services.arena_create(opener=rosters[0][0], data=options(clubs_ids=[a.pk, b.pk]))
    player = rosters[1][1]
    services.entry_enter(arena_id=arena.pk, player=player)
    with pytest.raises(clubs.ClubError) as refused:
        clubs.member_leave(club_id=b.pk, user=player)
    assert refused.value.code == "committed" and arena.name in refused.value.message
    with pytest.raises(clubs.ClubError):  # nor removed by an officer
        clubs.member_remove(club_id=b.pk, by=rosters[1][0], user_id=player.pk)
    Arena.objects.filter(pk=arena.pk).update(status=Arena.Status.FINISHED)
    clubs.member_leave(club_id=b.pk, user=player)  # over: free to go


def test_a_club_with_a_live_battle_or_event_is_not_dissolved():
    (a, b, _c), rosters = three_clubs(size=1)
    services.arena_create(opener=rosters[0][0], data=options(clubs_ids=[a.pk, b.pk]))
    with pytest.raises(clubs.ClubError) as refused:
        clubs.club_dissolve(club_id=b.pk, by=rosters[1][0])
    assert refused.value.code == "live_event"
    assert Club.objects.get(pk=b.pk).dissolved_at is None


def test_an_event_for_the_club_lets_in_only_its_members_and_its_officer_organizes_it():
    officer, member, stranger = UserFactory(), UserFactory(), UserFactory()
    club = club_with(officers=[officer], members=[member])
    arena = services.arena_create(opener=officer, data=_club_only())
    assert arena.club == club and arena.opened_by == officer
    services.entry_enter(arena_id=arena.pk, player=member)
    with pytest.raises(ArenaError, match="Solo i soci"):
        services.entry_enter(arena_id=arena.pk, player=stranger)
    with pytest.raises(ArenaError, match="consiglieri"):  # a member opens none
        services.arena_create(opener=member, data=_club_only())
    with pytest.raises(ArenaError, match="evento aperto"):  # one live event per person
        services.arena_create(opener=officer, data=_club_only())


def _club_only() -> ArenaOptions:
    return replace(options(), club_only=True, battle_top_n=None, battle_club_ids=())


# --- the battle played to the end over the game sockets ------------------------------------------

STRENGTH = {"AA": 3, "BB": 2, "CC": 1}  # who wins a game: the player of the stronger club


async def _play(game_id: int, white, black, loser) -> None:
    """Both players at the board over their sockets; the loser resigns there."""
    sockets = {}
    for user in (white, black):
        socket = WebsocketCommunicator(application, f"/ws/game/{game_id}/")
        socket.scope["user"] = user
        assert (await socket.connect())[0]
        sockets[user.pk] = socket
    await sockets[loser.pk].send_json_to({"type": "resign"})
    watcher = sockets[white.pk if loser.pk == black.pk else black.pk]
    while True:
        message = await watcher.receive_json_from(timeout=10)
        if message.get("type") == "state" and message.get("status") != "live":
            assert message["reason"] == "resignation"
            break
    for socket in sockets.values():
        await socket.disconnect()


def points_by_hand(games_in_order: list[tuple[int, int]]) -> dict[int, int]:
    """RULES 8 by hand: a win 2, from the third win in a row 3, a loss 0 (no draws here)."""
    points: dict[int, int] = defaultdict(int)
    run: dict[int, int] = defaultdict(int)
    for winner, loser in games_in_order:
        run[winner] += 1
        points[winner] += 3 if run[winner] >= 3 else 2
        run[loser] = 0
        points[loser] += 0
    return points


@pytest.mark.django_db(transaction=True)
def test_a_battle_of_three_clubs_of_four_played_to_the_end(settings):
    settings.ARENA_PAIRING_COALESCE_SECONDS = 0  # a pass as soon as a game is scored
    clubs_found, rosters = three_clubs(size=4)
    club_of = {
        p.pk: c.short_name for c, roster in zip(clubs_found, rosters, strict=True) for p in roster
    }
    users = {p.pk: p for roster in rosters for p in roster}
    arena = services.arena_create(
        opener=rosters[0][0], data=options(clubs_ids=[c.pk for c in clubs_found], top_n=3)
    )
    for player in users.values():
        services.entry_enter(arena_id=arena.pk, player=player)
    now = timezone.now()
    for player in users.values():
        on_page(arena, player, now)  # every player has the arena's page open
    Arena.objects.filter(pk=arena.pk).update(starts_at=now, next_due_at=now)
    arena_advance(arena_id=arena.pk, now=now)  # the start pairs everybody

    played: list[tuple[int, int]] = []

    def live_games():
        return list(Game.objects.filter(arena_game__arena=arena, status=Status.LIVE).order_by("pk"))

    def play_all(games) -> None:
        for game in games:
            assert club_of[game.white_id] != club_of[game.black_id]  # RULES 12.7
            white, black = users[game.white_id], users[game.black_id]
            loser = white if STRENGTH[club_of[white.pk]] < STRENGTH[club_of[black.pk]] else black
            async_to_sync(_play)(game.pk, white, black, loser)
            played.append((black.pk if loser is white else white.pk, loser.pk))
        tick(timezone.now())  # the games scored, everybody waiting, the next pass

    assert len(live_games()) == 6  # the start pairs all 12, nobody with a teammate
    # Games are paired as soon as others end (RULES 8): played until everyone has 3.
    for _sweep in range(12):
        play_all(live_games())
        if min(Entry.objects.filter(arena=arena).values_list("games", flat=True)) >= 3:
            break
    # The arena ends (its clock moved to now): nobody new is paired; the games left are played.
    Arena.objects.filter(pk=arena.pk).update(
        starts_at=timezone.now() - timedelta(minutes=61), next_due_at=timezone.now()
    )
    while games := live_games():
        play_all(games)
    tick(timezone.now())
    arena.refresh_from_db()
    assert arena.status == Arena.Status.FINISHED

    # By hand: each player's points from the games in the order played, then each club's
    # three best summed (RULES 12.7), and the clubs ranked by that sum.
    points = points_by_hand(played)
    stored = dict(Entry.objects.filter(arena=arena).values_list("player_id", "points"))
    assert stored == {pk: points[pk] for pk in users}
    expected = {}
    for club, roster in zip(clubs_found, rosters, strict=True):
        best = sorted((points[p.pk] for p in roster), reverse=True)
        expected[club.short_name] = sum(best[:3])
    standings = selectors.battle_standings(arena)
    assert {row.club.short_name: row.score for row in standings} == expected
    assert [row.club.short_name for row in standings] == sorted(
        expected, key=lambda short: -expected[short]
    )
    assert [row.club.short_name for row in standings][0] == "AA"
    assert all(len(row.counted) == 3 for row in standings)
    # The results stay on each club's page.
    from clubs import registry

    for row in standings:
        (event,) = [e for e in registry.events_of(row.club.pk) if e.battle]
        assert f"{row.rank}° di 3 circoli, {row.score} punti" in event.result
    assert ArenaGame.objects.filter(arena=arena).count() == len(played)
