"""The clubs' services on real PostgreSQL (RULES 12): founding, requests, roles, leaving,
dissolving, and each refusal of the issue's bad-input list with nothing half-saved."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from accounts import services as accounts
from accounts.tests.factories import UserFactory
from clubs import selectors, services
from clubs.models import Club, EndReason, JoinRequest, Membership, RequestStatus, Role
from clubs.services import ClubData, ClubError
from clubs.tests.factories import club_with
from mail.models import Mail, Reason
from tests.concurrency import Raised, run_at_once

pytestmark = pytest.mark.django_db


def data(name="Circolo Scacchi Milano", short="CSM", **fields) -> ClubData:
    return ClubData(name=name, short_name=short, city=fields.get("city", "Milano"), province="MI")


def test_an_empty_name_is_one_error_and_a_name_of_no_letter_another():
    from clubs.forms import ClubForm

    form = ClubForm(data={"name": "", "short_name": "AB", "city": "Milano", "province": "MI"})
    assert not form.is_valid() and form.errors["name"] == ["Questo campo è obbligatorio."]
    form = ClubForm(data={"name": "—·—", "short_name": "AB", "city": "Milano", "province": "MI"})
    assert not form.is_valid()
    assert form.errors["name"] == ["Il nome deve contenere lettere o cifre."]


def test_a_player_founds_a_club_and_is_its_president():
    founder = UserFactory()
    club = services.club_found(founder=founder, data=data())
    assert club.name_key == "circolo scacchi milano" and club.short_name == "CSM"
    membership = selectors.current_membership(user_id=founder.pk)
    assert membership.club == club and membership.role == Role.PRESIDENT


@pytest.mark.parametrize(
    "clash", ["circolo scacchi milano", "CIRCOLO SCACCHI MILANO", "Сircolo Scacchi Milanо"]
)
def test_a_name_clash_by_case_or_look_alike_letters_is_refused(clash):
    services.club_found(founder=UserFactory(), data=data())
    other = UserFactory()
    with pytest.raises(ValidationError) as refused:
        services.club_found(founder=other, data=data(name=clash, short="XYZ"))
    assert "Esiste già un circolo con questo nome" in str(refused.value)
    assert Club.objects.count() == 1
    assert not Membership.objects.filter(user=other).exists()  # nothing half-saved


def test_a_short_name_clash_is_refused():
    services.club_found(founder=UserFactory(), data=data())
    with pytest.raises(ValidationError) as refused:
        services.club_found(founder=UserFactory(), data=data(name="Altro circolo", short="csm"))
    assert "sigla è già" in str(refused.value)


def test_a_second_club_is_refused_to_a_member_of_one():
    founder = UserFactory()
    services.club_found(founder=founder, data=data())
    with pytest.raises(ClubError) as refused:
        services.club_found(founder=founder, data=data(name="Secondo circolo", short="SEC"))
    assert refused.value.code == "in_a_club"
    assert Club.objects.count() == 1


def test_a_dissolved_clubs_name_is_free_again():
    founder = UserFactory()
    club = services.club_found(founder=founder, data=data())
    services.club_dissolve(club_id=club.pk, by=founder)
    again = services.club_found(founder=UserFactory(), data=data())
    assert again.pk != club.pk


def test_a_request_accepted_makes_a_member_and_the_player_is_told():
    officer, player = UserFactory(), UserFactory(verified=True)
    club = club_with(officers=[officer])
    request = services.request_create(club_id=club.pk, user=player)
    services.request_decide(request_id=request.pk, by=officer, accept=True)
    assert selectors.is_member(club_id=club.pk, user_id=player.pk)
    request.refresh_from_db()
    assert request.status == RequestStatus.ACCEPTED and request.decided_by == officer
    assert selectors.decisions_to_tell(user=player) == [request]  # the site's notice
    mail = Mail.objects.get(user=player, reason=Reason.CLUB)
    assert mail.context["accepted"] is True and mail.context["club_name"] == club.name


def test_a_request_refused_tells_the_player_and_makes_no_member():
    officer, player = UserFactory(), UserFactory(verified=True)
    club = club_with(officers=[officer])
    request = services.request_create(club_id=club.pk, user=player)
    services.request_decide(request_id=request.pk, by=officer, accept=False)
    assert not selectors.is_member(club_id=club.pk, user_id=player.pk)
    assert selectors.decisions_to_tell(user=player)[0].status == RequestStatus.REFUSED
    services.notice_seen(user=player, request_id=request.pk)
    assert selectors.decisions_to_tell(user=player) == []


def test_a_member_decides_no_request():
    member, player = UserFactory(), UserFactory()
    club = club_with(members=[member])
    request = services.request_create(club_id=club.pk, user=player)
    with pytest.raises(ClubError) as refused:
        services.request_decide(request_id=request.pk, by=member, accept=True)
    assert refused.value.code == "not_officer"
    assert JoinRequest.objects.get(pk=request.pk).status == RequestStatus.PENDING


def test_joining_while_in_a_club_is_refused():
    player = UserFactory()
    club_with(members=[player])
    other = club_with()
    with pytest.raises(ClubError) as refused:
        services.request_create(club_id=other.pk, user=player)
    assert refused.value.code == "in_a_club" and "esci prima" in refused.value.message
    assert not JoinRequest.objects.filter(user=player).exists()


def test_accepting_a_player_who_joined_another_club_meanwhile_is_refused():
    officer, player = UserFactory(), UserFactory()
    club = club_with(officers=[officer])
    request = services.request_create(club_id=club.pk, user=player)
    club_with(members=[player])  # joined elsewhere in the meantime
    with pytest.raises(ClubError) as refused:
        services.request_decide(request_id=request.pk, by=officer, accept=True)
    assert refused.value.code == "in_a_club"
    assert JoinRequest.objects.get(pk=request.pk).status == RequestStatus.PENDING


def test_an_officer_removing_the_president_is_refused():
    president, officer = UserFactory(), UserFactory()
    club = club_with(president=president, officers=[officer])
    with pytest.raises(ClubError) as refused:
        services.member_remove(club_id=club.pk, by=officer, user_id=president.pk)
    assert refused.value.code == "president"
    assert selectors.membership_of(club_id=club.pk, user_id=president.pk).role == Role.PRESIDENT


def test_only_the_president_removes_an_officer_and_officers_remove_members():
    president, officer, other_officer, member = (UserFactory() for _ in range(4))
    club = club_with(president=president, officers=[officer, other_officer], members=[member])
    with pytest.raises(ClubError) as refused:
        services.member_remove(club_id=club.pk, by=officer, user_id=other_officer.pk)
    assert refused.value.code == "not_president"
    services.member_remove(club_id=club.pk, by=officer, user_id=member.pk)
    services.member_remove(club_id=club.pk, by=president, user_id=other_officer.pk)
    ended = Membership.objects.get(club=club, user=member)
    assert ended.left_at is not None and ended.end_reason == EndReason.REMOVED


def test_the_president_hands_on_and_stays_an_officer():
    president, member = UserFactory(), UserFactory()
    club = club_with(president=president, members=[member])
    services.president_hand_on(club_id=club.pk, by=president, user_id=member.pk)
    assert selectors.membership_of(club_id=club.pk, user_id=member.pk).role == Role.PRESIDENT
    assert selectors.membership_of(club_id=club.pk, user_id=president.pk).role == Role.OFFICER


def test_the_president_leaves_only_after_handing_on():
    president, member = UserFactory(), UserFactory()
    club = club_with(president=president, members=[member])
    with pytest.raises(ClubError) as refused:
        services.member_leave(club_id=club.pk, user=president)
    assert refused.value.code == "president"
    services.member_leave(club_id=club.pk, user=member)
    assert selectors.current_membership(user_id=member.pk) is None
    # The history keeps the row (RULES 12.3: "member for the season" is read from the dates).
    assert Membership.objects.get(user=member).end_reason == EndReason.LEFT


def test_an_officer_mutes_a_member_in_the_clubs_room_not_another_officer():
    officer, other, member = UserFactory(), UserFactory(), UserFactory()
    club = club_with(officers=[officer, other], members=[member])
    services.chat_mute_set(club_id=club.pk, by=officer, user_id=member.pk, muted=True)
    assert selectors.membership_of(club_id=club.pk, user_id=member.pk).chat_muted
    with pytest.raises(ClubError):
        services.chat_mute_set(club_id=club.pk, by=officer, user_id=other.pk, muted=True)


def test_member_at_reads_the_season_from_the_dates():
    member = UserFactory()
    club = club_with(members=[member])
    joined = Membership.objects.get(user=member).joined_at
    services.member_leave(club_id=club.pk, user=member)
    left = Membership.objects.get(user=member).left_at
    assert selectors.member_at(club_id=club.pk, user_id=member.pk, at=joined)
    assert not selectors.member_at(club_id=club.pk, user_id=member.pk, at=left)


def test_deleting_an_account_leaves_a_tombstone_and_hands_the_presidency_on():
    president, officer, member = UserFactory(), UserFactory(), UserFactory()
    club = club_with(president=president, officers=[officer], members=[member])
    accounts.user_delete(user_id=president.pk)
    gone = Membership.objects.select_related("user").get(user=president)
    assert gone.end_reason == EndReason.ACCOUNT_DELETED
    assert gone.user.username.startswith("giocatore cancellato")
    assert selectors.membership_of(club_id=club.pk, user_id=officer.pk).role == Role.PRESIDENT
    assert gone in selectors.history(club)


def test_the_last_members_deletion_dissolves_the_club():
    president = UserFactory()
    club = club_with(president=president)
    accounts.user_delete(user_id=president.pk)
    club.refresh_from_db()
    assert club.dissolved_at is not None


def test_the_data_download_has_the_clubs():
    from accounts import personal

    member = UserFactory()
    club = club_with(members=[member])
    section = personal.sections(member)["clubs"]
    assert section["memberships"][0]["club"] == club.name


@pytest.mark.django_db(transaction=True)
def test_two_clubs_accepting_one_player_at_once_make_one_membership():
    """Fails if the player's row is not locked before the one-club check (both would pass)."""
    a_officer, b_officer, player = UserFactory(), UserFactory(), UserFactory()
    a, b = club_with(officers=[a_officer]), club_with(officers=[b_officer])
    request = services.request_create(club_id=a.pk, user=player)
    link = services.invite_create(club_id=b.pk, by=_verified(b_officer), uses=5, days=1)
    results = run_at_once(
        lambda: services.request_decide(request_id=request.pk, by=a_officer, accept=True),
        lambda: services.join_by_link(token=link.token, user=player),
        errors=True,
    )
    assert sum(not isinstance(r, Raised) for r in results) == 1
    assert Membership.objects.filter(user=player, left_at=None).count() == 1
    link.refresh_from_db()
    # The link's use was counted only if its join went through.
    assert link.uses == (0 if isinstance(results[1], Raised) else 1)


def _verified(user):
    from django.utils import timezone

    user.email_verified_at = timezone.now()
    user.save(update_fields=["email_verified_at"])
    return user
