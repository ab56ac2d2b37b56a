"""Scenario tests for three-handed Sixty-Six (RULES-SPEC 3.2 rules 3H-1..3H-6, section 7.2), each on a
deck built for it, through the rules tools (``position``/``summary``) and the game interface.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from harness.games.base import IllegalAction
from harness.games.registry import get
from harness.games.three_handed.engine import DEAL_MAP, State, grade
from harness.games.three_handed.game import Match, player_of

G = get("three_handed")


def deck_for(h0: list[str], h1: list[str], h2: list[str]) -> str:
    """The deck (top first) that deals each seat its 8 cards in the order given (7.2 mapping:
    the first three, then two, then three)."""
    d = [""] * 24
    for seat, hand in enumerate((h0, h1, h2)):
        assert len(hand) == 8
        for pos, card in zip(DEAL_MAP[seat], hand):
            d[pos] = card
    assert len(set(d)) == 24
    return " ".join(d)


def run(deck: str, actions: str = "", **rules: str) -> dict[str, Any]:
    """The JSON object of ``arena rules run three_handed`` (7.2) after ``actions``."""
    return G.summary(G.position(deck, actions.split(), G.rules({k.replace("h3_", "3h_"): v for k, v in rules.items()})))


def legal(deck: str, actions: str = "", **rules: str) -> list[str]:
    return run(deck, actions, **rules)["legal"]


ORDERED = " ".join(r + s for s in "CDHS" for r in "9JQKTA")  # 9C JC QC KC TC AC 9D ... AS

# Scenario B (trump H): seat 0 all clubs, seat 1 two high trumps and no clubs, seat 2 four low trumps.
B = deck_for(["9C", "JC", "QC", "KC", "TC", "AC", "9D", "JD"],
             ["KH", "AH", "QD", "KD", "TD", "AD", "9S", "JS"],
             ["9H", "JH", "QH", "TH", "QS", "KS", "TS", "AS"])
# Scenario C (trump H): seat 1 has no clubs or diamonds; seat 2 holds A, 10, 9 of clubs.
C = deck_for(["KC", "QC", "JC", "9D", "JD", "QD", "KD", "TD"],
             ["9H", "JH", "9S", "JS", "QS", "KS", "TS", "AS"],
             ["AC", "9C", "TC", "AD", "QH", "KH", "TH", "AH"])
# Scenario M (trump S): seat 0 holds the marriages in hearts and spades and strong clubs/diamonds.
M = deck_for(["KH", "QH", "KS", "QS", "AC", "TC", "AD", "TD"],
             ["9H", "JH", "9C", "JC", "9D", "JD", "9S", "JS"],
             ["AH", "TH", "QC", "KC", "QD", "KD", "AS", "TS"])


def test_3h1_all_cards_dealt_3_2_3_and_no_talon() -> None:
    """3H-1, 7.2: d[0..2], d[9..10], d[15..17] to seat 0, and so on; talon always 0."""
    s = G.position(ORDERED, [], G.rules())
    from harness.games.three_handed.engine import hand_cards

    assert hand_cards(s, 0) == sorted("9C JC QC KD TD KH TH AH".split())
    assert hand_cards(s, 1) == sorted("KC TC AC AD 9H 9S JS QS".split())
    assert hand_cards(s, 2) == sorted("9D JD QD JH QH KS TS AS".split())
    assert run(ORDERED)["talon"] == 0 and run(ORDERED, "trump:C 9C")["talon"] == 0


def test_3h2_point_t_is_seat_0s_first_decision_and_trump_is_null_until_named() -> None:
    out = run(ORDERED)
    assert out["to_act"] == 0 and out["trump"] is None
    assert out["legal"] == ["trump:C", "trump:D", "trump:H", "trump:S", "trump:next"]
    assert run(ORDERED, "trump:S")["trump"] == "S"
    assert run(ORDERED, "trump:next")["trump"] == "D"  # d[9] is KD (3H-2)
    assert run(B, "trump:next")["trump"] == "C"  # d[9] is seat 0's fourth card, KC


def test_3h3_forehand_leads_first_and_the_trick_winner_leads_next() -> None:
    out = run(C, "trump:H")
    assert out["to_act"] == 0 and "KC" in out["legal"]
    out = run(C, "trump:H KC 9H AC")  # seat 1 trumps: wins and leads
    assert out["to_act"] == 1 and out["tricks"] == [0, 1, 0] and out["points"] == [0, 15, 0]


def test_3h4_follow_suit_and_head_the_winning_card() -> None:
    # M, trump S: seat 0 leads TC; seat 1 (9C JC) and then seat 2 (QC KC) cannot beat the ten:
    # any club of theirs follows.
    assert legal(M, "trump:S TC") == ["9C", "JC"]
    assert legal(M, "trump:S TC JC") == ["KC", "QC"]
    # ORDERED, trump C: seat 0 leads 9C; seat 1's KC TC AC all beat it; seat 2 has no club (= no trump):
    # any card.
    assert legal(ORDERED, "trump:C 9C") == ["AC", "KC", "TC"]
    assert legal(ORDERED, "trump:C 9C KC") == sorted("9D JD QD JH QH KS TS AS".split())
    # trump H: seat 0 leads TH; seat 1's only heart is 9H; seat 2's JH QH cannot beat the ten.
    assert legal(ORDERED, "trump:H TH") == ["9H"]
    assert legal(ORDERED, "trump:H TH 9H") == ["JH", "QH"]
    # trump D: seat 0 leads QC, seat 1 heads with AC; seat 2 has no club: it must trump (9D JD QD).
    assert legal(ORDERED, "trump:D QC") == ["AC", "KC", "TC"]
    assert legal(ORDERED, "trump:D QC AC") == ["9D", "JD", "QD"]
    # The head is against the winning card, not the led one: seat 0 leads 9S (trump D), seat 1 plays
    # its only spade KS; seat 2 must beat the king: AS, not QS (which beats only the led nine).
    d = deck_for(["9S", "JS", "TS", "9C", "JC", "QC", "KC", "9D"],
                 ["KS", "JD", "QD", "KD", "TD", "AD", "9H", "JH"],
                 ["QS", "AS", "QH", "KH", "TH", "AH", "TC", "AC"])
    assert legal(d, "trump:D 9S") == ["KS"]
    assert legal(d, "trump:D 9S KS") == ["AS"]
    assert legal(d, "trump:D 9S KS", h3_must_head="false") == ["AS", "QS"]


def test_3h4_void_must_trump_and_overtrump_a_winning_trump_when_possible() -> None:
    # B, trump H: seat 0 leads 9C; seat 1 has no club: must trump (either).
    assert legal(B, "trump:H 9C") == ["AH", "KH"]
    # Seat 1 trumped with KH: seat 2 must over-trump, and only TH beats KH.
    assert legal(B, "trump:H 9C KH") == ["TH"]
    # Seat 1 trumped with AH: seat 2 cannot over-trump: any trump (not a spade).
    assert legal(B, "trump:H 9C AH") == ["9H", "JH", "QH", "TH"]


def test_3h4_a_trumped_trick_lets_any_card_of_the_led_suit_follow() -> None:
    """7.2: when the trick has been trumped, any card of a non-trump led suit follows."""
    assert legal(C, "trump:H KC") == ["9H", "JH"]  # seat 1: no club, must trump
    assert legal(C, "trump:H KC 9H") == ["9C", "AC", "TC"]  # seat 2: AC need not be played
    # Trump S: seat 1 has no club and must trump with a spade (any of them: no trump is winning yet).
    assert legal(C, "trump:S KC") == ["9S", "AS", "JS", "KS", "QS", "TS"]


def test_3h4_not_trumped_seat_2_must_head() -> None:
    # trump D: seat 1 has no clubs and no diamonds -> any card; then seat 2 must beat KC with AC or TC.
    assert legal(C, "trump:D KC") == sorted(["9H", "JH", "9S", "JS", "QS", "KS", "TS", "AS"])
    assert legal(C, "trump:D KC 9S") == ["AC", "TC"]


def test_3h4_must_head_false_only_follows_then_trumps() -> None:
    """3h_must_head=false: follow suit (no duty to beat), else any trump, else any card."""
    assert legal(C, "trump:D KC 9S", h3_must_head="false") == ["9C", "AC", "TC"]
    assert legal(B, "trump:H 9C KH", h3_must_head="false") == ["9H", "JH", "QH", "TH"]
    assert legal(ORDERED, "trump:C 9C", h3_must_head="false") == ["AC", "KC", "TC"]


def test_3h5_marriage_on_lead_then_its_king_or_queen_one_per_lead() -> None:
    out = run(M, "trump:S")
    assert "marry:H" in out["legal"] and "marry:S" in out["legal"] and "claim" not in out["legal"]
    assert legal(M, "trump:S marry:H") == ["KH", "QH"]  # one marriage per lead; lead K or Q of it
    with pytest.raises(ValueError):
        G.position(M, "trump:S marry:H AC".split(), G.rules())


def test_3h5_marriage_points_wait_for_a_trick() -> None:
    # Seat 0 declares hearts (20) on the first lead and loses the trick: pending, not counted.
    out = run(M, "trump:S marry:H KH 9H AH")
    assert out["points"] == [0, 0, 15] and out["to_act"] == 2
    # Seat 2 leads QC; seat 0 heads with AC and wins: 14 card points + the 20 now count.
    out = run(M, "trump:S marry:H KH 9H AH QC AC 9C")
    assert out["points"] == [34, 0, 15] and out["tricks"] == [1, 0, 1]


def test_claim_needs_66_and_is_offered_right_after_a_marriage_that_reaches_it() -> None:
    """7.2 point L: claim only with >= 66 (no false claims); also right after a marriage."""
    before = "trump:S marry:H KH 9H AH QC AC 9C AD 9D QD"
    out = run(M, before)
    assert out["points"] == [48, 0, 15] and "claim" not in out["legal"]
    with pytest.raises(ValueError, match="claim"):
        G.position(M, (before + " claim").split(), G.rules())
    assert legal(M, before + " marry:S") == ["KS", "QS", "claim"]  # 48 + 40 trump marriage = 88
    out = run(M, before + " marry:S claim")
    # Seat 1 took no trick (3), seat 2 has 15 (< 33: 2): min = 2 (3H-6, 3h_grade=min).
    assert out["over"] and out["winner"] == 0 and out["game_points"] == 2 and out["to_act"] is None
    assert run(M, before + " marry:S claim", h3_grade="max")["game_points"] == 3
    assert run(M, before + " marry:S claim", h3_grade="sum")["game_points"] == 5


def test_last_trick_earns_10_and_point_e_offers_claim_only_with_66() -> None:
    """7.2: the last trick's winner adds 10 and is at point E: claim (>= 66) or finish."""
    rng = random.Random(4)
    seen = {"claim": 0, "finish_only": 0}
    for _ in range(200):
        cards = ORDERED.split()
        rng.shuffle(cards)
        deck = " ".join(cards)
        actions: list[str] = []
        while True:
            out = run(deck, " ".join(actions))
            if out["over"] or len(actions) > 40:
                break
            choices = [a for a in out["legal"] if a != "claim" and not a.startswith("marry")] or out["legal"]
            if out["tricks"] and sum(out["tricks"]) == 8:  # point E
                pts = out["points"][out["to_act"]]
                assert out["legal"] == (["claim", "finish"] if pts >= 66 else ["finish"])
                seen["claim" if pts >= 66 else "finish_only"] += 1
                assert sum(out["points"]) == 130  # 120 card points + 10 for the last trick, no marriages
                end = run(deck, " ".join(actions + ["finish"]))
                assert end["over"] and end["winner"] is None and end["game_points"] == 0  # no claim: nothing
                break
            actions.append(rng.choice(choices))
    assert seen["claim"] > 10 and seen["finish_only"] > 10


