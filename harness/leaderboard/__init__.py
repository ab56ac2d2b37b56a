"""Pure leaderboard renderers: one :class:`Board` in, a rich renderable or a document string out.

``terminal`` (rich), ``markdown``, ``feed`` (JSON) and ``page`` (self-contained HTML) never print,
read files or touch the database; the tournament commands build the board and write the files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.rating import Played, Standings


@dataclass(frozen=True)
class Board:
    """Everything a leaderboard shows: the standings and the facts needed to recompute them."""

    title: str
    standings: Standings
    meta: dict[str, Any] = field(default_factory=dict)  # tournament id, seed, rounds, rules, time...
    played: tuple[Played, ...] = ()
    provisional: frozenset[str] = frozenset()  # entrants with too few matches to rank with confidence


PROVISIONAL = "provisional"


def shown_name(board: Board, name: str) -> str:
    """``name``, marked when the entrant is provisional."""
    return f"{name} ({PROVISIONAL})" if name in board.provisional else name


def pct(x: float | None, digits: int = 0) -> str:
    """``0.734 -> '73%'``; ``None -> '–'``."""
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def failures_text(failures: dict[str, int]) -> str:
    """``{'timeout': 2, 'crash': 1} -> 'timeout 2 · crash 1'``, or ``'–'``."""
    parts = [f"{k} {v}" for k, v in failures.items() if v]
    return " · ".join(parts) if parts else "–"
