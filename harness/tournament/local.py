"""In-process matches between strategies, for benchmarks and tests (no processes, no gRPC).

A strategy is ``act(observation) -> action``; it sees only the game's ``observe`` output, as a bot
would. Every registered game plays through :mod:`harness.games.registry`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from harness.games.base import Outcome
from harness.games.registry import get as get_game
from harness.rating import Played
from harness.strategies import greedy_action, random_action
from harness.tournament.schedule import Pairing

Strategy = Callable[[Any], str]


def random_strategy(seed: int) -> Strategy:
    rng = random.Random(seed)
    return lambda obs: random_action(obs, rng)


def greedy_strategy() -> Strategy:
    return greedy_action


def play(seed: int, players: Sequence[Strategy], rules: Any = None, game: str = "sixtysix") -> Outcome:
    """Play one match of ``game`` (its default rules when ``rules`` is None); returns its outcome."""
    g = get_game(game)
    if rules is None or isinstance(rules, Mapping):
        rules = g.rules(rules or {})
    m = g.start(seed, rules)
    while (p := g.to_act(m)) is not None:
        m = g.apply(m, players[p](g.observe(m, p)))
    outcome = g.outcome(m)
    assert outcome is not None
    return outcome


def play_schedule(pairings: Iterable[Pairing], make: Callable[[str, Pairing], Strategy],
                  rules: Any = None, game: str = "sixtysix") -> list[Played]:
    """Play every pairing in process; ``make(name, pairing)`` gives each entrant's strategy for it."""
    out = []
    for p in pairings:
        o = play(p.seed, [make(n, p) for n in p.players], rules, game)
        out.append(Played(p.seq, p.match_id, p.pair_id, tuple(p.players), o.ranks, o.scores, teams=o.teams))
    return out
