"""Independent reference model of one deal of classic two-player Sixty-Six and of Schnapsen.

Written only from /work/shared/RULES-SPEC.md section 1 (rule IDs 66-x.y), the
informative legal-action generator of section 1.17, the options of Appendix A, and for
Schnapsen section 3.1 (SCH-x), section 7.1 and the Schnapsen column of Appendix A.
It deliberately does NOT share code or representation with ``harness.games.sixtysix``:
cards are plain strings such as "TH", hands are Python lists, and the state is a
mutable object that is changed in place by ``act``.  It is meant to be slow and
obvious, so that differential tests can check the real engine against it.

Judgement calls (places where the spec leaves room) are marked "JUDGEMENT" in the
comments and collected in ``JUDGEMENT_CALLS`` at the bottom of this file.
"""

from __future__ import annotations

import copy as _copy

# ---------------------------------------------------------------------------
# Cards (66-1.1 .. 66-1.3)
# ---------------------------------------------------------------------------

SUITS = ["C", "D", "H", "S"]
RANKS_LOW_TO_HIGH = ["9", "J", "Q", "K", "T", "A"]  # 66-1.2: A > 10 > K > Q > J > 9
CARD_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}  # 66-1.3


def rank_of(card: str) -> str:
    return card[0]


def suit_of(card: str) -> str:
    return card[1]


def strength(card: str) -> int:
    return RANKS_LOW_TO_HIGH.index(rank_of(card))


def points_of(card: str) -> int:
    return CARD_POINTS[rank_of(card)]


ALL_CARDS = [r + s for s in SUITS for r in RANKS_LOW_TO_HIGH]
# SCH-1: Schnapsen plays the same cards without the nines (ranks J Q K T A, 120 points).
SCHNAPSEN_CARDS = [c for c in ALL_CARDS if rank_of(c) != "9"]
GAMES = ("sixtysix", "schnapsen")
CARDS_OF = {"sixtysix": ALL_CARDS, "schnapsen": SCHNAPSEN_CARDS}

# ---------------------------------------------------------------------------
# Options (Appendix A), with their defaults and permitted values
# ---------------------------------------------------------------------------

DEFAULT_RULES = {
    "match_target": 7,
    "dealer_rotation": "winner",
    "tie_carry_over": False,
    "tie_carry_points": 1,
    "close_before_first_trick": True,
    "close_before_draw": True,
    "close_min_talon": 2,
    "exchange_requires_trick": True,
    "exchange_before_draw": False,
    "exchange_by_non_leader": False,
    "exchange_min_talon": 2,
    "exchange_on_opponent_close": "any",
    "exchange_rank": "9",
    "marriage_before_first_trick": True,
    "marriage_in_phase2": False,
    "marriage_then_close": True,
    "pre_draw_declarations": False,
    "phase2_must_head": True,
    "phase2_must_trump": True,
    "last_trick": "bonus10",
    "false_claim_points": "flat2",
    "closer_false_claim": "as_failed_close",
    "beaten_closer_points": "flat2",
    "closer_win_basis": "end",
    "played_out_scoring": "one",
    "auto_claim": False,
    "public_trick_history": True,
}

# Every value Appendix A lists for each option, the classic default first.  Integer
# options list the values the appendix names (match_target 7, close_min_talon 2,
# exchange_min_talon 2 and the tournament 4).
OPTION_VALUES: dict[str, list[object]] = {
    "match_target": [7],
    "dealer_rotation": ["winner", "alternate"],
    "tie_carry_over": [False, True],
    "tie_carry_points": [1],
    "close_before_first_trick": [True, False],
    "close_before_draw": [True, False],
    "close_min_talon": [2],
    "exchange_requires_trick": [True, False],
    "exchange_before_draw": [False, True],
    "exchange_by_non_leader": [False, True],
    "exchange_min_talon": [2, 4],
    "exchange_on_opponent_close": ["any", "requires_trick", "none"],
    "exchange_rank": ["9", "J"],
    "marriage_before_first_trick": [True, False],
    "marriage_in_phase2": [False, True],
    "marriage_then_close": [True, False],
    "pre_draw_declarations": [False, True],
    "phase2_must_head": [True, False],
    "phase2_must_trump": [True, False],
    "last_trick": ["bonus10", "wins_deal"],
    "false_claim_points": ["flat2", "two_or_three"],
    "closer_false_claim": ["as_failed_close", "flat2"],
    "beaten_closer_points": ["flat2", "as_failed_close"],
    "closer_win_basis": ["end", "close"],
    "played_out_scoring": ["one", "graded"],
    "auto_claim": [False, True],
    "public_trick_history": [True, False],
}

