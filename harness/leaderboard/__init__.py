"""Pure leaderboard renderers: one :class:`Board` in, a rich renderable or a document string out.

``terminal`` (rich), ``markdown``, ``feed`` (JSON) and ``page`` (self-contained HTML) never print,
read files or touch the database; :mod:`harness.leaderboard.files` writes the documents. Every
renderer shows the columns of :data:`COLUMNS`, in its order: a new column is added there once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.rating import Played, Row, Standings

DEFAULT_GAME = ("sixtysix", "Sixty-Six")  # boards written before meta named the game


@dataclass(frozen=True)
class Board:
    """Everything a leaderboard shows: the standings and the facts needed to recompute them."""

    title: str
    standings: Standings
    meta: dict[str, Any] = field(default_factory=dict)  # game, tournament id, seed, rounds, rules, time...
    played: tuple[Played, ...] = ()
    provisional: frozenset[str] = frozenset()  # entrants with too few matches to rank with confidence
    records: dict[str, str] = field(default_factory=dict)  # match id -> its record file (issue 16)
    pages: dict[str, str] = field(default_factory=dict)  # match id -> its page, relative to the board's folder


PROVISIONAL = "provisional"
Justify = Literal["left", "center", "right"]


def shown_name(board: Board, name: str) -> str:
    """``name``, marked when the entrant is provisional."""
    return f"{name} ({PROVISIONAL})" if name in board.provisional else name


def pct(x: float | None, *, certain: bool = True) -> str:
    """A share as a percentage, rounded the same way in every renderer (issue 14): one decimal, and
    never ``100%`` or ``0%`` unless the share is exactly one or zero and ``certain`` says it can be (a
    counted rate can; a probability of skill cannot).

    >>> pct(0.734), pct(0.99951), pct(1.0), pct(1.0, certain=False), pct(0.0004), pct(0.0), pct(None)
    ('73.4%', '>99.9%', '100%', '>99.9%', '<0.1%', '0%', '–')
    """
    if x is None:
        return "–"
    if certain and x in (0.0, 1.0):
        return f"{round(100 * x)}%"
    text = f"{100 * x:.1f}"
    if x >= 1.0 or text == "100.0":
        return ">99.9%"
    if x <= 0.0 or text in ("0.0", "-0.0"):
        return "<0.1%"
    return f"{text}%"


def moment(iso: object) -> str:
    """A stored ISO time as people read it: ``2026-11-30T22:05:00+00:00 -> '2026-11-30 22:05:00 UTC'``."""
    return str(iso or "").replace("T", " ").replace("+00:00", " UTC")


def plural(n: int, word: str, words: str | None = None) -> str:
    """``n`` and the word, plural unless ``n`` is one.

    >>> plural(1, "round"), plural(3, "match", "matches"), plural(0, "round")
    ('1 round', '3 matches', '0 rounds')
    """
    return f"{n} {word if n == 1 else (words or word + 's')}"


def win_share(row: Row) -> float | None:
    """Matches won over matches played (None before the first)."""
    return row.wins / row.played if row.played else None


def p_above_text(row: Row) -> str:
    """P(truly above the next): a probability, never shown as certain; empty for the last row."""
    return pct(row.p_above, certain=False) if row.p_above is not None else "–"


def failures_text(failures: dict[str, int]) -> str:
    """``{'timeout': 2, 'crash': 1} -> 'timeout 2 · crash 1'``, or ``'–'``."""
    parts = [f"{k} {v}" for k, v in failures.items() if v]
    return " · ".join(parts) if parts else "–"


def game_id(board: Board) -> str:
    return str(board.meta.get("game") or DEFAULT_GAME[0])


def game_title(board: Board) -> str:
    return str(board.meta.get("game_title") or (DEFAULT_GAME[1] if game_id(board) == DEFAULT_GAME[0]
                                                else game_id(board)))


def rules_text(board: Board) -> str:
    """``'rules: a=1, b=2'`` for the rules that differ from the game's defaults, else ``'default rules'``."""
    changes = board.meta.get("rule_changes")
    return "rules: " + ", ".join(changes) if changes else "default rules"


def mean_place(row: Row) -> float | None:
    """The entrant's mean finishing place (1 = first) over its rated matches.

    >>> from harness.rating import Row
    >>> mean_place(Row(1, "a", 25, 8, 1, 4, 2, 0, 0, 0, 0, 0, {}, None, (2, 1, 1)))
    1.75
    """
    n = sum(row.places)
    return sum((k + 1) * c for k, c in enumerate(row.places)) / n if n else None


