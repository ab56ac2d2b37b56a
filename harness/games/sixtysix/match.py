"""A match of Sixty-Six: deals until one player reaches ``match_target`` game points (66-3, 66-14).

Players are match indexes 0 and 1; inside a deal, seats are deal seats (0 = non-dealer).
Every deck derives from the match seed and the deal number, so a match is a pure function of
its seed and the players' actions.

>>> m = start_match(7)
>>> m.deal_no, m.scores, match_to_act(m) == player_of(m, 0)
(1, (0, 0), True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from .cards import CLASSIC, Pack
from .engine import DEFAULT_RULES, IllegalAction, Outcome, State, apply_legal, apply, deal, legal_actions
from .options import Rules


@dataclass(frozen=True, slots=True)
class DealResult:
    """One finished deal, in player terms."""

    deal_no: int
    dealer: int  # player who dealt
    deck: tuple[int, ...]
    actions: tuple[str, ...]
    winner: int | None  # player, or None on a tie
    game_points: int  # as scored, carried points included
    row: int  # 66-13.1 row
    reason: str


@dataclass(frozen=True, slots=True)
class Match:
    rules: Rules
    seed: int
    scores: tuple[int, int]  # game points per player
    dealer: int  # player dealing the current deal
    deal_no: int  # 1-based
    carry: int  # tied points waiting for the next scoring deal (tie_carry_over)
    state: State  # the current deal
    results: tuple[DealResult, ...]
    winner: int | None  # player who won the match, once over
    pack: Pack = CLASSIC  # the cards dealt: Sixty-Six's 24, or Schnapsen's 20

    @property
    def over(self) -> bool:
        return self.winner is not None


def deal_deck(seed: int, deal_no: int, pack: Pack = CLASSIC) -> tuple[int, ...]:
    """The shuffled deck of deal ``deal_no`` in a match seeded ``seed``.

    >>> deal_deck(1, 1) == deal_deck(1, 1) != deal_deck(1, 2)
    True
    """
    deck = list(pack.cards)
    random.Random(f"{pack.name}/{seed}/{deal_no}").shuffle(deck)
    return tuple(deck)


def first_dealer(seed: int, pack: Pack = CLASSIC) -> int:
    """The first dealer, drawn from the seed (66-3.2)."""
    return random.Random(f"{pack.name}/{seed}/dealer").randrange(2)


def player_of(m: Match, seat: int) -> int:
    """The player in deal seat ``seat`` (seat 1 is the dealer)."""
    return m.dealer if seat == 1 else 1 - m.dealer


def seat_of(m: Match, player: int) -> int:
    return 1 if player == m.dealer else 0


def player_deck(seed: int, deal_no: int, dealer: int, pack: Pack = CLASSIC) -> tuple[int, ...]:
    """The deck of deal ``deal_no`` as dealt when ``dealer`` deals.

    The seed fixes which cards each *player* receives in every deal, whoever deals it: player 0
    gets the non-dealer's cards of :func:`deal_deck` (0-2 and 6-8; in Schnapsen 0-2 and 7-8),
    player 1 the dealer's; the trump card and the talon do not depend on the dealer. So the two legs of a duplicate pair (the same seed,
    the players swapped) hand each entrant the other's cards in every deal, even when the dealer
    order of the legs diverges.

    >>> d = deal_deck(5, 2)
    >>> player_deck(5, 2, 1) == d
    True
    >>> p = player_deck(5, 2, 0)
    >>> p[0:3] + p[6:9] == d[3:6] + d[9:12] and p[12:] == d[12:]
    True
    """
    d = deal_deck(seed, deal_no, pack)
    if dealer == 1:  # player 0 is the non-dealer, seat 0: the deck as it is
        return d
    if len(d) == 20:  # SCH-2
        return d[3:6] + d[0:3] + d[6:7] + d[9:11] + d[7:9] + d[11:]
    return d[3:6] + d[0:3] + d[9:12] + d[6:9] + d[12:]


def _deal_for(m: Match, deal_no: int, dealer: int, scores: tuple[int, int]) -> State:
    non_dealer = 1 - dealer
    return deal(player_deck(m.seed, deal_no, dealer, m.pack), m.rules, (scores[non_dealer], scores[dealer]))


def start_match(seed: int, rules: Rules = DEFAULT_RULES, dealer: int | None = None, pack: Pack = CLASSIC) -> Match:
    """A new match; the first dealer is drawn from the seed unless ``dealer`` names that player."""
    if dealer is None:
        dealer = first_dealer(seed, pack)
    m = Match(rules, seed, (0, 0), dealer, 1, 0, None, (), None, pack)  # type: ignore[arg-type]
    return replace(m, state=_deal_for(m, 1, dealer, (0, 0)))


def match_to_act(m: Match) -> int | None:
    """The player to act, or None once the match is over."""
    return None if m.winner is not None else player_of(m, m.state.to_act)


def match_legal(m: Match) -> list[str]:
    return [] if m.winner is not None else legal_actions(m.state)


def match_apply(m: Match, action: str) -> Match:
    """Apply the action of the player to act; a finished deal is scored and the next one dealt."""
    if m.winner is not None:
        raise IllegalAction(f"{action!r} is illegal: the match is over")
    state = apply(m.state, action)
    m = _with_state(m, state)
    return next_match(m, state.outcome) if state.outcome is not None else m


def _with_state(m: Match, state: State) -> Match:
    """``m`` with the deal ``state`` (what ``dataclasses.replace`` does, in a fraction of its time:
    the match loop calls this once per decision)."""
    return Match(m.rules, m.seed, m.scores, m.dealer, m.deal_no, m.carry, state, m.results, m.winner, m.pack)


def next_match(m: Match, outcome: Outcome) -> Match:
    """Score a finished deal (66-13.4, 66-14) and deal the next one, or end the match."""
    r = m.rules
    carry = m.carry
    scores = list(m.scores)
    winner_player = None if outcome.winner is None else player_of(m, outcome.winner)
    points = outcome.game_points
    if winner_player is None:
        if r.tie_carry_over:
            carry += r.tie_carry_points
    else:
        points += carry
        carry = 0
        scores[winner_player] += points
    result = DealResult(
        m.deal_no, m.dealer, m.state.deck, tuple(a for _, a in m.state.history), winner_player, points,
        outcome.row, outcome.reason,
    )
    results = m.results + (result,)
    sc = (scores[0], scores[1])
    if winner_player is not None and sc[winner_player] >= r.match_target:
        return replace(m, scores=sc, carry=carry, results=results, winner=winner_player)
    if r.dealer_rotation == "alternate":
        dealer = 1 - m.dealer
    elif winner_player is None:
        dealer = m.dealer  # 66-3.4: same dealer after a tie
    else:
        dealer = winner_player  # 66-3.3: the winner deals
    n = m.deal_no + 1
    return Match(r, m.seed, sc, dealer, n, carry, _deal_for(m, n, dealer, sc), results, None, m.pack)


def fast_apply(m: Match, action: str) -> Match:
    """:func:`match_apply` without the legality check, for trusted in-process players."""
    state = apply_legal(m.state, action)
    m = _with_state(m, state)
    return next_match(m, state.outcome) if state.outcome is not None else m
