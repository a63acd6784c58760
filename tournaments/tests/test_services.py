"""Services: opening, editing, cancelling, joining and withdrawing (RULES 1, 4.1, 4.2, 7.2, 7.3)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.contrib.auth.hashers import check_password
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from accounts.tests.factories import UserFactory
from events.kinds import open_live_event
from games.rules import openings
from ratings.models import Rating
from tournaments import services
from tournaments.models import Registration, Tournament
from tournaments.services import TournamentError, TournamentOptions
from tournaments.tests.factories import RegistrationFactory, TournamentFactory

pytestmark = pytest.mark.django_db


def opts(**overrides) -> TournamentOptions:
    values = dict(
        name="Torneo",
        description="",
        variant="italian",
        base_seconds=300,
        increment_seconds=3,
        starts_at=timezone.now() + timedelta(hours=1),
        seats=16,
        minimum=4,
        threshold=7,
        extra_round=False,
        double_games=False,
        opening_mode="free",
        thematic_opening=None,
        rated=True,
        floor=None,
        password="",
    )
    values.update(overrides)
    return TournamentOptions(**values)


def refused(code: str, call, **kwargs) -> TournamentError:
    with pytest.raises(TournamentError) as caught:
        call(**kwargs)
    assert caught.value.code == code, caught.value.message
    return caught.value


# Opening ---------------------------------------------------------------------------------------


def test_create_stores_the_options_and_derives_the_cadence():
    opener = UserFactory()
    t = services.tournament_create(opener=opener, data=opts(floor=1400))
    assert t.opened_by == opener and t.cadence == "blitz" and t.floor == 1400 and t.rated
    assert t.registrations.count() == 0  # RULES 4.1: the opener is not registered


def test_bots_cannot_open():
    refused("bot", services.tournament_create, opener=UserFactory(is_bot=True), data=opts())
    assert not Tournament.objects.exists()


def test_guests_cannot_open():
    refused("guest", services.tournament_create, opener=AnonymousUser(), data=opts())


def test_one_live_event_per_person():
    opener = UserFactory()
    first = services.tournament_create(opener=opener, data=opts())
    error = refused("live_event", services.tournament_create, opener=opener, data=opts())
    assert error.event == first
    assert Tournament.objects.count() == 1
    # Another person may open theirs.
    services.tournament_create(opener=UserFactory(), data=opts())


@pytest.mark.parametrize("status", ["cancelled", "finished"])
def test_a_closed_event_frees_the_opener(status):
    opener = UserFactory()
    TournamentFactory(opened_by=opener, status=status)
    assert open_live_event(opener.pk) is None
    services.tournament_create(opener=opener, data=opts())


def test_a_running_event_still_blocks():
    opener = UserFactory()
    TournamentFactory(opened_by=opener, status="running")
    refused("live_event", services.tournament_create, opener=opener, data=opts())


def test_table_modes_refused_on_chess_by_the_service_too():
    refused(
        "opening_mode",
        services.tournament_create,
        opener=UserFactory(),
        data=opts(variant="chess", opening_mode="table1"),
    )


# RULES 7.3 ---------------------------------------------------------------------------------------


def test_class_3_draw_without_double_games_is_created_casual_without_floor():
    t = services.tournament_create(
        opener=UserFactory(), data=opts(opening_mode="table3", floor=1500)
    )
    assert (t.rated, t.floor, t.rated_switched_off) == (False, None, True)


def test_thematic_class_3_with_double_games_stays_rated():
    number = next(o.number for o in openings.table() if o.degree == 3)
    t = services.tournament_create(
        opener=UserFactory(),
        data=opts(opening_mode="thematic", thematic_opening=number, double_games=True, floor=1500),
    )
    assert (t.rated, t.floor, t.rated_switched_off, t.thematic_opening) == (
        True,
        1500,
        False,
        number,
    )


def test_switching_double_games_on_makes_it_rated_again():
    opener = UserFactory()
    t = services.tournament_create(opener=opener, data=opts(opening_mode="table_all"))
    assert not t.rated
    t = services.tournament_update(
        tournament_id=t.pk, by=opener, data=opts(opening_mode="table_all", double_games=True)
    )
    assert t.rated and not t.rated_switched_off


# Edit and cancel ----------------------------------------------------------------------------------


def test_only_the_opener_edits_and_cancels():
    t = TournamentFactory()
    other = UserFactory()
    refused("not_opener", services.tournament_update, tournament_id=t.pk, by=other, data=opts())
    refused("not_opener", services.tournament_cancel, tournament_id=t.pk, by=other)
    refused("not_opener", services.invite_regenerate, tournament_id=t.pk, by=other)
    t.refresh_from_db()
    assert t.status == "scheduled"


def test_opener_edits_until_the_start():
    t = TournamentFactory()
    services.tournament_update(tournament_id=t.pk, by=t.opened_by, data=opts(name="Nuovo"))
    t.refresh_from_db()
    assert t.name == "Nuovo"
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    refused("started", services.tournament_update, tournament_id=t.pk, by=t.opened_by, data=opts())
    refused("started", services.tournament_cancel, tournament_id=t.pk, by=t.opened_by)


def test_opener_cancels_and_staff_cancel_after_the_start():
    t = TournamentFactory()
    services.tournament_cancel(tournament_id=t.pk, by=t.opened_by)
    t.refresh_from_db()
    assert t.status == "cancelled" and t.cancelled_at is not None
    running = TournamentFactory(status="running")
    services.tournament_cancel(tournament_id=running.pk, by=UserFactory(is_staff=True), staff=True)
    running.refresh_from_db()
    assert running.status == "cancelled"


def test_seats_cannot_drop_below_the_registered():
    t = TournamentFactory(seats=4)
    for _ in range(4):
        RegistrationFactory(tournament=t)
    # 4 is the least the form allows; simulate a direct call with fewer.
    refused(
        "seats",
        services.tournament_update,
        tournament_id=t.pk,
        by=t.opened_by,
        data=replace(opts(seats=4, minimum=4), seats=3),
    )


def test_edit_keeps_the_password_when_none_given():
    opener = UserFactory()
    t = services.tournament_create(opener=opener, data=opts(password="segreta"))
    assert t.is_private and check_password("segreta", t.password_hash)
    assert "segreta" not in t.password_hash
    t = services.tournament_update(tournament_id=t.pk, by=opener, data=opts(password=None))
    assert check_password("segreta", t.password_hash)
    t = services.tournament_update(tournament_id=t.pk, by=opener, data=opts(password=""))
    assert not t.is_private


# Join and withdraw ---------------------------------------------------------------------------------


def test_join_and_withdraw():
    t = TournamentFactory()
    player = UserFactory()
    services.registration_join(tournament_id=t.pk, player=player)
    services.registration_join(tournament_id=t.pk, player=player)  # twice is harmless
    assert list(t.registrations.values_list("player", flat=True)) == [player.pk]
    services.registration_withdraw(tournament_id=t.pk, player=player)
    assert not t.registrations.exists()  # RULES 4.2: gone from the list at once
    refused("not_registered", services.registration_withdraw, tournament_id=t.pk, player=player)


def test_the_opener_joins_like_anyone():
    t = TournamentFactory()
    services.registration_join(tournament_id=t.pk, player=t.opened_by)
    assert t.registrations.filter(player=t.opened_by).exists()


def test_refused_guest_and_bot():
    t = TournamentFactory()
    refused("guest", services.registration_join, tournament_id=t.pk, player=AnonymousUser())
    refused("bot", services.registration_join, tournament_id=t.pk, player=UserFactory(is_bot=True))


def test_refused_when_full():
    t = TournamentFactory(seats=4)
    for _ in range(4):
        RegistrationFactory(tournament=t)
    refused("full", services.registration_join, tournament_id=t.pk, player=UserFactory())


def test_refused_below_the_floor_with_rating_and_floor():
    t = TournamentFactory(floor=1600, variant="italian", cadence="blitz")
    newcomer = UserFactory()  # 1500, the initial rating
    error = refused("floor", services.registration_join, tournament_id=t.pk, player=newcomer)
    assert "1500" in error.message and "1600" in error.message
    strong = UserFactory()
    Rating.objects.create(player=strong, variant="italian", cadence="blitz", value=1600)
    services.registration_join(tournament_id=t.pk, player=strong)  # at the floor: in
    # The floor is measured in the tournament's own pool only (RULES 7.2).
    other_pool = UserFactory()
    Rating.objects.create(player=other_pool, variant="italian", cadence="rapid", value=2000)
    refused("floor", services.registration_join, tournament_id=t.pk, player=other_pool)


def test_an_edit_never_leaves_an_entrant_under_the_floor():
    """Decision (RULES 7.2 is silent): nobody is removed by an edit; an edit that would put an
    entrant under the floor is refused, naming them, and changes nothing."""
    opener = UserFactory()
    t = services.tournament_create(opener=opener, data=opts(floor=1400))  # italian, blitz
    strong, newcomer = UserFactory(username="forte"), UserFactory(username="nuovo")
    Rating.objects.create(player=strong, variant="italian", cadence="blitz", value=1700)
    for player in (strong, newcomer):  # the newcomer has 1500, the initial rating
        services.registration_join(tournament_id=t.pk, player=player)
    error = refused(
        "floor", services.tournament_update, tournament_id=t.pk, by=opener, data=opts(floor=1600)
    )
    assert "nuovo" in error.message and "forte" not in error.message and "1600" in error.message
    # Another cadence is another rating: the strong player has none in rapid (1500).
    error = refused(
        "floor",
        services.tournament_update,
        tournament_id=t.pk,
        by=opener,
        data=opts(floor=1600, base_seconds=1200, name="Rapido"),
    )
    assert "2 iscritti" in error.message and "forte, nuovo" in error.message
    t.refresh_from_db()
    assert (t.floor, t.base_seconds, t.name) == (1400, 300, "Torneo")
    # A floor everyone meets, a casual tournament, and going private all keep everyone.
    services.tournament_update(tournament_id=t.pk, by=opener, data=opts(floor=1500))
    services.tournament_update(tournament_id=t.pk, by=opener, data=opts(rated=False, floor=1900))
    services.tournament_update(tournament_id=t.pk, by=opener, data=opts(password="segreta"))
    assert t.registrations.count() == 2


def test_refused_private_without_password_and_with_a_wrong_one():
    opener = UserFactory()
    t = services.tournament_create(opener=opener, data=opts(password="segreta"))
    player = UserFactory()
    refused("private", services.registration_join, tournament_id=t.pk, player=player)
    error = refused(
        "private",
        services.registration_join,
        tournament_id=t.pk,
        player=player,
        password="sbagliata",
    )
    assert "sbagliata" in error.message.lower()
    services.registration_join(tournament_id=t.pk, player=player, password="segreta")


def test_invite_link_joins_without_password_until_regenerated():
    opener = UserFactory()
    t = services.tournament_create(opener=opener, data=opts(password="segreta"))
    old = t.invite_token
    services.registration_join(tournament_id=t.pk, player=UserFactory(), invite_token=old)
    t = services.invite_regenerate(tournament_id=t.pk, by=opener)
    assert t.invite_token != old
    refused(
        "private",
        services.registration_join,
        tournament_id=t.pk,
        player=UserFactory(),
        invite_token=old,
    )
    services.registration_join(
        tournament_id=t.pk, player=UserFactory(), invite_token=t.invite_token
    )


@pytest.mark.parametrize("status", ["running", "finished", "cancelled"])
def test_door_shut_after_the_start(status):
    t = TournamentFactory(status=status)
    player = UserFactory()
    refused("started", services.registration_join, tournament_id=t.pk, player=player)


def test_door_shut_both_ways_at_the_start_time():
    t = TournamentFactory()
    inside = RegistrationFactory(tournament=t).player
    at_start = t.starts_at
    refused(
        "started",
        services.registration_join,
        tournament_id=t.pk,
        player=UserFactory(),
        now=at_start,
    )
    refused(
        "started", services.registration_withdraw, tournament_id=t.pk, player=inside, now=at_start
    )
    assert Registration.objects.filter(tournament=t, player=inside).exists()


def test_changes_are_pushed_after_commit(django_capture_on_commit_callbacks):
    from live import pushes
    from tournaments.broadcast import group_name

    t = TournamentFactory()
    with pushes.collected() as sent:
        with django_capture_on_commit_callbacks(execute=False) as hooks:
            services.registration_join(tournament_id=t.pk, player=UserFactory())
        assert sent == []  # nothing before commit
        for hook in hooks:
            hook()
    assert sent == [(group_name(t.pk), {"type": "tournament.changed", "round": 0})]
