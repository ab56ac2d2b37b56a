"""The view of four-handed partnership Sixty-Six (RULES.md, 4H-1..4H-7): a deal from its record line,
and the table of a match in play (spectator view). Teams are match teams: players 0 and 2 against
1 and 3 (4H-1); seat k of a deal is player ``(dealer + 1 + k) % 4``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from harness.games.base import IllegalAction
from harness.games.four_handed.cards import CARD_INDEX, CARD_STR, cards_of
from harness.games.four_handed.engine import State, apply, deal
from harness.games.four_handed.game import Match
from harness.games.four_handed.options import Rules

from .common import SYMBOL, Story, card_cell, card_text, cards_text, deal_panel, name_text, problem_text, sort_cards

STRENGTH = "789JQKTA"  # weakest first (4H-2)


def player_of(dealer: int, seat: int) -> int:
    return (dealer + 1 + seat) & 3


def team_text(players: Sequence[str], team: int, bold: bool = False) -> Text:
    """A match team by its players' names: ``Ann+Cid``."""
    return Text("+").join(name_text(players, p, bold) for p in (team, team + 2) if p < len(players))


def _hand(s: State, seat: int) -> Text:
    return cards_text(sort_cards(cards_of(s.hands[seat]), STRENGTH, by_suit=True))


def _by_team(dealer: int, values: tuple[int, int]) -> tuple[int, int]:
    """Seat-team values (team 0 = seats 0 and 2) as match-team values (team 0 = players 0 and 2)."""
    return (values[0], values[1]) if (dealer + 1) & 1 == 0 else (values[1], values[0])


def _team_points(s: State, dealer: int) -> list[int]:
    """Counted points by match team (4H-5)."""
    return list(_by_team(dealer, s.points))


def deal_story(rules: Rules, line: Mapping[str, Any], players: Sequence[str]) -> Story:
    """The story of one deal: the hands as dealt, the turned-up trump, each trick with its winner and
    the team points after it, and the result."""
    dealer = int(line["dealer"])
    seats = tuple(player_of(dealer, k) for k in range(4))
    s = deal([CARD_INDEX[t] for t in str(line["deck"]).split()], rules)
    trump = CARD_STR[s.trump_card]
    width = max(len(n) for n in players)
    out = Story([*((name_text(players, p), 6) for p in range(4)), ("won by", width + 4), ("points", 7)])
    for k, p in enumerate(seats):
        out.line(Text.assemble(name_text(players, p), " deals" if k == 3 else "", ": ", _hand(s, k)))
    out.line(Text.assemble("trump ", (f"{SYMBOL[trump[1]]}", "bold"), ": ", name_text(players, dealer),
                           " turns up ", card_text(trump), ", public until he plays it (↑, 4H-3)"))
    out.line(Text.assemble("points after each trick: ", team_text(players, 0), " : ", team_text(players, 1),
                           " (4H-5)", style="dim"))
    trick: list[tuple[int, str]] = []
    done = 0
    for i, a in enumerate(line.get("actions") or (), 1):
        seat = s.to_act
        before = s
        try:
            s = apply(s, a)
        except (IllegalAction, ValueError, KeyError) as e:
            out.line(problem_text(i, a, e))
            break
        trick.append((seats[seat], a))
        if s.trick:
            continue
        done += 1
        w = s.leader
        gain = s.points[w & 1] - before.points[w & 1]
        cards = dict(trick)
        points = _team_points(s, dealer)
        out.trick(done, *(card_cell(cards[p], p == trick[0][0], "↑" if p == dealer and cards[p] == trump else "")
                          for p in range(4)),
                  Text.assemble(name_text(players, seats[w], True), f" +{gain}"), f"{points[0]}:{points[1]}")
        trick = []
    if trick:  # a deal cut short inside a trick
        out.line(Text.assemble("unfinished trick: ", Text("  ").join(
            Text.assemble(name_text(players, p), " ", card_text(c)) for p, c in trick)))
    result = line.get("result")
    if result is not None:
        winner = result.get("winner")
        pts, tricks = result.get("points") or (0, 0), result.get("tricks") or (0, 0)
        tally = f"   {pts[0]}:{pts[1]} points, {tricks[0]}:{tricks[1]} tricks"
        if winner in (0, 1):
            g, carried = int(result.get("game_points") or 0), int(result.get("carried") or 0)
            extra = f", {carried} of them carried from tied deals" if carried else ""
            out.line(Text.assemble(team_text(players, winner, True),
                                   f" score {g} game point{'s' if g != 1 else ''} ({result.get('reason')}{extra}, 4H-7)",
                                   (tally, "dim")))
        else:
            carry = f": {rules.tie_carry_points} carried to the next scoring deal" if rules.tie_carry_over else ""
            out.line(Text.assemble((f"{result.get('reason')}, nobody scores{carry} (4H-7)", "yellow"), (tally, "dim")))
    return out


def scores_text(players: Sequence[str], scores: Sequence[int]) -> Text:
    """The game score by team (a player's score is his team's)."""
    return Text.assemble(team_text(players, 0), f" {scores[0]} : {scores[1]} ", team_text(players, 1))


def deal_view(rules: Rules, line: Mapping[str, Any], players: Sequence[str]) -> RenderableType:
    """One deal from its record line as a panel, with the team scores after it as the subtitle."""
    result = line.get("result")
    subtitle = scores_text(players, result["scores"]) if result is not None else None
    return deal_panel(line, players, deal_story(rules, line, players), subtitle)


def table_view(match: Any, players: Sequence[str]) -> tuple[Text, list[Text]] | None:
    """A four-handed match in play (spectator view): trump, the trick so far and team points, and
    every player's hand; None for another game's match."""
    if not isinstance(match, Match):
        return None
    s, dealer = match.state, match.dealer
    trump = CARD_STR[s.trump_card]
    shown = Text.assemble(" (", card_text(trump), " turned up)") if s.trump_public else Text("")
    plays = Text("  ").join(Text.assemble(name_text(players, player_of(dealer, (s.leader + i) & 3)), " ",
                                          card_text(CARD_STR[c])) for i, c in enumerate(s.trick))
    header = Text.assemble(f"trump {SYMBOL[trump[1]]}", shown, "   trick: ", plays if s.trick else Text("—", "dim"),
                           "   points ", team_text(players, 0), f" {_by_team(dealer, s.points)[0]} · ",
                           team_text(players, 1), f" {_by_team(dealer, s.points)[1]}")
    hands = [_hand(s, (p - dealer - 1) & 3) for p in range(len(players))]
    return header, hands
