"""What a person sees when it is their turn: pure functions of the observation (as decoded from the
wire, exactly what a bot is sent) and of the notices (names, seats, scores). Data in, rich
renderables out; no printing, no input.

>>> from harness.games import registry
>>> g = registry.get("sixtysix")
>>> m = g.start(3, g.rules())
>>> p = g.to_act(m)
>>> obs = g.observe(m, p)
>>> choose(str(len(obs.legal)), obs.legal) == obs.legal[-1], choose("nonsense", obs.legal)
(True, None)
>>> choose("10h", ("9C", "TH")), choose("2d 2c", ("2C+2D", "2C+3C")), choose("MARRY:h", ("marry:H",))
('TH', '2C+2D', 'marry:H')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from harness.views.common import SYMBOL, card_text, cards_text, name_text, sort_cards

QUIT_WORDS = ("q", "quit", "exit")


@dataclass(frozen=True)
class Table:
    """The match around the person, from the MatchStart and DealStart notices: ``names``, ``teams``
    and ``scores`` (before this deal) by player index; ``seats``: the player in each deal seat."""

    game: str
    title: str
    names: tuple[str, ...]
    me: int
    teams: tuple[int, ...]
    deal_no: int = 0
    dealer: int = 0
    seats: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    target: str = ""  # how the match ends, e.g. "to 7" or "out at 22" ("" when not known)
    clock: str = ""  # the bots' time control, for the footer

    def who(self, seat: int, you: str = "you") -> Text:
        """The player in deal ``seat``, coloured; ``you`` for the person."""
        p = self.seats[seat] if 0 <= seat < len(self.seats) else seat
        return Text(you, "bold") if p == self.me else name_text(self.names, p)


def is_card(action: str) -> bool:
    return len(action) == 2 and action[1] in SYMBOL


def play_text(action: str) -> Text:
    """Cards played: ``9♣`` or ``2♣+2♦``."""
    return Text("+").join(card_text(c) for c in action.split("+"))


def action_text(action: str, obs: Any = None) -> Text:
    """A legal action in words: cards with their suit symbols, the rest spelled out."""
    kind, _, arg = action.partition(":")
    if is_card(action) or ("+" in action and all(is_card(c) for c in action.split("+"))):
        return play_text(action)
    if kind == "marry":
        return Text.assemble("marry ", card_text("K" + arg), " ", card_text("Q" + arg))
    if kind == "trump":
        return Text("turn up the next card for trump") if arg == "next" else Text.assemble(
            "name trump ", (SYMBOL.get(arg, arg), "bold"))
    if kind == "discard":
        return Text.assemble("put aside ", card_text(arg))
    trump_card = getattr(obs, "trump_card", None)
    words = {"exchange": Text.assemble("exchange for the trump card ", card_text(trump_card)) if trump_card
             else Text("exchange"),
             "close": Text("close the talon"), "claim": Text("claim: 66 reached (a wrong claim loses)"),
             "draw": Text("draw"),
             "pass": Text("pass"), "finish": Text("finish the deal"), "done": Text("done: draw the cards")}
    return words.get(action, Text(action))


# Rank order, weakest first, for showing a hand: 66-1.2 (4H-2 adds the 7 and 8), 22-1.2.
RANK_ORDER = {"twenty_two": "23456789TJQKA"}
FAMILY_RANKS = "789JQKTA"


def hand_order(cards: Sequence[str], game: str) -> list[str]:
    """A hand as a reader wants it: by suit, then rank from weakest to strongest.

    >>> hand_order(["TH", "9C", "AH", "KH"], "sixtysix"), hand_order(["TH", "2C", "JH"], "twenty_two")
    (['9C', 'KH', 'TH', 'AH'], ['2C', 'TH', 'JH'])
    """
    return sort_cards(cards, RANK_ORDER.get(game, FAMILY_RANKS), by_suit=True)


def ordered(legal: Sequence[str], hand: Sequence[str], game: str) -> tuple[str, ...]:
    """The legal actions in the order they are numbered: plays of cards as the hand is shown (a set by
    its first card, then by size), then the other actions as the game lists them.

    >>> ordered(["AH", "9C", "claim", "marry:H"], ["AH", "9C", "KH", "QH"], "sixtysix")
    ('9C', 'AH', 'claim', 'marry:H')
    >>> ordered(["discard:9C", "discard:2H", "done"], ["9C", "2H"], "twenty_two")
    ('discard:9C', 'discard:2H', 'done')
    """
    where = {c: i for i, c in enumerate(hand_order(hand, game))}

    def cards(a: str) -> list[str]:
        return a.rpartition(":")[2].split("+")

    plays = [a for a in legal if ":" not in a and all(c in where for c in cards(a))]
    with_card = [a for a in legal if ":" in a and all(c in where for c in cards(a))]  # discard:7H
    rest = [a for a in legal if a not in plays and a not in with_card]

    def key(a: str) -> tuple[int, ...]:
        at = sorted(where[c] for c in cards(a))
        return (at[0], len(at), *at)

    return (*sorted(plays, key=key), *sorted(with_card, key=key), *rest)


def actions_view(legal: Sequence[str], obs: Any = None) -> RenderableType:
    """The legal actions, numbered from 1, in columns."""
    items = [Text.assemble((f"{i:>2}", "bold yellow"), " ", action_text(a, obs)) for i, a in enumerate(legal, 1)]
    return Columns(items, padding=(0, 3), equal=True)


def choose(typed: str, legal: Sequence[str]) -> str | None:
    """The legal action ``typed`` names: its number (from 1), or its notation in any case (``10H``
    for ``TH``; the cards of a set in any order, with ``+`` or spaces); None when it names none."""
    t = typed.strip()
    if not t:
        return None
    if t.isdigit():
        i = int(t)
        return legal[i - 1] if 1 <= i <= len(legal) else None

    def norm(word: str) -> str:
        word = word.upper()
        return "T" + word[2:] if word.startswith("10") else word

    by_text = {a.upper(): a for a in legal}
    if norm(t) in by_text:
        return by_text[norm(t)]
    parts = frozenset(norm(w) for w in t.replace("+", " ").split())
    for a in legal:
        if "+" in a and frozenset(a.upper().split("+")) == parts:
            return a
    return None


def tricks(n: int) -> str:
    return f"{n} trick" if n == 1 else f"{n} tricks"


def _scores(table: Table) -> Text:
    """The match score by player (by team in a partnership game), before this deal."""
    if not table.scores:
        return Text("")
    shown: dict[int, list[int]] = {}
    for p, t in enumerate(table.teams or range(len(table.names))):
        shown.setdefault(t, []).append(p)
    parts = []
    for members in shown.values():
        who = Text(" + ").join(Text("you", "bold") if p == table.me else name_text(table.names, p) for p in members)
        parts.append(Text.assemble(who, " ", (str(table.scores[members[0]]), "bold")))
    target = f"   ({table.target})" if table.target else ""
    return Text.assemble("score  ", Text(" · ").join(parts), (target, "dim"))


def _last_trick(cards: Sequence[tuple[int, str]], winner: int, table: Table) -> Text:
    plays = Text("  ").join(Text.assemble(table.who(s), " ", play_text(c)) for s, c in cards)
    return Text.assemble(("last trick  ", "dim"), plays, ("  → ", "dim"), table.who(winner))


def _trick(cards: Sequence[tuple[int, str]], table: Table) -> Text:
    if not cards:
        return Text.assemble(("trick  ", "dim"), ("—", "dim"))
    return Text.assemble(("trick  ", "dim"), Text("  ").join(Text.assemble(table.who(s), " ", play_text(c))
                                                             for s, c in cards))


def _completed(cards: Sequence[tuple[int, str]], size: int) -> list[tuple[tuple[int, str], ...]]:
    """The completed tricks among the cards played, in order."""
    n = len(cards) - len(cards) % size
    return [tuple(cards[i:i + size]) for i in range(0, n, size)]


def family_body(obs: Any, table: Table) -> list[RenderableType]:
    """Sixty-Six and Schnapsen (66-15): trump, talon, points, the trick, what is known of the other hand."""
    me, opp = obs.seat, 1 - obs.seat
    talon = {"open": f"talon {obs.talon_size}", "exhausted": "talon exhausted"}.get(obs.talon_state, "")
    if obs.talon_state == "closed":
        talon = f"talon closed by {'you' if obs.closed_by == me else table.who(opp).plain} ({obs.talon_size} left)"
    trump = Text.assemble(("trump ", "dim"), (SYMBOL[obs.trump_suit], "bold"),
                          *(("  turned up ", card_text(obs.trump_card)) if obs.trump_card else ()), "   ", talon)
    points = Text.assemble(
        ("points  ", "dim"), "you ", (str(obs.points[me]), "bold"), f" ({tricks(obs.tricks[me])})",
        *((f" marriages {obs.marriages[me]}",) if obs.marriages[me] else ()), " · ", table.who(opp), " ",
        (str(obs.points[opp]), "bold"), f" ({tricks(obs.tricks[opp])})",
        *((f" marriages {obs.marriages[opp]}",) if obs.marriages[opp] else ()))
    lines: list[RenderableType] = [trump, points]
    if obs.opponent_known:
        lines.append(Text.assemble(("known in ", "dim"), table.who(opp), ("'s hand  ", "dim"),
                                   cards_text(obs.opponent_known)))
    played = [(s, a) for s, a in obs.history if is_card(a)]
    done = _completed(played, 2)
    if done and obs.trick_winners:
        lines.append(_last_trick(done[-1], obs.trick_winners[len(done) - 1], table))
    lines.append(_trick([(obs.leader, c) for c in obs.trick], table))
    return lines


def three_handed_body(obs: Any, table: Table) -> list[RenderableType]:
    """Three-handed Sixty-Six (3H-1..): trump (once named), every seat's points and tricks, the trick."""
    trump = Text.assemble(("trump ", "dim"), (SYMBOL[obs.trump], "bold") if obs.trump else ("not named yet", "dim"),
                          *(("  turned up ", card_text(obs.trump_card)) if obs.trump_card else ()))
    points = Text.assemble(("points  ", "dim"), Text(" · ").join(
        Text.assemble(table.who(s), " ", (str(obs.points[s]), "bold"), f" ({tricks(obs.tricks[s])})")
        for s in range(3)))
    lines: list[RenderableType] = [trump, points]
    played = [(s, a) for s, a in obs.history if is_card(a)]
    done = _completed(played, 3)
    if done:
        lines.append(_last_trick(done[-1], obs.leader, table))
    lines.append(_trick(obs.trick, table))
    return lines


