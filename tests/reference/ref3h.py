"""Independent reference model of one deal of three-handed Sixty-Six, variant 3A.

Written only from /work/shared/RULES-SPEC.md: section 1 for what the family shares (card ranks and
points 66-1.2/66-1.3, the trick rule 66-6.5, marriages 66-9, the grade function of 66-13),
section 3.2 (3H-1..3H-6), section 7.2 (deck mapping, points T/L/F/E, actions, the JSON of
``rules run``) and Appendix A (``3h_must_head``, ``3h_grade``). It shares no code or representation
with ``harness.games.three_handed``: cards are strings ("TH"), hands are lists, the state is a
mutable object changed in place by :meth:`RefDeal.act`, and legal follows are computed by trying
every card against the written rule. Slow and obvious on purpose.

Judgement calls are marked JUDGEMENT and collected in ``JUDGEMENT_CALLS``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

SUITS = ["C", "D", "H", "S"]
RANKS = ["9", "J", "Q", "K", "T", "A"]  # 66-1.2, low to high
POINTS = {"9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}  # 66-1.3
CARDS = [r + s for s in SUITS for r in RANKS]
DEFAULTS = {"match_target": "7", "3h_must_head": "true", "3h_grade": "min"}  # Appendix A
GRADE_RULES: dict[str, Callable[[list[int]], int]] = {"min": min, "max": max, "sum": sum}  # Appendix A 3h_grade
NON_DEFAULT = {"3h_must_head": ["false"], "3h_grade": ["max", "sum"]}

# 7.2: d[0..2]->0, d[3..5]->1, d[6..8]->2, d[9..10]->0, d[11..12]->1, d[13..14]->2,
#      d[15..17]->0, d[18..20]->1, d[21..23]->2
DEAL_ORDER = [(0, 3), (1, 3), (2, 3), (0, 2), (1, 2), (2, 2), (0, 3), (1, 3), (2, 3)]


def higher(a: str, b: str) -> bool:
    """Same suit: a ranks above b."""
    return RANKS.index(a[0]) > RANKS.index(b[0])


def wins_over(card: str, current: str, trump: str) -> bool:
    """Does ``card`` take the trick from the currently winning ``current``? (66-6.5 generalised to
    three cards: the trick goes to the highest trump, else the highest card of the led suit; the
    winning card so far is always of the led suit or a trump.)"""
    if card[1] == current[1]:
        return higher(card, current)
    return card[1] == trump


class RefDeal:
    def __init__(self, deck: list[str], options: dict[str, str] | None = None) -> None:
        opts = dict(DEFAULTS)
        opts.update(options or {})
        self.must_head = opts["3h_must_head"] == "true"
        self.grade_rule = opts["3h_grade"]
        assert sorted(deck) == sorted(CARDS)
        self.deck = list(deck)
        self.hands: list[list[str]] = [[], [], []]
        i = 0
        for seat, n in DEAL_ORDER:
            self.hands[seat].extend(deck[i:i + n])
            i += n
        self.trump: str | None = None
        self.point = "T"  # 7.2: the deal's first decision, seat 0
        self.to_act = 0
        self.trick: list[tuple[int, str]] = []
        self.won_cards: list[list[str]] = [[], [], []]
        self.tricks = [0, 0, 0]
        self.marriage_pts = [0, 0, 0]
        self.bonus = [0, 0, 0]
        self.married_suit: str | None = None
        self.trick_count = 0
        self.over = False
        self.winner: int | None = None
        self.game_points = 0

    # -- counting -----------------------------------------------------------------------
    def counted(self, seat: int) -> int:
        """66-1.2 counted points: card points in won tricks + marriages if a trick was won + bonus."""
        total = sum(POINTS[c[0]] for c in self.won_cards[seat]) + self.bonus[seat]
        if self.tricks[seat] >= 1:  # 66-9.5 / 3H-5 (7.2: count once the declarer has won a trick)
            total += self.marriage_pts[seat]
        return total

    def grade(self, seat: int) -> int:
        """66-13 grade: 3 no trick, 2 below 33, else 1 (exactly 33 is 1)."""
        if self.tricks[seat] == 0:
            return 3
        if self.counted(seat) < 33:
            return 2
        return 1

    # -- legality --------------------------------------------------------------------------
    def current_winner(self) -> tuple[int, str]:
        seat, best = self.trick[0]
        for s, c in self.trick[1:]:
            if wins_over(c, best, self.trump or ""):
                seat, best = s, c
        return seat, best

    def follow_ok(self, card: str) -> bool:
        hand = self.hands[self.to_act]
        led = self.trick[0][1][1]
        trump = self.trump
        assert trump is not None  # point F: the trump was called at point T
        same = [c for c in hand if c[1] == led]
        trumps = [c for c in hand if c[1] == trump]
        if not self.must_head:  # 7.2 false: follow suit, else trump, else any card
            if same:
                return card in same
            if trumps:
                return card in trumps
            return card in hand
        _, best = self.current_winner()
        if same:
            if led != trump and best[1] == trump:
                return card in same  # 7.2: trick trumped -> any card of the led suit follows
            beaters = [c for c in same if wins_over(c, best, trump)]
            return card in (beaters or same)
        if trumps:
            if best[1] == trump:  # over-trump a winning trump when he can
                over = [c for c in trumps if higher(c, best)]
                return card in (over or trumps)
            return card in trumps
        return card in hand

    def legal(self) -> list[str]:
        if self.over:
            return []
        if self.point == "T":
            return sorted(["trump:" + s for s in SUITS] + ["trump:next"])
        me = self.to_act
        acts: list[str] = []
        if self.point == "E":
            acts.append("finish")
            if self.counted(me) >= 66:
                acts.append("claim")
            return sorted(acts)
        if self.point == "F":
            return sorted(c for c in self.hands[me] if self.follow_ok(c))
        # point L
        if self.counted(me) >= 66:
            acts.append("claim")  # only with 66 (7.2), also right after a marriage
        if self.married_suit is None:
            acts.extend(self.hands[me])
            for s in SUITS:
                if "K" + s in self.hands[me] and "Q" + s in self.hands[me]:
                    acts.append("marry:" + s)
        else:
            acts.extend(c for c in self.hands[me] if c in ("K" + self.married_suit, "Q" + self.married_suit))
        return sorted(acts)

    # -- acting ----------------------------------------------------------------------------
    def act(self, action: str) -> None:
        if action not in self.legal():
            raise ValueError(f"illegal {action}")
        me = self.to_act
        if self.point == "T":
            if action == "trump:next":
                self.trump = self.deck[9][1]  # the suit of d[9]; d[9] is public
            else:
                self.trump = action[-1]
            self.point = "L"
            return
        if action == "claim":
            opp = [(me + 1) % 3, (me + 2) % 3]
            grades = [self.grade(o) for o in opp]
            self.game_points = GRADE_RULES[self.grade_rule](grades)
            self.winner = me
            self.over = True
            return
        if action == "finish":
            self.over = True  # no claim: nobody scores
            return
        if action.startswith("marry:"):
            s = action[-1]
            self.marriage_pts[me] += 40 if s == self.trump else 20
            self.married_suit = s
            return
        # a card
        self.hands[me].remove(action)
        self.trick.append((me, action))
        self.married_suit = None
        if len(self.trick) < 3:
            self.point = "F"
            self.to_act = (me + 1) % 3
            return
        w, _ = self.current_winner()
        self.won_cards[w].extend(c for _, c in self.trick)
        self.tricks[w] += 1
        self.trick = []
        self.trick_count += 1
        self.to_act = w
        if self.trick_count == 8:
            self.bonus[w] += 10  # 10 for the last trick
            self.point = "E"
        else:
            self.point = "L"

    def summary(self) -> dict[str, object]:
        return {
            "to_act": None if self.over else self.to_act,
            "legal": self.legal(),
            "trump": self.trump,
            "points": [self.counted(s) for s in range(3)],
            "tricks": list(self.tricks),
            "talon": 0,
            "over": self.over,
            "winner": self.winner if self.over else None,
            "game_points": self.game_points,
        }

    def copy(self) -> RefDeal:
        return copy.deepcopy(self)


def perft(d: RefDeal, depth: int) -> int:
    if depth == 0 or d.over:
        return 1
    total = 0
    for a in d.legal():
        c = d.copy()
        c.act(a)
        total += perft(c, depth - 1)
    return total


JUDGEMENT_CALLS = [
    "Point T: the deal's first decision is seat 0's; cards are all dealt up front (the 2-card round "
    "after the call does not change which cards anyone gets).",
    "trump:next makes the suit of d[9] trump, whatever d[9] is; d[9] stays in seat 0's hand.",
    "At E, claim is offered only with >= 66 (7.2); finish always.",
    "game_points is 0 until a claim ends the deal; winner null until over (and null for finish).",
]