# The Schnapsen column of Appendix A (section 3.1): where it differs from classic 66.
# "n/a" entries (tie_carry_*, played_out_scoring) keep the classic default; they are moot
# while last_trick = wins_deal gives every played-out unclosed deal a winner.
SCHNAPSEN_RULES = {
    **DEFAULT_RULES,
    "dealer_rotation": "alternate",  # SCH-3
    "exchange_requires_trick": False,  # SCH-5
    "exchange_on_opponent_close": "none",  # SCH-6
    "exchange_rank": "J",  # SCH-5
    "close_before_draw": False,  # SCH-7
    "marriage_in_phase2": True,  # SCH-8
    "last_trick": "wins_deal",  # SCH-9
    "beaten_closer_points": "as_failed_close",  # SCH-10
    "closer_win_basis": "close",  # SCH-10
    "false_claim_points": "two_or_three",  # SCH-11
}

GAME_DEFAULTS = {"sixtysix": DEFAULT_RULES, "schnapsen": SCHNAPSEN_RULES}


def non_default_values(game: str = "sixtysix") -> dict:
    """Every value of every option other than the game's default (section 7.1: every classic
    option is still accepted in Schnapsen)."""
    defaults = GAME_DEFAULTS[game]
    out = {}
    for name, values in OPTION_VALUES.items():
        others = [v for v in values if v != defaults[name]]
        if others:
            out[name] = others
    return out


# Every non-default value listed in Appendix A for classic 66 (used by the tests).
NON_DEFAULT_VALUES = non_default_values("sixtysix")


def make_rules(overrides: dict | None, game: str = "sixtysix") -> dict:
    rules = dict(GAME_DEFAULTS[game])
    for name, value in (overrides or {}).items():
        if name not in DEFAULT_RULES:
            raise ValueError(f"unknown option {name!r}")
        rules[name] = value
    return rules


# ---------------------------------------------------------------------------
# The deal
# ---------------------------------------------------------------------------


