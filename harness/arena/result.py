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
    """How one match ended. ``winner``/``offender`` are player indexes."""

    match_id: str
    seed: int
    players: tuple[str, str]
    winner: int | None
    scores: tuple[int, int]
    cause: Cause
    offender: int | None
    detail: str
    deals: int
    decisions: int
    record: str | None
    duration_s: float

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["players"] = list(self.players)
        d["scores"] = list(self.scores)
        d["cause"] = str(self.cause)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchResult:
        return cls(
            match_id=d["match_id"], seed=int(d["seed"]), players=(d["players"][0], d["players"][1]),
            winner=d["winner"], scores=(int(d["scores"][0]), int(d["scores"][1])), cause=Cause(d["cause"]),
            offender=d["offender"], detail=d["detail"], deals=int(d["deals"]), decisions=int(d["decisions"]),
            record=d["record"], duration_s=float(d["duration_s"]),
        )
