"""A match of Twenty-Two: deals until one player survives (22-2.1, 22-8).

Players are match indexes 0..P-1 sitting clockwise in that order. Each deal seats the surviving
players clockwise from the dealer's left (seat 0) to the dealer (the last seat). Every deck, the
first dealer and every draw for the deal derive from the match seed, so a match is a pure function
of its seed and the players' actions.

>>> m = start_match(3, Rules())
>>> m.deal_no, m.totals, len(m.seats), m.seats[-1] == m.dealer, m.state.size
(1, (0, 0, 0, 0), 4, True, 7)
"""

from __future__ import annotations

import random
from collections import Counter
from typing import NamedTuple

from .cards import VALUE, pack
from .engine import IllegalAction, State, apply_legal, deal, is_legal, legal_actions
from .options import Rules


class DealResult(NamedTuple):
    """One finished deal, in player terms."""

    deal_no: int
    dealer: int  # player
    seats: tuple[int, ...]  # the player in each seat
    deck: tuple[str, ...]  # the cards dealt from, top first
    losers: tuple[int, ...]  # players, sorted
    revealed: tuple[str, ...]  # each seat's last card
    penalty: int  # added to each loser's total (22-7.4)
    eliminated: tuple[int, ...]  # players eliminated by this deal (22-8.1), sorted
    totals: tuple[int, ...]  # by player, after the deal


class Match(NamedTuple):
    rules: Rules
    seed: int
    totals: tuple[int, ...]  # penalty totals by player (22-7.4)
    kept: tuple[tuple[str, ...], ...]  # penalty cards each player keeps as markers (22-3.4)
    out: tuple[int, ...]  # by player: the deal that eliminated him, 0 while he survives
    dealer: int  # player dealing the current deal
    seats: tuple[int, ...]  # the player in each seat of the current deal
    deal_no: int  # 1-based
    state: State  # the current deal (the last one, once over)
    results: tuple[DealResult, ...]
    over: bool


def first_dealer(seed: int, players: int) -> int:
    """22-3.1: a uniformly random first dealer, drawn from the seed."""
    return random.Random(f"twenty_two/{seed}/dealer").randrange(players)


def seats_for(dealer: int, out: tuple[int, ...]) -> tuple[int, ...]:
    """The survivors clockwise from the dealer's left, the dealer last (22-3.2)."""
    p = len(out)
    return tuple(q for q in ((dealer + i) % p for i in range(1, p + 1)) if not out[q])


def deal_deck(seed: int, deal_no: int, rules: Rules, kept: tuple[tuple[str, ...], ...], seats: int) -> tuple[str, ...]:
    """The shuffled cards of deal ``deal_no``: the pack(s), less the kept penalty cards when
    ``remove_penalty_cards`` (22-3.4); the markers go back when not one card each would be left
    (22-3.5's safeguard), and also when exactly one card each would be left, since such a deal (no
    stock, no trick) would have no decision at all."""
    cards = list(pack(rules.decks))
    if rules.remove_penalty_cards:
        gone = Counter(c for k in kept for c in k)
        left = []
        for c in cards:
            if gone[c]:
                gone[c] -= 1
            else:
                left.append(c)
        if len(left) > seats:  # exactly one card each and no stock would leave the deal without a decision
            cards = left
    random.Random(f"twenty_two/{seed}/{deal_no}").shuffle(cards)
    return tuple(cards)


def _new_deal(rules: Rules, seed: int, deal_no: int, dealer: int, out: tuple[int, ...],
              kept: tuple[tuple[str, ...], ...], hand: int) -> tuple[tuple[int, ...], State]:
    seats = seats_for(dealer, out)
    return seats, deal(deal_deck(seed, deal_no, rules, kept, len(seats)), len(seats), hand, rules)


def start_match(seed: int, rules: Rules) -> Match:
    """A new match; 7 cards each in the first deal (22-3.2, ``hand``)."""
    p = rules.players
    dealer = first_dealer(seed, p)
    out = (0,) * p
    kept: tuple[tuple[str, ...], ...] = ((),) * p
    seats, state = _new_deal(rules, seed, 1, dealer, out, kept, rules.hand)
    return Match(rules, seed, (0,) * p, kept, out, dealer, seats, 1, state, (), False)


