"""The leaderboard as rich renderables: the standings table, and the live tournament view."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from harness.leaderboard import Board, failures_text, pct, shown_name


def standings_table(board: Board) -> Table:
    """The ranked table: rating, record, duplicate pairs, failures, confidence in the order."""
    s = board.standings
    t = Table(title=board.title, box=box.SIMPLE_HEAVY, title_style="bold", header_style="bold cyan",
              caption=f"{s.matches} matches · sorted by μ − 3σ · P↓ = P(truly above the next)",
              caption_style="dim")
    t.add_column("#", justify="right")
    t.add_column("entrant", style="bold")
    t.add_column("μ−3σ", justify="right", style="bold")
    t.add_column("μ", justify="right")
    t.add_column("σ", justify="right")
    t.add_column("played", justify="right")
    t.add_column("win %", justify="right")
    t.add_column("pts ±", justify="right")
    t.add_column("pairs W/S/L", justify="center")
    t.add_column("failures")
    t.add_column("P↓", justify="right")
    for r in s.rows:
        fail = failures_text(r.failures)
        t.add_row(
            str(r.rank), shown_name(board, r.name), f"{r.score:.2f}", f"{r.mu:.2f}", f"{r.sigma:.2f}", str(r.played),
            f"{r.win_pct:.0f}%", f"{r.points_for}:{r.points_against}",
            f"{r.pairs_won}/{r.pairs_split}/{r.pairs_lost}",
            Text(fail, style="red" if fail != "–" else "dim"), pct(r.p_above),
        )
    return t


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


def render(board: Board) -> Group:
    """The final leaderboard: standings and crosstable."""
    return Group(standings_table(board), crosstable(board))


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
