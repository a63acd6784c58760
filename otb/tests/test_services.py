"""The arbiter's table's services (RULES 13): each refusal a clear message with nothing
saved, corrections, prohibited pairings and overrides kept in the round's record."""

from __future__ import annotations

import re
from datetime import date

import pytest

from accounts.tests.factories import UserFactory
from events.kinds import open_live_event
from events.pairing.trf import read_trf
from otb import selectors, services
from otb.models import OtbBoard, OtbBye, OtbPlayer
from otb.rules import PlayerRow
from otb.services import OtbError, OtbOptions
from otb.trf import otb_trf

pytestmark = pytest.mark.django_db


def options(**changes) -> OtbOptions:
    values = dict(
        name="Sociale",
        variant="chess",
        cadence="rapid",
        time_control="15'+10\"",
        format_choice="swiss",
        rounds_wanted=4,
        venue="Sede",
        starts_on=date(2026, 12, 1),
        ends_on=date(2026, 12, 1),
        prohibited_rounds=0,
        prohibit_club=False,
    )
    values.update(changes)
    return OtbOptions(**values)


def field(organizer, n: int = 8, **changes):
    tournament = services.otb_create(organizer=organizer, data=options(**changes))
    rows = "\n".join(f"Gioc{i};N;{2000 - 10 * i};F{i % 2}" for i in range(n))
    services.players_import(
        tournament_id=tournament.pk,
        by=organizer,
        text=f"cognome;nome;elo_italia;famiglia\n{rows}\n",
    )
    return tournament


def type_all(tournament, by, number, typed="1"):
    for board in tournament.rounds.get(number=number).boards.exclude(black=None):
        services.result_set(
            tournament_id=tournament.pk, by=by, number=number, board=board.board, typed=typed
        )


def test_an_otb_tournament_is_no_live_event_of_its_organizer():
    # RULES 13.1: no game on the site, no clock: the one-live-event rule (RULES 1) ignores it.
    organizer = UserFactory()
    field(organizer)
    assert open_live_event(organizer.pk) is None


def test_a_csv_with_a_broken_line_names_it_and_imports_nothing():
    organizer = UserFactory()
    tournament = services.otb_create(organizer=organizer, data=options())
    text = "cognome;nome;elo_italia\nRossi;Mario;1800\nBianchi;Anna;milleotto\nVerdi;Luca;1700\n"
    with pytest.raises(OtbError, match="riga 3: elo_italia: «milleotto» non è un numero"):
        services.players_import(tournament_id=tournament.pk, by=organizer, text=text)
    assert tournament.players.count() == 0
    with pytest.raises(OtbError, match="Riga 2: nessun giocatore del sito si chiama"):
        services.players_import(
            tournament_id=tournament.pk, by=organizer, text="cognome;utente\nRossi;nessuno\n"
        )
    assert tournament.players.count() == 0


def test_a_site_account_gives_its_rating_when_none_is_typed():
    organizer, member = UserFactory(), UserFactory(username="socio")
    tournament = services.otb_create(organizer=organizer, data=options())
    services.players_import(
        tournament_id=tournament.pk,
        by=organizer,
        text="cognome;utente;elo_italia\nSocio;socio;\nAltro;;1620\n",
    )
    altro, socio = tournament.players.order_by("last_name")
    # RULES 7.1: the site's initial rating, for a member with no game yet.
    assert socio.user == member and socio.national_rating == 1500 and altro.national_rating == 1620


def test_only_the_organizer_and_co_arbiters_act():
    organizer, helper, stranger = UserFactory(), UserFactory(username="aiuto"), UserFactory()
    tournament = field(organizer)
    row = PlayerRow(line=0, last_name="Nuovo")
    with pytest.raises(OtbError, match="Solo l'organizzatore"):
        services.player_add(tournament_id=tournament.pk, by=stranger, row=row)
    services.arbiter_add(tournament_id=tournament.pk, by=organizer, username="AIUTO")
    services.player_add(tournament_id=tournament.pk, by=helper, row=row)  # RULES 13.1
    with pytest.raises(OtbError, match="Solo l'organizzatore nomina"):
        services.arbiter_add(tournament_id=tournament.pk, by=helper, username=stranger.username)