def match_legal(m: Match) -> list[str]:
    return [] if m.over else legal_actions(m.state)


def match_to_act(m: Match) -> int | None:
    return None if m.over or m.state.to_act is None else m.seats[m.state.to_act]


def match_apply(m: Match, action: str) -> Match:
    """Apply the action of the player to act; a finished deal is scored and the next one dealt."""
    if m.over:
        raise IllegalAction(f"{action!r} is illegal: the match is over")
    if not is_legal(m.state, action):
        raise IllegalAction(f"{action!r} is illegal (legal: {' '.join(legal_actions(m.state))})")
    return fast_apply(m, action)


def fast_apply(m: Match, action: str) -> Match:
    """:func:`match_apply` without the legality check."""
    s = apply_legal(m.state, action)
    if s.point != "over":
        return Match(m.rules, m.seed, m.totals, m.kept, m.out, m.dealer, m.seats, m.deal_no, s, m.results, False)
    return _next_deal(m._replace(state=s))


def _next_deal(m: Match) -> Match:
    """Score the finished deal (22-7.4, 22-8.1), then deal the next one or end the match (22-8.2..22-8.4)."""
    r, s = m.rules, m.state
    totals, kept, out = list(m.totals), list(m.kept), list(m.out)
    losers = tuple(sorted(m.seats[i] for i in s.losers))
    for i in s.losers:
        p = m.seats[i]
        totals[p] += s.penalty
        kept[p] = kept[p] + (s.revealed[i],)
    eliminated = tuple(p for p in losers if totals[p] >= r.penalty_limit)
    for p in eliminated:
        out[p] = m.deal_no
    result = DealResult(m.deal_no, m.dealer, m.seats, s.deck, losers, s.revealed, s.penalty, eliminated, tuple(totals))
    results = m.results + (result,)
    alive = [p for p in range(len(out)) if not out[p]]
    if len(alive) <= 1:  # 22-8.4
        return m._replace(totals=tuple(totals), kept=tuple(kept), out=tuple(out), results=results, over=True)
    dealer = _next_dealer(m, losers, tuple(out))
    n = m.deal_no + 1
    hand = VALUE[s.revealed[s.losers[0]]]  # 22-3.3: the value of the card that lost
    o = tuple(out)
    k = tuple(kept)
    seats, state = _new_deal(r, m.seed, n, dealer, o, k, hand)
    return Match(r, m.seed, tuple(totals), k, o, dealer, seats, n, state, results, False)


def _next_dealer(m: Match, losers: tuple[int, ...], out: tuple[int, ...]) -> int:
    """22-8.2: the loser deals; several surviving losers draw for it; when every loser is out,
    ``dealer_after_elimination`` decides."""
    standing = [p for p in losers if not out[p]]
    if len(standing) == 1:
        return standing[0]
    rng = random.Random(f"twenty_two/{m.seed}/{m.deal_no}/next-dealer")
    if standing:
        return rng.choice(standing)
    alive = [p for p in range(len(out)) if not out[p]]
    if m.rules.dealer_after_elimination == "random":
        return rng.choice(alive)
    first = next(m.seats[i] for i in m.state.losers)  # the first loser clockwise from the old dealer's left
    p = len(out)
    return next(q for q in ((first + i) % p for i in range(1, p + 1)) if not out[q])


def ranks(m: Match) -> tuple[int, ...]:
    """The finishing order as competition ranks (0 = first): the survivor, then players in reverse
    order of elimination, those eliminated together sharing a place (7.4). When the last players
    are all eliminated in one deal, ``all_eliminated=lowest_total_wins`` orders them by total
    (lowest first, equal totals share); ``no_winner`` leaves them sharing first place (22-8.4)."""
    last = max(m.out)
    nobody_left = all(m.out)
    by_total = nobody_left and m.rules.all_eliminated == "lowest_total_wins"

    def key(p: int) -> tuple[int, int]:
        o = m.out[p]
        when = -(1 << 30) if o == 0 else -o
        return when, (m.totals[p] if by_total and o == last else 0)

    keys = [key(p) for p in range(len(m.out))]
    return tuple(sum(q < k for q in keys) for k in keys)
