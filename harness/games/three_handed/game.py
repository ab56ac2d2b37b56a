"""Three-handed Sixty-Six (variant 3A) behind the game interface (:class:`harness.games.base.Game`).

Players are match indexes 0, 1, 2, seated clockwise in that order. In a deal, seat 0 is the player
to the dealer's left and seat 2 the dealer; the next deal is dealt by the player at seat 0 (the deal
passes to the left, 7.2). Every deck follows from the match seed and the deal number, and the first
dealer from the seed, so a match is a pure function of its seed and the players' actions (and the
seat rotations of a table on one seed see the same deals).

>>> m = GAME.start(7, GAME.rules())
>>> GAME.players(GAME.rules()), GAME.teams(GAME.rules()), GAME.legal(m)[-1], GAME.deal(m).deal_no
(3, (0, 1, 2), 'trump:next', 1)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from harness.games.base import DealEnd, DealStart, IllegalAction, Outcome, ranks_by_score
from harness.games.options import changed_options

from .engine import CARD_STR, State, apply_legal, apply, deal, legal_actions, perft, position, summary
from .observe import ThreeHandedObservation, observe
from .options import Rules

TEAMS = (0, 1, 2)
PACK = "three_handed"


class DealResult(NamedTuple):
    """One finished deal, in player terms."""

    deal_no: int
    dealer: int  # player who dealt
    deck: tuple[int, ...]
    trump: str
    winner: int | None  # the claimant (player), or None: nobody claimed, nobody scores
    game_points: int
    reason: str  # "claim" or "finish"


class Match(NamedTuple):
    rules: Rules
    seed: int
    scores: tuple[int, int, int]  # game points by player
    dealer: int  # player dealing the current deal
    deal_no: int  # 1-based
    state: State  # the current deal
    results: tuple[DealResult, ...]
    winner: int  # the player who reached the target, -1 while the match runs


def deal_deck(seed: int, deal_no: int) -> tuple[int, ...]:
    """The shuffled deck of deal ``deal_no`` of a match seeded ``seed``.

    >>> deal_deck(1, 1) == deal_deck(1, 1) != deal_deck(1, 2)
    True
    """
    deck = list(range(24))
    random.Random(f"{PACK}/{seed}/{deal_no}").shuffle(deck)
    return tuple(deck)


def first_dealer(seed: int) -> int:
    """The first dealer, drawn from the seed (66-3.2)."""
    return random.Random(f"{PACK}/{seed}/dealer").randrange(3)


def player_of(dealer: int, seat: int) -> int:
    """The player in deal seat ``seat`` when ``dealer`` deals: seat 0 sits at his left (7.2)."""
    return (dealer + 1 + seat) % 3


def seat_of(dealer: int, player: int) -> int:
    return (player - dealer - 1) % 3


def _deal_for(rules: Rules, seed: int, deal_no: int, dealer: int, scores: tuple[int, int, int]) -> State:
    by_seat = (scores[player_of(dealer, 0)], scores[player_of(dealer, 1)], scores[player_of(dealer, 2)])
    return deal(deal_deck(seed, deal_no), rules, by_seat)


class ThreeHanded:
    """The game ``three_handed``."""

    id = "three_handed"
    title = "Three-handed Sixty-Six"

    def rules(self, values: Mapping[str, Any] = {}) -> Rules:
        return Rules.from_mapping(values)

    def rules_map(self, rules: Rules) -> dict[str, str]:
        return rules.to_map()

    def rules_changes(self, rules: Rules) -> list[str]:
        return changed_options(rules.to_map(), Rules().to_map())

    def players(self, rules: Rules) -> int:
        return 3

    def teams(self, rules: Rules) -> tuple[int, ...]:
        return TEAMS

    def start(self, seed: int, rules: Rules) -> Match:
        dealer = first_dealer(seed)
        return Match(rules, seed, (0, 0, 0), dealer, 1, _deal_for(rules, seed, 1, dealer, (0, 0, 0)), (), -1)

    def to_act(self, m: Match) -> int | None:
        return None if m.winner >= 0 else (m.dealer + 1 + m.state.to_act) % 3

    def legal(self, m: Match) -> tuple[str, ...]:
        return () if m.winner >= 0 else legal_actions(m.state)

    def apply(self, m: Match, action: str) -> Match:
        if m.winner >= 0:
            raise IllegalAction(f"{action!r} is illegal: the match is over")
        s = apply(m.state, action)
        if s.point == "over":
            return _next(m, s)
        return Match(m.rules, m.seed, m.scores, m.dealer, m.deal_no, s, m.results, -1)

    def fast_apply(self, m: Match, action: str) -> Match:
        """:meth:`apply` without the legality check, for trusted in-process players."""
        s = apply_legal(m.state, action)
        if s.point == "over":
            return _next(m, s)
        return Match(m.rules, m.seed, m.scores, m.dealer, m.deal_no, s, m.results, -1)

    def observe(self, m: Match, player: int) -> ThreeHandedObservation:
        return observe(m.state, seat_of(m.dealer, player))

    def deal(self, m: Match) -> DealStart:
        d = m.dealer
        return DealStart(m.deal_no, d, (player_of(d, 0), player_of(d, 1), player_of(d, 2)),
                         {"dealer": d, "deck": " ".join(CARD_STR[c] for c in m.state.deck)})

    def deals_done(self, m: Match) -> int:
        return len(m.results)

    def deal_end(self, m: Match) -> DealEnd:
        r = m.results[-1]
        points = tuple(r.game_points if r.winner == p else 0 for p in TEAMS)
        record = {"winner": r.winner, "game_points": r.game_points, "reason": r.reason, "trump": r.trump,
                  "scores": list(m.scores)}
        return DealEnd(r.deal_no, points, m.scores, tuple(CARD_STR[c] for c in r.deck), record)

    def scores(self, m: Match) -> tuple[int, ...]:
        return m.scores

    def outcome(self, m: Match) -> Outcome | None:
        """The first to the target wins; the others are ranked by game points, ties sharing."""
        if m.winner < 0:
            return None
        return Outcome(ranks_by_score(m.scores, TEAMS), m.scores, TEAMS)

    # -- the rules tools (7.2): one deal from a written deck -------------------------------------

    def position(self, deck: str, actions: Sequence[str], rules: Rules) -> State:
        return position(deck, actions, rules)

    def summary(self, state: State) -> dict[str, object]:
        return summary(state)

    def perft(self, state: State, depth: int) -> int:
        return perft(state, depth)


def _next(m: Match, s: State) -> Match:
    """Score a finished deal and deal the next one (dealt by the player at seat 0), or end the match."""
    claimant = None if s.winner < 0 else player_of(m.dealer, s.winner)
    sc = list(m.scores)
    if claimant is not None:
        sc[claimant] += s.game_points
    scores = (sc[0], sc[1], sc[2])
    result = DealResult(m.deal_no, m.dealer, s.deck, "CDHS"[s.trump] if s.trump >= 0 else "", claimant,
                        s.game_points, s.reason)
    results = m.results + (result,)
    if claimant is not None and scores[claimant] >= m.rules.match_target:  # 66-3.1: only the claimant scores
        return Match(m.rules, m.seed, scores, m.dealer, m.deal_no, s, results, claimant)
    dealer = player_of(m.dealer, 0)
    n = m.deal_no + 1
    return Match(m.rules, m.seed, scores, dealer, n, _deal_for(m.rules, m.seed, n, dealer, scores), results, -1)


GAME = ThreeHanded()

__all__ = ["GAME", "Match", "ThreeHanded", "ThreeHandedObservation"]