def test_the_next_round_waits_for_every_result_and_a_result_must_be_of_the_round():
    organizer = UserFactory()
    tournament = field(organizer)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    with pytest.raises(OtbError, match="Pubblica il turno"):
        services.result_set(tournament_id=tournament.pk, by=organizer, number=1, board=1, typed="1")
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=1)
    with pytest.raises(OtbError, match="La scacchiera 9 non è un incontro del turno 1"):
        services.result_set(tournament_id=tournament.pk, by=organizer, number=1, board=9, typed="1")
    with pytest.raises(OtbError, match="non è un risultato"):
        services.result_set(tournament_id=tournament.pk, by=organizer, number=1, board=1, typed="2")
    services.result_set(tournament_id=tournament.pk, by=organizer, number=1, board=1, typed="½")
    with pytest.raises(OtbError, match="Il turno 1 non ha ancora tutti i risultati"):
        services.round_pair(tournament_id=tournament.pk, by=organizer)
    assert tournament.rounds.count() == 1
    type_all(tournament, organizer, 1)
    assert services.round_pair(tournament_id=tournament.pk, by=organizer).number == 2


def test_typed_keys_mean_the_results_the_sheet_says():
    organizer = UserFactory()
    tournament = field(organizer)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=1)
    for typed, stored in (
        ("1", "1-0"),
        ("0", "0-1"),
        ("=", "½-½"),
        ("+", "+-"),
        ("-", "-+"),
        ("00", "--"),
    ):
        services.result_set(
            tournament_id=tournament.pk, by=organizer, number=1, board=1, typed=typed
        )
        assert OtbBoard.objects.get(round__tournament=tournament, board=1).result == stored


def test_a_correction_recomputes_the_standings_keeps_later_pairings_and_warns():
    organizer = UserFactory()
    tournament = field(organizer)
    for number in (1, 2):
        services.round_pair(tournament_id=tournament.pk, by=organizer)
        services.round_publish(tournament_id=tournament.pk, by=organizer, number=number)
        type_all(tournament, organizer, number)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    pairings = list(tournament.rounds.get(number=3).boards.values_list("white", "black"))
    board = tournament.rounds.get(number=1).boards.select_related("white").get(board=1)
    before = selectors.engine_tournament(tournament).scores_after(2)
    saved = services.result_set(
        tournament_id=tournament.pk, by=organizer, number=1, board=1, typed="0"
    )
    assert "gli abbinamenti dei turni successivi restano" in saved.warning
    after = selectors.engine_tournament(tournament).scores_after(2)
    white = board.white.number
    assert after[white] == before[white] - 2  # a win (2) became a loss (RULES 4.6 units)
    assert list(tournament.rounds.get(number=3).boards.values_list("white", "black")) == pairings
    (entry,) = [e for e in tournament.rounds.get(number=1).record if e["what"] == "correction"]
    assert (entry["from"], entry["to"], entry["later_rounds_kept"]) == ("1-0", "0-1", True)


