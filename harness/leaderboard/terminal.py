"""The leaderboard as rich renderables: the standings table, and the live tournament view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from harness.leaderboard import COLUMNS, Board, adaptive, columns, game_title, moment, pct, plural, rules_text
from harness.rating import FAILURE_COLUMNS, Row, Standings

STYLE = {"entrant": "bold", "conservative": "bold"}  # column styles
LEAGUE_HIDDEN = frozenset({"points"})  # the league client's table is narrower


def _cell(key: str, text: str) -> RenderableType:
    if key == "failures":
        return Text(text, style="red" if text != "–" else "dim")
    return text


def standings_table(board: Board) -> Table:
    """The ranked table: rating, record, duplicate pairs, failures, confidence in the order."""
    s = board.standings
    t = Table(title=board.title, box=box.SIMPLE_HEAVY, title_style="bold", header_style="bold cyan",
              caption=f"game: {game_title(board)} · {rules_text(board)} · {plural(s.matches, 'match', 'matches')} · "
                      "sorted by μ − 3σ · "
                      "P↓ = P(truly above the next)"
                      + (" · pairs W/S/L: duplicate pairs won both legs, split, lost both"
                         if any(c.key == "pairs" for c in columns(board)) else ""),
              caption_style="dim")
    cols = columns(board)
    for c in cols:
        t.add_column(c.head, justify=c.justify, style=STYLE.get(c.key))
    for r in s.rows:
        t.add_row(*(_cell(c.key, c.text(board, r)) for c in cols))
    return t


def league_table(lb: Any) -> Table:
    """A protobuf ``Leaderboard`` (from the league service) as a table: the standings columns and
    each entrant's marks (provisional, retired, operator, online)."""
    rows = tuple(_row(r) for r in lb.rows)
    meta = {k: getattr(lb, k) for k in ("game", "game_title", "rule_changes") if hasattr(lb, k)}  # newer services
    board = Board(lb.title, Standings(rows, {}, {}, lb.matches), meta, provisional=frozenset())  # marked below
    league_cols = [c for c in COLUMNS if c.key not in LEAGUE_HIDDEN]
    game = f"game: {game_title(board)} · {rules_text(board)} · " if meta else ""
    t = Table(title=lb.title, box=box.SIMPLE_HEAVY, title_style="bold", header_style="bold cyan",
              caption=f"{game}{plural(lb.rounds, 'round')} · {plural(lb.matches, 'match', 'matches')} · "
                      f"sorted by μ − 3σ · provisional: fewer than {plural(lb.provisional_below, 'match', 'matches')}"
                      + (f" · updated {moment(lb.updated)}" if lb.updated else ""),
              caption_style="dim")
    for c in league_cols:
        t.add_column(c.head, justify=c.justify)
    t.add_column("")
    for pb, r in zip(lb.rows, rows):
        marks = [m for m, on in (("provisional", pb.provisional), ("retired", pb.retired), ("operator", pb.operator),
                                 ("online", pb.connected and not pb.operator)) if on]
        cells = [Text(c.text(board, r), style="dim" if pb.provisional else "bold") if c.key == "entrant"
                 else _cell(c.key, c.text(board, r)) for c in league_cols]
        t.add_row(*cells, Text(" ".join(marks), style="dim"))
    return t


def _row(pb: Any) -> Row:
    """A protobuf leaderboard row as a standings :class:`Row`."""
    fails = {k: pb.failures.get(k, 0) for k in FAILURE_COLUMNS} | {k: pb.failures[k] for k in sorted(pb.failures)}
    return Row(pb.rank, pb.entrant, pb.mu, pb.sigma, pb.conservative, pb.played, pb.wins, pb.points_for,
               pb.points_against, pb.pairs_won, pb.pairs_split, pb.pairs_lost, fails,
               pb.p_above_next if pb.HasField("p_above_next") else None)


def crosstable(board: Board) -> Table:
    """Head-to-head win rates of each row entrant against each column entrant."""
    names = board.standings.order
    t = Table(title="head to head (row's win rate, 95% Wilson interval)", box=box.SIMPLE,
              title_style="bold", header_style="bold cyan")
    t.add_column("")
    for n in names:
        t.add_column(n, justify="center")
    for a in names:
        cells: list[RenderableType] = [Text(a, style="bold")]
        for b in names:
            c = board.standings.cross.get((a, b))
            if a == b or c is None or c.rate is None:
                cells.append(Text("·", style="dim"))
                continue
            lo, hi = c.interval
            style = "green" if lo > 0.5 else "red" if hi < 0.5 else ""
            cells.append(Text(f"{pct(c.rate)} [{pct(lo)}–{pct(hi)}]", style=style))
        t.add_row(*cells)
    return t


def partner_table(board: Board) -> Table:
    """How often each row entrant's team finished first with each column entrant as its partner."""
    names = board.standings.order
    t = Table(title="with each partner (row's team finished first)", box=box.SIMPLE, title_style="bold",
              header_style="bold cyan")
    t.add_column("")
    for n in names:
        t.add_column(n, justify="center")
    for a in names:
        cells: list[RenderableType] = [Text(a, style="bold")]
        for b in names:
            c = board.standings.partners.get((a, b))
            cells.append(Text("·", style="dim") if c is None or c.rate is None else Text(f"{pct(c.rate)} ({c.games})"))
        t.add_row(*cells)
    return t


def render(board: Board) -> Group:
    """The final leaderboard: standings, crosstable, and for rotating partnerships the partner table."""
    parts: list[RenderableType] = [standings_table(board), crosstable(board)]
    if (panel := adaptive.table(board)) is not None:  # issue 17
        parts.insert(1, panel)
    if board.standings.partners:
        parts.append(partner_table(board))
    return Group(*parts)


def live_view(board: Board, progress: RenderableType, failures: Sequence[str] = (),
              note: str | None = None) -> Group:
    """The live tournament view: progress, current standings and the latest failures."""
    parts: list[RenderableType] = [progress, standings_table(board)]
    if failures:
        fails = Table(title="failures (latest)", box=box.SIMPLE, show_header=False, title_style="bold red")
        fails.add_column()
        for line in failures[-5:]:
            fails.add_row(Text(line, style="red"))
        parts.append(fails)
    if note:
        parts.append(Text(note, style="yellow"))
    return Group(*parts)