def test_grade_function_66_13() -> None:
    """3H-6 grades each opponent with the 66-13 function: no trick 3, under 33 2, else 1 (33 is 1)."""
    s: State = G.position(ORDERED, ["trump:C"], G.rules())
    assert grade(s._replace(tricks=(0, 0, 0)), 1) == 3
    assert grade(s._replace(tricks=(0, 1, 0), won_points=(0, 32, 0)), 1) == 2
    assert grade(s._replace(tricks=(0, 1, 0), won_points=(0, 33, 0)), 1) == 1
    assert grade(s._replace(tricks=(0, 1, 0), won_points=(0, 13, 0), marriages=(0, 20, 0)), 1) == 1
    assert grade(s._replace(tricks=(0, 0, 0), won_points=(0, 0, 0), marriages=(0, 40, 0)), 1) == 3


def test_deal_passes_to_the_left_and_the_first_to_7_wins() -> None:
    """7.2: seat 0 is the dealer's left, seat 2 the dealer; the next deal is dealt by seat 0's player."""
    rng = random.Random(1)
    for seed in range(8):
        m: Match = G.start(seed, G.rules())
        d = G.deal(m)
        assert d.seats == tuple(player_of(d.dealer, s) for s in range(3)) and d.seats[2] == d.dealer
        while G.to_act(m) is not None:
            before = G.deal(m)
            done = G.deals_done(m)
            m = G.apply(m, rng.choice(G.legal(m)))
            if G.deals_done(m) > done and G.outcome(m) is None:
                assert G.deal(m).dealer == before.seats[0]
                end = G.deal_end(m)
                assert sum(end.points) == (end.record["game_points"] if end.record["winner"] is not None else 0)
        o = G.outcome(m)
        assert o is not None and max(o.scores) >= 7 and sorted(o.scores)[1] < 7 and o.ranks.count(0) == 1


def test_outcome_ranks_the_others_by_score_and_ties_share() -> None:
    m = G.start(1, G.rules())
    for scores, winner, ranks in (((2, 7, 2), 1, (1, 0, 1)), ((5, 3, 8), 2, (1, 2, 0))):
        o = G.outcome(m._replace(scores=scores, winner=winner))
        assert o is not None and o.ranks == ranks


def test_other_options_are_refused_in_one_line() -> None:
    for bad in ({"dealer_rotation": "winner"}, {"3h_grade": "avg"}, {"3h_must_head": "maybe"}, {"match_target": 0}):
        with pytest.raises(ValueError) as e:
            G.rules(bad)
        assert "\n" not in str(e.value)
    assert G.rules({"match_target": "3"}).match_target == 3


def test_an_illegal_action_is_refused() -> None:
    m = G.start(2, G.rules())
    with pytest.raises(IllegalAction):
        G.apply(m, "claim")
    with pytest.raises(IllegalAction):
        G.apply(m, "finish")