def test_an_edit_breaking_an_absolute_rule_needs_the_recorded_override():
    organizer = UserFactory()
    tournament = field(organizer)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=1)
    type_all(tournament, organizer, 1)
    met = tournament.rounds.get(number=1).boards.select_related("white", "black").get(board=1)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    round_two = tournament.rounds.get(number=2)
    partner = next(
        (b.black if b.white == met.white else b.white)
        for b in round_two.boards.select_related("white", "black")
        if met.white in (b.white, b.black)
    )
    pairs = list(round_two.boards.values_list("white", "black"))
    refused = services.round_exchange(
        tournament_id=tournament.pk, by=organizer, number=2,
        first=met.black.number, second=partner.number,
    )  # fmt: skip
    assert not refused.applied
    assert re.search(r"Lim 2: rematch .*forzatura esplicita", refused.refusal)
    assert list(round_two.boards.values_list("white", "black")) == pairs  # nothing changed
    # RULES 13.6: the refused edit is in the round's record, with what the checker said.
    entry = tournament.rounds.get(number=2).record[-1]
    assert entry["what"] == "exchange" and entry["refused"] and not entry["override"]
    assert entry["players"] == [met.black.number, partner.number]
    assert entry["broken"] == list(refused.broken) and entry["broken"][0].startswith("Lim 2")
    assert entry["by"] == organizer.username
    judgement = services.round_exchange(
        tournament_id=tournament.pk, by=organizer, number=2,
        first=met.black.number, second=partner.number, override=True,
    )  # fmt: skip
    assert judgement.broken and judgement.broken[0].startswith("Lim 2: rematch")
    entry = tournament.rounds.get(number=2).record[-1]
    assert (entry["what"], entry["override"], entry["by"]) == ("exchange", True, organizer.username)
    assert not entry["refused"]
    assert [e["what"] for e in tournament.rounds.get(number=2).record] == [
        "paired", "exchange", "exchange"
    ]  # fmt: skip
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=2)
    with pytest.raises(OtbError, match="pubblicato"):
        services.round_exchange(
            tournament_id=tournament.pk, by=organizer, number=2, first=1, second=2
        )


def test_prohibited_pairings_keep_a_family_apart_in_the_first_rounds():
    organizer = UserFactory()
    # Families F0 and F1 (every other player): round 1 may not pair two of one family.
    tournament = field(organizer, prohibited_rounds=1)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    family = {p.number: p.family for p in OtbPlayer.objects.filter(tournament=tournament)}
    boards = tournament.rounds.get(number=1).boards.select_related("white", "black")
    assert all(family[b.white.number] != family[b.black.number] for b in boards)
    b1, b2 = boards[0], boards[1]
    # b1's Black for the player of b2 of b1's White's family: two of one family would meet.
    kin = b2.white if family[b2.white.number] == family[b1.white.number] else b2.black
    refused = services.round_exchange(
        tournament_id=tournament.pk, by=organizer, number=1,
        first=b1.black.number, second=kin.number,
    )  # fmt: skip
    assert not refused.applied and re.search("regola 13.7: .* stessa famiglia", refused.refusal)
    assert tournament.rounds.get(number=1).record[-1]["refused"]


def test_late_entries_byes_and_withdrawals_have_their_limits():
    organizer = UserFactory()
    tournament = field(organizer, n=6, rounds_wanted=3)
    p = tournament.players.order_by("pk").first()
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    with pytest.raises(OtbError, match="in bozza"):
        services.player_add(tournament_id=tournament.pk, by=organizer, row=PlayerRow(0, "Tardi"))
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=1)
    with pytest.raises(OtbError, match="Il turno 1 è già abbinato"):
        services.bye_request(
            tournament_id=tournament.pk, by=organizer, player_id=p.pk, round_number=1, kind="half"
        )
    with pytest.raises(OtbError, match="ultimo turno il riposo richiesto vale zero"):
        services.bye_request(
            tournament_id=tournament.pk,
            by=organizer,
            player_id=p.pk,
            round_number=3,
            kind=OtbBye.HALF,
        )
    services.bye_request(
        tournament_id=tournament.pk, by=organizer, player_id=p.pk, round_number=3, kind=OtbBye.ZERO
    )
    with pytest.raises(OtbError, match="il ritiro vale dal turno 2"):
        services.player_withdraw(
            tournament_id=tournament.pk, by=organizer, player_id=p.pk, from_round=1
        )
    for number in (1, 2, 3):
        if number > 1:
            services.round_pair(tournament_id=tournament.pk, by=organizer)
            services.round_publish(tournament_id=tournament.pk, by=organizer, number=number)
        type_all(tournament, organizer, number)
    with pytest.raises(OtbError, match="L'ultimo turno è già abbinato: non si entra più"):
        services.player_add(tournament_id=tournament.pk, by=organizer, row=PlayerRow(0, "Tardi"))
    assert tournament.players.count() == 6
    tournament.refresh_from_db()
    assert tournament.status == "finished"


