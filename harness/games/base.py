"""The one game interface: what the arena, records, replay, the store, ratings, the league and the
SDK know about a game, and nothing more.

A game is a pure state machine over a *match* value ``M`` (immutable, all chance drawn from the
seed at :meth:`Game.start`): whose turn it is, what is legal, what follows an action, and what
one player may see (:meth:`Game.observe`, the only leak gate). Players are match indexes
``0..n-1``; seats inside a deal are the game's business and are reported by :class:`DealStart`.

A finished match is an :class:`Outcome`: a ranking of the players (0 is first, equal ranks tie)
with their scores and teams. A two-player match is the case of two one-player teams.

>>> o = forfeit_outcome(1, (3, 5), (0, 1))
>>> o.ranks, o.winners
((0, 1), (0,))
>>> forfeit_outcome(0, (1, 2, 3, 4), (0, 1, 0, 1)).ranks
(1, 0, 1, 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar


class IllegalAction(ValueError):
    """An action that is not legal in the given state."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a match ended for each player: rank (0 = first; ties share a rank), score and team."""

    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    teams: tuple[int, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        """The players ranked first."""
        return tuple(p for p, r in enumerate(self.ranks) if r == 0)

    def to_dict(self) -> dict[str, list[int]]:
        return {"ranks": list(self.ranks), "scores": list(self.scores), "teams": list(self.teams)}


def ranks_by_score(scores: Sequence[int], teams: Sequence[int]) -> tuple[int, ...]:
    """Competition ranks by team score, highest first (a team's score is its first member's).

    >>> ranks_by_score((7, 3), (0, 1)), ranks_by_score((2, 2, 5), (0, 1, 2))
    ((0, 1), (1, 1, 0))
    """
    team_score: dict[int, int] = {}
    for p, t in enumerate(teams):
        team_score.setdefault(t, scores[p])
    return tuple(sum(s > team_score[teams[p]] for s in team_score.values()) for p in range(len(teams)))


def forfeit_outcome(offender: int, scores: Sequence[int], teams: Sequence[int]) -> Outcome:
    """A forfeit: the offender's team ranks last, every other player ties above it."""
    bad = teams[offender]
    return Outcome(tuple(1 if t == bad else 0 for t in teams), tuple(scores), tuple(teams))


@dataclass(frozen=True, slots=True)
class DealStart:
    """A deal as it begins: its number, the dealing player, the player in each seat, and the
    game's record fields (``record``: JSON-able, e.g. ``{"dealer": 1, "deck": "9C ..."}``)."""

    deal_no: int
    dealer: int
    seats: tuple[int, ...]
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class DealEnd:
    """A finished deal: game points won by each player, the match scores after it, the whole deck
    (card notation, top first: the reveal), and the game's result fields for the record."""

    deal_no: int
    points: tuple[int, ...]
    scores: tuple[int, ...]
    deck: tuple[str, ...]
    record: dict[str, Any]


R = TypeVar("R")
M = TypeVar("M")
O_co = TypeVar("O_co", covariant=True)


class Game(Protocol, Generic[R, M, O_co]):
    """One registered game. Every method is pure."""

    id: str  # registry key, e.g. "sixtysix"
    title: str  # for people, e.g. "Sixty-Six"

    def rules(self, values: Mapping[str, Any] = ...) -> R:
        """A rule set from ``name -> value`` (strings, ints or bools); ValueError names a bad one."""
        ...

    def rules_map(self, rules: R) -> dict[str, str]:
        """Every option of ``rules`` as ``name -> text`` (``true``/``false`` for booleans)."""
        ...

    def rules_changes(self, rules: R) -> list[str]:
        """The ``name=value`` strings that differ from the game's defaults."""
        ...

    def players(self, rules: R) -> int:
        """How many players a match of these rules seats."""
        ...

    def teams(self, rules: R) -> tuple[int, ...]:
        """The team of each player (``(0, 1)`` for two players alone)."""
        ...

    def start(self, seed: int, rules: R) -> M:
        """A new match: every card dealt in it follows from ``seed``."""
        ...

    def to_act(self, m: M) -> int | None:
        """The player to act, or None once the match is over."""
        ...

    def legal(self, m: M) -> tuple[str, ...]:
        """The legal actions of the player to act, sorted; empty once over."""
        ...

    def apply(self, m: M, action: str) -> M:
        """The match after the player to act takes ``action``; IllegalAction if it is not legal."""
        ...

    def observe(self, m: M, player: int) -> O_co:
        """Everything ``player`` may know now, and nothing more (the only leak gate)."""
        ...

    def deal(self, m: M) -> DealStart:
        """The current deal (the last one begun)."""
        ...

    def deals_done(self, m: M) -> int:
        """How many deals have finished."""
        ...

    def deal_end(self, m: M) -> DealEnd:
        """The last finished deal; only when ``deals_done(m) > 0``."""
        ...

    def scores(self, m: M) -> tuple[int, ...]:
        """Match scores by player (game points so far)."""
        ...

    def outcome(self, m: M) -> Outcome | None:
        """The ranking once the match is over, else None."""
        ...

    # The rules tools (``arena rules run|perft GAME``, RULES-SPEC section 7) work on one deal.

    def position(self, deck: str, actions: Sequence[str], rules: R) -> Any:
        """The deal of the written ``deck`` after ``actions``; ValueError names the bad token."""
        ...

    def summary(self, state: Any) -> dict[str, object]:
        """The JSON object ``arena rules run`` prints for a deal."""
        ...

    def perft(self, state: Any, depth: int) -> int:
        """Action sequences of length ``depth`` from a deal (an ended deal is one leaf)."""
        ...


def turn(game: Game[Any, M, O_co], m: M) -> tuple[int, O_co, tuple[str, ...]] | None:
    """The player to act, its observation and the legal actions, or None once the match is over.
    A game may offer a faster ``turn(m)`` of its own with the same result; this uses it when it does."""
    fast = getattr(game, "turn", None)
    if fast is not None:
        got: tuple[int, O_co, tuple[str, ...]] | None = fast(m)
        return got
    player = game.to_act(m)
    if player is None:
        return None
    return player, game.observe(m, player), game.legal(m)
