"""Schnapsen scenarios (RULES-SPEC section 3.1, SCH-1 to SCH-11, and section 7.1).

Every deal is an explicit 20-card deck in the SCH-2 order and every position is reached by an
explicit action sequence, so each expected legal list, count and score is checked against the
engine exactly. Seat 0 is A (non-dealer, leads first), seat 1 is B (dealer). Rules are the
Schnapsen preset (the Schnapsen column of Appendix A) unless a test overrides an option.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.games import registry
from harness.games.sixtysix import IllegalAction, State, apply, cards_of, counted_points, deal, legal_actions
from harness.games.sixtysix import summary as rules_json
from harness.games.sixtysix.cards import CARD_STR, POINTS, SCHNAPSEN, beats, parse_card, parse_deck

A, B = 0, 1
GAME = registry.get("schnapsen")


def sch_deck(a: str, b: str, trump_card: str, talon: str) -> str:
    """SCH-2 deck order from A's and B's five cards, the trump card and the talon (top first)."""
    al, bl, tl = a.split(), b.split(), talon.split()
    assert len(al) == 5 and len(bl) == 5 and len(tl) == 9
    return " ".join(al[:3] + bl[:3] + [trump_card] + al[3:] + bl[3:] + tl)


def start(deck: str, **overrides: Any) -> State:
    return deal(parse_deck(deck, SCHNAPSEN), GAME.rules(overrides))


def play(deck: str, actions: str, **overrides: Any) -> State:
    s = start(deck, **overrides)
    for a in actions.split():
        s = apply(s, a)
    return s


def summary(s: State) -> dict[str, Any]:
    """The JSON object of ``arena rules run schnapsen`` (7.1) for ``s``."""
    return rules_json(s)


def legal(s: State) -> list[str]:
    return sorted(legal_actions(s))


def hand(s: State, seat: int) -> list[str]:
    return cards_of(s.hands[seat])


# Deal 1 (trump spades): A holds the trump jack, B holds the club marriage.
D1 = sch_deck("JS KH QH TC JD", "AH TH KC QC JC", "AS", "TS KS QS AD TD KD QD JH AC")
# Deal 1 played to the end of the talon: A wins tricks 1-5; before trick 5 (talon = 2) A exchanges.
D1_TRICK4 = "TC JC draw TS QC draw QS KC draw TD KD draw"  # talon 2, A on lead holding JS
D1_EXHAUSTED = D1_TRICK4 + " exchange JD JH draw"  # B, loser of trick 5, draws the trump jack
# Deal 2 (trump spades): B holds the trump jack, A holds the heart marriage.
D2 = sch_deck("KH QH TC JD AD", "JS AH TH KC QC", "AS", "TS KS QS TD KD QD JH AC JC")


# -- SCH-1, SCH-2: the pack and the deal ----------------------------------------------------------


def test_SCH1_twenty_cards_no_nines() -> None:
    """SCH-1: 20 cards, ranks J Q K T A in four suits, 120 points, A > T > K > Q > J in a suit."""
    names = [CARD_STR[c] for c in SCHNAPSEN.cards]
    assert len(names) == 20 and {n[0] for n in names} == set("JQKTA")
    assert sum(POINTS[c] for c in SCHNAPSEN.cards) == 120
    order = [parse_card(r + "H") for r in "JQKTA"]
    assert all(beats(lo, hi, 0) and not beats(hi, lo, 0) for lo, hi in zip(order, order[1:]))
    with pytest.raises(ValueError, match="'9H'"):
        parse_deck(D1.replace("JH", "9H"), SCHNAPSEN)
    for seed in range(5):  # every deal of a match uses the 20 cards
        m = GAME.start(seed, GAME.rules())
        assert sorted(GAME.deal(m).record["deck"].split()) == sorted(names)


def test_SCH2_deal_mapping_and_talon_10() -> None:
    """SCH-2: A d[0..2] + d[7..8], B d[3..5] + d[9..10], trump card d[6], talon d[11..19] then d[6]."""
    s = start(D1)
    assert hand(s, A) == ["JD", "JS", "KH", "QH", "TC"]
    assert hand(s, B) == ["AH", "JC", "KC", "QC", "TH"]
    assert CARD_STR[s.trump_card] == "AS" and s.trump == 3
    assert [CARD_STR[c] for c in s.talon] == "TS KS QS AD TD KD QD JH AC AS".split()
    assert summary(s)["talon"] == 10 and s.to_act == A and s.point == "L"
    dealers = set()
    for seed in range(6):  # a match deals the same way, whoever deals
        m = GAME.start(seed, GAME.rules())
        d = GAME.deal(m).record["deck"].split()
        dealers.add(GAME.deal(m).dealer)
        obs = GAME.observe(m, GAME.deal(m).seats[0])  # the non-dealer
        assert sorted(obs.hand) == sorted(d[0:3] + d[7:9]) and obs.talon_size == 10
    assert dealers == {0, 1}


def test_SCH2_draw_order_and_talon_sizes() -> None:
    """SCH-2 with 66-7: the winner draws the top card, the loser the next; 10, 8, 6, 4, 2, 0;
    trick 5 (led with 2 cards in the talon) is phase 1, trick 6 phase 2; the loser of trick 5
    draws the bottom card (here the trump jack after A's exchange)."""
    s = play(D1, "TC JC draw")
    assert "TS" in hand(s, A) and "KS" in hand(s, B) and summary(s)["talon"] == 8
    sizes = []
    s = start(D1)
    for a in D1_EXHAUSTED.split():
        s = apply(s, a)
        if a == "draw":
            sizes.append(summary(s)["talon"])
    assert sizes == [8, 6, 4, 2, 0] and s.talon_state == "exhausted"
    assert hand(s, A) == ["AC", "AS", "KH", "QD", "QH"] and hand(s, B) == ["AD", "AH", "JS", "KS", "TH"]
    s = play(D1, D1_TRICK4 + " exchange JD")
    assert legal(s) == ["AD", "AH", "JH", "KS", "TH"]  # trick 5 is phase 1: any card
    s = play(D1, D1_EXHAUSTED + " QD")
    assert legal(s) == ["AD"]  # trick 6 is phase 2: follow suit and beat QD


# -- SCH-3, SCH-4: the match ----------------------------------------------------------------------


def _play_match(seed: int, **overrides: Any) -> tuple[list[int], Any]:
    """A match in which player 0 wins every deal: player 1 claims (falsely) at his first chance,
    player 0 never claims below 66 and finishes at point E. Returns each deal's dealer and the match."""
    rules = GAME.rules(overrides)
    m = GAME.start(seed, rules)
    dealers = [GAME.deal(m).dealer]
    while (p := GAME.to_act(m)) is not None:
        acts = GAME.legal(m)
        if p == 1 and "claim" in acts:
            a = "claim"
        elif "finish" in acts:
            a = "finish"
        elif "claim" in acts and counted_points(m.state, m.state.to_act) >= 66:
            a = "claim"
        else:
            a = [x for x in acts if x != "claim"][0]
        done = GAME.deals_done(m)
        m = GAME.apply(m, a)
        if GAME.deals_done(m) > done:
            assert GAME.deal_end(m).points[0] > 0  # player 0 won this deal
            if GAME.outcome(m) is None:
                dealers.append(GAME.deal(m).dealer)
    return dealers, m


@pytest.mark.parametrize("seed", [1, 2])
def test_SCH3_deal_alternates_and_SCH4_first_to_7(seed: int) -> None:
    """SCH-3: the deal alternates even though player 0 wins every deal (dealer_rotation=alternate);
    with dealer_rotation=winner player 0 deals every deal after the first. SCH-4: the match ends
    as soon as a player has 7 game points (counted down from 7 to 0)."""
    dealers, m = _play_match(seed)
    assert len(dealers) >= 3
    assert dealers == [(dealers[0] + i) % 2 for i in range(len(dealers))]
    outcome = GAME.outcome(m)
    assert outcome is not None and outcome.ranks == (0, 1) and outcome.scores[0] >= 7 > outcome.scores[1]
    assert outcome.scores[0] - GAME.deal_end(m).points[0] < 7  # the last deal crossed 7
    dealers, _ = _play_match(seed, dealer_rotation="winner")
    assert dealers[1:] == [0] * (len(dealers) - 1)


# -- SCH-5, SCH-6: the trump jack ------------------------------------------------------------------


def test_SCH5_exchange_trump_jack_without_a_trick() -> None:
    """SCH-5: the trump jack is exchanged at the very first lead (exchange_requires_trick=false)."""
    s = start(D1)
    assert legal(s) == ["JD", "JS", "KH", "QH", "TC", "claim", "close", "exchange", "marry:H"]
    s = apply(s, "exchange")
    assert hand(s, A) == ["AS", "JD", "KH", "QH", "TC"] and CARD_STR[s.bottom] == "JS"
    assert summary(s)["talon"] == 10 and "exchange" not in legal(s)  # once per turn
    s = start(D1, exchange_rank="9")  # the classic nine does not exist in this pack
    assert "exchange" not in legal(s)


def test_SCH5_exchange_requires_trick_option() -> None:
    """SCH-5 tournament option exchange_requires_trick=true: not at the first lead, not at point D
    (exchange_before_draw=false), but after winning a trick and drawing."""
    s = start(D1, exchange_requires_trick=True)
    assert "exchange" not in legal(s)
    s = play(D1, "TC JC", exchange_requires_trick=True)
    assert legal(s) == ["claim", "draw"] and summary(s)["points"] == [12, 0]
    s = apply(s, "draw")
    assert legal(s) == ["JD", "JS", "KH", "QH", "TS", "claim", "close", "exchange", "marry:H"]


def test_SCH5_exchange_min_talon_4() -> None:
    """SCH-5 tournament option exchange_min_talon=4: allowed with 4 talon cards, not with 2."""
    four = "TC JC draw TS QC draw QS KC draw"
    assert summary(play(D1, four, exchange_min_talon=4))["talon"] == 4
    assert "exchange" in legal(play(D1, four, exchange_min_talon=4))
    s = play(D1, D1_TRICK4, exchange_min_talon=4)
    assert summary(s)["talon"] == 2 and "JS" in hand(s, A)
    assert "exchange" not in legal(s)
    assert "exchange" in legal(play(D1, D1_TRICK4))  # the preset allows it down to 2


def test_SCH6_no_exchange_for_the_closers_opponent() -> None:
    """SCH-6: A closes at the first lead; B holds the trump jack but gets no point R."""
    s = play(D2, "close")
    assert s.point == "L" and s.to_act == A
    assert legal(s) == ["AD", "JD", "KH", "QH", "TC", "claim", "marry:H"]
    s = play(D2, "close", exchange_on_opponent_close="any")  # the classic 66-8.3 option
    assert s.point == "R" and s.to_act == B and legal(s) == ["exchange", "pass"]
    s = apply(s, "exchange")
    assert "AS" in hand(s, B) and "JS" not in hand(s, B) and s.to_act == A
    s = play(D2, "close", exchange_on_opponent_close="requires_trick")  # B has no trick
    assert s.point == "L" and s.to_act == A


# -- SCH-7: closing ------------------------------------------------------------------------------


def test_SCH7_close_only_at_L_after_drawing() -> None:
    """SCH-7: close_before_draw=false. B wins trick 1 and may not close before drawing; after the
    draw he may. The first lead may close (close_before_first_trick); after the last draw nobody can."""
    assert "close" in legal(start(D1))
    s = play(D1, "KH AH")
    assert legal(s) == ["claim", "draw"]
    with pytest.raises(IllegalAction):
        apply(s, "close")
    assert legal(play(D1, "KH AH", close_before_draw=True)) == ["claim", "close", "draw"]
    s = play(D1, "KH AH draw")
    assert legal(s) == ["JC", "KC", "QC", "TH", "TS", "claim", "close", "marry:C"]
    s = play(D1, "KH AH draw close")
    assert s.closed_by == B and summary(s)["talon"] == 8 and s.to_act == B
    assert "close" in legal(play(D1, D1_TRICK4))  # talon 2: the last chance
    assert "close" not in legal(play(D1, D1_EXHAUSTED))


# -- SCH-8: marriages in phase 2 -------------------------------------------------------------------


def test_SCH8_marriage_after_a_close_in_the_same_turn() -> None:
    """SCH-8 and section 7.1: a marriage may follow a close in the same turn; its K or Q must lead."""
    s = play(D2, "close marry:H")
    assert legal(s) == ["KH", "QH", "claim"]
    s = play(D2, "close marry:H KH")
    assert legal(s) == ["AH", "TH"]  # phase 2: B must follow hearts and beat the king
    assert "marry:H" not in legal(play(D2, "close", marriage_in_phase2=False))


def test_SCH8_marriage_after_exhaustion() -> None:
    """SCH-8: the leader of trick 6 (talon exhausted) declares KH QH; 20 counts at once (he has
    tricks). Not with marriage_in_phase2=false (classic T39)."""
    s = play(D1, D1_EXHAUSTED)
    assert legal(s) == ["AC", "AS", "KH", "QD", "QH", "claim", "marry:H"]
    before = summary(s)["points"][A]
    s = apply(s, "marry:H")
    assert summary(s)["points"][A] == before + 20 and legal(s) == ["KH", "QH", "claim"]
    assert "marry:H" not in legal(play(D1, D1_EXHAUSTED, marriage_in_phase2=False))


def test_SCH8_follower_cannot_marry() -> None:
    """SCH-8: still only the player on lead may declare: after A leads, B (holding KC QC) may only play."""
    s = play(D1, "TC JC draw TS")
    assert legal(s) == ["AH", "KC", "KS", "QC", "TH"]


# -- SCH-9: the last trick -------------------------------------------------------------------------

# An unclosed deal played to the end without claims (trump hearts, A has the trump ten).
D9 = "TS TH KD QC JH TD QH AS KC AH AC QD KS JD JC JS QS AD KH TC"
D9_PLAY = "KC JH draw QD TS draw TD KS draw AC AS draw AH KD draw TC JC JS QS TH JD QH QC KH AD"


def test_SCH9_last_trick_wins_the_deal_one_point_no_bonus() -> None:
    """SCH-9: no 10 for the last trick; A wins it with 38 against B's 82, is at point E, and
    `finish` gives A the deal and 1 game point (row 7). A false claim at E pays B 2 (row 5)."""
    s = play(D9, D9_PLAY)
    assert s.point == "E" and s.to_act == A and legal(s) == ["claim", "finish"]
    assert summary(s)["points"] == [38, 82] and summary(s)["tricks"] == [4, 6]  # 120: no bonus
    end = apply(s, "finish")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (A, 1, 7)
    end = apply(s, "claim")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (B, 2, 5)


def test_SCH9_bonus10_option_restores_the_classic_count() -> None:
    """last_trick=bonus10 (classic 66-12.2): A gets 10 (48) but B's 82 wins the played-out deal."""
    s = play(D9, D9_PLAY, last_trick="bonus10")
    assert summary(s)["points"] == [48, 82]
    end = apply(s, "finish")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (B, 1, 7)


# -- SCH-10: closed deals --------------------------------------------------------------------------

# Trump clubs. B closes after trick 2 (A: 1 trick, 21 points), marries KC QC (40) after the close,
# A rises to 35, then B claims with 67.
D10 = "KH AH KD TD JH QC TC TH JS AD KC KS AS TS AC QH JD QD JC QS"
D10_PLAY = "AH TD draw KS AS draw close marry:C QC AC JS TS"


def test_SCH10_closers_claim_graded_at_closing() -> None:
    """SCH-10 closer_win_basis=close: A had 21 (< 33) at the close, so B scores 2 although A has 35
    at the claim; with closer_win_basis=end (classic) A's 35 grades 1."""
    s = play(D10, "AH TD draw KS AS draw close")
    assert s.closed_by == B and summary(s)["points"] == [21, 15] and s.close_info == (True, 1, 21)
    s = play(D10, D10_PLAY)
    assert s.to_act == B and summary(s)["points"] == [35, 67] and legal(s) == ["AD", "JH", "KC", "claim"]
    end = apply(s, "claim")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (B, 2, 2)
    end = apply(play(D10, D10_PLAY, closer_win_basis="end"), "claim")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points) == (B, 1)


