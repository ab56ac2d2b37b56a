"""Plain data shared by the arena modules: causes, the time control, faults and match results."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass
from typing import Any


class Cause(enum.StrEnum):
    """Why a match ended. Every cause except NORMAL and INTERRUPTED is a forfeit by the offender."""

    NORMAL = "normal"
    TIMEOUT = "timeout"  # bank exhausted
    ILLEGAL = "illegal"  # a well-formed action that is not legal now
    INVALID = "invalid"  # undecodable bytes, malformed action, wrong request id, not a Reply
    CRASH = "crash"  # the bot's process exited
    DISCONNECT = "disconnect"  # the stream ended while the process (if any) was alive
    NO_HELLO = "no_hello"  # no valid Hello within the start-up limit
    INTERRUPTED = "interrupted"  # cancelled by the arena; nobody wins
    ERROR = "error"  # the bot reported an error in a Reply (its act() raised) and the match is strict


@dataclass(frozen=True, slots=True)
class Clock:
    """Time control. Time past ``move_ms`` in one decision comes out of the per-match bank;
    ``grace_ms`` absorbs jitter once the bank is empty; ``hello_s`` limits start-up."""

    move_ms: int = 1000
    bank_ms: int = 10000
    grace_ms: int = 10
    hello_s: float = 10.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Fault:
    """A bot's misbehaviour as data: the cause and a one-line detail."""

    cause: Cause
    detail: str


@dataclass(frozen=True)
class MatchResult:
    """How one match ended: a ranking of the players (ties allowed) with scores and teams.

    ``ranks`` is None when the match has no result (interrupted, or no bot started); a forfeit
    ranks the offender's team last and every other player tied above it. ``offender`` and the
    indexes of ``ranks``/``scores``/``teams`` are player indexes.

    >>> r = MatchResult("m", 1, "sixtysix", ("a", "b"), (1, 0), (3, 7), (0, 1), Cause.NORMAL, None, "", 4, 60, None, 1.0)
    >>> r.winner, MatchResult.from_dict(r.to_dict()) == r
    (1, True)
    """

    match_id: str
    seed: int
    game: str
    players: tuple[str, ...]
    ranks: tuple[int, ...] | None
    scores: tuple[int, ...]
    teams: tuple[int, ...]
    cause: Cause
    offender: int | None
    detail: str
    deals: int
    decisions: int
    record: str | None
    duration_s: float
    errors: tuple[int, ...] = ()  # per player: replies whose ``error`` said the bot's code failed (play went on)
    logs: tuple[str | None, ...] = ()  # per player: the bot's log file (stdout and stderr), when it has one

    @property
    def winner(self) -> int | None:
        """The one player ranked first, or None (no result, or several share first place)."""
        if self.ranks is None:
            return None
        first = [p for p, r in enumerate(self.ranks) if r == 0]
        return first[0] if len(first) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("players", "ranks", "scores", "teams", "errors", "logs"):
            d[k] = None if d[k] is None else list(d[k])
        d["cause"] = str(self.cause)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchResult:
        ranks = d.get("ranks")
        return cls(
            match_id=d["match_id"], seed=int(d["seed"]), game=d["game"], players=tuple(d["players"]),
            ranks=None if ranks is None else tuple(int(r) for r in ranks), scores=tuple(int(s) for s in d["scores"]),
            teams=tuple(int(t) for t in d["teams"]), cause=Cause(d["cause"]), offender=d["offender"],
            detail=d["detail"], deals=int(d["deals"]), decisions=int(d["decisions"]), record=d["record"],
            duration_s=float(d["duration_s"]), errors=tuple(int(e) for e in d.get("errors") or ()),
            logs=tuple(d.get("logs") or ()),
        )
