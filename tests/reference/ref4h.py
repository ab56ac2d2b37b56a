"""Independent reference model of four-handed partnership Sixty-Six.

Written only from /work/shared/RULES-SPEC.md sections 1 (card points, trick rule 66-6.5),
3.3 (4H-1..4H-9), 7.3 and Appendix A. It shares no code or representation with
``harness.games.four_handed``: cards are strings such as "TH", hands are Python lists, the
state is a mutable object changed in place by ``act``, and "must win the trick if possible"
is decided by trying each card and asking who would win the trick then. Slow and obvious on
purpose, for differential tests.

JUDGEMENT calls are collected in ``JUDGEMENT_CALLS`` at the bottom.
"""

from __future__ import annotations

import copy as _copy

SUITS = ["C", "D", "H", "S"]
RANKS = {32: ["7", "8", "9", "J", "Q", "K", "T", "A"], 24: ["9", "J", "Q", "K", "T", "A"]}  # 4H-2, weakest first
CARD_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}  # 66-1.3, 4H-2

# 7.3: (first index, last index inclusive, seat) of the deck, top first.
DEAL_MAP = {
    32: [(0, 2, 0), (3, 5, 1), (6, 8, 2), (9, 11, 3), (12, 13, 0), (14, 15, 1), (16, 17, 2), (18, 19, 3),
         (20, 22, 0), (23, 25, 1), (26, 28, 2), (29, 31, 3)],
    24: [(0, 2, 0), (3, 5, 1), (6, 8, 2), (9, 11, 3), (12, 14, 0), (15, 17, 1), (18, 20, 2), (21, 23, 3)],
}

DEFAULTS = {"match_target": "7", "pack": "32", "tie_carry_over": "true", "tie_carry_points": "1",
            "team_marriages": "none", "trump_ten_bonus": "false"}  # 7.3, Appendix A
# Values the game refuses (7.3: team_marriages other than none; trump_ten_bonus=true "may be refused").
REFUSED = {"team_marriages": ["leader_only", "leader_or_partner"], "trump_ten_bonus": ["true"]}
NON_DEFAULT = {"match_target": ["1", "3", "11"], "pack": ["24"], "tie_carry_over": ["false"],
               "tie_carry_points": ["0", "2"]}


def pack_cards(pack: int) -> list[str]:
    return [r + s for s in SUITS for r in RANKS[pack]]


def strength(card: str) -> int:
    return RANKS[32].index(card[0])


def trick_winner_index(cards: list[str], trump: str) -> int:
    """66-6.5 for four cards: the highest trump if any trump was played, else the highest card of the led suit."""
    trumps = [i for i, c in enumerate(cards) if c[1] == trump]
    pool = trumps if trumps else [i for i, c in enumerate(cards) if c[1] == cards[0][1]]
    return max(pool, key=lambda i: strength(cards[i]))


def team_of(seat: int) -> int:
    return 0 if seat in (0, 2) else 1  # 4H-1, 7.3


