"""The view of three-handed Sixty-Six (RULES.md, 3H-1..3H-6): a deal from its record line, and the
table of a match in play (spectator view). Seats are the game's (seat 0 at the dealer's left);
everything shown is by player.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from harness.games.base import IllegalAction
from harness.games.three_handed.engine import (CARD_STR, SUITS, TEXT, State, apply, counted_points, deal,
                                               hand_cards, parse_deck)
from harness.games.three_handed.game import Match, player_of, seat_of
from harness.games.three_handed.options import Rules

from .common import SYMBOL, Story, card_cell, card_text, cards_text, deal_panel, name_text, problem_text, sort_cards

STRENGTH = "9JQKTA"  # weakest first (66-1.2)
GRADE_RULE = {"min": "the lower", "max": "the higher", "sum": "the sum"}  # 3h_grade in words (3H-6)


def _hand(s: State, seat: int) -> Text:
    return cards_text(sort_cards(hand_cards(s, seat), STRENGTH, by_suit=True))


def _points(s: State, seats: Sequence[int]) -> list[int]:
    """Counted points by player (marriages once the declarer has a trick, 3H-5)."""
    by_player = {p: counted_points(s, k) for k, p in enumerate(seats)}
    return [by_player[p] for p in range(3)]


def deal_story(rules: Rules, line: Mapping[str, Any], players: Sequence[str]) -> Story:
    """The story of one deal: the hands as dealt, trump, each trick and its winner, marriages, the
    claim (or the finish without one) and the result."""
    dealer = int(line["dealer"])
    seats = tuple(player_of(dealer, k) for k in range(3))
    s = deal(parse_deck(line["deck"]), rules)
    width = max(len(n) for n in players)
    out = Story([*((name_text(players, p), 5) for p in range(3)), ("won by", width + 4), ("points", 11)])
    for k, p in enumerate(seats):
        out.line(Text.assemble(name_text(players, p), " deals" if k == 2 else "", ": ", _hand(s, k)))
    trick: list[tuple[int, str]] = []
    for i, a in enumerate(line.get("actions") or (), 1):
        seat = s.to_act
        who = name_text(players, seats[seat])
        before = s
        try:
            s = apply(s, a)
        except (IllegalAction, ValueError, KeyError) as e:
            out.line(problem_text(i, a, e))
            break
        if a == "trump:next":  # 3H-2: d[9] is shown to everyone and its suit is trump
            shown = CARD_STR[s.shown]
            out.event(Text.assemble(who, " turns up ", card_text(shown), f": {SYMBOL[shown[1]]} is trump, public"
                                    " before the first lead (3H-2)"))
        elif a.startswith("trump:"):
            out.event(Text.assemble(who, f" names {SYMBOL[a[-1]]} trump, public before the first lead (3H-2)"))
        elif a.startswith("marry:"):  # 3H-5
            value = 40 if SUITS[s.trump] == a[-1] else 20
            wait = "" if before.tricks[seat] else ", counted once a trick is won"
            out.event(Text.assemble(who, " declares the marriage ", card_text("K" + a[-1]), " ",
                                    card_text("Q" + a[-1]), f" ({value}{wait}, 3H-5)"))
        elif a == "claim":  # 3H-6
            out.event(Text.assemble(who, (f" claims with {counted_points(before, seat)}", "bold"),
                                    f": {s.game_points} game point{'s' if s.game_points != 1 else ''}"
                                    f" ({GRADE_RULE.get(rules.grade, rules.grade)} of the opponents' grades: 3 for"
                                    " no trick, 2 for under 33, else 1; 3H-6)"))
        elif a == "finish":
            out.event(Text.assemble(who, " finishes without a claim: nobody scores"))
        else:
            trick.append((seats[seat], a))
            if s.done > before.done:
                w = s.leader
                gain = s.won_points[w] - before.won_points[w]
                cards = dict(trick)
                points = _points(s, seats)
                out.trick(s.done, *(card_cell(cards[p], p == trick[0][0]) for p in range(3)),
                          Text.assemble(name_text(players, seats[w], True), f" +{gain}"),
                          " · ".join(str(x) for x in points))
                trick = []
    if trick:  # a deal cut short inside a trick
        out.line(Text.assemble("unfinished trick: ", Text("  ").join(
            Text.assemble(name_text(players, p), " ", card_text(c)) for p, c in trick)))
    result = line.get("result")
    if result is not None:
        winner = result.get("winner")
        if isinstance(winner, int) and 0 <= winner < len(players):
            g = result.get("game_points")
            out.line(Text.assemble(name_text(players, winner, True),
                                   f" scores {g} game point{'s' if g != 1 else ''} ({result.get('reason')})"))
        else:
            out.line(Text("no claim: no game points", "yellow"))
    return out


def scores_text(players: Sequence[str], scores: Sequence[int]) -> Text:
    return Text("  ").join(Text.assemble(name_text(players, p), f" {scores[p]}") for p in range(len(scores)))


def deal_view(rules: Rules, line: Mapping[str, Any], players: Sequence[str]) -> RenderableType:
    """One deal from its record line as a panel, with the game scores after it as the subtitle."""
    result = line.get("result")
    subtitle = scores_text(players, result["scores"]) if result is not None else None
    return deal_panel(line, players, deal_story(rules, line, players), subtitle)


def table_view(match: Any, players: Sequence[str]) -> tuple[Text, list[Text]] | None:
    """A three-handed match in play (spectator view): trump, the trick so far and counted points, and
    every player's hand; None for another game's match."""
    if not isinstance(match, Match):
        return None
    s = match.state
    seats = tuple(player_of(match.dealer, k) for k in range(3))
    trump = Text("trump not named yet", "dim") if s.trump < 0 else Text(f"trump {SYMBOL[SUITS[s.trump]]}")
    if s.shown >= 0:
        trump.append_text(Text.assemble(" (", card_text(CARD_STR[s.shown]), " shown)"))
    plays = Text("  ").join(Text.assemble(name_text(players, seats[(s.leader + i) % 3]), " ", card_text(TEXT[b]))
                            for i, b in enumerate(s.trick))
    points = _points(s, seats)
    tally = Text("  ").join(Text.assemble(name_text(players, p), f" {points[p]}") for p in range(len(players)))
    header = Text.assemble(trump, "   trick: ", plays if s.trick else Text("—", "dim"), "   points ", tally)
    hands = []
    for p in range(len(players)):
        k = seat_of(match.dealer, p)
        n = s.tricks[k]
        hands.append(Text.assemble(_hand(s, k), (f"   {n} trick{'s' if n != 1 else ''}", "dim")))
    return header, hands
