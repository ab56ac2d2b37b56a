"""Pure renderers for the arena: data in, rich renderables out. No printing here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness.render import STYLES, deal_view, match_summary, table_view

from .record import VerifyReport
from .result import Cause, MatchResult


@dataclass
class LiveView:
    """What the live display shows; the match command updates it from the match events."""

    players: tuple[str, ...]
    seed: int
    title: str = "Sixty-Six"
    deal_no: int = 0
    scores: tuple[int, ...] = (0, 0)
    match: Any = None  # the match value of a Sixty-Six family game (its deal is drawn)
    banks_ms: list[float] = field(default_factory=lambda: [0.0, 0.0])
    decisions: int = 0
    last: list[str] = field(default_factory=list)  # recent actions, newest last
    status: str = "starting bots"


def live_view(v: LiveView) -> RenderableType:
    """The current deal at a glance: scores, trump, every hand (spectator view), banks, recent actions."""
    score = " : ".join(str(x) for x in v.scores)
    title = Text.assemble((v.title, "bold"), f" · seed {v.seed} · ",
                          Text(" vs ").join(Text(n, STYLES[p % len(STYLES)]) for p, n in enumerate(v.players)),
                          " ", (score, "bold"))
    t = Table.grid(padding=(0, 2))
    t.add_column()
    t.add_column()
    t.add_column(justify="right")
    table = table_view(v.match, v.players, v.deal_no)
    if table is not None:
        t.add_row(Text(f"deal {v.deal_no}"), table[0], Text(""))
    for p, name in enumerate(v.players):
        t.add_row(Text(name, STYLES[p % len(STYLES)]), table[1][p] if table is not None else Text(""),
                  Text(f"bank {v.banks_ms[p] / 1000:.2f} s", "dim"))
    body = Group(t, Text(" ".join(v.last[-12:]) or " ", "dim"), Text(f"{v.decisions} decisions · {v.status}",
                                                                     "dim"))
    return Panel(body, title=title, title_align="left")


def result_text(r: MatchResult) -> Text:
    """One line: who won and how."""
    if r.ranks is None:
        return Text(f"no result: {r.cause} — {r.detail}", "yellow")
    first = [p for p, k in enumerate(r.ranks) if k == 0 and r.players.index(r.players[p]) == p]
    names = Text(" and ").join(Text(r.players[p], f"bold {STYLES[p % len(STYLES)]}") for p in first)
    verb = " wins" if len(first) == 1 else " win"
    if r.cause is Cause.NORMAL:
        sides: dict[int, int] = {}  # one score per team (partners share it)
        for p, team in enumerate(r.teams):
            sides.setdefault(team, r.scores[p])
        return Text.assemble(names, f"{verb} " + " : ".join(str(v) for v in sides.values()))
    off = r.players[r.offender] if r.offender is not None else "?"
    return Text.assemble(names, f"{verb} by forfeit: ", (off, "bold red"), f" {r.cause} — {r.detail}")


def replay_view(rep: VerifyReport) -> list[RenderableType]:
    """A verified (or diverging) record, deal by deal, then the outcome or the first divergence."""
    h = rep.header
    players = tuple(h.get("players") or ("?", "?"))
    title = rep.game.title if rep.game is not None else str(h.get("game", "Sixty-Six"))
    out: list[RenderableType] = [Text.assemble((title, "bold"), f" · {' vs '.join(players)}",
                                               f" · seed {h.get('seed')} · match {h.get('match_id')}")]
    if rep.game is not None:
        for d in rep.deals:
            out.append(deal_view(rep.game.id, rep.rules, d, players))
    e = rep.end
    if e is not None:
        detail = f"{e.get('cause')}" + (f": {e.get('detail')}" if e.get("detail") else "")
        off = e.get("offender")
        if isinstance(off, int) and 0 <= off < len(players):
            detail += f" (offender {players[off]}, deal {e.get('deal_no')}, decision {e.get('decision_no')})"
        ranks = e.get("ranks")
        if ranks is None and isinstance(e.get("winner"), int):  # a version 1 record
            ranks = [0 if p == e["winner"] else 1 for p in range(len(players))]
        scores = e.get("scores") or [0] * len(players)
        out.append(match_summary(players, scores, ranks, detail, h.get("teams")))
    if rep.ok:
        out.append(Text("record verified", "bold green"))
    else:
        out.append(Text(f"record does not verify: {rep.divergence}", "bold red"))
    return out
