"""Wire-level leak test: a seat's encoded observation does not depend on the cards hidden from it.

For thousands of states reached by random play of Sixty-Six and of Schnapsen, the cards the seat
cannot know (the opponent's cards not publicly shown, and the face-down talon) are dealt anew in
every way we try; the encoded request carrying ``observe(state, seat)`` in the game's case must
not change, byte for byte.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from harness.games.schnapsen import GAME as SCHNAPSEN_GAME
from harness.games.sixtysix import Rules, State, apply, deal, legal_actions
from harness.games.sixtysix.cards import CARD_INDEX, CLASSIC, SCHNAPSEN, cards_in
from harness.games.sixtysix.observe import observe
from harness.wire.codecs import codec

RULE_SETS = {
    "sixtysix": [
        Rules(),
        Rules(exchange_rank="J", exchange_before_draw=True, pre_draw_declarations=True),
        Rules(public_trick_history=False, marriage_in_phase2=True, exchange_by_non_leader=True),
    ],
    "schnapsen": [
        SCHNAPSEN_GAME.rules(),
        SCHNAPSEN_GAME.rules({"public_trick_history": False, "exchange_by_non_leader": True}),
    ],
}
PACKS = {"sixtysix": CLASSIC, "schnapsen": SCHNAPSEN}


def encoded(s: State, seat: int) -> bytes:
    """The request bytes the match loop would send this seat (its observation and legal actions)."""
    obs = observe(s, seat)
    return codec(obs.pack).encode_request("m-1", 1, 1, obs, obs.legal, 1000, 10000)


def hidden_from(s: State, seat: int) -> list[int]:
    """The opponent's unshown cards and the face-down talon (everything but the bottom card)."""
    known = {CARD_INDEX[c] for c in observe(s, seat).opponent_known}
    opp = [c for c in cards_in(s.hands[1 - seat]) if c not in known]
    face_down = list(s.stock[s.drawn :])
    return opp + face_down


def reassign(s: State, seat: int, hidden: list[int], perm: list[int]) -> State:
    """Relabel the hidden cards by ``hidden[i] -> perm[i]`` in the deck, the stock and the opponent's hand."""
    m = dict(zip(hidden, perm))
    deck = tuple(m.get(c, c) for c in s.deck)
    stock = tuple(m.get(c, c) for c in s.stock)
    opp = 0
    for c in cards_in(s.hands[1 - seat]):
        opp |= 1 << m.get(c, c)
    hands = (s.hands[0], opp) if seat == 0 else (opp, s.hands[1])
    return s._replace(deck=deck, stock=stock, hands=hands)


def states(n: int, seed: int, game: str = "sixtysix") -> Iterator[State]:
    rng = random.Random(seed)
    for i in range(n):
        rule_sets = RULE_SETS[game]
        rules = rule_sets[i % len(rule_sets)]
        deck = list(PACKS[game].cards)
        rng.shuffle(deck)
        s = deal(deck, rules)
        while not s.over:
            yield s
            acts = sorted(legal_actions(s))
            if "claim" in acts and len(acts) > 1 and rng.random() < 0.9:
                acts.remove("claim")  # play deals on, so late positions are covered too
            s = apply(s, rng.choice(acts))
        yield s


@pytest.mark.parametrize("game", ["sixtysix", "schnapsen"])
def test_encoded_observation_ignores_hidden_cards(game: str) -> None:
    rng = random.Random(66)
    checked = 0
    for s in states(220 if game == "sixtysix" else 300, 1, game):
        for seat in (0, 1):
            hidden = hidden_from(s, seat)
            base = encoded(s, seat)
            if len(hidden) <= 4:  # every reassignment
                perms = [list(p) for p in itertools.permutations(hidden)][1:]
            else:
                perms = [rng.sample(hidden, len(hidden)) for _ in range(3)]
            for perm in perms:
                other = reassign(s, seat, hidden, perm)
                assert sorted(other.deck) == list(PACKS[game].cards)
                assert encoded(other, seat) == base, (seat, s.history)
                checked += 1
    assert checked > 5000


@pytest.mark.parametrize("game", ["sixtysix", "schnapsen"])
def test_the_hidden_cards_do_matter_to_the_other_seat(game: str) -> None:
    """A sanity check of the method: the opponent's own observation does change."""
    changed = 0
    for s in itertools.islice(states(30, 2, game), 200):
        hidden = hidden_from(s, 0)
        if len(hidden) < 2:
            continue
        other = reassign(s, 0, hidden, hidden[1:] + hidden[:1])
        changed += encoded(other, 1) != encoded(s, 1)
    assert changed > 50