def test_a_round_robin_follows_the_berger_table():
    organizer = UserFactory()
    tournament = field(organizer, n=5, format_choice="auto", rounds_wanted=None)
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    tournament.refresh_from_db()
    assert (tournament.format, tournament.total_rounds) == ("round_robin", 5)  # RULES 4.4
    boards = tournament.rounds.get(number=1).boards.select_related("white", "black")
    # FSI table for 6 (5 players and a rest): round 1 is 1-6 (1 rests), 2-5, 3-4.
    pairs = {(b.white.number, b.black.number if b.black else None) for b in boards}
    assert pairs == {(2, 5), (3, 4), (1, None)}
    # No lot for #1's colour: the table's, White in round 1, as its TRF says (152).
    assert tournament.first_colour == "W"
    with pytest.raises(OtbError, match="Berger"):
        services.round_exchange(
            tournament_id=tournament.pk, by=organizer, number=1, first=2, second=3
        )


def test_a_players_data_download_has_their_over_the_board_entries():
    from accounts.personal import sections

    organizer, member = UserFactory(), UserFactory(username="iscritto")
    tournament = services.otb_create(organizer=organizer, data=options())
    services.players_import(
        tournament_id=tournament.pk,
        by=organizer,
        text="cognome;utente;tessera_fsi\nSocio;iscritto;77\n",
    )
    section = sections(member)["otb"]
    assert [(e["name"], e["fsi_card"]) for e in section["entries"]] == [("Socio", "77")]
    assert sections(organizer)["otb"]["arbitrated"][0]["organizer"] is True


def test_a_draughts_report_has_the_fid_performance_and_no_variation():
    # RULES 13.10: no F.I.D. variation (its regulation is not among the sources); games, score,
    # the opponents' average F.I.D. rating and FIDE's performance formula over rated opponents.
    organizer = UserFactory()
    tournament = field(organizer, n=8, variant="italian", format_choice="swiss", rounds_wanted=3)
    unrated = tournament.players.order_by("pk").last()
    unrated.national_rating = None
    unrated.save(update_fields=["national_rating"])
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=1)
    type_all(tournament, organizer, 1)  # White wins every board
    lines = {line.number: line for line in selectors.rating_lines(tournament)}
    assert all(x.change is None and x.new_rating is None for x in lines.values())
    rating = {p.number: p.national_rating for p in tournament.players.all()}
    for board in tournament.rounds.get(number=1).boards.select_related("white", "black"):
        w, b = lines[board.white.number], lines[board.black.number]
        if None in (rating[w.number], rating[b.number]):
            assert (w.fide_games, b.fide_games, w.performance, b.performance) == (0, 0, None, None)
            continue
        assert (w.fide_games, w.fide_score, w.fide_average) == (1, 1, rating[b.number])
        # FIDE B.02 table 8.1(a): a score of 1 of 1 is dp +800, 0 of 1 is -800.
        assert (w.performance, b.performance) == (rating[b.number] + 800, rating[w.number] - 800)
    unrated.refresh_from_db()  # numbered when round 1 was paired
    assert lines[unrated.number].fide_rating is None and lines[unrated.number].fide_games == 0


def play(tournament, by, number: int, typed: str = "1") -> None:
    services.round_pair(tournament_id=tournament.pk, by=by)
    services.round_publish(tournament_id=tournament.pk, by=by, number=number)
    type_all(tournament, by, number, typed)


def test_a_requested_bye_of_a_withdrawn_player_scores_nothing():
    # RULES 13.4, 13.5: the half-point bye is for a player taking part; a withdrawal from an
    # earlier round holds to the end.
    organizer = UserFactory()
    tournament = field(organizer, n=8, rounds_wanted=4)
    play(tournament, organizer, 1)
    x = tournament.players.get(number=8)
    services.bye_request(
        tournament_id=tournament.pk, by=organizer, player_id=x.pk, round_number=3, kind="half"
    )
    services.player_withdraw(
        tournament_id=tournament.pk, by=organizer, player_id=x.pk, from_round=2
    )
    after_one = selectors.engine_tournament(tournament).scores_after(1)[8]
    for number in (2, 3):
        play(tournament, organizer, number)
    engine = selectors.engine_tournament(tournament)
    assert engine.scores_after(3)[8] == after_one
    assert not [b for b in engine.byes if b.player == 8]
    assert [why for p, why in selectors.not_playing(tournament, 3) if p.pk == x.pk] == ["—"]
    tournament.refresh_from_db()
    _numbers, rows = selectors.cross_table(tournament)
    (cells,) = [c for row, c in rows if row.player.pk == x.pk]
    assert cells[2].text == ""


