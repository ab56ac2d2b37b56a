"""In-process matches between strategies, for benchmarks and tests (no processes, no gRPC).

A strategy is ``act(observation) -> action``; it sees only :func:`observe`'s output, as a bot would.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

from harness.games.sixtysix.match import match_apply, match_to_act, start_match
from harness.games.sixtysix.observe import Observation, observe
from harness.games.sixtysix.options import Rules
from harness.rating import Played, two_player
from harness.strategies import greedy_action, random_action
from harness.tournament.schedule import Pairing

Strategy = Callable[[Observation], str]


def random_strategy(seed: int) -> Strategy:
    rng = random.Random(seed)
    return lambda obs: random_action(obs, rng)


def greedy_strategy() -> Strategy:
    return greedy_action


def play(seed: int, players: Sequence[Strategy], rules: Rules = Rules()) -> tuple[int, tuple[int, int]]:
    """Play one match; returns (winner, scores)."""
    m = start_match(seed, rules)
    while (p := match_to_act(m)) is not None:
        seat = 0 if m.dealer != p else 1
        m = match_apply(m, players[p](observe(m.state, seat)))
    assert m.winner is not None
    return m.winner, m.scores


def play_schedule(pairings: Iterable[Pairing], make: Callable[[str, Pairing], Strategy],
                  rules: Rules = Rules()) -> list[Played]:
    """Play every pairing in process; ``make(name, pairing)`` gives each entrant's strategy for it."""
    out = []
    for p in pairings:
        winner, scores = play(p.seed, [make(n, p) for n in p.players], rules)
        out.append(two_player(p.seq, p.match_id, p.pair_id, p.players, winner, scores))
    return out
