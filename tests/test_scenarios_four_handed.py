"""Scenario tests of four-handed partnership Sixty-Six, each citing its rule (RULES-SPEC 3.3 4H-1..4H-9
and 7.3). Decks are written by hand from the hands each seat should hold (7.3's dealing map)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.games import registry
from harness.games.base import IllegalAction
from harness.games.four_handed.engine import DEAL_SEATS, State, score_deal

GAME = registry.get("four_handed")
ROOT = Path(__file__).resolve().parents[1]


def deck_from_hands(hands: list[list[str]], pack: int = 32) -> str:
    """The deck (top first) that deals ``hands`` by 7.3; the last card of seat 3 is the turned-up trump."""
    left = [list(h) for h in hands]
    return " ".join(left[seat].pop(0) for seat in DEAL_SEATS[pack])


# Seat 0: hearts; seat 1: clubs/spades; seat 2: hearts/diamonds; seat 3: the rest, trump card TS last.
HANDS = [
    ["AH", "TH", "KH", "QH", "JH", "9H", "8H", "7H"],
    ["AC", "TC", "KC", "QC", "JC", "9C", "8C", "7C"],
    ["AD", "TD", "KD", "QD", "JD", "9D", "8D", "7D"],
    ["AS", "KS", "QS", "JS", "9S", "8S", "7S", "TS"],
]


def pos(actions: str = "", hands: list[list[str]] | None = None, pack: int = 32, **rules: str) -> State:
    return GAME.position(deck_from_hands(hands or HANDS, pack), actions.split(), GAME.rules({"pack": pack, **rules}))


def run(state: Any) -> dict[str, Any]:
    """The JSON object of ``arena rules run four_handed`` (7.3) for ``state``."""
    return GAME.summary(state)


# -- 4H-1, 4H-2, 7.3: seats, teams, the deal ---------------------------------------------------------------


def test_4h_2_the_32_card_deal_is_3_2_3_from_the_dealers_left() -> None:
    """4H-2 / 7.3: d[0..2]->0, d[3..5]->1, d[6..8]->2, d[9..11]->3, d[12..13]->0, ... d[29..31]->3."""
    deck = "7C 8C 9C 7D 8D 9D 7H 8H 9H 7S 8S 9S JC QC JD QD JH QH JS QS KC TC AC KD TD AD KH TH AH KS AS TS".split()
    s = GAME.position(" ".join(deck), [], GAME.rules())
    from harness.games.four_handed.observe import observe

    hands = [sorted(observe(s, k).hand) for k in range(4)]
    assert hands[0] == sorted(deck[0:3] + deck[12:14] + deck[20:23])
    assert hands[1] == sorted(deck[3:6] + deck[14:16] + deck[23:26])
    assert hands[2] == sorted(deck[6:9] + deck[16:18] + deck[26:29])
    assert hands[3] == sorted(deck[9:12] + deck[18:20] + deck[29:32])
    assert run(s)["trump"] == "S"  # 4H-3: d[31] = TS is turned up


def test_4h_2_the_24_card_deal_is_3_3_and_has_no_sevens_or_eights() -> None:
    """4H-2 / 7.3: pack=24, 6 cards each, d[0..2]->0 ... d[21..23]->3; 7s and 8s are not cards of it."""
    hands = [["AH", "TH", "KH", "QH", "JH", "9H"], ["AC", "TC", "KC", "QC", "JC", "9C"],
             ["AD", "TD", "KD", "QD", "JD", "9D"], ["AS", "KS", "QS", "JS", "9S", "TS"]]
    s = pos("", hands, 24)
    assert GAME.observe(GAME.start(0, GAME.rules({"pack": 24})), 0).hand.__len__() == 6
    assert run(s) == {"to_act": 0, "legal": sorted(hands[0]), "trump": "S", "points": [0, 0], "tricks": [0, 0],
                      "talon": 0, "over": False, "winner": None, "game_points": 0}
    with pytest.raises(ValueError, match="7H"):
        GAME.position("7H " + deck_from_hands(hands, 24), [], GAME.rules({"pack": 24}))
    with pytest.raises(ValueError, match="expected 32"):
        GAME.position(deck_from_hands(hands, 24), [], GAME.rules())


def test_4h_1_play_is_clockwise_and_the_trick_winner_leads() -> None:
    """4H-1 / 4H-4: seat 0 (left of the dealer) leads, play goes 0 1 2 3, the winner leads next."""
    s = pos()
    assert run(s)["to_act"] == 0
    s = pos("9H")
    assert run(s)["to_act"] == 1
    s = pos("9H 7C 7D AS")  # seat 3 trumps: team 1 wins the trick and seat 3 leads
    r = run(s)
    assert r["to_act"] == 3 and r["tricks"] == [0, 1] and r["points"] == [0, 11]


# -- 4H-3: the turned-up trump ---------------------------------------------------------------------------


def test_4h_3_the_turned_up_trump_is_public_until_the_dealer_plays_it() -> None:
    s = pos()
    m = GAME.start(5, GAME.rules())
    assert all(GAME.observe(m, p).trump_card == GAME.deal(m).record["deck"].split()[-1] for p in range(4))
    assert {GAME.observe(m, p).trump_suit for p in range(4)} == {GAME.deal(m).record["deck"][-1]}
    from harness.games.four_handed.observe import observe

    assert all(observe(s, k).trump_card == "TS" for k in range(4))
    s = pos("9H 7C 7D TS")  # the dealer trumps with the turned-up card itself
    assert all(observe(s, k).trump_card is None for k in range(4))
    assert run(s)["trump"] == "S"  # the trump suit stays


# -- 4H-4: follow, win, trump, over-trump ------------------------------------------------------------------

# Mixed hands for the follow rules; trump is spades (d[31] = 7S).
MIXED = [
    ["KH", "9H", "AC", "7D", "8D", "QS", "7C", "8C"],
    ["AH", "TH", "KC", "9C", "JS", "AD", "TD", "8H"],
    ["QH", "JH", "AS", "KS", "KD", "QD", "9D", "TC"],
    ["7H", "JD", "QC", "JC", "8S", "9S", "TS", "7S"],
]


def test_4h_4_must_head_the_trick_when_possible() -> None:
    """4H-4: a follower holding the led suit must beat the winning card if he can; if not, any card of it."""
    assert run(pos("9H", MIXED))["legal"] == ["AH", "TH"]  # seat 1 must head the 9H (its 8H does not)
    assert run(pos("9H TH", MIXED))["legal"] == ["JH", "QH"]  # seat 2 cannot beat the TH: any heart
    assert run(pos("9H TH JH", MIXED))["legal"] == ["7H"]
    assert run(pos("KH", MIXED))["legal"] == ["AH", "TH"]  # 66-1.2: the ten ranks above the king


def test_4h_4_must_win_the_trick_even_over_the_partner() -> None:
    """4H-4: seat 0 leads QH, seat 1 can only follow low; partner seat 2 must take it with the KH."""
    hands = [
        ["QH", "AC", "TC", "KC", "QC", "JC", "9C", "8C"],
        ["8H", "AD", "TD", "KD", "QD", "JD", "9D", "8D"],
        ["KH", "9H", "7C", "7D", "KS", "QS", "JS", "9S"],
        ["AH", "TH", "7H", "JH", "8S", "TS", "AS", "7S"],
    ]
    assert run(pos("QH", hands))["legal"] == ["8H"]
    assert run(pos("QH 8H", hands))["legal"] == ["KH"]  # not the 9H: over the partner's queen
    assert run(pos("QH 8H KH", hands))["legal"] == ["AH", "TH"]


def test_4h_4_a_trumped_trick_lets_any_card_of_the_led_suit_follow() -> None:
    hands = [
        ["9H", "KH", "TH", "7D", "8D", "QS", "7C", "9C"],
        ["AD", "TD", "KC", "QC", "JS", "AC", "TC", "8C"],
        ["QH", "JH", "AS", "KS", "KD", "QD", "9D", "JC"],
        ["7H", "8H", "AH", "JD", "TS", "9S", "8S", "7S"],
    ]
    assert run(pos("9H", hands))["legal"] == ["JS"]  # void in hearts: must trump (4H-4)
    assert run(pos("9H JS", hands))["legal"] == ["JH", "QH"]  # trumped: no heart can win, any heart follows
    assert run(pos("9H JS JH", hands))["legal"] == ["7H", "8H", "AH"]  # following suit precedes trumping


def test_4h_4_void_must_overtrump_else_any_trump_else_any_card() -> None:
    hands = [
        ["AC", "TC", "KC", "QC", "JC", "9C", "8C", "7C"],
        ["AH", "TH", "KH", "QH", "JH", "9H", "QS", "7S"],
        ["AD", "TD", "KD", "QD", "JD", "9D", "8D", "7D"],
        ["8H", "7H", "AS", "KS", "JS", "9S", "8S", "TS"],
    ]
    # Seat 0 leads AC. Seat 1 (void in clubs) holds QS 7S: must trump, either trump (nothing to over-trump yet).
    s = GAME.position(deck_from_hands(hands), ["AC"], GAME.rules())
    assert run(s)["legal"] == ["7S", "QS"]
    # Seat 1 trumps with QS; seat 2 (void in clubs, no trumps) plays anything.
    s = GAME.position(deck_from_hands(hands), ["AC", "QS"], GAME.rules())
    assert run(s)["legal"] == sorted(hands[2])
    # Seat 3 (void in clubs) holds AS KS TS JS 9S 8S: must over-trump the partner's QS: AS KS TS only.
    s = GAME.position(deck_from_hands(hands), ["AC", "QS", "7D"], GAME.rules())
    assert run(s)["legal"] == ["AS", "KS", "TS"] or run(s)["legal"] == sorted(["AS", "KS", "TS"])
    # If seat 1 had trumped with 7S and seat 3 could not over-trump... (mirror): seat 1 trumps AS-less case below.
    hands2 = [list(h) for h in hands]
    hands2[1] = ["AH", "TH", "KH", "QH", "JH", "9H", "AS", "7S"]
    hands2[3] = ["8H", "7H", "QS", "KS", "JS", "9S", "8S", "TS"]
    s = GAME.position(deck_from_hands(hands2), ["AC", "AS", "7D"], GAME.rules())
    assert run(s)["legal"] == sorted(["QS", "KS", "JS", "9S", "8S", "TS"])  # cannot over-trump: any trump


def test_4h_4_a_trump_lead_must_be_headed_with_a_higher_trump() -> None:
    hands = [
        ["9S", "AC", "TC", "KC", "QC", "JC", "9C", "8C"],
        ["AS", "7S", "AH", "TH", "KH", "QH", "JH", "9H"],
        ["AD", "TD", "KD", "QD", "JD", "9D", "8D", "7D"],
        ["8H", "7H", "7C", "KS", "JS", "QS", "8S", "TS"],
    ]
    s = GAME.position(deck_from_hands(hands), ["9S"], GAME.rules())
    assert run(s)["legal"] == ["AS"]  # 7S does not beat 9S
    s = GAME.position(deck_from_hands(hands), ["9S", "AS", "7D"], GAME.rules())
    assert run(s)["legal"] == sorted(["KS", "JS", "QS", "8S", "TS"])  # nothing beats AS: any trump


def test_4h_4_an_illegal_card_is_refused() -> None:
    with pytest.raises(ValueError, match="illegal action '7S'"):
        GAME.position(deck_from_hands(MIXED), ["9H", "TH", "QH", "7S"], GAME.rules())  # seat 3 holds 7H


# -- 4H-5, 4H-7, 4H-9: points, the last trick, scoring ---------------------------------------------------


def _play_out(state: State, rng: random.Random) -> State:
    from harness.games.four_handed.engine import apply

    while state.result is None:
        legal = run(state)["legal"]
        state = apply(state, rng.choice(legal))
    return state


def test_4h_5_and_4h_9_all_tricks_are_played_and_the_last_counts_10() -> None:
    rng = random.Random(4)
    for pack in (32, 24):
        for _ in range(40):
            deck = GAME.deal(GAME.start(rng.randrange(10**6), GAME.rules({"pack": pack}))).record["deck"]
            s = GAME.position(deck, [], GAME.rules({"pack": pack}))
            s = _play_out(s, rng)
            assert len(s.history) == pack  # 4H-9: no claims, every card is played
            assert sum(s.points) == 130  # 4H-5: 120 + 10
            assert "claim" not in run(s)["legal"]


def test_4h_7_every_trick_scores_3() -> None:
    """Team 0 holds every trump and ace: seat 0 leads its trumps, then its winners."""
    hands = [
        ["AS", "TS", "KS", "QS", "JS", "9S", "8S", "AH"],
        ["7H", "8H", "9H", "JH", "QH", "KH", "TH", "7C"],
        ["AC", "TC", "KC", "QC", "JC", "9C", "8C", "AD"],
        ["7D", "8D", "9D", "JD", "QD", "KD", "TD", "7S"],
    ]
    actions = "AS 7H AC 7S  TS 8H TC 7D  KS 9H KC 8D  QS JH QC 9D  JS QH JC JD  9S KH 9C QD  8S TH 8C KD  AH 7C AD TD"
    s = GAME.position(deck_from_hands(hands), actions.split(), GAME.rules())
    r = run(s)
    assert r["over"] and r["tricks"] == [8, 0] and r["points"] == [130, 0]
    assert r["winner"] == 0 and r["game_points"] == 3 and r["to_act"] is None and r["legal"] == []


def test_4h_7_130_points_with_a_lost_zero_point_trick_scores_2() -> None:
    """7.3: 'every trick' is tested first, so 130 points with a lost zero-point trick scores 2."""
    hands = [
        ["7H", "AS", "TS", "KS", "QS", "JS", "9S", "8S"],
        ["9H", "JH", "QH", "KH", "TH", "AH", "AC", "AD"],
        ["8H", "7D", "8D", "9D", "JD", "QD", "KD", "TD"],
        ["7C", "8C", "9C", "JC", "QC", "KC", "TC", "7S"],
    ]
    # Trick 1: 7H 9H 8H, and the dealer, void in hearts, must trump with the 7S: a zero-point trick for
    # team 1. Seat 0 holds every other trump and wins the rest.
    s = pos("7H 9H 8H 7S", hands)
    assert run(s)["tricks"] == [0, 1] and run(s)["points"] == [0, 0] and run(s)["to_act"] == 3
    s = _play_out_team0(s)
    r = run(s)
    assert r["points"] == [130, 0] and r["tricks"] == [7, 1]
    assert r["winner"] == 0 and r["game_points"] == 2


def _play_out_team0(state: State) -> State:
    """Play on with the first legal card (the hands above make team 0 win the rest)."""
    from harness.games.four_handed.engine import apply

    while state.result is None:
        state = apply(state, run(state)["legal"][-1] if state.to_act in (0, 2) else
                      run(state)["legal"][0])
    return state


def test_4h_7_thresholds() -> None:
    """4H-7: 66-99 -> 1, exactly 100 -> 2 (decision), every trick -> 3; 65:65 -> nobody."""
    assert score_deal((100, 30), (5, 3), 8).game_points == 2
    assert score_deal((99, 31), (5, 3), 8).game_points == 1
    assert score_deal((30, 100), (3, 5), 8).winner == 1
    assert score_deal((66, 64), (4, 4), 8).game_points == 1
    assert score_deal((64, 66), (4, 4), 8).winner == 1
    r = score_deal((65, 65), (4, 4), 8)
    assert r.winner is None and r.game_points == 0
    assert score_deal((130, 0), (6, 0), 6).game_points == 3  # pack=24: six tricks


def _tie_deal() -> tuple[str, list[str]]:
    """A 65:65 deal, found by seeded random play (deterministic)."""
    from harness.games.four_handed.engine import apply

    rng = random.Random(1)
    for seed in range(5000):
        deck = GAME.deal(GAME.start(seed, GAME.rules())).record["deck"]
        s = GAME.position(deck, [], GAME.rules())
        acts = []
        while s.result is None:
            a = rng.choice(run(s)["legal"])
            acts.append(a)
            s = apply(s, a)
        if s.result.winner is None:
            return deck, acts
    raise AssertionError("no 65:65 deal found")


def test_4h_7_65_65_scores_nothing() -> None:
    deck, acts = _tie_deal()
    r = run(GAME.position(deck, acts, GAME.rules()))
    assert r["points"] == [65, 65] and r["over"] and r["winner"] is None and r["game_points"] == 0


def _first_tie_then_score(rules: dict) -> tuple[int, int, dict]:
    """Random matches until a 65:65 deal; returns (seed, deal_no of the tie, the next scoring deal's record)."""
    g = GAME
    for seed in range(400):
        rng = random.Random(seed)
        m = g.start(seed, g.rules(rules))
        tie_no = None
        while g.to_act(m) is not None:
            done = g.deals_done(m)
            m = g.apply(m, rng.choice(g.legal(m)))
            if g.deals_done(m) > done:
                rec = g.deal_end(m).record
                if tie_no is not None and rec["winner"] is not None:
                    return seed, tie_no, rec
                if rec["winner"] is None and tie_no is None:
                    tie_no = g.deal_end(m).deal_no
    raise AssertionError("no tie followed by a scoring deal")


def test_4h_7_a_tie_adds_one_point_to_the_next_scoring_deal() -> None:
    """4H-7 / 7.3: tie_carry_over=true (default here): +tie_carry_points for the next scoring deal's team."""
    seed, tie_no, rec = _first_tie_then_score({})
    assert rec["carried"] >= 1
    base = {"every trick": 3, "100 or more": 2, "66 or more": 1}[rec["reason"]]
    assert rec["game_points"] == base + rec["carried"]
    seed2, _, rec2 = _first_tie_then_score({"tie_carry_points": "2"})
    assert seed2 == seed and rec2["carried"] == 2 * rec["carried"]
    seed3, _, rec3 = _first_tie_then_score({"tie_carry_over": "false"})
    assert seed3 == seed and rec3["carried"] == 0
    assert rec3["game_points"] == {"every trick": 3, "100 or more": 2, "66 or more": 1}[rec3["reason"]]


# -- 4H-6, 4H-8: refused options; the match ------------------------------------------------------------------


def test_4h_6_no_marriages_and_4h_8_no_trump_ten_bonus() -> None:
    with pytest.raises(ValueError, match="team_marriages"):
        GAME.rules({"team_marriages": "leader_or_partner"})
    with pytest.raises(ValueError, match="trump_ten_bonus"):
        GAME.rules({"trump_ten_bonus": "true"})
    assert GAME.rules({"team_marriages": "none", "trump_ten_bonus": "false"}) == GAME.rules()
    with pytest.raises(ValueError, match="unknown action 'marry:H'"):
        GAME.position(deck_from_hands(HANDS), ["marry:H"], GAME.rules())


def test_7_3_the_deal_passes_left_and_the_first_team_to_7_wins() -> None:
    g = GAME
    rng = random.Random(2)
    m = g.start(21, g.rules())
    d = g.deal(m)
    assert d.seats == tuple((d.dealer + 1 + k) % 4 for k in range(4)) and d.seats[3] == d.dealer
    dealers = [d.dealer]
    while g.to_act(m) is not None:
        done = g.deals_done(m)
        m = g.apply(m, rng.choice(g.legal(m)))
        if g.deals_done(m) > done and g.outcome(m) is None:
            dealers.append(g.deal(m).dealer)
    assert all(b == (a + 1) % 4 for a, b in zip(dealers, dealers[1:]))  # seat 0 deals next
    o = g.outcome(m)
    assert o is not None
    win = o.ranks.index(0) % 2
    assert o.ranks == tuple(0 if p % 2 == win else 1 for p in range(4))
    assert o.scores[win] >= 7 > o.scores[1 - win] and o.scores[0] == o.scores[2] and o.scores[1] == o.scores[3]
    with pytest.raises(IllegalAction):
        g.apply(m, "7C")


def test_7_3_a_target_of_1_ends_after_the_first_scoring_deal() -> None:
    g = GAME
    rng = random.Random(0)
    m = g.start(3, g.rules({"match_target": 1}))
    while g.to_act(m) is not None:
        m = g.apply(m, rng.choice(g.legal(m)))
    assert max(g.scores(m)) >= 1 and all(r.winner is None for r in m.results[:-1])


# -- 7.3: the rules tools on the command line --------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", "rules", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_7_3_rules_run_prints_the_specified_json() -> None:
    r = _cli("run", "four_handed", "--deck", deck_from_hands(HANDS), "--actions", "9H 7C 7D AS")
    assert r.returncode == 0 and r.stderr == ""
    value = json.loads(r.stdout)
    assert list(value) == ["to_act", "legal", "trump", "points", "tricks", "talon", "over", "winner", "game_points"]
    assert value["to_act"] == 3 and value["tricks"] == [0, 1] and value["talon"] == 0
    p = _cli("perft", "four_handed", "--deck", deck_from_hands(HANDS), "--depth", "1")
    assert p.returncode == 0 and p.stdout.strip() == "8"


@pytest.mark.parametrize("args,token", [
    (["run", "four_handed", "--deck", "AH TH"], "expected 32"),
    (["run", "four_handed", "--deck", deck_from_hands(HANDS).replace("7C", "XX")], "XX"),
    (["run", "four_handed", "--deck", deck_from_hands(HANDS), "--actions", "9H 9H"], "9H"),
    (["run", "four_handed", "--deck", deck_from_hands(HANDS), "--actions", "claim"], "claim"),
    (["run", "four_handed", "--deck", deck_from_hands(HANDS), "--rule", "pack=20"], "pack"),
    (["run", "four_handed", "--deck", deck_from_hands(HANDS), "--rule", "trump_ten_bonus=true"], "trump_ten_bonus"),
    (["perft", "four_handed", "--deck", deck_from_hands(HANDS), "--rule", "auto_claim=true", "--depth", "1"],
     "auto_claim"),
])
def test_7_bad_input_exits_2_with_one_line(args: list[str], token: str) -> None:
    r = _cli(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and token in r.stderr