def test_byes_asked_before_round_1_are_checked_when_the_format_is_fixed():
    # RULES 13.4: requested byes are Swiss only, worth half a point in any round but the last.
    # Before round 1 the format and the rounds may be unknown: round 1 is then not paired while
    # a bye does not fit them, and the refusal names it (Decision, RULES 13.4).
    organizer = UserFactory()
    tournament = field(organizer, n=5, format_choice="auto", rounds_wanted=None)
    p = tournament.players.order_by("pk").first()
    services.bye_request(
        tournament_id=tournament.pk, by=organizer, player_id=p.pk, round_number=2, kind="half"
    )
    with pytest.raises(OtbError, match=r"girone all'italiana.*Gioc0 N, turno 2"):
        services.round_pair(tournament_id=tournament.pk, by=organizer)
    tournament.refresh_from_db()
    assert (tournament.format, tournament.total_rounds, tournament.status) == ("", None, "entries")
    assert not tournament.rounds.exists() and not tournament.players.filter(number__gt=0)
    services.bye_cancel(tournament_id=tournament.pk, by=organizer, player_id=p.pk, round_number=2)
    assert services.round_pair(tournament_id=tournament.pk, by=organizer).number == 1


def test_a_half_point_bye_in_the_last_round_is_refused_once_the_rounds_are_known():
    organizer = UserFactory()
    typed = field(organizer, n=8, format_choice="swiss", rounds_wanted=5)
    p = typed.players.order_by("pk").first()
    ask = dict(tournament_id=typed.pk, by=organizer, player_id=p.pk)
    with pytest.raises(OtbError, match="ultimo turno il riposo richiesto vale zero"):
        services.bye_request(**ask, round_number=5, kind=OtbBye.HALF)
    with pytest.raises(OtbError, match="Il torneo ha 5 turni"):
        services.bye_request(**ask, round_number=6, kind=OtbBye.ZERO)
    assert not OtbBye.objects.filter(player=p).exists()
    # A forced Swiss without a typed count: ⌈log₂ 8⌉ + 2 = 5 rounds, known at round 1.
    computed = field(organizer, n=8, format_choice="swiss", rounds_wanted=None)
    q = computed.players.order_by("pk").first()
    services.bye_request(
        tournament_id=computed.pk, by=organizer, player_id=q.pk, round_number=5, kind="half"
    )
    with pytest.raises(OtbError, match=r"5 turni.*Gioc0 N, turno 5 \(½\)"):
        services.round_pair(tournament_id=computed.pk, by=organizer)
    assert not computed.rounds.exists()
    services.bye_request(
        tournament_id=computed.pk, by=organizer, player_id=q.pk, round_number=5, kind="zero"
    )
    services.round_pair(tournament_id=computed.pk, by=organizer)


def test_a_result_is_cleared_only_while_no_later_round_is_paired():
    # RULES 13.6: a round is paired on complete results; Lim 2: never a rematch. A result
    # cleared after the next round was paired would leave a game no meeting (Decision, 13.8).
    organizer = UserFactory()
    tournament = field(organizer, n=6, rounds_wanted=2)
    play(tournament, organizer, 1)
    clear = dict(tournament_id=tournament.pk, by=organizer, number=1, board=1)
    services.result_set(**clear, typed=" ")
    first = tournament.rounds.get(number=1)
    assert first.boards.get(board=1).result == ""
    assert first.record[-1]["what"] == "correction" and first.record[-1]["to"] == ""
    with pytest.raises(OtbError, match="Il turno 1 non ha ancora tutti i risultati"):
        services.round_pair(tournament_id=tournament.pk, by=organizer)
    services.result_set(**clear, typed="1")
    play(tournament, organizer, 2)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    with pytest.raises(OtbError, match="Il turno 2 è già abbinato: il risultato si corregge"):
        services.result_set(**clear, typed="")
    assert tournament.rounds.get(number=1).boards.get(board=1).result == "1-0"
    # The last round's result cleared: the tournament is running again until it is typed.
    services.result_set(tournament_id=tournament.pk, by=organizer, number=2, board=1, typed="")
    tournament.refresh_from_db()
    assert tournament.status == "running"


