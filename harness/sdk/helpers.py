"""What search bots need from an observation: unseen cards, points in play, determinization.

They serve every game of the Sixty-Six family: classic Sixty-Six (24 cards, talon 12) and
Schnapsen (20 cards, talon 10, SCH-1, SCH-2), told apart by ``Observation.pack``. All of it is
computed from the :class:`~harness.games.sixtysix.observe.Observation` alone, so a bot never sees
more than its seat may know. Determinization needs the public trick history (the default
``public_trick_history=true``); without it, it raises ValueError once play began.

>>> from harness.games.sixtysix import deal
>>> from harness.games.sixtysix.cards import SCHNAPSEN
>>> from harness.games.sixtysix.observe import observe
>>> obs = observe(deal(range(24)), 0)
>>> len(unseen(obs)), points_in_play(obs)
(17, 130)
>>> s = determinize(obs, random.Random(1))
>>> observe(s, 0) == obs
True
>>> obs = observe(deal(SCHNAPSEN.cards), 1)
>>> len(unseen(obs)), opponent_hand_size(obs), observe(determinize(obs, random.Random(1)), 1) == obs
(14, 5, True)
"""

from __future__ import annotations

import random

from harness.games.sixtysix.cards import (
    CARD_INDEX, CARD_STR, CLASSIC, JACK, NINE, POINTS, SCHNAPSEN, SUIT_MASK, SUIT_OF, SUITS, Pack, beats, mask_of,
)
from harness.games.sixtysix.engine import Point, State
from harness.games.sixtysix.observe import Observation, observe
from harness.games.sixtysix.options import Rules

_EXCHANGED, _CLOSED = 1, 2  # the engine's per-turn flags
PACKS: dict[str, Pack] = {CLASSIC.name: CLASSIC, SCHNAPSEN.name: SCHNAPSEN}
_TRUMP_AT = {CLASSIC.name: 12, SCHNAPSEN.name: 6}  # where the deck holds the trump card (66-4.2, SCH-2)


def pack_of(obs: Observation) -> Pack:
    """The pack the observed deal was dealt from."""
    pack = PACKS.get(obs.pack)
    if pack is None:
        raise ValueError(f"unknown pack {obs.pack!r} (packs: {', '.join(PACKS)})")
    return pack


def talon_cards(obs: Observation) -> int:
    """Cards in the talon at the deal, the trump card included: 12, or 10 in Schnapsen.

    It is also the number of tricks in a deal: half the pack goes to the hands, half to the talon.
    """
    return len(pack_of(obs).cards) // 2


def exchange_card(rules: Rules, trump: int) -> int:
    """The trump card that may be exchanged for the trump card (66-8.1: the nine; SCH-5: the jack)."""
    return 6 * trump + (NINE if rules.exchange_rank == "9" else JACK)


def played(obs: Observation) -> tuple[str, ...]:
    """Every card played so far (current trick included), in order."""
    return tuple(a for _, a in obs.history if a in CARD_INDEX)


def unseen(obs: Observation) -> tuple[str, ...]:
    """Cards whose place the seat does not know: the opponent's unshown cards and the face-down talon."""
    _need_history(obs)
    seen = set(obs.hand) | set(played(obs)) | set(obs.opponent_known)
    if obs.trump_card is not None:
        seen.add(obs.trump_card)
    return tuple(sorted(c for c in (CARD_STR[i] for i in pack_of(obs).cards) if c not in seen))


def opponent_hand_size(obs: Observation) -> int:
    _need_history(obs)
    return len(pack_of(obs).cards) - len(obs.hand) - obs.talon_size - len(played(obs))


def points_in_play(obs: Observation) -> int:
    """Card points nobody has won yet, plus the last-trick bonus while it can still be won (66-12.2;
    none under ``last_trick=wins_deal``, SCH-9)."""
    won = sum(p - (m if t else 0) for p, m, t in zip(obs.points, obs.marriages, obs.tricks))
    if sum(obs.tricks) == talon_cards(obs) or obs.point == "over":
        return 0
    bonus = 10 if obs.rules.last_trick == "bonus10" and obs.closed_by is None else 0
    return sum(POINTS[c] for c in pack_of(obs).cards) - won + bonus


def determinize(obs: Observation, rng: random.Random) -> State:
    """A full engine State consistent with ``obs``: the hidden cards are dealt at random."""
    return Determinizer(obs).sample(rng)


def _need_history(obs: Observation) -> None:
    began = obs.tricks != (0, 0) or obs.talon_size < talon_cards(obs) or bool(obs.trick) or any(obs.marriages)
    if began and not obs.history:
        raise ValueError("this needs the public trick history (rule public_trick_history=true)")