def four_handed_body(obs: Any, table: Table) -> list[RenderableType]:
    """Four-handed Sixty-Six (4H-1..): trump, points and tricks by side, the trick."""
    us, them = obs.team, 1 - obs.team
    trump = Text.assemble(("trump ", "dim"), (SYMBOL[obs.trump_suit], "bold"),
                          *(("  turned up ", card_text(obs.trump_card), " (the dealer holds it)")
                            if obs.trump_card else ()))
    partner = table.who(obs.partner)
    points = Text.assemble(("points  ", "dim"), "you + ", partner, " ", (str(obs.points[us]), "bold"),
                           f" ({tricks(obs.tricks[us])}) · ", table.who((obs.seat + 1) % 4), " + ",
                           table.who((obs.seat + 3) % 4), " ", (str(obs.points[them]), "bold"),
                           f" ({tricks(obs.tricks[them])})")
    lines: list[RenderableType] = [trump, points]
    done = _completed(list(obs.history), 4)
    if done:
        lines.append(_last_trick(done[-1], obs.leader, table))
    lines.append(_trick(obs.trick, table))
    return lines


def twenty_two_body(obs: Any, table: Table) -> list[RenderableType]:
    """Twenty-Two (22-1..22-8): the stock, each seat's cards and penalty, the bar, the trick."""
    seats = Text(" · ").join(
        Text.assemble(table.who(k), f" {obs.hand_sizes[k]} cards, {obs.totals[table.seats[k]]} penalty")
        for k in range(len(obs.hand_sizes)))
    lines: list[RenderableType] = [Text.assemble(("stock ", "dim"), str(obs.stock), "   ", seats)]
    if obs.eliminated:
        lines.append(Text.assemble(("out  ", "dim"), Text(", ").join(name_text(table.names, p)
                                                                      for p in obs.eliminated)))
    if obs.tricks:
        _, plays, winner = obs.tricks[-1]
        lines.append(_last_trick([(s, "+".join(cs)) for s, cs in plays], winner, table))
    if obs.bar:
        lines.append(Text.assemble(("bar  ", "dim"), "·".join("10" if r == "T" else r for r in obs.bar)))
    lines.append(_trick([(s, "+".join(cs)) for s, cs in obs.trick], table))
    return lines