def test_a_withdrawn_player_gets_no_berger_bye_in_a_round_robin():
    # RULES 13.5: in a round robin a withdrawn player's remaining games are lost by forfeit and
    # the withdrawal holds to the end: the rest the Berger table gives them scores nothing.
    from events.pairing.berger import berger_schedule

    organizer = UserFactory()
    tournament = field(organizer, n=5, format_choice="auto", rounds_wanted=None)

    def play_blank_boards(number):
        services.round_pair(tournament_id=tournament.pk, by=organizer)
        services.round_publish(tournament_id=tournament.pk, by=organizer, number=number)
        for board in tournament.rounds.get(number=number).boards.exclude(black=None):
            if not board.result:  # the forfeits of the withdrawal are written already
                services.result_set(
                    tournament_id=tournament.pk, by=organizer, number=number,
                    board=board.board, typed="=",
                )  # fmt: skip

    for number in (1, 2):
        play_blank_boards(number)
    resting = berger_schedule(5)[3].bye  # who rests in round 4
    x = tournament.players.get(number=resting)
    services.player_withdraw(
        tournament_id=tournament.pk, by=organizer, player_id=x.pk, from_round=3
    )
    before = selectors.engine_tournament(tournament).scores_after(2)[resting]
    for number in (3, 4, 5):
        play_blank_boards(number)
    tournament.refresh_from_db()  # the colour of #1 drawn when round 1 was paired
    engine = selectors.engine_tournament(tournament)
    assert engine.scores_after(5)[resting] == before
    fourth = tournament.rounds.get(number=4)
    assert not fourth.boards.filter(black=None).exists()
    assert [why for p, why in selectors.not_playing(tournament, 4) if p.pk == x.pk] == ["—"]
    assert read_trf(otb_trf(tournament)) == engine  # RULES 13.10: it reads back the same


def test_a_draft_round_is_in_no_standings_cross_table_or_trf():
    # RULES 13.6: the public page shows only published rounds; RULES 13.10: the TRF reads back
    # to the same tournament. A draft's bye and requested byes score nothing until published.
    organizer = UserFactory()
    tournament = field(organizer, n=8, rounds_wanted=3)
    play(tournament, organizer, 1)
    p = tournament.players.get(number=1)  # 7 paired in round 2: one gets the bye
    services.bye_request(
        tournament_id=tournament.pk, by=organizer, player_id=p.pk, round_number=2, kind="half"
    )
    tournament.refresh_from_db()
    published = {r.player.number: r.points for r in selectors.standings(tournament)}
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    assert tournament.rounds.get(number=2).boards.filter(black=None).exists()  # a bye in it
    assert {r.player.number: r.points for r in selectors.standings(tournament)} == published
    numbers, _rows = selectors.cross_table(tournament)
    assert numbers == [1]
    read = read_trf(otb_trf(tournament))
    assert read.rounds_held == 1 and all(b.round == 1 for b in read.byes)
    services.round_publish(tournament_id=tournament.pk, by=organizer, number=2)
    assert selectors.cross_table(tournament)[0] == [1, 2]
    assert {r.player.number: r.points for r in selectors.standings(tournament)}[1] != published[1]


