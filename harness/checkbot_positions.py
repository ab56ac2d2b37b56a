"""The decisions ``arena check-bot`` asks: positions reached by random play through the game
interface (:mod:`harness.games.base`), drawn so that every kind of decision point is included, and
the exact messages the arena sends for one of them.

A position is one decision of one player in a match played by random players from a seed. Its
*kind* is the game's decision point (``obs.point``: Sixty-Six's L D R F E, Three-Handed's T, ...)
and the families of its legal actions (a card, ``claim``, ``marry``, ``discard``, a set of cards...).
A draw covers every point and every action family the random matches reached, and a match's first
decision (where bots often set themselves up), then fills up round-robin over the kinds.

Each position is asked as the arena asks a bot that joins a match in progress (a league bot that
reconnects gets the same): MatchStart and DealStart for its player, then the DecisionRequest built
by the game's wire codec from ``observe()``, as the match loop builds it; a MatchEnd (INTERRUPTED,
no ranking) closes it.

>>> rules = registry.get("sixtysix").rules()
>>> asks = draw("sixtysix", rules, 12, random.Random(1))
>>> len(asks) >= 12, {"L", "D", "F", "E"} <= {p.point for p in asks}, min(p.actions for p in asks)
(True, True, 0)
>>> family("marry:H"), family("TH"), family("7H+7S"), family("exchange")
('marry', 'card', 'cards', 'exchange')
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from harness.games import registry
from harness.games.base import Game, turn
from harness.strategies import random_action
from harness.wire import arena_pb2 as pb
from harness.wire import notices
from harness.wire.codecs import codec

POOL_PER_ASK = 8  # random positions gathered per position asked, to draw from
POOL_MIN = 4000  # enough random matches that rare points (Sixty-Six's R) are reached
POOL_MAX_MATCHES = 2000  # a bound on the random matches played to gather the pool


def family(action: str) -> str:
    """What kind of action this is: ``card``, ``cards`` (a set), or its word (``marry:H`` -> ``marry``)."""
    if ":" in action:
        return action.split(":", 1)[0]
    if "+" in action:
        return "cards"
    return "card" if len(action) == 2 else action


def _point(obs: Any) -> str:
    p = getattr(obs, "point", "?")
    return str(getattr(p, "value", p))


@dataclass(frozen=True, slots=True, eq=False)
class Position:
    """One decision of a random match: the match value before it, whose it is, and what is legal."""

    game: str
    seed: int  # of the random match it comes from
    actions: int  # actions applied before it in that match
    player: int
    point: str
    families: frozenset[str]
    match: Any
    obs: Any
    legal: tuple[str, ...]

    @property
    def kind(self) -> str:
        return f"{self.point}:{'+'.join(sorted(self.families))}"

    def where(self) -> str:
        """Where it comes from, for a failure's detail."""
        return f"{self.game} seed {self.seed} after {self.actions} actions, player {self.player}, point {self.point}"


def walk(game: Game[Any, Any, Any], rules: Any, seed: int) -> Iterator[Position]:
    """Every decision of one match of random players (claims only with 66, as the sample random bot)."""
    m = game.start(seed, rules)
    rng = random.Random(seed)
    n = 0
    while (now := turn(game, m)) is not None:
        player, obs, legal = now
        yield Position(game.id, seed, n, player, _point(obs), frozenset(family(a) for a in legal), m, obs, legal)
        m = game.apply(m, random_action(obs, rng))
        n += 1


def draw(game_id: str, rules: Any, n: int, rng: random.Random) -> list[Position]:
    """``n`` positions of ``game_id`` (more when needed to include every kind reached), in random order
    after a match's first decision."""
    game = registry.get(game_id)
    pool: list[Position] = []
    for _ in range(POOL_MAX_MATCHES):
        if len(pool) >= max(POOL_MIN, POOL_PER_ASK * n):
            break
        pool.extend(walk(game, rules, rng.randrange(1 << 31)))
    rng.shuffle(pool)
    chosen = cover(pool)
    taken = set(map(id, chosen))
    strata: dict[str, list[Position]] = {}
    for p in pool:
        if id(p) not in taken:
            strata.setdefault(p.kind, []).append(p)
    kinds = sorted(strata)
    while len(chosen) < n and kinds:
        for k in list(kinds):
            if len(chosen) >= n:
                break
            chosen.append(strata[k].pop())
            if not strata[k]:
                kinds.remove(k)
    rng.shuffle(chosen)
    chosen.sort(key=lambda p: p.actions > 0)  # a match's first decision first, as a bot meets it
    return chosen


def cover(pool: Sequence[Position]) -> list[Position]:
    """A few positions of ``pool`` that together include each decision point and each action family in
    it, and a match's first decision."""
    wanted = sorted({t for p in pool for t in _traits(p)})
    chosen: list[Position] = []
    have: set[tuple[str, str]] = set()
    for need in wanted:
        if need in have:
            continue
        p = next(p for p in pool if need in _traits(p))
        chosen.append(p)
        have |= _traits(p)
    return chosen


def _traits(p: Position) -> set[tuple[str, str]]:
    """What a draw must include: each point, each action family, and a match's first decision."""
    return {("point", p.point)} | {("action", f) for f in p.families} | ({("first", "")} if p.actions == 0 else set())


@dataclass(frozen=True, slots=True)
class Ask:
    """One position as the arena asks it: the notices first, the request (no request id yet: the
    session adds it), and the MatchEnd that closes its match."""

    position: Position
    wire_id: str
    notices: tuple[bytes, ...]
    request: bytes
    end: bytes


def ask(p: Position, rules: Any, bot_name: str, move_ms: int, bank_ms: int) -> Ask:
    """The messages for ``p`` under a fresh opaque match id, as the match loop builds them."""
    game = registry.get(p.game)
    wire_id = "m" + secrets.token_hex(8)
    names = tuple(bot_name if i == p.player else f"random-{i + 1}" for i in range(game.players(rules)))
    teams = game.teams(rules)
    deal = game.deal(p.match)
    scores = game.scores(p.match)
    start = notices.match_start(wire_id, game.id, p.player, names, teams, game.rules_map(rules), move_ms, bank_ms)
    request = codec(game.id).encode_request(wire_id, deal.deal_no, p.actions + 1, p.obs, p.legal, move_ms, bank_ms)
    end = notices.match_end(wire_id, None, scores, teams, pb.TERMINATION_INTERRUPTED,
                            "check-bot: one decision of a sampled position")
    return Ask(p, wire_id, (start, notices.deal_start(wire_id, deal, p.player, scores)), request, end)


def coverage(positions: Sequence[Position]) -> tuple[list[str], list[str]]:
    """The decision points and the action families of ``positions``, sorted."""
    return sorted({p.point for p in positions}), sorted({f for p in positions for f in p.families})
