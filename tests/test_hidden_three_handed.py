"""Hidden information in three-handed Sixty-Six: :func:`observe` is the only gate (3H-2, 7.2).

A seat's observation must not change when the cards it cannot see are dealt differently (any world
consistent with what it saw: the same actions stay legal). Before trump is named a seat sees only
its first three cards; ``trump:next`` makes ``d[9]`` public to every seat.
"""

from __future__ import annotations

import random

from harness.games.three_handed.engine import BIT_OF, CARD_STR, DEAL_MAP, MARRY, State, apply, deal, legal_actions
from harness.games.three_handed.observe import observe
from harness.games.base import IllegalAction
from harness.games.three_handed.options import Rules


def replay(deck: list[int], actions: list[str], rules: Rules = Rules()) -> State:
    s = deal(deck, rules)
    for a in actions:
        s = apply(s, a)
    return s


def fixed_positions(s: State, seat: int) -> set[int]:
    """Deck positions whose card ``seat`` knows: its own (at point T only its first three), every
    played card, d[9] once shown, and the king and queen of each declared marriage."""
    pos_of = {c: i for i, c in enumerate(s.deck)}
    known = set(DEAL_MAP[seat][:3] if s.point == "T" else DEAL_MAP[seat])
    if s.shown >= 0:
        known.add(9)
    for _, a in s.history:
        if a in BIT_OF:
            known.add(pos_of[_card(a)])
        elif a in MARRY:
            known.update(pos_of[_card(r + a[-1])] for r in "KQ")
    return known


def _card(text: str) -> int:
    return CARD_STR.index(text)


def test_observation_is_invariant_under_reassigning_unseen_cards() -> None:
    rng = random.Random(5)
    compared = changed_control = 0
    for n in range(120):
        deck = list(range(24))
        rng.shuffle(deck)
        rules = Rules(must_head=n % 2 == 0)
        s = deal(deck, rules)
        actions: list[str] = []
        for _ in range(rng.randrange(0, 30)):
            legal = legal_actions(s)
            if not legal:
                break
            a = rng.choice(legal)
            s = apply(s, a)
            actions.append(a)
        for seat in range(3):
            obs = observe(s, seat)
            fixed = fixed_positions(s, seat)
            free = [i for i in range(24) if i not in fixed]
            for _ in range(6):
                cards = [deck[i] for i in free]
                rng.shuffle(cards)
                other = list(deck)
                for i, c in zip(free, cards):
                    other[i] = c
                try:
                    t = replay(other, actions, rules)
                except IllegalAction:
                    continue  # not a world consistent with the actions seen
                assert observe(t, seat) == obs, (deck, other, actions, seat)
                compared += 1
            # Control: changing a card the seat does see does change its observation.
            own = [i for i in (DEAL_MAP[seat][:3] if s.point == "T" else DEAL_MAP[seat])
                   if CARD_STR[deck[i]] in obs.hand]
            if own and free:
                i, j = own[0], free[0]
                other = list(deck)
                other[i], other[j] = other[j], other[i]
                try:
                    t = replay(other, actions, rules)
                except IllegalAction:
                    continue
                assert observe(t, seat) != obs
                changed_control += 1
    assert compared > 800 and changed_control > 50


def test_point_t_shows_only_the_first_three_cards() -> None:
    deck = list(range(24))
    s = deal(deck)
    for seat in range(3):
        o = observe(s, seat)
        assert len(o.hand) == 3 and o.trump is None and o.trump_card is None
        assert set(o.hand) == {CARD_STR[deck[i]] for i in DEAL_MAP[seat][:3]}
    assert observe(s, 0).legal and not observe(s, 1).legal and not observe(s, 2).legal


def test_trump_next_makes_d9_public_to_every_seat() -> None:
    rng = random.Random(2)
    for _ in range(20):
        deck = list(range(24))
        rng.shuffle(deck)
        s = apply(deal(deck), "trump:next")
        for seat in range(3):
            o = observe(s, seat)
            assert o.trump_card == CARD_STR[deck[9]] and o.trump == "CDHS"[deck[9] // 6]
            assert len(o.hand) == 8
        named = apply(deal(deck), "trump:" + "CDHS"[deck[9] // 6])
        assert all(observe(named, seat).trump_card is None for seat in range(3))  # naming shows nothing
