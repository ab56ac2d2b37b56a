"""Property-based tests of the Sixty-Six deal engine (RULES-SPEC 66-1.16, 66-12.4, 66-13.1).

Random decks are played with random legal actions under several policies and rule sets. Along the way
an independent tally (tricks, card points, marriages, closing info) is kept from the action history
alone and compared with the engine, and the final outcome is checked against an independent model
of the scoring table 66-13.1.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.games.sixtysix import (
    IllegalAction,
    Rules,
    State,
    apply,
    card_str,
    cards_of,
    counted_points,
    deal,
    legal_actions,
    replay,
    summary,
)
from harness.games.sixtysix.cards import CARD_STR

RANK_ORDER = "9JQKTA"
RANK_POINTS = {"9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}
ALL_ACTIONS = list(CARD_STR) + ["marry:" + s for s in "CDHS"] + [
    "exchange", "close", "claim", "draw", "pass", "finish"]

RULESETS = [
    Rules(),
    Rules(exchange_before_draw=True, pre_draw_declarations=True, exchange_on_opponent_close="requires_trick",
          phase2_must_head=False, false_claim_points="two_or_three", beaten_closer_points="as_failed_close",
          closer_win_basis="close", played_out_scoring="graded", close_before_first_trick=False,
          marriage_before_first_trick=False, exchange_requires_trick=False),
    Rules(close_before_draw=False, exchange_min_talon=4, close_min_talon=4, phase2_must_trump=False,
          marriage_then_close=False, exchange_by_non_leader=True, marriage_in_phase2=True,
          closer_false_claim="flat2", exchange_on_opponent_close="none"),
]
POLICIES = ["uniform66", "sometimes_close", "always_draw", "never_claim", "anything"]

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # what every test here starts from


def popcount(x: int) -> int:
    return bin(x).count("1")


def choose(s: State, policy: str, rng: random.Random) -> str:
    acts = legal_actions(s)
    me = s.to_act
    if policy == "anything":
        return rng.choice(acts)
    can66 = counted_points(s, me) >= 66
    if policy == "never_claim":
        if s.point == "E":
            return "finish"
        if s.point == "D":
            return "draw"
        ok = [a for a in acts if a not in ("claim", "close")]
        return rng.choice(ok)
    ok = [a for a in acts if a != "claim" or can66]
    if s.point == "E":
        return "claim" if "claim" in ok else "finish"
    if policy == "sometimes_close":
        if "close" in ok and rng.random() < 0.25:
            return "close"
        ok = [a for a in ok if a != "close"] or ok
    else:
        ok = [a for a in ok if a != "close"] or ok
    if policy == "always_draw" and s.point == "D":
        return "draw"
    return rng.choice(ok)


def follow_model(hand: list[str], led: str, trump: str, phase2: bool, rules: Rules) -> set[str]:
    """66-6.2 / 66-6.3 on card names, written independently of the engine."""
    if not phase2:
        return set(hand)
    same = [c for c in hand if c[1] == led[1]]
    if same:
        higher = [c for c in same if RANK_ORDER.index(c[0]) > RANK_ORDER.index(led[0])]
        return set(higher) if (higher and rules.phase2_must_head) else set(same)
    trumps = [c for c in hand if c[1] == trump]
    if trumps and rules.phase2_must_trump:
        return set(trumps)
    return set(hand)


def follower_wins(led: str, card: str, trump: str) -> bool:
    """66-6.5."""
    if led[1] == card[1]:
        return RANK_ORDER.index(card[0]) > RANK_ORDER.index(led[0])
    return card[1] == trump


class Tally:
    """Independent bookkeeping from the actions alone."""

    def __init__(self) -> None:
        self.tricks = [0, 0]
        self.cards = [0, 0]
        self.marr = [0, 0]
        self.bonus = -1
        self.closer = -1
        self.close_at_d = False
        self.opp_had_trick = False
        self.opp_pts_at_close = 0
        self.played = 0

    def counted(self, seat: int) -> int:
        return self.cards[seat] + (self.marr[seat] if self.tricks[seat] else 0) + (10 if self.bonus == seat else 0)

    def grade(self, loser: int) -> int:
        if self.tricks[loser] == 0:
            return 3
        return 2 if self.counted(loser) < 33 else 1


def expected_outcome(t: Tally, action: str, actor: int, r: Rules) -> tuple[int | None, int, int]:
    """(winner, game points, row) by 66-13.1, from the tally."""
    opp = 1 - actor
    if action == "claim":
        valid = t.counted(actor) >= 66
        if t.closer < 0:
            if valid:
                return actor, t.grade(opp), 1
            return opp, 3 if (r.false_claim_points == "two_or_three" and t.tricks[opp] == 0) else 2, 5
        if t.closer == actor:
            if valid:
                if r.closer_win_basis == "close":
                    g = 3 if not t.opp_had_trick else 2 if t.opp_pts_at_close < 33 else 1
                    return actor, g, 2
                return actor, t.grade(opp), 2
            if r.closer_false_claim == "as_failed_close":
                return opp, 2 if t.opp_had_trick else 3, 4
            return opp, 2, 4
        # actor is the closer's opponent
        if valid:
            if r.beaten_closer_points == "flat2":
                return actor, 2, 3
            return actor, 2 if t.opp_had_trick else 3, 3
        return opp, 3 if (r.false_claim_points == "two_or_three" and t.tricks[opp] == 0) else 2, 5
    assert action == "finish"
    if t.closer >= 0:
        return 1 - t.closer, 2 if t.opp_had_trick else 3, 6
    a, b = t.counted(0), t.counted(1)
    if a == b:
        return None, 0, 8
    w = 0 if a > b else 1
    return w, (t.grade(1 - w) if r.played_out_scoring == "graded" else 1), 7


def run_deal(deck: tuple[int, ...], rules: Rules, policy: str, seed: int) -> tuple[State, Tally, list[State]]:
    """Play one deal, checking invariants at every step; returns (final state, tally, states)."""
    rng = random.Random(seed)
    s = deal(deck, rules)
    t = Tally()
    trump = "CDHS"[s.trump]
    assert card_str(deck[12])[1] == trump
    states = [s]
    after_close = None  # hand size expected at the next L after a close
    steps = 0
    while not s.over:
        steps += 1
        assert steps < 200
        acts = legal_actions(s)
        assert acts, "a live deal must offer an action"
        assert len(set(acts)) == len(acts)
        assert summary(s)["legal"] == sorted(acts)
        me = s.to_act
        # 66-11.2: claim only on lead, i.e. at L, D, E
        assert ("claim" in acts) == (s.point in "LDE")
        # an action outside the legal list is refused
        bad = [a for a in ALL_ACTIONS if a not in acts]
        if bad:
            try:
                apply(s, rng.choice(bad))
            except IllegalAction:
                pass
            else:
                raise AssertionError("an illegal action was accepted")
        if s.point == "F":
            phase2 = s.talon_state != "open"
            hand = cards_of(s.hands[me])
            cards = {a for a in acts if a in CARD_STR}
            assert cards == follow_model(hand, card_str(s.lead), trump, phase2, rules)
        a = choose(s, policy, rng)
        prev = s
        s = apply(s, a)
        states.append(s)
        # -- independent tally -----------------------------------------------------------
        if a in CARD_STR:
            t.played += 1
            if prev.point == "F":
                led = card_str(prev.lead)
                w = me if follower_wins(led, a, trump) else 1 - me
                t.tricks[w] += 1
                t.cards[w] += RANK_POINTS[led[0]] + RANK_POINTS[a[0]]
                if s.hands == (0, 0) and t.closer < 0 and rules.last_trick == "bonus10":
                    t.bonus = w
                assert s.over or s.to_act == w
        elif a.startswith("marry:"):
            t.marr[me] += 40 if a[-1] == trump else 20
        elif a == "close":
            t.closer = me
            t.close_at_d = prev.point == "D"
            t.opp_had_trick = t.tricks[1 - me] > 0
            t.opp_pts_at_close = t.counted(1 - me)
            after_close = 5 if t.close_at_d else 6
        elif a == "draw":
            w = me
            k = prev.drawn
            assert s.hands[w] & ~prev.hands[w] == 1 << deck[13 + k]
            second = deck[14 + k] if k < 10 else prev.bottom
            assert s.hands[1 - w] & ~prev.hands[1 - w] == 1 << second
        if s.over:
            o = s.outcome
            assert o is not None
            assert o.game_points in (0, 1, 2, 3)
            assert o.winner in (None, 0, 1)
            assert (o.winner is None) == (o.game_points == 0) == (o.row == 8)
            assert (o.winner, o.game_points, o.row) == expected_outcome(t, a, me, rules), (a, me, s.history)
            break
        # -- invariants (66-1.16) --------------------------------------------------------
        assert list(s.tricks) == t.tricks and list(s.card_points) == t.cards
        for seat in (0, 1):
            assert counted_points(s, seat) == t.counted(seat)
        n0, n1 = popcount(s.hands[0]), popcount(s.hands[1])
        assert s.talon_size % 2 == 0
        assert n0 + n1 + s.talon_size + t.played == 24
        assert s.hands[0] & s.hands[1] == 0
        if s.point == "L":
            assert n0 == n1
            if s.talon_state == "open":
                assert n0 == 6
            if after_close is not None:
                assert n0 == after_close
                after_close = None
            if sum(s.tricks) > 0:
                assert s.tricks[s.to_act] >= 1
        elif s.point == "F":
            assert popcount(s.hands[s.leader]) + 1 == popcount(s.hands[1 - s.leader])
        elif s.point == "D":
            assert n0 == n1 and s.talon_state == "open"
            assert s.tricks[s.to_act] >= 1
        if s.talon_state == "open":
            assert s.talon_size >= 2
    return s, t, states


@settings(SETTINGS, max_examples=1500)
@given(deck=st.permutations(range(24)), seed=st.integers(0, 2**32 - 1),
       policy=st.sampled_from(POLICIES), rules=st.sampled_from(RULESETS))
def test_invariants_under_random_play(deck: list[int], seed: int, policy: str, rules: Rules) -> None:
    """66-1.16, 66-5.4, 66-6.3, 66-6.5, 66-7.1, 66-13.1: invariants and independent scoring, random play."""
    run_deal(tuple(deck), rules, policy, seed)


@settings(SETTINGS, max_examples=600)
@given(deck=st.permutations(range(24)), seed=st.integers(0, 2**32 - 1))
def test_unclosed_played_out_totals(deck: list[int], seed: int) -> None:
    """66-12.4: an unclosed deal played out has 120 card points in 12 tricks and 130 + counted marriages."""
    s, t, _ = run_deal(tuple(deck), Rules(), "never_claim", seed)
    assert s.closed_by == -1 and s.history[-1][1] == "finish"
    assert sum(s.tricks) == 12
    assert sum(s.card_points) == 120
    counted_marr = sum(s.marriages[i] for i in (0, 1) if s.tricks[i])
    assert counted_points(s, 0) + counted_points(s, 1) == 130 + counted_marr
    assert s.bonus_to in (0, 1)
    assert s.outcome is not None and s.outcome.row in (7, 8)


@settings(SETTINGS, max_examples=600)
@given(deck=st.permutations(range(24)), seed=st.integers(0, 2**32 - 1))
def test_closed_played_out_totals(deck: list[int], seed: int) -> None:
    """66-12.4, 66-10.3, 66-12.2: in a closed deal played out the talon cards are never played; no bonus."""
    rng = random.Random(seed)
    s = deal(tuple(deck))
    while not s.over:
        acts = legal_actions(s)
        if "close" in acts and rng.random() < 0.4:
            a = "close"
        elif s.point == "E":
            a = "finish"
        else:
            a = rng.choice([x for x in acts if x not in ("claim", "close")])
        s = apply(s, a)
    if s.closed_by >= 0:
        talon = {card_str(c) for c in s.talon}
        assert len(talon) == s.talon_size
        played = {a for _, a in s.history if a in CARD_STR}
        assert not (played & talon)
        assert sum(s.card_points) == 120 - sum(RANK_POINTS[c[0]] for c in talon)
        assert sum(s.tricks) == (24 - s.talon_size) // 2
        assert s.bonus_to == -1
        assert s.outcome is not None and s.outcome.row == 6 and s.outcome.winner == 1 - s.closed_by


@settings(SETTINGS, max_examples=600)
@given(deck=st.permutations(range(24)), seed=st.integers(0, 2**32 - 1),
       policy=st.sampled_from(POLICIES), rules=st.sampled_from(RULESETS), cut=st.floats(0, 1))
def test_replay_round_trip(deck: list[int], seed: int, policy: str, rules: Rules, cut: float) -> None:
    """A state is a function of deck, rules and its action history (replay)."""
    cards = tuple(deck)
    s, _, states = run_deal(cards, rules, policy, seed)
    assert replay(cards, [a for _, a in s.history], rules) == s
    mid = states[int(cut * (len(states) - 1))]
    assert replay(cards, [a for _, a in mid.history], rules) == mid