def tables(board: Board) -> bool:
    """Whether the board ranks a game of more than two sides (tables: places instead of pairs)."""
    return any(len(r.places) > 2 for r in board.standings.rows)


@dataclass(frozen=True)
class Column:
    """One column of the standings, as every renderer shows it."""

    key: str  # stable name; renderers with their own cell markup (the HTML page) look cells up by it
    head: str  # terminal header (narrow)
    title: str  # document header (Markdown)
    label: str  # HTML header
    justify: Justify
    text: Callable[[Board, Row], str]  # the cell as plain text
    data: Callable[[Board, Row], dict[str, Any]]  # the cell's fields in leaderboard.json
    wide: Callable[[Board, Row], str] | None = None  # the documents' text, when more room shows more
    shown: Callable[[Board], bool] = lambda b: True  # whether a board shows this column

    def doc_text(self, board: Board, row: Row) -> str:
        return (self.wide or self.text)(board, row)


COLUMNS: tuple[Column, ...] = (
    Column("rank", "#", "#", "#", "right", lambda b, r: str(r.rank), lambda b, r: {"rank": r.rank}),
    Column("entrant", "entrant", "entrant", "Entrant", "left", lambda b, r: shown_name(b, r.name),
           lambda b, r: {"name": r.name, "provisional": r.name in b.provisional}),
    Column("conservative", "μ−3σ", "μ − 3σ", "μ − 3σ", "right", lambda b, r: f"{r.score:.2f}",
           lambda b, r: {"conservative": r.score}),
    Column("mu", "μ", "μ", "μ", "right", lambda b, r: f"{r.mu:.2f}", lambda b, r: {"mu": r.mu}),
    Column("sigma", "σ", "σ", "σ", "right", lambda b, r: f"{r.sigma:.2f}", lambda b, r: {"sigma": r.sigma}),
    Column("played", "played", "played", "Played", "right", lambda b, r: str(r.played),
           lambda b, r: {"played": r.played}),
    Column("win", "win %", "win %", "Win", "right", lambda b, r: pct(win_share(r)),
           lambda b, r: {"wins": r.wins, "win_pct": r.win_pct, "win_text": pct(win_share(r))}),
    Column("points", "pts ±", "game pts for:against", "Game pts", "right",
           lambda b, r: f"{r.points_for}:{r.points_against}",
           lambda b, r: {"points_for": r.points_for, "points_against": r.points_against}),
    Column("pairs", "pairs W/S/L", "pairs W/S/L", "Pairs W S L", "center",
           lambda b, r: f"{r.pairs_won}/{r.pairs_split}/{r.pairs_lost}",
           lambda b, r: {"pairs": {"won": r.pairs_won, "split": r.pairs_split, "lost": r.pairs_lost}},
           shown=lambda b: not tables(b)),
    Column("places", "places 1/2/…", "finished 1st/2nd/…", "Places 1 2 …", "center",
           lambda b, r: "/".join(str(k) for k in r.places) or "–",
           lambda b, r: {"places": list(r.places), "mean_place": mean_place(r),
                         "mean_points": r.points_for / r.played if r.played else None},
           wide=lambda b, r: ("/".join(str(k) for k in r.places) or "–")
           + (f" (mean place {mean_place(r):.2f}, {r.points_for / r.played:.1f} pts a match)" if sum(r.places) else ""),
           shown=tables),
    Column("failures", "failures", "failures", "Failures", "left", lambda b, r: failures_text(r.failures),
           lambda b, r: {"failures": r.failures}),
    Column("p_above_next", "P↓", "P(above next)", "Above next", "right", lambda b, r: p_above_text(r),
           lambda b, r: {"p_above_next": r.p_above, "p_above_next_text": p_above_text(r)}),
)


def columns(board: Board) -> tuple[Column, ...]:
    """The columns this board shows, in spec order."""
    return tuple(c for c in COLUMNS if c.shown(board))


def row_data(board: Board, row: Row) -> dict[str, Any]:
    """One standings row as leaderboard.json holds it: every column's fields, in column order."""
    out: dict[str, Any] = {}
    for c in columns(board):
        out |= c.data(board, row)
    return out
