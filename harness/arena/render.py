"""Pure renderers for the arena: data in, rich renderables out. No printing here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness.games.sixtysix.cards import CARD_STR, cards_of, parse_deck
from harness.games.sixtysix.engine import State
from harness.games.sixtysix.match import DealResult
from harness.render import cards_text, deal_lines, deal_panel, match_summary

from .record import VerifyReport
from .result import Cause, MatchResult

STYLES = ("cyan", "magenta")


@dataclass
class LiveView:
    """What the live display shows; the match command updates it from the match events."""

    players: tuple[str, str]
    seed: int
    deal_no: int = 0
    dealer: int = 0
    scores: tuple[int, int] = (0, 0)
    state: State | None = None
    banks_ms: list[float] = field(default_factory=lambda: [0.0, 0.0])
    decisions: int = 0
    last: list[str] = field(default_factory=list)  # recent actions, newest last
    status: str = "starting bots"


def live_view(v: LiveView) -> RenderableType:
    """The current deal at a glance: scores, trump, both hands (spectator view), banks, recent actions."""
    title = Text.assemble(("Sixty-Six", "bold"), f" · seed {v.seed} · ", (v.players[0], STYLES[0]), " ",
                          (f"{v.scores[0]} : {v.scores[1]}", "bold"), " ", (v.players[1], STYLES[1]))
    t = Table.grid(padding=(0, 2))
    t.add_column()
    t.add_column()
    t.add_column(justify="right")
    s = v.state
    if s is not None:
        talon = f"talon {s.talon_size} ({s.talon_state})"
        trump = CARD_STR[s.bottom] if s.drawn < 12 else "—"
        t.add_row(Text(f"deal {v.deal_no}"), Text.assemble("trump ", cards_text([trump]) if trump != "—" else "—",
                                                           f"  {talon}"), Text(""))
        for p in (0, 1):
            seat = 1 if p == v.dealer else 0
            t.add_row(Text(v.players[p], STYLES[p]), cards_text(cards_of(s.hands[seat])),
                      Text(f"bank {v.banks_ms[p] / 1000:.2f} s", "dim"))
    body = Group(t, Text(" ".join(v.last[-12:]) or " ", "dim"), Text(f"{v.decisions} decisions · {v.status}",
                                                                     "dim"))
    return Panel(body, title=title, title_align="left")


def result_text(r: MatchResult) -> Text:
    """One line: who won and how."""
    if r.cause is Cause.NORMAL and r.winner is not None:
        return Text.assemble((r.players[r.winner], f"bold {STYLES[r.winner]}"),
                             f" wins {r.scores[r.winner]} : {r.scores[1 - r.winner]}")
    if r.winner is None:
        return Text(f"no winner: {r.cause} — {r.detail}", "yellow")
    off = r.players[r.offender] if r.offender is not None else "?"
    return Text.assemble((r.players[r.winner], f"bold {STYLES[r.winner]}"), " wins by forfeit: ",
                         (off, "bold red"), f" {r.cause} — {r.detail}")


def deal_result(d: dict[str, Any]) -> DealResult | None:
    """A record's deal line as a DealResult, or None for a deal cut short."""
    res = d.get("result")
    if res is None:
        return None
    return DealResult(d["deal_no"], d["dealer"], parse_deck(d["deck"]), tuple(d["actions"]), res["winner"],
                      res["game_points"], res["row"], res["reason"])


def replay_view(rep: VerifyReport) -> list[RenderableType]:
    """A verified (or diverging) record, deal by deal, then the outcome or the first divergence."""
    h = rep.header
    players = (h.get("players") or ["?", "?"])[0], (h.get("players") or ["?", "?"])[1]
    out: list[RenderableType] = [Text.assemble(("Sixty-Six", "bold"), f" · {players[0]} vs {players[1]}",
                                               f" · seed {h.get('seed')} · match {h.get('match_id')}")]
    for d in rep.deals:
        r = deal_result(d)
        if r is not None and rep.rules is not None:
            out.append(deal_panel(rep.rules, r, players, tuple(d["result"]["scores"])))
        elif rep.rules is not None:
            dealer = d["dealer"]
            names = (players[1 - dealer], players[dealer])
            lines = deal_lines(rep.rules, parse_deck(d["deck"]), d["actions"], names)
            out.append(Panel(Group(*lines), title=f"Deal {d['deal_no']} · cut short", title_align="left"))
    e = rep.end
    if e is not None:
        detail = f"{e.get('cause')}" + (f": {e.get('detail')}" if e.get("detail") else "")
        if e.get("offender") is not None:
            detail += f" (offender {players[e['offender']]}, deal {e.get('deal_no')}, decision {e.get('decision_no')})"
        out.append(match_summary(players, tuple(e.get("scores", (0, 0))), e.get("winner"), detail))
    if rep.ok:
        out.append(Text("record verified", "bold green"))
    else:
        out.append(Text(f"record does not verify: {rep.divergence}", "bold red"))
    return out
