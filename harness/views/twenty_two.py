"""The view of Twenty-Two (RULES.md, 22-1..22-8): a deal from its record line, and the table of a match
in play (spectator view). Seats are the deal's (the survivors clockwise from the dealer's left);
everything shown is by player. The exchange shows how many cards each seat put aside, never which
(22-4.3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from harness.games.base import IllegalAction
from harness.games.twenty_two.cards import RANK, RANKS, parse_deck
from harness.games.twenty_two.engine import State, apply, deal
from harness.games.twenty_two.match import Match
from harness.games.twenty_two.options import Rules

from .common import RANK_NAME, Story, card_text, cards_text, deal_panel, name_text, names_text, problem_text, sort_cards

POINTS = {"X": "exchange", "L": "lead", "F": "follow", "over": "reveal"}


def bar_text(bar: Sequence[int]) -> str:
    """The bar's ranks, highest first: ``K·9``."""
    return "·".join(RANK_NAME.get(RANKS[r], RANKS[r]) for r in bar)


def meets(cards: Sequence[str], bar: Sequence[int]) -> bool:
    """Whether a play meets the bar: place by place at least as high (22-6.3)."""
    return all(x >= b for x, b in zip(sorted((RANK[c] for c in cards), reverse=True), bar))


def play_text(cards: Sequence[str]) -> Text:
    return Text("+").join(card_text(c) for c in cards)


def _hand(cards: Sequence[str]) -> Text:
    return cards_text(sort_cards(cards, RANKS, by_suit=False))


def _exchange(players: Sequence[str], seats: Sequence[int], put: dict[int, int], skipped: bool) -> Text:
    """How many cards each seat put aside and drew (22-4), and who skipped it with the stock empty."""
    parts = [Text.assemble(name_text(players, seats[k]), f" {put[k]}" if put[k] else " stands pat")
             for k in sorted(put)]
    if skipped and len(put) < len(seats):
        parts.append(Text.assemble(names_text(players, seats[len(put):]), " skip (stock empty)"))
    return Text.assemble("exchange (22-4), cards put aside: ", Text(" · ").join(parts) if parts else Text("—", "dim"))


def deal_story(rules: Rules, line: Mapping[str, Any], players: Sequence[str]) -> Story:
    """The story of one deal: the hands as dealt, the exchange (counts only), each trick with the bar
    each follower faced and its winner, the reveal, the losers and their penalty, eliminations."""
    seats = [int(p) for p in line["seats"]]
    s = deal(parse_deck(str(line["deck"]), rules.decks), len(seats), int(line["hand"]), rules)
    dealt = s.hands if s.point != "over" else tuple((c,) for c in s.revealed)
    width = max(len(n) for n in players)
    out = Story([("trick", 0), ("won by", width)])
    for k, p in enumerate(seats):
        out.line(Text.assemble(name_text(players, p), " deals" if k == len(seats) - 1 else "", ": ", _hand(dealt[k])))
    out.line(Text(f"{s.size} card{'s' if s.size != 1 else ''} each (22-3), stock {len(s.stock)}", "dim"))
    put: dict[int, int] = {}
    in_exchange = s.point == "X"
    trick: list[Text] = []
    for i, a in enumerate(line.get("actions") or (), 1):
        seat = s.to_act
        assert seat is not None
        before = s
        try:
            s = apply(s, a)
        except (IllegalAction, ValueError, KeyError) as e:
            out.line(problem_text(i, a, e))
            break
        if before.point == "X":
            put.setdefault(seat, 0)
            if a != "done":
                put[seat] += 1
            if s.point != "X":
                out.line(_exchange(players, seats, put, skipped=True))
                in_exchange = False
            continue
        cards = a.split("+")
        who = name_text(players, seats[seat])
        if before.point == "L":
            trick = [Text.assemble(who, " ", play_text(cards))]
        else:
            low = "" if meets(cards, before.bar) else ", low"
            trick.append(Text.assemble(who, " ", play_text(cards), (f" (bar {bar_text(before.bar)}{low})", "dim")))
        if len(s.tricks) > len(before.tricks):
            out.trick(len(s.tricks), Text("  ").join(trick), name_text(players, seats[s.tricks[-1][2]], True))
            trick = []
    if trick:  # a deal cut short inside a trick
        out.line(Text.assemble("unfinished trick: ", Text("  ").join(trick)))
    if in_exchange and put:
        out.line(_exchange(players, seats, put, skipped=False))
    result = line.get("result")
    if result is not None:
        for t in _result(rules, result, seats, players):
            out.line(t)
    return out


def _result(rules: Rules, result: Mapping[str, Any], seats: Sequence[int], players: Sequence[str]) -> list[Text]:
    revealed = list(result.get("revealed") or ())
    losers = [int(p) for p in result.get("losers") or ()]
    penalty = result.get("penalty")
    totals = list(result.get("totals") or ())
    out = [Text.assemble("reveal (22-7.2): ", Text(" · ").join(
        Text.assemble(name_text(players, seats[k]), " ", card_text(c)) for k, c in enumerate(revealed)))]
    each = " each" if len(losers) > 1 else ""
    out.append(Text.assemble(names_text(players, losers), (" loses" if len(losers) == 1 else " lose"),
                             (f": +{penalty}{each} (22-7.4)", "bold"), "   totals ",
                             Text(" · ").join(Text.assemble(name_text(players, p), f" {totals[p]}")
                                              for p in seats if p < len(totals))))
    for p in result.get("eliminated") or ():
        out.append(Text.assemble(name_text(players, int(p), True),
                                 (f" is out: total {totals[int(p)]} reaches {rules.penalty_limit} (22-8.1)",
                                  "bold red")))
    return out


def scores_text(players: Sequence[str], totals: Sequence[int], out: set[int]) -> Text:
    """Penalty totals by player; ``out`` marks the eliminated."""
    return Text("  ").join(Text.assemble(name_text(players, p), f" {totals[p]}", (" out", "red") if p in out else "")
                           for p in range(len(totals)))


def deal_view(rules: Rules, line: Mapping[str, Any], players: Sequence[str]) -> RenderableType:
    """One deal from its record line as a panel, with the penalty totals after it as the subtitle."""
    result = line.get("result")
    subtitle = None
    if result is not None:
        seated = {int(p) for p in line["seats"]}
        gone = {p for p in range(len(players)) if p not in seated} | {int(p) for p in result.get("eliminated") or ()}
        subtitle = scores_text(players, result["totals"], gone)
    return deal_panel(line, players, deal_story(rules, line, players), subtitle)


def table_view(match: Any, players: Sequence[str]) -> tuple[Text, list[Text]] | None:
    """A Twenty-Two match in play (spectator view): the decision point, stock, the trick so far and
    its bar, and every player's hand (``out`` for the eliminated); None for another game's match."""
    if not isinstance(match, Match):
        return None
    s: State = match.state
    seats = match.seats
    plays = Text("  ").join(Text.assemble(name_text(players, seats[k]), " ", play_text(cards)) for k, cards in s.trick)
    header = Text.assemble(POINTS.get(s.point, s.point), f"   stock {len(s.stock)}   trick: ",
                           plays if s.trick else Text("—", "dim"),
                           f"   bar {bar_text(s.bar)}" if s.bar else "")
    hands = []
    for p in range(len(players)):
        if p not in seats:
            hands.append(Text("out", "dim red"))
            continue
        k = seats.index(p)
        aside = len(s.discarded[k])
        hands.append(Text.assemble(_hand(s.hands[k]), (f"   {aside} put aside", "dim") if aside else ""))
    return header, hands
