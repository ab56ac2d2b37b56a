"""Determinization is consistent with the observation and yields legal engine States, for both packs
of the Sixty-Six family: classic (24 cards) and Schnapsen (20 cards, SCH-1, SCH-2)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from harness.games.schnapsen import PRESET
from harness.games.sixtysix import Rules, State, apply, deal, follow_cards, legal_actions
from harness.games.sixtysix.cards import CARD_INDEX, CARD_STR, CLASSIC, POINTS, SCHNAPSEN, Pack, cards_in
from harness.games.sixtysix.observe import observe
from harness.sdk.helpers import Determinizer, determinize, opponent_hand_size, played, points_in_play, unseen

RULE_SETS = {
    CLASSIC.name: [
        Rules(),
        Rules(exchange_rank="J", exchange_before_draw=True, pre_draw_declarations=True, last_trick="wins_deal"),
        Rules(marriage_in_phase2=True, exchange_by_non_leader=True, phase2_must_head=False),
        Rules(phase2_must_trump=False, exchange_on_opponent_close="none", close_min_talon=4),
    ],
    SCHNAPSEN.name: [
        Rules.from_mapping(PRESET),
        Rules.from_mapping({**PRESET, "exchange_on_opponent_close": "any", "exchange_by_non_leader": True}),
        Rules.from_mapping({**PRESET, "phase2_must_head": False, "close_before_draw": True,
                            "pre_draw_declarations": True, "exchange_before_draw": True}),
        Rules(),  # the classic options on the 20-card pack
    ],
}
PACKS = [CLASSIC, SCHNAPSEN]


def states(n: int, seed: int, pack: Pack = CLASSIC) -> Iterator[State]:
    """Positions of random deals; claims are mostly skipped so that deals run long."""
    rng = random.Random(seed)
    rule_sets = RULE_SETS[pack.name]
    for i in range(n):
        deck = list(pack.cards)
        rng.shuffle(deck)
        s = deal(deck, rule_sets[i % len(rule_sets)])
        while not s.over:
            yield s
            acts = sorted(legal_actions(s))
            if len(acts) > 1 and "claim" in acts:
                acts.remove("claim")
            # Prefer closing and exchanging now and then, so that phase 2 and point R are covered.
            pick = next((a for a in ("exchange", "close") if a in acts and rng.random() < 0.3), None)
            s = apply(s, pick or rng.choice(acts))


def play_out(s: State, rng: random.Random) -> State:
    while not s.over:
        s = apply(s, rng.choice(legal_actions(s)))
    return s


def check_phase2_follows(det: State, seat: int) -> None:
    """Every phase-2 follow the opponent made was legal with the hand the sample gives it."""
    opp = 1 - seat
    hist = det.history
    hand = det.hands[opp]
    phase2_from = next((i for i, (_, a) in enumerate(hist) if a == "close"), None)
    draws = [i for i, (_, a) in enumerate(hist) if a == "draw"]
    if len(draws) == det.talon_n // 2:
        phase2_from = min(phase2_from if phase2_from is not None else 99, draws[-1])
    if phase2_from is None:
        return
    for i in range(len(hist) - 1, phase2_from, -1):  # walk back, giving the opponent its cards again
        who, a = hist[i]
        if who == opp and a in CARD_INDEX:
            hand |= 1 << CARD_INDEX[a]
            j = i - 1
            while j >= 0 and hist[j][1] not in CARD_INDEX:
                j -= 1
            lead_is_prev_card = sum(1 for _, b in hist[:i] if b in CARD_INDEX) % 2 == 1
            if lead_is_prev_card:
                allowed = follow_cards(hand, CARD_INDEX[hist[j][1]], det.trump, True, det.rules)
                assert allowed >> CARD_INDEX[a] & 1, (a, hist[j][1], hist)


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.name)
def test_determinize_is_consistent_and_legal(pack: Pack) -> None:
    rng = random.Random(5)
    checked = 0
    phase2 = exchanged = 0
    for s in states(160, 11, pack):
        for seat in (0, 1):
            obs = observe(s, seat)
            assert obs.pack == pack.name
            d = Determinizer(obs)
            truth = [c for c in cards_in(s.hands[1 - seat]) if CARD_STR[c] not in obs.opponent_known]
            assert d.holds <= set(truth), "inferred cards are really there"
            assert set(truth) - d.holds <= set(d.allowed), "the real deal must stay possible"
            for _ in range(2):
                det = d.sample(rng)
                assert sorted(det.deck) == list(pack.cards), "a world of the observed pack"
                assert det.talon_n == s.talon_n and det.stock[det.drawn:] == det.talon[:-1]
                assert det.trump_card == s.trump_card or any(a == "exchange" for _, a in s.history)
                assert observe(det, seat) == obs
                assert det.hands[seat] == s.hands[seat]
                assert det.bottom == s.bottom and det.drawn == s.drawn
                assert det.card_points == s.card_points and det.close_info == s.close_info
                assert (det.turn, det.married, det.bonus_to) == (s.turn, s.married, s.bonus_to)
                opp = det.hands[1 - seat]
                assert all(opp >> CARD_INDEX[c] & 1 for c in obs.opponent_known)
                assert bin(opp).count("1") == bin(s.hands[1 - seat]).count("1")
                talon = set(det.talon)
                everything = set(cards_in(det.hands[0] | det.hands[1])) | talon | {CARD_INDEX[c] for c in played(obs)}
                assert everything == set(pack.cards) and not det.hands[0] & det.hands[1]
                assert not talon & set(cards_in(det.hands[0] | det.hands[1]))
                assert sorted(legal_actions(det)) == sorted(legal_actions(s)) or s.to_act != seat
                check_phase2_follows(det, seat)
                play_out(det, rng)  # the sample is a State the engine plays to the end
                checked += 1
                phase2 += s.phase2
                exchanged += any(a == "exchange" for _, a in s.history)
    assert checked > 3000 and phase2 > 500 and exchanged > 300  # the hard cases were reached


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.name)
def test_unseen_and_points_in_play(pack: Pack) -> None:
    for s in states(40, 3, pack):
        for seat in (0, 1):
            obs = observe(s, seat)
            hidden = set(unseen(obs))
            opp_unshown = {CARD_STR[c] for c in cards_in(s.hands[1 - seat])} - set(obs.opponent_known)
            face_down = {CARD_STR[c] for c in s.stock[s.drawn:]} if s.drawn < s.talon_n else set()
            assert hidden == opp_unshown | face_down
            assert hidden <= {CARD_STR[c] for c in pack.cards}
            assert opponent_hand_size(obs) == bin(s.hands[1 - seat]).count("1")
            left = sum(POINTS[c] for c in cards_in(s.hands[0] | s.hands[1])) + sum(POINTS[c] for c in s.talon)
            left += POINTS[s.lead] if s.lead >= 0 else 0
            bonus = 10 if s.rules.last_trick == "bonus10" and s.closed_by < 0 else 0
            assert points_in_play(obs) == left + bonus


def test_determinize_refuses_what_it_cannot_know() -> None:
    s = deal(range(24), Rules(public_trick_history=False))
    s = apply(apply(s, sorted(legal_actions(s))[0]), sorted(legal_actions(apply(s, sorted(legal_actions(s))[0])))[0])
    with pytest.raises(ValueError, match="public trick history"):
        determinize(observe(s, 0), random.Random(1))


def test_schnapsen_deal_start_counts() -> None:
    """SCH-1, SCH-2, SCH-9: five cards each, a ten-card talon, no nines, no last-trick bonus in play."""
    s = deal(SCHNAPSEN.cards, Rules.from_mapping(PRESET))
    obs = observe(s, 0)
    hidden = unseen(obs)
    assert (len(obs.hand), obs.talon_size, opponent_hand_size(obs), len(hidden)) == (5, 10, 5, 14)
    assert not any(c[0] == "9" for c in hidden)
    assert points_in_play(obs) == 120
    assert points_in_play(observe(deal(SCHNAPSEN.cards, Rules()), 0)) == 130  # last_trick=bonus10