class RefDeal:
    """One deal, seat 0 = non-dealer (A, leads first), seat 1 = dealer (B).

    ``game`` is "sixtysix" (24 cards, 66-4.2) or "schnapsen" (20 cards, SCH-2); ``rules``
    overrides the game's defaults (Appendix A, classic or Schnapsen column)."""

    def __init__(self, deck_cards: str | list[str], rules: dict | None = None, game: str = "sixtysix") -> None:
        if isinstance(deck_cards, str):
            deck_cards = deck_cards.split()
        deck = [c.upper() for c in deck_cards]
        pack = CARDS_OF[game]
        if len(deck) != len(pack) or sorted(deck) != sorted(pack):
            raise ValueError(f"deck must hold the {len(pack)} distinct cards of {game}")
        self.game = game
        self.rules = make_rules(rules, game)

        if game == "schnapsen":
            # SCH-2: 3 each, the trump card d[6] turned, 2 each; talon d[11..19] then d[6].
            self.hands = [deck[0:3] + deck[7:9], deck[3:6] + deck[9:11]]
            self.talon = deck[11:20] + [deck[6]]
            self.trump = suit_of(deck[6])
        else:
            # 66-4.2: A gets d[0..2] + d[6..8], B gets d[3..5] + d[9..11].
            self.hands = [deck[0:3] + deck[6:9], deck[3:6] + deck[9:12]]
            # 66-4.3 / 66-4.4: talon in draw order d[13..23], then the trump card d[12] last.
            self.talon = deck[13:24] + [deck[12]]
            self.trump = suit_of(deck[12])  # 66-1.2 "trump suit never changes"

        self.closed_by: int | None = None  # seat that closed (66-10.4)
        self.close_opp_tricks = 0  # opponent's tricks at closing (66-10.4)
        self.close_opp_points = 0  # opponent's counted points at closing (66-10.4)

        self.tricks = [0, 0]
        self.card_points = [0, 0]
        self.declared = [0, 0]  # declared marriage points (66-9.5: pending until a trick)
        self.bonus = [0, 0]  # last-trick bonus (66-12.2)
        self.last_trick_winner: int | None = None

        # Decision point (66-5): "L", "D", "R", "F", "E" or "over".
        self.point = "L"
        self.to_act: int | None = 0  # 66-4.5 the non-dealer leads the first trick
        self.leader = 0
        self.lead_card: str | None = None
        self.lead_phase2 = False

        # Per-turn bookkeeping of the player on lead (66-5.1 "each at most once").
        # JUDGEMENT J1: a "turn" runs from winning a trick (point D) to playing the
        # lead card (point L), so a marriage declared at D (pre_draw_declarations)
        # still restricts the lead at L and forbids a second marriage.
        self.turn_married_suit: str | None = None
        self.turn_exchanged = False

        # Result
        self.winner: int | None = None
        self.game_points = 0
        self.row: int | None = None

        self._maybe_auto_claim()

    # ------------------------------------------------------------------ helpers

    def copy(self) -> "RefDeal":
        # A shallow copy of the object plus fresh copies of every mutable list
        # (the rules dict is never mutated, so it may be shared).
        other = _copy.copy(self)
        other.hands = [list(self.hands[0]), list(self.hands[1])]
        other.talon = list(self.talon)
        other.tricks = list(self.tricks)
        other.card_points = list(self.card_points)
        other.declared = list(self.declared)
        other.bonus = list(self.bonus)
        return other

    @property
    def actor(self) -> int:
        # The seat to act; ``to_act`` is None only once the deal is over.
        assert self.to_act is not None
        return self.to_act

    def opponent(self, seat: int) -> int:
        return 1 - seat

    def talon_is_open(self) -> bool:
        # Definitions (1.2): OPEN = not closed and contains >= 1 card.
        return self.closed_by is None and len(self.talon) > 0

    def trump_exchange_card(self) -> str:
        # Option exchange_rank: which trump rank may be exchanged for the trump card.
        return self.rules["exchange_rank"] + self.trump

    def counted(self, seat: int) -> int:
        # 1.2 Counted points = card points in won tricks
        #   + declared marriages only if the player has won >= 1 trick (66-9.5)
        #   + the last-trick bonus if awarded (66-12.2).
        total = self.card_points[seat] + self.bonus[seat]
        if self.tricks[seat] >= 1:
            total += self.declared[seat]
        return total

    def grade(self, loser: int) -> int:
        # 66-13 grade function.
        if self.tricks[loser] == 0:
            return 3  # schwarz
        if self.counted(loser) < 33:
            return 2  # schneider
        return 1

    @property
    def over(self) -> bool:
        return self.point == "over"

    # ------------------------------------------------------- condition checks

    def can_close(self, seat: int) -> bool:
        # 66-10.2 and 1.17 can_close.
        if seat != self.leader or self.point not in ("L", "D"):
            return False  # only the player on lead (66-10.2)
        if not self.talon_is_open():
            return False
        if len(self.talon) < self.rules["close_min_talon"]:
            return False
        if self.point == "D" and not self.rules["close_before_draw"]:
            return False
        if self.tricks[0] + self.tricks[1] == 0 and not self.rules["close_before_first_trick"]:
            return False
        if self.turn_married_suit is not None and not self.rules["marriage_then_close"]:
            return False
        return True

    def exchange_conditions_basic(self, seat: int) -> bool:
        # 66-8.2 items 2 and 3 (+ exchange_min_talon, 66-8.5).
        if not self.talon_is_open():
            return False
        if len(self.talon) < self.rules["exchange_min_talon"]:
            return False
        if self.trump_exchange_card() not in self.hands[seat]:
            return False
        if self.tricks[seat] < 1 and self.rules["exchange_requires_trick"]:
            return False
        return True

    def can_exchange_on_lead(self) -> bool:
        # 66-8.2 item 1: point L; 66-8.5 exchange_before_draw: also point D;
        # 66-5.5 pre_draw_declarations: exchange also available at point D.
        if self.point == "L":
            pass
        elif self.point == "D":
            if not (self.rules["exchange_before_draw"] or self.rules["pre_draw_declarations"]):
                return False
        else:
            return False
        if self.turn_exchanged:
            return False
        return self.exchange_conditions_basic(self.actor)

    def can_exchange_as_follower(self) -> bool:
        # 66-8.5 exchange_by_non_leader: the follower may exchange at point F before
        # playing, under the same other conditions (open talon, min talon, trick).
        if self.point != "F" or not self.rules["exchange_by_non_leader"]:
            return False
        return self.exchange_conditions_basic(self.actor)

    def can_exchange_at_R(self) -> bool:
        # 66-8.3: the closer's opponent, holding the exchangeable trump, immediately after
        # the close.  exchange_min_talon applies at point R too (1.17 comment).
        assert self.closed_by is not None  # only reached from _close
        seat = self.opponent(self.closed_by)
        mode = self.rules["exchange_on_opponent_close"]
        if mode == "none":
            return False
        if self.trump_exchange_card() not in self.hands[seat]:
            return False
        if len(self.talon) < self.rules["exchange_min_talon"]:
            return False
        if mode == "requires_trick" and self.tricks[seat] < 1:
            return False
        return True

    def can_marry(self, suit: str) -> bool:
        # 66-9.2 / 66-9.3 / 66-9.6 and 1.17 can_marry.
        seat = self.actor
        if self.point == "L":
            pass
        elif self.point == "D":
            if not self.rules["pre_draw_declarations"]:  # 66-5.5
                return False
        else:
            return False
        if self.turn_married_suit is not None:  # one marriage per lead (66-9.3)
            return False
        hand = self.hands[seat]
        if "K" + suit not in hand or "Q" + suit not in hand:
            return False
        # 66-9.3 / 66-10.3: no marriage once the talon is closed or exhausted, unless
        # marriage_in_phase2 (SCH-8).  66-5.1 and section 7.1: with that option a marriage
        # may even follow the player's own close in the same turn (J2).
        if not self.talon_is_open() and not self.rules["marriage_in_phase2"]:
            return False
        if self.tricks[seat] < 1 and not self.rules["marriage_before_first_trick"]:
            return False
        return True

    def follow_options(self) -> list[str]:
        # 66-6.2 (phase 1: anything) and 66-6.3 (phase 2 duties).
        hand = self.hands[self.actor]
        if not self.lead_phase2:
            return list(hand)
        led = self.lead_card
        assert led is not None  # point F: a card has been led
        same_suit = [c for c in hand if suit_of(c) == suit_of(led)]
        if same_suit:
            if self.rules["phase2_must_head"]:
                higher = [c for c in same_suit if strength(c) > strength(led)]
                if higher:
                    return higher
            return same_suit
        if self.rules["phase2_must_trump"]:
            trumps = [c for c in hand if suit_of(c) == self.trump]
            if trumps:
                return trumps
        return list(hand)

    # --------------------------------------------------------------- legality

    def legal(self) -> list[str]:
        acts: list[str] = []
        p = self.point
        if p == "over":
            return []
        if p == "R":
            # 66-5.2: only reached when the opponent may exchange.
            return sorted(["exchange", "pass"])
        if p == "F":
            acts = self.follow_options()
            if self.can_exchange_as_follower():
                acts.append("exchange")
            return sorted(acts)
        if p == "E":
            return sorted(["claim", "finish"])  # 66-12.3
        # point L or D: the player on lead
        acts.append("claim")  # 66-11.2: always offered to the player on lead
        if p == "D":
            acts.append("draw")  # 66-5.4 item 2
            if self.can_close(self.actor):
                acts.append("close")
            if self.can_exchange_on_lead():
                acts.append("exchange")
            for s in SUITS:
                if self.can_marry(s):
                    acts.append("marry:" + s)
            return sorted(acts)
        # point L
        hand = self.hands[self.actor]
        if self.turn_married_suit is None:
            acts.extend(hand)  # 66-6.1
        else:
            s = self.turn_married_suit  # 66-5.1 / 66-6.1: lead K or Q of the marriage
            acts.extend(c for c in hand if c in ("K" + s, "Q" + s))
        if self.can_exchange_on_lead():
            acts.append("exchange")
        for s in SUITS:
            if self.can_marry(s):
                acts.append("marry:" + s)
        if self.can_close(self.actor):
            acts.append("close")
        return sorted(acts)

    # ---------------------------------------------------------------- actions

    def act(self, action: str) -> None:
        if action not in self.legal():
            raise ValueError(f"illegal action {action!r} at point {self.point}")
        seat = self.actor
        p = self.point
        if action == "claim":
            self._claim(seat)
        elif action == "finish":
            self._score_played_out()
        elif action == "pass":
            # 66-8.3: passing forfeits the exchange; the closer continues at L.
            self.point = "L"
            self.to_act = self.closed_by
        elif action == "exchange":
            self._exchange(seat)
            if p == "R":
                self.point = "L"
                self.to_act = self.closed_by
            elif p in ("L", "D"):
                self.turn_exchanged = True
            # at F the follower still has to play a card
        elif action == "draw":
            self._draw()
        elif action == "close":
            self._close(seat)
        elif action.startswith("marry:"):
            suit = action[-1]
            # 66-9.1: trump marriage 40, otherwise 20.
            self.declared[seat] += 40 if suit == self.trump else 20
            self.turn_married_suit = suit
        elif p == "L":
            self._lead(action)
        elif p == "F":
            self._follow(action)
        else:  # pragma: no cover - legal() prevents it
            raise ValueError(action)
        self._maybe_auto_claim()

    def _exchange(self, seat: int) -> None:
        # 66-8.1: the exchangeable trump goes to the bottom of the talon, the card
        # at the bottom (trump card) goes into the hand.  Talon size is unchanged.
        nine = self.trump_exchange_card()
        self.hands[seat].remove(nine)
        self.hands[seat].append(self.talon[-1])
        self.talon[-1] = nine

    def _draw(self) -> None:
        # 66-7.1 / 66-7.2: winner takes the top card, loser the next (last: trump card).
        w = self.actor
        self.hands[w].append(self.talon.pop(0))
        self.hands[self.opponent(w)].append(self.talon.pop(0))
        self.point = "L"

    def _close(self, seat: int) -> None:
        # 66-10.1 .. 66-10.4
        opp = self.opponent(seat)
        self.closed_by = seat
        self.close_opp_tricks = self.tricks[opp]
        self.close_opp_points = self.counted(opp)
        # 66-5.2: point R if the opponent may exchange; then the closer continues at L
        # (without drawing when the close happened at D).
        if self.can_exchange_at_R():
            self.point = "R"
            self.to_act = opp
        else:
            self.point = "L"
            self.to_act = seat

    def _lead(self, card: str) -> None:
        seat = self.actor
        self.hands[seat].remove(card)
        self.lead_card = card
        # 66-6.4: the phase is fixed when the trick is led.
        self.lead_phase2 = not self.talon_is_open()
        self.leader = seat
        self.point = "F"
        self.to_act = self.opponent(seat)

    def _follow(self, card: str) -> None:
        follower = self.actor
        leader = self.leader
        led = self.lead_card
        assert led is not None  # point F: a card has been led
        self.hands[follower].remove(card)
        # 66-6.5 trick winner
        if suit_of(card) == suit_of(led):
            w = follower if strength(card) > strength(led) else leader
        elif suit_of(card) == self.trump:
            w = follower
        else:
            w = leader
        # 66-5.4: the winner takes the trick
        self.card_points[w] += points_of(card) + points_of(led)
        self.tricks[w] += 1
        self.lead_card = None
        self.leader = w  # 66-6.6
        self.to_act = w
        self.turn_married_suit = None
        self.turn_exchanged = False
        if not self.hands[0] and not self.hands[1]:
            # 66-5.4 item 1 -> point E; 66-12.2 bonus only when never closed.
            self.last_trick_winner = w
            if self.closed_by is None and self.rules["last_trick"] == "bonus10":
                self.bonus[w] = 10
            self.point = "E"
        elif self.talon_is_open():
            self.point = "D"  # 66-5.4 item 2
        else:
            self.point = "L"  # 66-5.4 item 3

    def _maybe_auto_claim(self) -> None:
        # 66-11.5 auto_claim: the engine claims for the player to act as soon as he is
        # at a claim window (L, D or E) with >= 66 counted points.
        if (
            self.rules["auto_claim"]
            and self.point in ("L", "D", "E")
            and self.counted(self.actor) >= 66
        ):
            self._claim(self.actor)

    # ---------------------------------------------------------------- scoring

    def _end(self, winner: int | None, amount: int, row: int) -> None:
        self.point = "over"
        self.to_act = None
        self.winner = winner
        self.game_points = amount if winner is not None else 0
        self.row = row

    def _claim(self, x: int) -> None:
        # 66-11.1 / 66-11.4: validity on counted points at the moment of the claim.
        o = self.opponent(x)
        valid = self.counted(x) >= 66
        c = self.closed_by
        if valid and c is None:
            # Row 1
            self._end(x, self.grade(o), 1)
        elif valid and x == c:
            # Row 2: closer's valid claim, grade the opponent at the claim or at closing.
            if self.rules["closer_win_basis"] == "close":
                if self.close_opp_tricks == 0:
                    g = 3
                elif self.close_opp_points < 33:
                    g = 2
                else:
                    g = 1
            else:
                g = self.grade(o)
            self._end(x, g, 2)
        elif valid:
            # Row 3: valid claim by O, the closer's opponent.
            if self.rules["beaten_closer_points"] == "as_failed_close":
                g = 2 if self.close_opp_tricks >= 1 else 3
            else:
                g = 2
            self._end(x, g, 3)
        elif c is not None and x == c:
            # Row 4: false claim by the closer.
            if self.rules["closer_false_claim"] == "flat2":
                g = 2
            else:
                g = 2 if self.close_opp_tricks >= 1 else 3
            self._end(o, g, 4)
        else:
            # Row 5: false claim by a player who did not close.
            g = 2
            if self.rules["false_claim_points"] == "two_or_three" and self.tricks[o] == 0:
                g = 3
            self._end(o, g, 5)

    def _score_played_out(self) -> None:
        c = self.closed_by
        if c is not None:
            # Row 6: closed, all cards played, no valid claim.
            o = self.opponent(c)
            self._end(o, 2 if self.close_opp_tricks >= 1 else 3, 6)
            return
        if self.rules["last_trick"] == "wins_deal":
            # last_trick = wins_deal (SCH-9, section 7.1): no bonus; the winner of the
            # last trick, still at point E, gets the deal and 1 game point by `finish`.
            # JUDGEMENT J3: this replaces rows 7/8 entirely (also under graded scoring).
            self._end(self.last_trick_winner, 1, 7)
            return
        a, b = self.counted(0), self.counted(1)
        if a == b:
            self._end(None, 0, 8)  # Row 8 (carry-over is match level, J4)
            return
        w = 0 if a > b else 1
        g = self.grade(1 - w) if self.rules["played_out_scoring"] == "graded" else 1
        self._end(w, g, 7)  # Row 7

    # ---------------------------------------------------------------- summary

    def summary(self) -> dict:
        over = self.over
        return {
            "to_act": None if over else self.to_act,
            "legal": self.legal(),
            "points": [self.counted(0), self.counted(1)],
            "tricks": list(self.tricks),
            "talon": len(self.talon),
            "over": over,
            "winner": self.winner if over else None,
            "game_points": self.game_points if over else 0,
        }


