"""Independent reference model of one deal of Twenty-Two.

Written only from /work/shared/RULES-SPEC.md section 4 (rule IDs 22-x.y), section 7.4 (the rules
tools: deal order, points X/L/F, the JSON) and Appendix A (set_bar, set_trick_winner). It shares no
code or representation with ``harness.games.twenty_two``: hands are lists, the state is a mutable
object changed in place, and every legal set is found by brute force over index subsets. Slow and
obvious on purpose.

JUDGEMENT calls (where the spec leaves room) are marked in comments:
* once the deal is over every hand is empty (the last cards were revealed), so ``hand_sizes`` are 0;
* ``to_act`` is null once over, ``legal`` is empty.
"""

from __future__ import annotations

import copy
from itertools import combinations

ORDER = "23456789TJQKA"  # 22-1.2, low to high
PENALTY = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10,
           "A": 11}  # 22-1.3
OPTIONS = {
    "set_bar": ["positionwise_max_all", "last_meeting_set"],
    "set_trick_winner": ["highest_card", "last_meeting_set"],
}


def strength(card: str) -> int:
    return ORDER.index(card[0])


def desc(cards: list[str]) -> list[int]:
    return sorted((strength(c) for c in cards), reverse=True)


def covers(play: list[str], bar: list[int]) -> bool:
    """22-6.3."""
    d = desc(play)
    return all(d[i] >= bar[i] for i in range(len(bar)))


class RefDeal:
    def __init__(self, deck: list[str], players: int, hand: int = 7, options: dict | None = None) -> None:
        opts = {k: v[0] for k, v in OPTIONS.items()}
        opts.update(options or {})
        self.opts = opts
        self.players = players
        per = min(hand, len(deck) // players)  # 7.4 / 22-3.5
        assert per >= 1
        self.hands: list[list[str]] = [[] for _ in range(players)]
        for i in range(per * players):  # one at a time, d[i] -> seat i mod N
            self.hands[i % players].append(deck[i])
        self.stock = list(deck[per * players:])
        self.discards = [0] * players
        self.stage = "X"
        self.turn: int | None = 0
        self.plays: list[tuple[int, list[str]]] = []  # the current trick
        self.leader = 0
        self.losers: list[int] = []
        self.penalty = 0
        if not self.stock:
            self.after_exchange()

    # 22-4 --------------------------------------------------------------------------------------
    def after_exchange(self) -> None:
        if len(self.hands[0]) == 1:
            self.reveal()
        else:
            self.stage, self.turn, self.leader = "L", 0, 0

    def reveal(self) -> None:
        """22-7.2 / 22-7.3."""
        last = [h[0] for h in self.hands]
        top = max(strength(c) for c in last)
        self.losers = [i for i, c in enumerate(last) if strength(c) == top]
        self.penalty = PENALTY[ORDER[top]]
        self.hands = [[] for _ in self.hands]  # JUDGEMENT: revealed cards leave the hands
        self.stage, self.turn = "over", None

    # legal actions -------------------------------------------------------------------------------
    def bar(self) -> list[int]:
        """22-6.2 (recomputed from every play of the trick) or the 22-6.5 option."""
        if self.opts["set_bar"] == "positionwise_max_all":
            k = len(self.plays[0][1])
            return [max(desc(cards)[i] for _, cards in self.plays) for i in range(k)]
        bar = desc(self.plays[0][1])
        for _, cards in self.plays[1:]:
            if covers(cards, bar):
                bar = desc(cards)
        return bar

    def legal(self) -> list[str]:
        if self.stage == "over":
            return []
        me = self.turn
        assert me is not None
        hand = self.hands[me]
        found: set[str] = set()
        if self.stage == "X":
            if self.discards[me] + 1 <= len(self.stock):
                found.update("discard:" + c for c in hand)
            found.add("done")
        elif self.stage == "L":
            for k in range(1, len(hand)):  # a lead of k needs a hand of k + 1 (22-5.3)
                for idx in combinations(range(len(hand)), k):
                    cards = [hand[i] for i in idx]
                    if len({c[0] for c in cards}) == 1:  # 22-5.2
                        found.add("+".join(sorted(cards)))
        else:
            k = len(self.plays[0][1])
            bar = self.bar()
            lowest = sorted(strength(c) for c in hand)[:k]
            for idx in combinations(range(len(hand)), k):
                cards = [hand[i] for i in idx]
                if covers(cards, bar) or sorted(strength(c) for c in cards) == lowest:  # 22-6.4
                    found.add("+".join(sorted(cards)))
        return sorted(found)

    # acting ----------------------------------------------------------------------------------------
    def act(self, action: str) -> None:
        if action not in self.legal():
            raise ValueError(f"illegal {action!r}")
        me = self.turn
        assert me is not None
        if self.stage == "X":
            if action.startswith("discard:"):
                self.hands[me].remove(action[8:])
                self.discards[me] += 1
                return
            for _ in range(self.discards[me]):
                self.hands[me].append(self.stock.pop(0))
            if me + 1 < self.players and self.stock:
                self.turn = me + 1
            else:
                self.after_exchange()
            return
        cards = action.split("+")
        for c in cards:
            self.hands[me].remove(c)
        if self.stage == "L":
            self.plays = [(me, cards)]
        else:
            self.plays.append((me, cards))
        nxt = (me + 1) % self.players
        if nxt != self.leader:
            self.stage, self.turn = "F", nxt
            return
        winner = self.trick_winner()
        self.plays = []
        if len(self.hands[0]) == 1:
            self.reveal()
        else:
            self.stage, self.turn, self.leader = "L", winner, winner

    def trick_winner(self) -> int:
        """22-7.1 and its option."""
        if self.opts["set_trick_winner"] == "highest_card":
            best = max(max(strength(c) for c in cards) for _, cards in self.plays)
            return [seat for seat, cards in self.plays if max(strength(c) for c in cards) == best][-1]
        winner = self.plays[0][0]
        saved = self.plays
        for j in range(1, len(saved)):
            self.plays = saved[:j]
            if covers(saved[j][1], self.bar()):
                winner = saved[j][0]
        self.plays = saved
        return winner

    def summary(self) -> dict:
        return {
            "to_act": self.turn,
            "legal": self.legal(),
            "hand_sizes": [len(h) for h in self.hands],
            "stock": len(self.stock),
            "over": self.stage == "over",
            "losers": sorted(self.losers),
            "penalty": self.penalty,
        }


def perft(d: RefDeal, depth: int) -> int:
    if depth == 0 or d.stage == "over":
        return 1
    total = 0
    for a in d.legal():
        c = copy.deepcopy(d)
        c.act(a)
        total += perft(c, depth - 1)
    return total