class RefDeal:
    def __init__(self, deck: list[str], pack: int = 32) -> None:
        if sorted(deck) != sorted(pack_cards(pack)):
            raise ValueError("not the pack")
        self.pack = pack
        self.deck = list(deck)
        self.hands: list[list[str]] = [[], [], [], []]
        for first, last, seat in DEAL_MAP[pack]:
            self.hands[seat].extend(deck[first:last + 1])
        self.turned_up = deck[-1]  # 4H-3: the dealer's last card
        assert self.turned_up in self.hands[3]
        self.trump = self.turned_up[1]
        self.to_act = 0  # 4H-4: left of the dealer leads
        self.trick: list[tuple[int, str]] = []
        self.points = [0, 0]
        self.tricks = [0, 0]
        self.over = False
        self.winner: int | None = None
        self.game_points = 0
        self.played: list[tuple[int, str]] = []

    def copy(self) -> RefDeal:
        return _copy.deepcopy(self)

    def legal(self) -> list[str]:
        if self.over:
            return []
        hand = self.hands[self.to_act]
        if not self.trick:
            return sorted(hand)
        played = [c for _, c in self.trick]
        led = played[0][1]

        def wins(card: str) -> bool:
            return trick_winner_index(played + [card], self.trump) == len(played)

        same = [c for c in hand if c[1] == led]
        if same:  # 4H-4: follow suit, and win the trick if possible (even over the partner)
            return sorted([c for c in same if wins(c)] or same)
        trumps = [c for c in hand if c[1] == self.trump]
        if trumps:  # void: trump, over-trumping if possible
            return sorted([c for c in trumps if wins(c)] or trumps)
        return sorted(hand)

    def act(self, card: str) -> None:
        if card not in self.legal():
            raise ValueError(f"illegal {card}")
        seat = self.to_act
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        self.played.append((seat, card))
        if len(self.trick) < 4:
            self.to_act = (seat + 1) % 4  # clockwise
            return
        w = self.trick[trick_winner_index([c for _, c in self.trick], self.trump)][0]
        t = team_of(w)
        self.points[t] += sum(CARD_POINTS[c[0]] for _, c in self.trick)
        self.tricks[t] += 1
        self.trick = []
        self.to_act = w
        if all(not h for h in self.hands):
            self.points[t] += 10  # 4H-5: last trick
            self.over = True
            self._score()

    def _score(self) -> None:
        n = self.pack // 4
        for t in (0, 1):  # 4H-7 / 7.3: every trick first
            if self.tricks[t] == n:
                self.winner, self.game_points = t, 3
                return
        for t in (0, 1):
            if self.points[t] >= 100:
                self.winner, self.game_points = t, 2
                return
        for t in (0, 1):
            if self.points[t] >= 66:
                self.winner, self.game_points = t, 1
                return
        assert self.points == [65, 65]
        self.winner, self.game_points = None, 0

    def trump_card_public(self) -> str | None:
        return self.turned_up if self.turned_up in self.hands[3] else None

    def summary(self) -> dict:
        return {
            "to_act": None if self.over else self.to_act,
            "legal": self.legal(),
            "trump": self.trump,
            "points": list(self.points),
            "tricks": list(self.tricks),
            "talon": 0,
            "over": self.over,
            "winner": self.winner,
            "game_points": self.game_points,
        }


def perft(d: RefDeal, depth: int) -> int:
    if depth == 0 or d.over:
        return 1
    total = 0
    for a in d.legal():
        e = d.copy()
        e.act(a)
        total += perft(e, depth - 1)
    return total


class RefMatch:
    """The match around the deals (7.3, 4H-7): players 0..3, teams by player p % 2, seat k held by
    player (dealer + 1 + k) % 4, the deal passing to the player at seat 0, ties carried."""

    def __init__(self, first_dealer: int, options: dict[str, str]) -> None:
        o = {**DEFAULTS, **options}
        self.target = int(o["match_target"])
        self.pack = int(o["pack"])
        self.carry_on = o["tie_carry_over"] == "true"
        self.carry_points = int(o["tie_carry_points"])
        self.dealer = first_dealer
        self.scores = [0, 0, 0, 0]  # by player
        self.carry = 0
        self.winner_team: int | None = None
        self.deal: RefDeal | None = None

    def seat_player(self, seat: int) -> int:
        return (self.dealer + 1 + seat) % 4

    def begin(self, deck: list[str]) -> None:
        self.deal = RefDeal(deck, self.pack)

    def act(self, card: str) -> dict | None:
        """Play; returns the deal's result in match terms when the deal ends."""
        d = self.deal
        assert d is not None and self.winner_team is None
        d.act(card)
        if not d.over:
            return None
        res = {"points_by_player": [0, 0, 0, 0]}
        if d.winner is None:
            if self.carry_on:
                self.carry += self.carry_points
        else:
            players = [self.seat_player(s) for s in range(4) if team_of(s) == d.winner]
            gp = d.game_points + self.carry
            self.carry = 0
            for p in players:
                self.scores[p] += gp
                res["points_by_player"][p] = gp
            if self.scores[players[0]] >= self.target:
                self.winner_team = players[0] % 2
        if self.winner_team is None:
            self.dealer = self.seat_player(0)
        return res

    def ranks(self) -> list[int] | None:
        if self.winner_team is None:
            return None
        return [0 if p % 2 == self.winner_team else 1 for p in range(4)]


JUDGEMENT_CALLS = [
    "A team that wins every trick necessarily has 130 points; 'every trick' is tested before 100 (7.3).",
    "After a trick has been trumped, any card of a non-trump led suit follows (none can win it).",
    "Match teams are fixed by player (p % 2); deal teams by seat (k % 2); seat k = player dealer+1+k.",
]