class Determinizer:
    """Everything fixed about the deals consistent with one observation; :meth:`sample` deals the rest.

    Besides where the cards have been seen, it honours what the opponent's play proves once the
    talon is closed or exhausted: a card not following suit, or not trumping, or not heading the
    led card shows that the opponent holds no such card (66-6.3).
    """

    def __init__(self, obs: Observation) -> None:
        if obs.to_act is None:
            raise ValueError("the deal is over")
        _need_history(obs)
        self.obs = obs
        self.to_act: int = obs.to_act
        self.pack = pack_of(obs)
        self.talon_n = len(self.pack.cards) // 2
        me, opp = obs.seat, 1 - obs.seat
        self._walk(obs)
        hand = [CARD_INDEX[c] for c in obs.hand]
        shown = {CARD_INDEX[c] for c in obs.opponent_known} | self.holds
        gone = {CARD_INDEX[c] for c in played(obs)}
        bottom = obs.trump_card if obs.talon_size else obs.last_drawn  # the face-up card, or the last one drawn
        self.bottom = CARD_INDEX[bottom or obs.hand[0]]
        fixed = set(hand) | shown | gone | ({self.bottom} if obs.talon_size else set())
        self.unknown = [c for c in self.pack.cards if c not in fixed]
        self.face_down = obs.talon_size - 1 if obs.talon_size else 0
        self.opp_extra = len(self.unknown) - self.face_down
        if self.opp_extra < 0 or len(shown) + self.opp_extra != opponent_hand_size(obs):
            raise ValueError("the observation's card counts do not add up")
        allowed = [c for c in self.unknown if not self.void >> c & 1]
        self.allowed = allowed if len(allowed) >= self.opp_extra else self.unknown
        self.hand_mask = mask_of(hand)
        self.shown_mask = mask_of(shown)
        self.me, self.opp = me, opp
        self.trump_card = self._original_trump(hand, gone)

    # -- the public facts of the history ---------------------------------------------------

    def _walk(self, obs: Observation) -> None:
        """Replay the public history: card points, close info, turn flags, and the opponent's voids."""
        r = obs.rules
        trump = SUITS.index(obs.trump_suit)
        opp = 1 - obs.seat
        talon_n = self.talon_n
        cp, tricks, marr = [0, 0], [0, 0], [0, 0]
        lead, leader, drawn, closed_by, turn, married = -1, 0, 0, -1, 0, -1
        bonus_to, close_info, void = -1, (False, 0, 0), 0
        nine = exchange_card(r, trump)
        holds = set()  # cards the opponent is known to hold beyond what observe() shows
        hist = obs.history
        self.exchange_at, self.exchanger = -1, -1
        prev: tuple[int, str] = (-1, "")
        for i, (seat, a) in enumerate(obs.history):
            c = CARD_INDEX.get(a)
            if c is not None:
                if lead < 0:
                    lead, leader = c, seat
                    prev = (seat, a)
                    continue
                phase2 = closed_by >= 0 or drawn >= talon_n
                if phase2 and seat == opp:
                    void |= _proven_void(lead, c, trump, r.phase2_must_head, r.phase2_must_trump)
                w = seat if beats(lead, c, trump) else leader
                cp[w] += POINTS[lead] + POINTS[c]
                tricks[w] += 1
                lead, leader, turn, married = -1, w, 0, -1
                if tricks[0] + tricks[1] == talon_n and closed_by < 0 and r.last_trick == "bonus10":
                    bonus_to = w
            elif a == "draw":
                drawn += 2
            elif a == "close":
                o = 1 - seat
                pts = cp[o] + (marr[o] if tricks[o] else 0) + (10 if bonus_to == o else 0)
                close_info = (tricks[o] > 0, tricks[o], pts)
                closed_by, turn = seat, turn | _CLOSED
                if seat != opp:  # was the opponent offered the exchange at point R (66-8.3)?
                    offered = i + 1 < len(hist) and hist[i + 1][0] == opp or i + 1 == len(hist) and obs.point == "R"
                    if offered and (i + 1 == len(hist) or hist[i + 1][1] == "pass"):
                        holds.add(nine)  # only a holder of the nine is asked, and it kept it
                    elif not offered and _offer_possible(r, tricks[opp], talon_n - drawn):
                        void |= 1 << nine
            elif a == "exchange":
                self.exchange_at, self.exchanger = i, seat
                if not (prev[1] == "close" and prev[0] != seat):  # not the answer at point R
                    turn |= _EXCHANGED
            elif a.startswith("marry:"):
                married = SUITS.index(a[-1])
                marr[seat] += 40 if married == trump else 20
            prev = (seat, a)
        self.holds = {c for c in holds if c not in {CARD_INDEX.get(a) for _, a in hist}}
        self.card_points = (cp[0], cp[1])
        self.close_info, self.turn, self.married, self.bonus_to = close_info, turn, married, bonus_to
        self.trump, self.void = trump, void

    def _original_trump(self, hand: list[int], gone: set[int]) -> int:
        """The card turned up at the deal; after an exchange, a trump the exchanger has held since."""
        obs = self.obs
        if self.exchanger < 0:
            return self.bottom
        nine = exchange_card(obs.rules, self.trump)
        later = {CARD_INDEX[a] for s, a in obs.history[self.exchange_at:] if s == self.exchanger and a in CARD_INDEX}
        held = set(hand) if self.exchanger == obs.seat else {CARD_INDEX[c] for c in obs.opponent_known}
        cands = sorted(c for c in (held | later) if SUIT_OF[c] == self.trump and c != nine)
        if self.exchanger == obs.seat or len(cands) == 1:
            return cands[0]
        want = obs.opponent_known  # which candidate makes the public log agree with what was shown
        probe = self._state(self.shown_mask | mask_of(self.unknown[: self.opp_extra]),
                            self.unknown[self.opp_extra:], cands[0])
        for c in cands:
            if observe(probe._replace(deck=_swap(probe.deck, cands[0], c)), obs.seat).opponent_known == want:
                return c
        return cands[0]

    # -- sampling ----------------------------------------------------------------------------

    def sample(self, rng: random.Random) -> State:
        """One deal consistent with the observation, uniform over the hidden cards' assignments."""
        extra = rng.sample(self.allowed, self.opp_extra)
        taken = set(extra)
        talon = [c for c in self.unknown if c not in taken]
        rng.shuffle(talon)
        return self._state(self.shown_mask | mask_of(extra), talon, self.trump_card)

    def _state(self, opp_mask: int, talon: list[int], trump_card: int) -> State:
        """A State of the observed deal: the cards other than the talon (``talon``, face down in draw
        order, and ``trump_card``) are laid out in the deck as the hands, then the cards drawn so far."""
        obs = self.obs
        drawn = self.talon_n - obs.talon_size
        in_talon = set(talon) | {trump_card}
        rest = [c for c in self.pack.cards if c not in in_talon]
        at = _TRUMP_AT[self.pack.name]
        deck = tuple(rest[:at] + [trump_card] + rest[at:] + talon)
        hands = (self.hand_mask, opp_mask) if self.me == 0 else (opp_mask, self.hand_mask)
        return State(
            rules=obs.rules, deck=deck, stock=deck[len(deck) - self.talon_n + 1:], talon_n=self.talon_n,
            score=obs.game_score, hands=hands, drawn=drawn, bottom=self.bottom, trump=self.trump,
            closed_by=-1 if obs.closed_by is None else obs.closed_by, close_info=self.close_info,
            tricks=obs.tricks, card_points=self.card_points, marriages=obs.marriages, bonus_to=self.bonus_to,
            point=Point(obs.point), to_act=self.to_act, leader=obs.leader,
            lead=CARD_INDEX[obs.trick[0]] if obs.trick else -1, married=self.married, turn=self.turn,
            history=obs.history, outcome=None,
        )


def _offer_possible(r: Rules, opp_tricks: int, talon_left: int) -> bool:
    """Whether closing offers the opponent the exchange, provided it holds the exchange card (66-8.3)."""
    if r.exchange_on_opponent_close == "none" or talon_left < r.exchange_min_talon:
        return False
    return r.exchange_on_opponent_close == "any" or opp_tricks > 0


def _swap(deck: tuple[int, ...], a: int, b: int) -> tuple[int, ...]:
    return tuple(b if c == a else a if c == b else c for c in deck)


def _proven_void(led: int, card: int, trump: int, must_head: bool, must_trump: bool) -> int:
    """Cards the follower cannot hold after playing ``card`` to ``led`` under the phase-2 rules."""
    suit = SUIT_OF[led]
    if SUIT_OF[card] == suit:
        if must_head and card < led:
            return SUIT_MASK[suit] & ~((2 << led) - 1)  # nothing higher than the led card
        return 0
    void = SUIT_MASK[suit]
    if must_trump and SUIT_OF[card] != trump:
        void |= SUIT_MASK[trump]
    return void