BODIES = {"sixtysix": family_body, "schnapsen": family_body, "three_handed": three_handed_body,
          "four_handed": four_handed_body, "twenty_two": twenty_two_body}
POINTS = {"L": "your lead", "F": "your turn to follow", "D": "you won the trick: draw, close or claim",
          "R": "the talon was closed: exchange or pass", "E": "the last trick is yours: claim or finish",
          "T": "name trump (you have seen three cards)", "X": "the exchange: put cards aside, then done"}


def decision_view(obs: Any, table: Table, decision_no: int = 0) -> RenderableType:
    """The person's turn: the match score, the deal as their seat sees it, their hand and the legal
    actions numbered; ``obs`` is the game's observation for the person's seat, ``decision_no`` the
    request's number in the match."""
    title = Text.assemble((table.title, "bold"), f" · deal {table.deal_no} · decision {decision_no} · ",
                          table.who(table.seats.index(table.dealer) if table.dealer in table.seats else 0,
                                    "you"), " deal" + ("" if table.dealer == table.me else "s"))
    body = BODIES.get(table.game)
    lines: list[RenderableType] = [_scores(table)]
    lines += body(obs, table) if body is not None else []
    lines.append(Text.assemble(("your hand  ", "dim"), cards_text(hand_order(obs.hand, table.game))))
    point = str(getattr(obs.point, "value", obs.point))
    panel = Panel(Group(*lines), title=title, title_align="left",
                  subtitle=Text(table.clock, "dim") if table.clock else None, subtitle_align="right")
    prompt = Text.assemble((POINTS.get(point, "your move"), "bold"),
                           ("  — a number or the action's notation, q to quit", "dim"))
    return Group(panel, prompt, actions_view(ordered(obs.legal, obs.hand, table.game), obs))
