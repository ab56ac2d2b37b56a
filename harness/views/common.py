"""Cards, player names and the deal panel as rich renderables, shared by every game's view (no game
imports here).

>>> card_text("TH").plain, card_text("7S").plain, cards_text([]).plain
('10♥', '7♠', '—')
>>> sort_cards(["TH", "9C", "AH", "JH"], "9JQKTA", by_suit=True)
['9C', 'JH', 'TH', 'AH']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

STYLES = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan", "bright_magenta")

SUITS = "CDHS"
SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
COLOR = {"C": "bright_white", "D": "bright_red", "H": "bright_red", "S": "bright_white"}
RANK_NAME = {"T": "10"}  # every other rank letter or digit is printed as written


def card_text(card: str) -> Text:
    """A card with its suit symbol, coloured: ``TH`` is a red ``10♥``."""
    return Text(RANK_NAME.get(card[0], card[0]) + SYMBOL[card[1]], style=f"bold {COLOR[card[1]]}")


def cards_text(cards: Sequence[str]) -> Text:
    """Cards separated by spaces; a dash for none."""
    return Text(" ").join(card_text(c) for c in cards) if cards else Text("—", style="dim")


def sort_cards(cards: Sequence[str], ranks: str, by_suit: bool) -> list[str]:
    """Cards for a reader: by suit then rank (``ranks`` weakest first), or by rank alone."""
    if by_suit:
        return sorted(cards, key=lambda c: (SUITS.index(c[1]), ranks.index(c[0])))
    return sorted(cards, key=lambda c: (ranks.index(c[0]), SUITS.index(c[1])))


def name_text(players: Sequence[str], p: int, bold: bool = False) -> Text:
    """Player ``p``'s name in the player's colour."""
    style = STYLES[p % len(STYLES)]
    return Text(players[p], f"bold {style}" if bold else style)


def names_text(players: Sequence[str], ps: Sequence[int], sep: str = ", ") -> Text:
    """Several players' names, coloured, joined by ``sep``; ``nobody`` for none."""
    return Text(sep).join(name_text(players, p) for p in ps) if ps else Text("nobody", "dim")


class Story:
    """A deal's body: full lines (the hands, events, the result) and tables of tricks, one row per
    trick: its number, then ``columns`` (header and width; width 0 takes the rest of the line). Every
    table of a story has the same widths, so rows line up across the lines between them; only the
    first shows its headers."""

    def __init__(self, columns: Sequence[tuple[Text | str, int]]) -> None:
        self.items: list[RenderableType] = []
        self.columns = list(columns)
        self._table: Table | None = None
        self._headed = False

    def line(self, text: Text) -> None:
        self._table = None
        self.items.append(text)

    def event(self, text: Text) -> None:
        """Something between tricks (trump named, a marriage, a claim), indented under the tricks."""
        self.line(Text.assemble("     ", text))

    def trick(self, no: int, *cells: Text | str) -> None:
        if self._table is None:
            t = Table(box=None, padding=(0, 1), show_edge=False, header_style="dim", expand=True,
                      show_header=not self._headed)
            t.add_column("", justify="right", style="dim", no_wrap=True, width=3)
            for header, width in self.columns:
                if width:
                    t.add_column(header, width=max(width, Text(header).cell_len if isinstance(header, str)
                                                   else header.cell_len))
                else:
                    t.add_column(header, ratio=1)
            self._table, self._headed = t, True
            self.items.append(t)
        self._table.add_row(f"{no}.", *cells)


def problem_text(i: int, action: str, e: Exception) -> Text:
    """The line for an action of a record that does not apply to the deal (the view stops there)."""
    return Text(f"    action {i} {action!r} does not apply: {e}", "bold red")


def card_cell(card: str, lead: bool, mark: str = "") -> Text:
    """A card played to a trick, ``▸`` before the lead."""
    return Text.assemble(("▸" if lead else " ", "dim"), card_text(card), (mark, "dim"))


def deal_panel(line: Mapping[str, Any], players: Sequence[str], body: Story, subtitle: Text | None) -> Panel:
    """A deal as a panel: ``Deal N · X deals`` (and ``· cut short`` without a result), the body, and
    the scores after it as the subtitle."""
    dealer = line.get("dealer")
    who = name_text(players, dealer, bold=True) if isinstance(dealer, int) and 0 <= dealer < len(players) else Text("?")
    cut = line.get("result") is None
    title = Text.assemble(f"Deal {line.get('deal_no')} · ", who, " deals", (" · cut short", "bold yellow") if cut else "")
    if cut:
        n = len(line.get("actions") or ())
        body.line(Text(f"cut short after {n} action{'s' if n != 1 else ''}: no result", "bold yellow"))
    return Panel(Group(*body.items), title=title, subtitle=None if cut else subtitle, title_align="left",
                 subtitle_align="right")
