"""Pure renderers for matches and deals: data in, rich renderables out. No printing here.

Deals are drawn from their record line (``{"deal_no", <the game's deal fields>, "actions",
"result"}``, see :mod:`harness.arena.record`), the one description of a deal every game has.
The Sixty-Six family (Sixty-Six, Schnapsen) is drawn trick by trick; this module is that family's
view, next to its wire codec and its built-in players. The other games' views are in
:mod:`harness.views` (one module each); :func:`deal_view` and :func:`table_view` dispatch to them.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from typing import Any

from rich.console import RenderableType

from harness.games.sixtysix.cards import CARD_INDEX, CARD_STR, CLASSIC, POINTS, SCHNAPSEN, cards_of, parse_deck
from harness.games.sixtysix.engine import apply_legal, counted_points, deal
from harness.games.sixtysix.options import Rules

from harness.views import four_handed as four_handed_view
from harness.views import three_handed as three_handed_view
from harness.views import twenty_two as twenty_two_view
from harness.views.common import COLOR, RANK_NAME, STYLES, SYMBOL, card_text, cards_text

__all__ = ["COLOR", "PACKS", "RANK_NAME", "STYLES", "SYMBOL", "card_text", "cards_text", "deal_lines", "deal_view",
           "match_summary", "table_view"]

PACKS = {"sixtysix": CLASSIC, "schnapsen": SCHNAPSEN}
VIEWS = {"three_handed": three_handed_view, "four_handed": four_handed_view, "twenty_two": twenty_two_view}


# Each row of the scoring table (66-13.1; RULES.md "Scoring"), in words.
ROW_WORDS = {1: "a claim with 66 or more", 2: "the closer's claim with 66 or more",
             3: "a claim with 66 or more against the closer", 4: "the closer claimed with less than 66",
             5: "a claim with less than 66", 6: "the closer did not reach 66", 7: "all cards played, more points",
             8: "all cards played, a tie"}
GRADE_WORDS = {1: "the loser has 33 or more", 2: "the loser has less than 33", 3: "the loser took no trick"}


def scoring_words(row: int, reason: str, game_points: int) -> str:
    """Why a deal scored what it did, in words, then its row of the scoring table (66-13.1).

    >>> scoring_words(1, "valid claim", 2)
    'a claim with 66 or more; the loser has less than 33; row 1 of the scoring table in RULES.md'
    >>> scoring_words(6, "closer failed", 3)
    'the closer did not reach 66; 3 as the other player had no trick when the talon was closed; row 6 of the scoring table in RULES.md'
    """
    what = "all cards played, the last trick wins the deal" if reason == "last trick" else ROW_WORDS.get(row, reason)
    why = ""
    if row in (1, 2) or (row == 7 and reason != "last trick" and game_points > 1):  # graded (66-13.1 grade)
        why = GRADE_WORDS.get(game_points, "")
    elif row in (3, 4, 6) and game_points == 3:
        why = "3 as the other player had no trick when the talon was closed"
    elif row == 5 and game_points == 3:
        why = "3 as the other player has no trick"
    return f"{what}{'; ' + why if why else ''}; row {row} of the scoring table in RULES.md"


def deal_lines(rules: Rules, deck: tuple[int, ...], actions: Sequence[str], names: tuple[str, str]) -> list[Text]:
    """The story of one deal, line by line; ``names`` are the seats' names (non-dealer first)."""
    s = deal(deck, rules)
    trump_card = CARD_STR[s.trump_card]
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
        s = apply_legal(s, a)
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
            value = 40 if su == trump_card[1] else 20
            lines.append(Text.assemble("    ", who, f" declares the marriage in ", card_text("K" + su),
                                       card_text("Q" + su), f" ({value})"))
        elif a == "exchange":
            rank = "jack" if rules.exchange_rank == "J" else "nine"
            lines.append(Text.assemble("    ", who, f" exchanges the trump {rank} for ", card_text(CARD_STR[before.bottom])))
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
                                       f" scores {o.game_points} game point{'s' if o.game_points != 1 else ''} "
                                       f"({scoring_words(o.row, o.reason, o.game_points)})"))
    return lines


def deal_view(game: str, rules: Any, line: dict[str, Any], players: Sequence[str]) -> RenderableType:
    """One deal from its record line as a panel, cut short or finished (then with the scores after it)."""
    view = VIEWS.get(game)
    if view is not None:
        return view.deal_view(rules, line, players)
    pack = PACKS.get(game)
    if pack is None:
        return Text(f"deal {line.get('deal_no')}: {' '.join(line.get('actions', []))}")
    dealer = line["dealer"]
    names = (players[1 - dealer], players[dealer])
    body = Group(*deal_lines(rules, parse_deck(line["deck"], pack), line["actions"], names))
    result = line.get("result")
    title = Text.assemble(f"Deal {line['deal_no']} · ", (players[dealer], "bold"), " deals",
                          "" if result is not None else " · cut short")
    subtitle = None
    if result is not None:
        scores = result["scores"]
        subtitle = f"{players[0]} {scores[0]} : {scores[1]} {players[1]}"
    return Panel(body, title=title, subtitle=subtitle, title_align="left", subtitle_align="right")


def table_view(match: Any, players: Sequence[str], deal_no: int) -> tuple[Text, list[Text]] | None:
    """The table of a match in play, spectator view: the trump and talon (or trick) line, and each
    player's hand; None for a match value no view can draw."""
    for view in VIEWS.values():
        drawn = view.table_view(match, players)
        if drawn is not None:
            return drawn
    s = getattr(match, "state", None)
    if s is None or not hasattr(s, "talon_n"):
        return None
    talon = f"talon {s.talon_size} ({s.talon_state})"
    trump = cards_text([CARD_STR[s.bottom]]) if s.drawn < s.talon_n else Text("—")
    hands = [cards_text(cards_of(s.hands[1 if p == match.dealer else 0])) for p in range(len(players))]
    return Text.assemble("trump ", trump, f"  {talon}"), hands


def match_summary(players: Sequence[str], scores: Sequence[int], ranks: Sequence[int] | None,
                  detail: str = "", teams: Sequence[int] | None = None) -> Table:
    """The final standing of a match as a small table: place, player (team), game points. An entrant
    that holds several seats of one team (partners "self") is one row."""
    team_of = list(teams) if teams is not None else list(range(len(players)))
    shown_teams = len(set(team_of)) < len(team_of)
    t = Table(show_header=True, header_style="bold")
    t.add_column("place", justify="right")
    t.add_column("player")
    if shown_teams:
        t.add_column("team", justify="right")
    t.add_column("game points", justify="right")
    seats = [p for p in range(len(players))
             if (players[p], team_of[p]) not in {(players[q], team_of[q]) for q in range(p)}]
    first_teams = {team_of[p] for p in range(len(players)) if ranks is not None and ranks[p] == 0}
    order = sorted(seats, key=lambda p: (ranks[p] if ranks is not None else 0, p))
    for p in order:
        if ranks is None:
            place = "—"
        elif ranks[p] == 0 and len(first_teams) == 1:
            place = "winner"
        else:
            place = str(ranks[p] + 1)
        row: list[str | Text] = [place, Text(players[p], STYLES[p % len(STYLES)])]
        if shown_teams:
            row.append(str(team_of[p]))
        row.append(str(scores[p]))
        t.add_row(*row)
    if detail:
        t.caption = detail
    return t