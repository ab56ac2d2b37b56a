"""66-15: observe(state, seat) is the one gate for hidden information; it must not leak."""

from __future__ import annotations

import random

import pytest

from harness.games.registry import get
from harness.games.sixtysix.cards import CARD_INDEX, CARD_STR, CLASSIC, SCHNAPSEN, Pack, cards_in
from harness.games.sixtysix.engine import State
from harness.games.sixtysix.options import Rules
from harness.games.sixtysix.observe import observe
from playing import random_states


def hidden_from(s: State, seat: int) -> list[int]:
    """Cards the seat cannot know: the opponent's unshown cards and the face-down talon (66-15.2)."""
    o = observe(s, seat)
    played = {CARD_INDEX[a] for _, a in s.history if a in CARD_INDEX}
    shown = {CARD_INDEX[c] for c in o.opponent_known}
    opp = [c for c in cards_in(s.hands[1 - seat]) if c not in shown]
    talon = [c for c in s.talon[:-1]] if s.drawn < s.talon_n else []
    hidden = opp + talon
    assert not (set(hidden) & played)
    return hidden


def reassign(s: State, seat: int, rng: random.Random) -> State:
    """The same position with the seat's hidden cards shuffled among their places."""
    hidden = hidden_from(s, seat)
    perm = hidden[:]
    rng.shuffle(perm)
    sigma = dict(zip(hidden, perm))
    deck = tuple(sigma.get(c, c) for c in s.deck)
    stock = tuple(sigma.get(c, c) for c in s.stock)
    hands = [0, 0]
    for p in (0, 1):
        for c in cards_in(s.hands[p]):
            hands[p] |= 1 << sigma.get(c, c)
    return s._replace(deck=deck, stock=stock, hands=(hands[0], hands[1]))


PACKS = pytest.mark.parametrize("pack,rules", [(CLASSIC, Rules()), (SCHNAPSEN, get("schnapsen").rules())],
                                ids=["sixtysix", "schnapsen"])


@PACKS
def test_observation_is_identical_under_every_reassignment_of_hidden_cards(pack: Pack, rules: Rules) -> None:
    rng = random.Random(5)
    changed = 0
    for s in random_states(3000, seed=11, rules=rules, pack=pack):
        for seat in (0, 1):
            base = observe(s, seat)
            for _ in range(2):
                t = reassign(s, seat, rng)
                changed += t.hands[1 - seat] != s.hands[1 - seat]
                assert observe(t, seat) == base
    assert changed > 2000  # the reassignments really moved the opponent's cards


@PACKS
def test_observation_shows_own_hand_and_public_facts(pack: Pack, rules: Rules) -> None:
    for s in random_states(300, seed=3, rules=rules, pack=pack):
        for seat in (0, 1):
            o = observe(s, seat)
            assert o.hand == tuple(sorted(CARD_STR[c] for c in cards_in(s.hands[seat])))
            assert o.talon_size == s.talon_size
            assert o.history == s.history
            assert set(o.opponent_known) <= {CARD_STR[c] for c in cards_in(s.hands[1 - seat])}
            if s.outcome is None and s.to_act == seat:
                assert o.legal
            else:
                assert o.legal == ()


@PACKS
def test_the_seat_sees_a_change_of_its_own_hand(pack: Pack, rules: Rules) -> None:
    """A control: swapping a card between the seat's hand and the hidden cards changes what it sees."""
    rng = random.Random(2)
    for s in random_states(200, seed=8, rules=rules, pack=pack):
        seat = 0
        hidden = hidden_from(s, seat)
        own = cards_in(s.hands[seat])
        if not hidden or not own:
            continue
        a, b = rng.choice(own), rng.choice(hidden)
        h = list(s.hands)
        h[seat] = h[seat] & ~(1 << a) | (1 << b)
        assert observe(s._replace(hands=(h[0], h[1])), seat) != observe(s, seat)


def test_shown_cards_are_tracked() -> None:
    """66-15.1: a declared marriage partner and the exchanged trump card are public."""
    from harness.games.sixtysix.cards import parse_deck
    from harness.games.sixtysix.engine import replay

    # T25 then a marriage: A exchanges 9S for KS and declares 40 with KS QS, leading QS.
    deck = parse_deck("9S QS AH 9H QH KC TH JC 9D AC TD JD KS AS TS JS KD QD AD 9C QC TC KH JH")
    s = replay(deck, ["AH", "9H", "draw", "exchange", "marry:S", "QS"])
    o = observe(s, 1)
    assert "KS" in o.opponent_known
    assert o.trump_card == "9S"
