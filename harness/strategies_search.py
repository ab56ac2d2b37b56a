"""The search player: determinize, then solve exactly once the talon is closed or exhausted.

While the talon is open, each legal action is scored by sampling deals consistent with the
observation (:class:`harness.sdk.helpers.Determinizer`) and playing each sample out with a fast
greedy policy; closing is scored by solving every sample exactly, since after a close all that
matters is known in the sample. Once the talon is closed or exhausted, every action is scored by
exact alpha-beta over the samples (after exhaustion there is only one consistent deal).

Values are game points from the mover's side: +n won, -n lost, 0 on a tie. It plays every game of
the Sixty-Six family: the observation's pack (classic 24 cards, or Schnapsen's 20) and rules
(e.g. ``last_trick=wins_deal``, SCH-9) reach the samples, and the engine scores them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from harness.games.sixtysix.cards import CARD_INDEX, CARD_STR, POINTS, SUIT_OF, beats
from harness.games.sixtysix.engine import State, apply_legal, counted_points, legal_actions
from harness.games.sixtysix.observe import Observation
from harness.sdk.helpers import Determinizer


@dataclass(frozen=True)
class Budget:
    """How hard to think: sample counts, and an optional monotonic deadline that stops sampling."""

    samples: int = 24  # deals sampled while the talon is open
    endgame_samples: int = 12  # deals sampled once the talon is closed (exact solve each)
    deadline: float | None = None
    close_from: int = 30  # consider closing only with at least this many counted points


def search_action(obs: Observation, rng: random.Random, budget: Budget = Budget()) -> str:
    """The action with the best average value over sampled deals."""
    legal = list(obs.legal)
    me = obs.seat
    if len(legal) == 1:
        return legal[0]
    if "claim" in legal and obs.points[me] >= 66 and obs.talon_state == "open":
        return "claim"
    if obs.point == "R":
        return "exchange"  # the trump card for the nine (the jack in Schnapsen): never worse
    if obs.talon_state == "open" and "exchange" in legal:
        return "exchange"
    try:
        det = Determinizer(obs)
    except ValueError:  # no public history: play greedily
        from harness.strategies import greedy_action
        return greedy_action(obs)
    if obs.talon_state != "open":
        n = 1 if not det.unknown else budget.endgame_samples
        return _best(legal, det, rng, n, budget.deadline, lambda s, a: _solve_after(s, a, me))
    if obs.points[me] < budget.close_from and "close" in legal:
        legal.remove("close")
    if "claim" in legal and len(legal) > 1:
        legal.remove("claim")  # under 66 a claim loses
    return _best(legal, det, rng, budget.samples, budget.deadline, lambda s, a: _score_open(s, a, me))


def _best(legal: list[str], det: Determinizer, rng: random.Random, n: int, deadline: float | None,
          score: Callable[[State, str], float]) -> str:
    totals = dict.fromkeys(legal, 0.0)
    for i in range(n):
        if i and deadline is not None and time.monotonic() >= deadline:
            break
        s = det.sample(rng)
        for a in legal:
            totals[a] += score(s, a)
    return max(legal, key=lambda a: (totals[a], _tiebreak(a)))


def _tiebreak(a: str) -> float:
    """Among equal scores prefer cheap cards and plain play."""
    c = CARD_INDEX.get(a)
    return -POINTS[c] if c is not None else (-20 if a in ("claim", "close") else -15)


def _value(s: State, me: int) -> int:
    o = s.outcome
    if o is None or o.winner is None:
        return 0
    return o.game_points if o.winner == me else -o.game_points


def _score_open(s: State, action: str, me: int) -> float:
    n = apply_legal(s, action)
    if action == "close":
        return _solve_after(s, action, me)
    return _rollout(n, me)


def _solve_after(s: State, action: str, me: int) -> int:
    n = apply_legal(s, action)
    if n.outcome is not None:
        return _value(n, me)
    v = _negamax(n, -4, 4, {})
    return v if n.to_act == me else -v


# -- exact alpha-beta (talon closed or exhausted: no more draws, everything in the sample known) ----


def _negamax(s: State, alpha: int, beta: int, table: dict[tuple, tuple[int, int]]) -> int:
    """The value of ``s`` for the player to act, with perfect play by both."""
    if s.outcome is not None:
        o = s.outcome
        return 0 if o.winner is None else (o.game_points if o.winner == s.to_act else -o.game_points)
    key = (s.hands, s.to_act, s.point, s.lead, s.card_points, s.tricks, s.bonus_to, s.married, s.marriages)
    hit = table.get(key)
    a0 = alpha
    if hit is not None:
        flag, v = hit
        if flag == 0:
            return v
        if flag > 0:
            alpha = max(alpha, v)
        else:
            beta = min(beta, v)
        if alpha >= beta:
            return v
    me = s.to_act
    best = -4
    for a in _ordered(s, legal_actions(s)):
        n = apply_legal(s, a)
        if n.outcome is not None:
            o = n.outcome
            v = 0 if o.winner is None else (o.game_points if o.winner == me else -o.game_points)
        elif n.to_act == me:
            v = _negamax(n, alpha, beta, table)
        else:
            v = -_negamax(n, -beta, -alpha, table)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    table[key] = (0 if a0 < best < beta else (1 if best >= beta else -1), best)
    return best


def _ordered(s: State, acts: list[str]) -> list[str]:
    """Claims with 66 first, hopeless claims last, then high cards first."""
    me = s.to_act
    if "claim" in acts:
        if counted_points(s, me) >= 66:
            return ["claim"] + [a for a in acts if a != "claim"]
        acts = [a for a in acts if a != "claim"] + ["claim"]
    return sorted(acts, key=lambda a: -POINTS[CARD_INDEX[a]] if a in CARD_INDEX else 0)


# -- a fast greedy policy on full states, for play-outs ------------------------------------------


def _rollout(s: State, me: int) -> int:
    while s.outcome is None:
        s = apply_legal(s, _quick(s))
    return _value(s, me)


def _quick(s: State) -> str:
    """Claim at 66, marry, exchange, draw; win tricks cheaply; lead low."""
    me = s.to_act
    p = s.point
    if p in "LDE" and counted_points(s, me) >= 66:
        return "claim"
    if p == "D":
        return "draw"
    if p == "E":
        return "finish"
    if p == "R":
        return "exchange"
    acts = legal_actions(s)
    trump = s.trump
    if p == "L":
        for a in acts:
            if a.startswith("marry:") or a == "exchange":
                return a
        cards = [CARD_INDEX[a] for a in acts if a in CARD_INDEX]
        return _name(min(cards, key=lambda c: (SUIT_OF[c] == trump, POINTS[c], c)))
    cards = [CARD_INDEX[a] for a in acts if a in CARD_INDEX]
    led = s.lead
    same = [c for c in cards if SUIT_OF[c] == SUIT_OF[led] and beats(led, c, trump)]
    if same:
        return _name(min(same))
    trumps = [c for c in cards if SUIT_OF[c] == trump] if SUIT_OF[led] != trump else []
    if trumps and POINTS[led] >= 10:
        return _name(min(trumps))
    return _name(min(cards, key=lambda c: (SUIT_OF[c] == trump, POINTS[c], c)))


def _name(card: int) -> str:
    return CARD_STR[card]
