"""Pure renderers for matches and deals: data in, rich renderables out. No printing here."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness.games.sixtysix.cards import CARD_INDEX, CARD_STR, POINTS, cards_of
from harness.games.sixtysix.engine import _apply, counted_points, deal
from harness.games.sixtysix.match import DealResult
from harness.games.sixtysix.options import Rules

SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
COLOR = {"C": "bright_white", "D": "bright_red", "H": "bright_red", "S": "bright_white"}
RANK_NAME = {"9": "9", "J": "J", "Q": "Q", "K": "K", "T": "10", "A": "A"}


def card_text(card: str) -> Text:
    """A card with its suit symbol, coloured: ``TH`` is a red ``10♥``."""
    return Text(RANK_NAME[card[0]] + SYMBOL[card[1]], style=f"bold {COLOR[card[1]]}")


def cards_text(cards: Sequence[str]) -> Text:
    return Text(" ").join(card_text(c) for c in cards) if cards else Text("—", style="dim")


def deal_lines(rules: Rules, deck: tuple[int, ...], actions: Sequence[str], names: tuple[str, str]) -> list[Text]:
    """The story of one deal, line by line; ``names`` are the seats' names (non-dealer first)."""
    s = deal(deck, rules)
    trump_card = CARD_STR[deck[12]]
    lines = [
        Text.assemble("trump ", card_text(trump_card), "  ", (names[0], "cyan"), " ",
                      cards_text(cards_of(s.hands[0])), "   ", (names[1], "magenta"), " ",
                      cards_text(cards_of(s.hands[1]))),
    ]
    styles = ("cyan", "magenta")
    trick_no = 0
    lead: tuple[int, str] | None = None
    for a in actions:
        me = s.to_act
        who = (names[me], styles[me])
        before = s
        s = _apply(s, a)
        if a in CARD_INDEX:
            if lead is None:
                lead = (me, a)
                continue
            trick_no += 1
            w = s.to_act if s.outcome is None else s.leader
            gain = POINTS[CARD_INDEX[lead[1]]] + POINTS[CARD_INDEX[a]]
            lines.append(Text.assemble(
                (f"{trick_no:>2}. ", "dim"), (names[lead[0]], styles[lead[0]]), " ", card_text(lead[1]),
                "  ", who, " ", card_text(a), "  → ", (names[w], styles[w]), f" +{gain}",
                (f"   {names[0]} {counted_points(s, 0)} · {names[1]} {counted_points(s, 1)}", "dim"),
            ))
            lead = None
        elif a.startswith("marry:"):
            su = a[-1]
            value = 40 if su == CARD_STR[deck[12]][1] else 20
            lines.append(Text.assemble("    ", who, f" declares the marriage in ", card_text("K" + su),
                                       card_text("Q" + su), f" ({value})"))
        elif a == "exchange":
            lines.append(Text.assemble("    ", who, " exchanges the trump nine for ", card_text(CARD_STR[before.bottom])))
        elif a == "close":
            lines.append(Text.assemble("    ", who, (" closes the talon", "bold yellow"),
                                       f" ({before.talon_size} cards left)"))
        elif a == "claim":
            lines.append(Text.assemble("    ", who, f" claims with {counted_points(before, me)}"))
        elif a == "pass":
            lines.append(Text.assemble("    ", who, " passes"))
    o = s.outcome
    if o is not None:
        if o.winner is None:
            lines.append(Text(f"    tie {counted_points(s, 0)}:{counted_points(s, 1)}: no game points", "yellow"))
        else:
            lines.append(Text.assemble("    ", (names[o.winner], f"bold {styles[o.winner]}"),
                                       f" scores {o.game_points} ({o.reason}, row {o.row})"))
    return lines


def deal_panel(rules: Rules, result: DealResult, players: tuple[str, str], scores: tuple[int, int]) -> Panel:
    """One finished deal as a panel; ``scores`` are the game points after it."""
    dealer = result.dealer
    names = (players[1 - dealer], players[dealer])
    body = Group(*deal_lines(rules, result.deck, result.actions, names))
    title = Text.assemble(f"Deal {result.deal_no} · ", (players[dealer], "bold"), " deals")
    subtitle = f"{players[0]} {scores[0]} : {scores[1]} {players[1]}"
    return Panel(body, title=title, subtitle=subtitle, title_align="left", subtitle_align="right")


def match_summary(players: tuple[str, str], scores: tuple[int, int], winner: int | None, detail: str = "") -> Table:
    """The final score of a match as a small table."""
    t = Table(show_header=True, header_style="bold")
    t.add_column("player")
    t.add_column("game points", justify="right")
    t.add_column("")
    for p in (0, 1):
        t.add_row(players[p], str(scores[p]), "winner" if winner == p else "")
    if detail:
        t.caption = detail
    return t