def perft(deal: RefDeal, depth: int) -> int:
    """Number of leaves of the action tree; an ended deal is one leaf."""
    if deal.over or depth == 0:
        return 1
    total = 0
    for a in deal.legal():
        child = deal.copy()
        child.act(a)
        total += perft(child, depth - 1)
    return total


JUDGEMENT_CALLS = [
    "J1: a lead 'turn' spans point D and the following point L; a marriage declared at D "
    "(pre_draw_declarations) restricts the lead after the draw and forbids a second marriage; "
    "an exchange at D counts as this turn's exchange.",
    "J2: with marriage_in_phase2=true a marriage may follow the player's own close in the same "
    "turn (66-5.1 parenthesis, section 7.1, the 1.17 generator); 66-9.4 'MAY NOT follow a close' "
    "is read as the default marriage_in_phase2=false.  marriage_then_close=false only forbids "
    "closing after a marriage, not marrying after a close (1.17 can_marry does not test it).",
    "J3: last_trick=wins_deal replaces rows 7/8 (1 game point to the last-trick winner, no bonus, "
    "regardless of played_out_scoring).",
    "J4: match-level options (match_target, dealer_rotation, tie_carry_*, public_trick_history) "
    "do not change one deal; row 8 reports winner null, game_points 0.",
    "J5: point R is offered only when the opponent can actually exchange (holds the exchange card, "
    "option permits, talon >= exchange_min_talon); exchange_requires_trick does not apply at R "
    "('any' = no trick needed), 'requires_trick' needs >= 1 trick.",
    "J6: exchange_by_non_leader: the follower may exchange at F (phase-1 trick only, as the talon "
    "must be OPEN) under exchange_requires_trick and exchange_min_talon; not at any other point.",
    "J7: closer_win_basis=close grades O from (tricks, counted points) recorded at closing.",
]