# Trump hearts. A closes at the first lead; B, trickless then, wins two tricks, marries 40, and
# claims with exactly 66.
D10B = "TS JD AD QH KH QD JH TC JS AH KC AS KS TD TH AC QC QS KD JC"


def test_SCH10_beaten_closer_pays_as_failed_close() -> None:
    """SCH-10 beaten_closer_points=as_failed_close: B had no trick at the close and claims validly,
    so B scores 3; 2 with beaten_closer_points=flat2 (classic)."""
    s = play(D10B, "close AD QD TS AH marry:H QH JS")
    assert summary(s)["points"] == [14, 66] and s.close_info[0] is False
    end = apply(s, "claim")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (B, 3, 3)
    end = apply(play(D10B, "close AD QD TS AH marry:H QH JS", beaten_closer_points="flat2"), "claim")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points) == (B, 2)


def test_SCH10_failed_close_played_out_and_false_claim() -> None:
    """SCH-10 with rows 6 and 4: A closed at the first lead (B trickless then). Played out without a
    valid claim, B scores 3 though B won tricks later; a false claim by the closer also pays 3."""
    s = play(D10B, "close AD QD JD AH KC TC JS KH QH TS")
    assert s.point == "E" and summary(s)["points"] == [28, 32] and summary(s)["tricks"] == [2, 3]
    end = apply(s, "finish")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (B, 3, 6)
    end = play(D10B, "close claim")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (B, 3, 4)
    end = play(D10B, "close claim", closer_false_claim="flat2")
    assert end.outcome is not None and end.outcome.game_points == 2


# -- SCH-11: false claims --------------------------------------------------------------------------


def test_SCH11_false_claim_two_or_three() -> None:
    """SCH-11: a false claim pays the opponent 3 if he has no trick yet, else 2."""
    end = play(D1, "claim")  # A claims at the first lead: B has no trick
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (B, 3, 5)
    end = play(D1, "claim", false_claim_points="flat2")
    assert end.outcome is not None and end.outcome.game_points == 2
    s = play(D1, "KH AH draw JC JS")  # B won trick 1; A trumps B's jack and is at D with 4 points
    assert s.point == "D" and s.to_act == A and summary(s)["points"] == [4, 15]
    end = apply(s, "claim")
    assert end.outcome is not None and (end.outcome.winner, end.outcome.game_points, end.outcome.row) == (B, 2, 5)