def test_a_player_withdrawn_before_round_1_does_not_count_for_the_format():
    # RULES 13.2, 4.3: the format follows the players present, registered and not withdrawn.
    organizer = UserFactory()
    tournament = field(organizer, n=7, format_choice="auto", rounds_wanted=None)
    gone = tournament.players.order_by("pk").first()
    services.player_withdraw(
        tournament_id=tournament.pk, by=organizer, player_id=gone.pk, from_round=None
    )
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    tournament.refresh_from_db()
    assert (tournament.format, tournament.total_rounds) == ("round_robin", 5)  # 6 present
    gone.refresh_from_db()
    assert gone.number == 0 and len(selectors.numbered_players(tournament)) == 6
    assert not tournament.rounds.get(number=1).boards.filter(result__in=["+-", "-+"]).exists()
    assert "\n062 6\n" in otb_trf(tournament)
    # A withdrawal from a later round leaves the player present at the start.
    later = field(organizer, n=7, format_choice="auto", rounds_wanted=None)
    stays = later.players.order_by("pk").first()
    services.player_withdraw(tournament_id=later.pk, by=organizer, player_id=stays.pk, from_round=3)
    services.round_pair(tournament_id=later.pk, by=organizer)
    later.refresh_from_db()
    assert (later.format, later.total_rounds) == ("swiss", 5)


def test_when_the_prohibitions_give_way_only_an_exchange_making_such_a_pair_breaks_them():
    # RULES 13.7: if no pairing keeps the prohibitions, the round is paired without them; an
    # exchange that *makes* a prohibited pair breaks RULES 13.7, not one that keeps the
    # engine's.
    organizer = UserFactory()
    tournament = services.otb_create(
        organizer=organizer, data=options(rounds_wanted=2, prohibited_rounds=1)
    )
    services.players_import(
        tournament_id=tournament.pk,
        by=organizer,
        text="cognome;nome;elo_italia;famiglia\n"
        "Rossi;A;2000;Rossi\nRossi;B;1900;Rossi\nRossi;C;1800;Rossi\nVerdi;D;1700;\n",
    )
    services.round_pair(tournament_id=tournament.pk, by=organizer)
    round_one = tournament.rounds.get(number=1)
    assert round_one.record[0]["prohibitions_waived"] is True
    pairs = {
        frozenset((b.white.number, b.black.number))
        for b in round_one.boards.select_related("white", "black")
    }
    assert pairs == {frozenset((1, 3)), frozenset((2, 4))}
    for first, second in ((2, 4), (1, 3)):  # colours swapped on each board
        judgement = services.round_exchange(
            tournament_id=tournament.pk, by=organizer, number=1, first=first, second=second
        )
        assert judgement.applied and judgement.broken == ()
    # 3 for 4: 1-4 and 2-3, a Rossi pair the engine did not make.
    refused = services.round_exchange(
        tournament_id=tournament.pk, by=organizer, number=1, first=3, second=4
    )
    assert not refused.applied and len(refused.broken) == 1  # the colours follow the lot
    assert re.fullmatch(r"regola 13\.7: (2-3|3-2) stessa famiglia", refused.broken[0])


def test_with_no_legal_pairing_the_tournament_ends_and_says_so(monkeypatch, client):
    # Lim 11: if no pairing satisfies rule 2, the tournament ends after the rounds already
    # played and says so on its page.
    from django.urls import reverse

    from events.pairing.lim import NoLegalPairing

    organizer = UserFactory()
    tournament = field(organizer, n=8, rounds_wanted=4)
    for number in (1, 2):
        play(tournament, organizer, number)

    def stuck(*args, **kwargs):
        raise NoLegalPairing("no pairing")

    monkeypatch.setattr(services, "pair_round", stuck)
    client.force_login(organizer)
    response = client.post(reverse("otb:action", args=[tournament.pk, "abbina"]), follow=True)
    assert "(Lim 11): il torneo è finito dopo il turno 2." in response.text
    tournament.refresh_from_db()
    assert (tournament.status, tournament.total_rounds, tournament.ended_early) == (
        "finished", 2, True
    )  # fmt: skip
    assert tournament.rounds.count() == 2
    page = client.get(reverse("otb:public", args=[tournament.pk])).text
    assert "finito dopo il turno 2" in page and "Lim 11" in page
    desk = client.get(reverse("otb:desk", args=[tournament.pk])).text
    assert "finito dopo il turno 2" in desk and 'data-testid="otb-pair"' not in desk
    with pytest.raises(OtbError, match="Tutti i turni sono stati giocati"):
        services.round_pair(tournament_id=tournament.pk, by=organizer)
