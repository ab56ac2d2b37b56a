"""Four-handed partnership Sixty-Six behind the game interface (:class:`harness.games.base.Game`).

Players are match indexes 0..3 with teams ``(0, 1, 0, 1)``: partners sit opposite (4H-1). Inside a
deal, seat ``k`` is held by player ``(dealer + 1 + k) % 4`` (seat 3 deals, 7.3); the next deal is
dealt by the player at seat 0 (the deal passes to the left). The first dealer is drawn from the seed
(66-3.2); every deck follows from the seed and the deal number, so the player in each seat, and the
cards a player receives, do not depend on anyone's play: two legs with the teams' entrants swapped
play the same deals in the other orientation.

>>> m = GAME.start(3, GAME.rules())
>>> GAME.players(m.rules), GAME.teams(m.rules), GAME.to_act(m) == GAME.deal(m).seats[0]
(4, (0, 1, 0, 1), True)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.games.base import DealEnd, DealStart, IllegalAction, Outcome
from harness.games.options import changed_options, option_texts
from harness.games.tools import play_out, read_deck

from .cards import CARD_INDEX, CARD_STR, PACKS, parse_deck
from .engine import State, apply, deal, legal_actions, perft, play, summary
from .observe import Observation, observe
from .options import Rules

TEAMS = (0, 1, 0, 1)


@dataclass(frozen=True, slots=True)
class DealResult:
    """One finished deal, in match terms (teams are match teams: team of player p is p % 2)."""

    deal_no: int
    dealer: int  # player who dealt
    deck: tuple[int, ...]
    winner: int | None  # match team that scored, None on 65:65
    game_points: int  # as scored, carried points included
    carried: int  # of which carried from tied deals (4H-7)
    points: tuple[int, int]  # counted points by match team
    tricks: tuple[int, int]  # tricks by match team
    reason: str


@dataclass(frozen=True, slots=True)
class Match:
    rules: Rules
    seed: int
    scores: tuple[int, int]  # game points by match team
    dealer: int  # player dealing the current deal
    deal_no: int  # 1-based
    carry: int  # tied points waiting for the next scoring deal
    state: State  # the current deal
    results: tuple[DealResult, ...]
    winner: int | None  # match team that won, once over


def deal_deck(seed: int, deal_no: int, pack: int = 32) -> tuple[int, ...]:
    """The shuffled deck of deal ``deal_no`` of a match seeded ``seed``.

    >>> deal_deck(1, 1) == deal_deck(1, 1) != deal_deck(1, 2)
    True
    >>> len(deal_deck(1, 1, 24))
    24
    """
    deck = list(PACKS[pack])
    random.Random(f"four_handed/{pack}/{seed}/{deal_no}").shuffle(deck)
    return tuple(deck)


def first_dealer(seed: int) -> int:
    return random.Random(f"four_handed/{seed}/dealer").randrange(4)


def seat_team_to_match(dealer: int, team: int) -> int:
    """The match team of deal team ``team`` (seat team) when ``dealer`` deals: seat 0 is player dealer+1."""
    return (team + dealer + 1) & 1


def _deal_for(rules: Rules, seed: int, deal_no: int, dealer: int, scores: tuple[int, int]) -> State:
    t0 = seat_team_to_match(dealer, 0)
    return deal(deal_deck(seed, deal_no, rules.pack), rules, (scores[t0], scores[1 - t0]))


def start_match(seed: int, rules: Rules) -> Match:
    dealer = first_dealer(seed)
    return Match(rules, seed, (0, 0), dealer, 1, 0, _deal_for(rules, seed, 1, dealer, (0, 0)), (), None)


def _advance(m: Match, state: State) -> Match:
    if state.result is None:
        return Match(m.rules, m.seed, m.scores, m.dealer, m.deal_no, m.carry, state, m.results, None)
    r = m.rules
    res = state.result
    t0 = seat_team_to_match(m.dealer, 0)
    by_match = (state.points[0], state.points[1]) if t0 == 0 else (state.points[1], state.points[0])
    tricks = (state.tricks[0], state.tricks[1]) if t0 == 0 else (state.tricks[1], state.tricks[0])
    scores = list(m.scores)
    carry, carried, points, winner = m.carry, 0, 0, None
    if res.winner is None:
        if r.tie_carry_over:  # 4H-7: 65:65 adds to the next scoring deal
            carry += r.tie_carry_points
    else:
        winner = seat_team_to_match(m.dealer, res.winner)
        carried, carry = carry, 0
        points = res.game_points + carried
        scores[winner] += points
    sc = (scores[0], scores[1])
    result = DealResult(m.deal_no, m.dealer, state.deck, winner, points, carried, by_match, tricks, res.reason)
    results = m.results + (result,)
    if winner is not None and sc[winner] >= r.match_target:  # 4H-7: first team to the target
        return Match(r, m.seed, sc, m.dealer, m.deal_no, carry, state, results, winner)
    dealer = (m.dealer + 1) & 3  # 7.3: the player at seat 0 deals next
    n = m.deal_no + 1
    return Match(r, m.seed, sc, dealer, n, carry, _deal_for(r, m.seed, n, dealer, sc), results, None)


def match_apply(m: Match, action: str) -> Match:
    if m.winner is not None:
        raise IllegalAction(f"{action!r} is illegal: the match is over")
    return _advance(m, apply(m.state, action))


def fast_apply(m: Match, action: str) -> Match:
    """:func:`match_apply` without the legality check, for trusted in-process players."""
    return _advance(m, play(m.state, CARD_INDEX[action]))


class FourHanded:
    """The game ``four_handed`` (RULES-SPEC 3.3, 7.3)."""

    id = "four_handed"
    title = "Four-handed Sixty-Six"

    def rules(self, values: Mapping[str, Any] = {}) -> Rules:
        return Rules.from_mapping(values)

    def rules_map(self, rules: Rules) -> dict[str, str]:
        return option_texts(rules.to_dict())

    def rules_changes(self, rules: Rules) -> list[str]:
        return changed_options(self.rules_map(rules), self.rules_map(Rules()))

    def players(self, rules: Rules) -> int:
        return 4

    def teams(self, rules: Rules) -> tuple[int, ...]:
        return TEAMS

    def start(self, seed: int, rules: Rules) -> Match:
        return start_match(seed, rules)

    def to_act(self, m: Match) -> int | None:
        return None if m.winner is not None else (m.dealer + 1 + m.state.to_act) & 3

    def legal(self, m: Match) -> tuple[str, ...]:
        return () if m.winner is not None else legal_actions(m.state)

    def apply(self, m: Match, action: str) -> Match:
        return match_apply(m, action)

    def observe(self, m: Match, player: int) -> Observation:
        return observe(m.state, (player - m.dealer - 1) & 3)

    def deal(self, m: Match) -> DealStart:
        seats = tuple((m.dealer + 1 + k) & 3 for k in range(4))
        return DealStart(m.deal_no, m.dealer, seats,
                         {"dealer": m.dealer, "deck": " ".join(CARD_STR[c] for c in m.state.deck)})

    def deals_done(self, m: Match) -> int:
        return len(m.results)

    def deal_end(self, m: Match) -> DealEnd:
        r = m.results[-1]
        points = tuple(r.game_points if r.winner == p & 1 else 0 for p in range(4))
        scores = self.scores(m)
        record = {"winner": r.winner, "game_points": r.game_points, "carried": r.carried, "reason": r.reason,
                  "points": list(r.points), "tricks": list(r.tricks), "scores": list(scores)}
        return DealEnd(r.deal_no, points, scores, tuple(CARD_STR[c] for c in r.deck), record)

    def scores(self, m: Match) -> tuple[int, ...]:
        return tuple(m.scores[p & 1] for p in range(4))

    def outcome(self, m: Match) -> Outcome | None:
        if m.winner is None:
            return None
        return Outcome(tuple(0 if p & 1 == m.winner else 1 for p in range(4)), self.scores(m), TEAMS)

    # -- the rules tools (RULES-SPEC 7.3): one deal from a written deck ---------------------------

    def position(self, deck: str, actions: Sequence[str], rules: Rules) -> State:
        """The deal of ``deck`` (the pack's cards, top first) after ``actions``; ValueError names the
        bad token in one line."""
        cards = read_deck(lambda: parse_deck(deck, rules.pack))
        return play_out(deal(cards, rules), actions, apply, CARD_INDEX)

    def summary(self, state: State) -> dict[str, object]:
        return summary(state)

    def perft(self, state: State, depth: int) -> int:
        return perft(state, depth)


GAME = FourHanded()

__all__ = ["GAME", "FourHanded", "Match", "Observation"]
