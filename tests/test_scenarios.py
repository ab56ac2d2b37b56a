"""Conformance scenarios T01-T79 of RULES-SPEC section 5 (classic Sixty-Six).

Every test is named after its scenario ID and its docstring cites the rule IDs it checks.
Full deals from the spec are built as 24-card decks in the 66-4.2 deal order; abstract
situations are either reached by play or set up with ``State._replace`` from a dealt state.
Seat 0 is A (non-dealer, leads first), seat 1 is B (dealer). Trump is spades unless stated.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest

from harness.games.sixtysix import (
    IllegalAction,
    Outcome,
    Rules,
    State,
    apply,
    card_str,
    cards_of,
    counted_points,
    deal,
    follow_cards,
    legal_actions,
    parse_card,
    parse_deck,
    replay,
    summary,
)
from harness.games.sixtysix.cards import CARD_STR, DECK, POINTS, SUITS, mask_of

A, B = 0, 1
RANK_ORDER = "9JQKTA"  # weakest first (66-1.2), used by the independent expectations below
RANK_POINTS = {"9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}  # 66-1.3


# -- helpers ------------------------------------------------------------------------------


def m(cards: str) -> int:
    """Mask of space-separated card names."""
    return mask_of(parse_card(x) for x in cards.split())


def spec_deck(a: str, b: str, talon: str) -> tuple[int, ...]:
    """A deck from a spec deal: A's and B's 6 cards and the talon top -> bottom (last = trump card)."""
    al, bl, tl = a.split(), b.split(), talon.split()
    assert len(al) == 6 and len(bl) == 6 and len(tl) == 12
    deck = parse_deck(" ".join(al[:3] + bl[:3] + al[3:] + bl[3:] + [tl[-1]] + tl[:-1]))
    return deck


def position(a: str, b: str, *, trump_card: str = "KS", drawn: int = 0, talon: str = "",
             rules: Rules = Rules(), **fields: Any) -> State:
    """A dealt state with the given hands, talon position and fields (66-4.2 deck layout).

    ``talon`` lists face-down talon cards still to be drawn (top first); the rest is filled in.
    """
    al, bl, tl = a.split(), b.split(), talon.split()
    used = set(al) | set(bl) | {trump_card} | set(tl)
    assert len(used) == len(al) + len(bl) + len(tl) + (0 if trump_card in al + bl else 1)
    rest = [x for x in CARD_STR if x not in used]
    n_talon = max(0, 11 - drawn)
    fill = n_talon - len(tl)
    assert fill >= 0
    talon_full = tl + rest[:fill]
    gone = [x for x in al + bl if x != trump_card] + rest[fill:]
    deck = gone[:12] + [trump_card] + gone[12:] + talon_full
    assert len(deck) == 24
    s = deal(tuple(parse_card(x) for x in deck), rules)
    return s._replace(hands=(m(a), m(b)), drawn=drawn, **fields)


def legal(s: State) -> set[str]:
    return set(legal_actions(s))


def outcome(s: State) -> Outcome:
    """How the finished deal ``s`` ended (66-13)."""
    assert s.outcome is not None, "the deal is not over"
    return s.outcome


def play(s: State, *actions: str) -> State:
    for a in actions:
        s = apply(s, a)
    return s


def expected_follow(hand: str, led: str, trump: str, phase2: bool, must_head: bool = True,
                    must_trump: bool = True) -> set[str]:
    """Independent model of 66-6.2 / 66-6.3 on card names."""
    h = hand.split()
    if not phase2:
        return set(h)
    same = [c for c in h if c[1] == led[1]]
    if same:
        higher = [c for c in same if RANK_ORDER.index(c[0]) > RANK_ORDER.index(led[0])]
        return set(higher if (higher and must_head) else same)
    trumps = [c for c in h if c[1] == trump]
    if trumps and must_trump:
        return set(trumps)
    return set(h)


def hand_of(s: State, seat: int) -> set[str]:
    return set(cards_of(s.hands[seat]))


def nhand(s: State, seat: int) -> int:
    return bin(s.hands[seat]).count("1")


def trick_no(s: State) -> int:
    """Number of the trick currently being played (1-based)."""
    return s.tricks[0] + s.tricks[1] + 1


def random_policy(rng: random.Random, *, close: bool = False, claim66: bool = True, marry: bool = True,
                  exchange: bool = True) -> Callable[[State], str]:
    """Random legal play: never claims below 66, closes only if ``close``; finishes at E."""

    def choose(s: State) -> str:
        acts = legal_actions(s)
        me = s.to_act
        ok = []
        for a in acts:
            if a == "claim" and not (claim66 and counted_points(s, me) >= 66):
                continue
            if a == "close" and not close:
                continue
            if a.startswith("marry") and not marry:
                continue
            if a == "exchange" and not exchange:
                continue
            ok.append(a)
        if s.point == "D" and "draw" in ok and not close:
            return "claim" if "claim" in ok else "draw"
        if s.point == "E":
            return "claim" if "claim" in ok else "finish"
        return rng.choice(ok)

    return choose


def random_deck(rng: random.Random) -> tuple[int, ...]:
    d = list(DECK)
    rng.shuffle(d)
    return tuple(d)


def play_out(s: State, choose: Callable[[State], str]) -> State:
    while not s.over:
        s = apply(s, choose(s))
    return s


# =========================================================================================
# 5.1 Cards and tricks
# =========================================================================================


def trick(lead: str, follow: str, trump_card: str = "KS") -> State:
    """A leads ``lead``, B follows ``follow``, in phase 1 on a fresh deal; returns the state."""
    rest = [x for x in CARD_STR if x not in (lead, follow, trump_card)]
    a = " ".join([lead] + rest[0:5])
    b = " ".join([follow] + rest[5:10])
    s = position(a, b, trump_card=trump_card, talon=" ".join(rest[10:21]))
    return play(s, lead, follow)


def test_T01_pack_points_and_rank_order() -> None:
    """T01 (66-1.1, 66-1.2, 66-1.3, 66-6.5): 24 cards, 120 points, A > T > K > Q > J > 9 in every suit."""
    assert len(DECK) == 24 and len(set(CARD_STR)) == 24
    assert sorted(CARD_STR) == sorted(r + s for r in "9JQKTA" for s in "CDHS")
    assert sum(POINTS) == 120
    for c in DECK:
        assert POINTS[c] == RANK_POINTS[card_str(c)[0]]
    for s in SUITS:
        assert sum(POINTS[parse_card(r + s)] for r in RANK_ORDER) == 30
    # Rank order checked through trick resolution: the higher card of a suit wins either way round.
    for s in "CDHS":
        trump_card = "KC" if s != "C" else "KD"
        for lo in range(6):
            for hi in range(lo + 1, 6):
                low, high = RANK_ORDER[lo] + s, RANK_ORDER[hi] + s
                if trump_card in (low, high):
                    trump_card2 = "9D" if s != "D" else "9H"
                else:
                    trump_card2 = trump_card
                t = trick(low, high, trump_card2)
                assert t.tricks == (0, 1), (low, high)
                t = trick(high, low, trump_card2)
                assert t.tricks == (1, 0), (high, low)


def test_T02_same_suit_higher_wins() -> None:
    """T02 (66-6.5, 66-1.3): A leads KH, B plays TH in phase 1 -> B wins, +14."""
    s = trick("KH", "TH")
    assert s.tricks == (0, 1)
    assert s.card_points == (0, 14)
    assert counted_points(s, B) == 14
    assert s.to_act == B and s.point == "D"


def test_T03_offsuit_non_trump_leader_wins() -> None:
    """T03 (66-6.5, 66-6.2): A leads JH, B plays AC (phase 1) -> A wins (off-suit, not trump), +13."""
    s = trick("JH", "AC")
    assert s.tricks == (1, 0)
    assert s.card_points == (13, 0)
    assert s.to_act == A


def test_T04_trump_beats_plain_ace() -> None:
    """T04 (66-6.5): A leads AH, B plays 9S (trump) -> B wins, +11."""
    s = trick("AH", "9S")
    assert s.tricks == (0, 1)
    assert s.card_points == (0, 11)
    assert s.to_act == B


def test_T05_trump_lead_beats_offsuit_ace() -> None:
    """T05 (66-6.5): A leads JS (trump), B plays AH -> A wins, +13."""
    s = trick("JS", "AH")
    assert s.tricks == (1, 0)
    assert s.card_points == (13, 0)


def test_T06_higher_trump_wins() -> None:
    """T06 (66-6.5): A leads QS, B plays KS -> B wins (higher trump)."""
    s = trick("QS", "KS", trump_card="AS")
    assert s.tricks == (0, 1)
    assert s.card_points == (0, 7)


# =========================================================================================
# 5.2 Legal follows
# =========================================================================================

# (ID, talon state, led card, follower's hand, expected legal cards, rules)
FOLLOWS = [
    ("T07", "open", "TH", "KH AH 9S JC 9D QD", "KH AH 9S JC 9D QD", Rules()),
    ("T08", "closed", "TH", "KH AH 9S", "AH", Rules()),
    ("T09", "closed", "TH", "KH QH 9S AC", "KH QH", Rules()),
    ("T10", "closed", "TH", "AC KC 9S JS", "9S JS", Rules()),
    ("T11", "closed", "TH", "AC KC 9D", "AC KC 9D", Rules()),
    ("T12", "closed", "KS", "9S AS AH", "AS", Rules()),
    ("T13", "closed", "KS", "9S JS AH", "9S JS", Rules()),
    ("T14", "closed", "AS", "AH TH 9C", "AH TH 9C", Rules()),
    ("T15", "closed", "AH", "AS 9S", "AS 9S", Rules()),
    ("T16", "closed", "AH", "AS KH", "KH", Rules()),
    ("T17", "exhausted", "9D", "AD TD QS", "AD TD", Rules()),
    ("T18", "closed", "TH", "KH AH 9S", "KH AH", Rules(phase2_must_head=False)),
]


def follow_position(talon_state: str, led: str, hand: str, rules: Rules) -> State:
    """B to follow ``led`` with ``hand``; A led it. Trump card QS (not in any scenario hand)."""
    n = len(hand.split())
    used = set(hand.split()) | {led, "QS"}
    others = [x for x in CARD_STR if x not in used and x[1] != "S"]
    a_hand = " ".join(others[: n - 1])  # leader holds one card fewer after leading
    kw: dict[str, Any] = dict(point="F", to_act=B, leader=A, lead=parse_card(led), rules=rules)
    if talon_state == "open":
        return position(a_hand, hand, trump_card="QS", drawn=4, tricks=(1, 1), **kw)
    if talon_state == "closed":
        return position(a_hand, hand, trump_card="QS", drawn=4, tricks=(2, 1), closed_by=A,
                        close_info=(True, 1, 10), **kw)
    assert talon_state == "exhausted"
    return position(a_hand, hand, trump_card="QS", drawn=12, tricks=(5, 4), **kw)


def _check_follow(tid: str) -> None:
    (_, talon_state, led, hand, expect, rules) = next(f for f in FOLLOWS if f[0] == tid)
    exp = set(expect.split())
    # the spec's table and the independent model agree
    assert exp == expected_follow(hand, led, "S", talon_state != "open", rules.phase2_must_head)
    s = follow_position(talon_state, led, hand, rules)
    assert s.trump == SUITS.index("S")
    assert legal(s) == exp
    for c in hand.split():
        if c not in exp:
            with pytest.raises(IllegalAction):
                apply(s, c)
    mask = follow_cards(m(hand), parse_card(led), SUITS.index("S"), talon_state != "open", rules)
    assert set(cards_of(mask)) == exp


def test_T07_phase1_any_card() -> None:
    """T07 (66-6.2): talon open (8 cards), TH led -> all six cards legal."""
    _check_follow("T07")


def test_T08_must_head() -> None:
    """T08 (66-6.3 rule 1): closed, TH led, hand KH AH 9S -> AH only."""
    _check_follow("T08")


def test_T09_must_follow_cannot_beat_may_not_trump() -> None:
    """T09 (66-6.3 rule 1): closed, TH led, hand KH QH 9S AC -> KH, QH."""
    _check_follow("T09")


def test_T10_void_must_trump_any_trump() -> None:
    """T10 (66-6.3 rule 2): closed, TH led, hand AC KC 9S JS -> 9S, JS."""
    _check_follow("T10")


def test_T11_void_no_trump_any_card() -> None:
    """T11 (66-6.3 rule 3): closed, TH led, hand AC KC 9D -> all three."""
    _check_follow("T11")


def test_T12_trump_led_must_overtrump() -> None:
    """T12 (66-6.3): closed, KS (trump) led, hand 9S AS AH -> AS only."""
    _check_follow("T12")


def test_T13_trump_led_cannot_beat_any_trump() -> None:
    """T13 (66-6.3): closed, KS led, hand 9S JS AH -> 9S, JS."""
    _check_follow("T13")


def test_T14_trump_led_no_trumps_anything() -> None:
    """T14 (66-6.3): closed, AS led, hand AH TH 9C -> all three."""
    _check_follow("T14")


def test_T15_void_must_trump_even_with_ace() -> None:
    """T15 (66-6.3 rule 2): closed, AH led, hand AS 9S -> AS, 9S."""
    _check_follow("T15")


def test_T16_follow_suit_before_trump() -> None:
    """T16 (66-6.3 rule 1): closed, AH led, hand AS KH -> KH only (follow suit although it loses)."""
    _check_follow("T16")


def test_T17_exhausted_talon_is_phase2() -> None:
    """T17 (66-6.3, 66-6.4): exhausted (trick 10, never closed), 9D led, hand AD TD QS -> AD, TD."""
    _check_follow("T17")


def test_T18_option_no_heading() -> None:
    """T18 (66-6.3, phase2_must_head = false): closed, TH led, hand KH AH 9S -> KH, AH."""
    _check_follow("T18")


# =========================================================================================
# 5.3 Drawing, phases, talon
# =========================================================================================

T22_DECK = spec_deck("AH TH KH QH JC 9D", "9H QS KC AC TD JD", "AS TS JS KD QD AD 9C QC TC 9S JH KS")


def test_T19_draw_order_and_talon_sizes() -> None:
    """T19 (66-7.1, 66-7.3, 66-4.4): after trick k (1..5) the winner draws the top card, the loser the next;
    talon 12 - 2k."""
    for seed in range(5):
        rng = random.Random(seed)
        deck = random_deck(rng)
        s = deal(deck)
        choose = random_policy(rng)
        for k in range(1, 6):
            while s.point != "D":
                s = apply(s, choose(s))
            assert s.tricks[0] + s.tricks[1] == k
            w = s.to_act
            before = s.hands
            s = apply(s, "draw")
            got_w = s.hands[w] & ~before[w]
            got_l = s.hands[1 - w] & ~before[1 - w]
            assert got_w == 1 << deck[13 + 2 * (k - 1)]
            assert got_l == 1 << deck[14 + 2 * (k - 1)]
            assert s.talon_size == 12 - 2 * k
            assert nhand(s, 0) == nhand(s, 1) == 6
            assert s.talon_state == "open"


def test_T20_last_draw_loser_takes_trump_card() -> None:
    """T20 (66-7.2, 66-7.3): after trick 6 with talon [X, KS], the winner draws X, the loser the trump card KS;
    the talon is exhausted."""
    rng = random.Random(7)
    deck = T22_DECK  # trump card KS
    s = deal(deck)
    choose = random_policy(rng, exchange=False)
    for _ in range(6):
        while s.point != "D":
            s = apply(s, choose(s))
        if s.tricks[0] + s.tricks[1] < 6:
            s = apply(s, "draw")
    assert s.talon_size == 2
    assert [card_str(c) for c in s.talon] == [card_str(deck[23]), "KS"]
    w = s.to_act
    s = apply(s, "draw")
    assert hand_of(s, w) >= {card_str(deck[23])}
    assert "KS" in hand_of(s, 1 - w) and "KS" not in hand_of(s, w)
    assert s.talon_size == 0 and s.talon_state == "exhausted"
    assert nhand(s, 0) == nhand(s, 1) == 6
    assert "close" not in legal(s) and "exchange" not in legal(s)


def test_T21_trick6_phase1_trick7_phase2() -> None:
    """T21 (66-6.4, 66-6.2, 66-6.3): trick 6 of an unclosed deal is phase 1 (any card), trick 7 on is phase 2."""
    seen6 = seen7 = False
    for seed in range(300):
        rng = random.Random(seed)
        s = deal(random_deck(rng))
        choose = random_policy(rng)
        while not s.over and trick_no(s) <= 7:
            if s.point == "F" and s.closed_by < 0:
                hand = " ".join(cards_of(s.hands[s.to_act]))
                led = card_str(s.lead)
                trump = SUITS[s.trump]
                p2 = expected_follow(hand, led, trump, True)
                if trick_no(s) == 6:
                    assert s.talon_size == 2
                    assert legal(s) == set(hand.split())
                    seen6 |= p2 != set(hand.split())
                elif trick_no(s) == 7:
                    assert s.talon_state == "exhausted"
                    assert legal(s) == p2
                    seen7 |= p2 != set(hand.split())
            s = apply(s, choose(s))
        if seen6 and seen7:
            break
    assert seen6 and seen7, "no discriminating trick 6 / trick 7 found"


def test_T22_close_before_draw() -> None:
    """T22 (66-10.2, 66-5.4, 66-10.3, 66-9.3, 66-5.2): A wins trick 1 and closes at point D."""
    s = play(deal(T22_DECK), "AH", "9H")
    assert s.point == "D" and s.to_act == A and counted_points(s, A) == 11
    assert "close" in legal(s)
    s = apply(s, "close")
    assert nhand(s, A) == nhand(s, B) == 5
    assert s.talon_size == 12 and s.talon_state == "closed" and s.closed_by == A
    assert s.point == "L" and s.to_act == A  # no point R: 9S is in the talon
    assert "marry:H" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "marry:H")
    assert "draw" not in legal(s)
    # Trick 2 is phase 2: B (QS KC AC TD JD) is void in hearts and must trump.
    s2 = apply(s, "KH")
    assert legal(s2) == {"QS"}
    # and B must head a diamond lead: A leads 9D, B holds TD JD -> both beat 9D
    s3 = apply(s, "9D")
    assert legal(s3) == {"TD", "JD"}


# =========================================================================================
# 5.4 Trump-nine exchange
# =========================================================================================

T23_DECK = spec_deck("9S QS AH TH JC 9D", "9H QH KC AC TD JD", "AS TS JS KD QD AD 9C QC TC KH JH KS")


def test_T23_no_exchange_without_trick() -> None:
    """T23 (66-8.2 cond. 2): A holds 9S at the first lead but has no trick -> EXCHANGE illegal."""
    s = deal(T23_DECK)
    assert card_str(s.bottom) == "KS"
    assert "exchange" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "exchange")
    # control: with exchange_requires_trick = false it would be legal
    assert "exchange" in legal(deal(T23_DECK, Rules(exchange_requires_trick=False)))


def test_T24_no_exchange_before_draw() -> None:
    """T24 (66-8.2 cond. 1, 66-8.5): at point D after winning trick 1 A may not exchange by default;
    legal with exchange_before_draw = true."""
    s = play(deal(T23_DECK), "AH", "9H")
    assert s.point == "D" and s.to_act == A
    assert "exchange" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "exchange")
    s2 = play(deal(T23_DECK, Rules.parse(["exchange_before_draw=true"])), "AH", "9H")
    assert "exchange" in legal(s2)
    s2 = apply(s2, "exchange")
    assert "KS" in hand_of(s2, A) and card_str(s2.bottom) == "9S"


def test_T25_exchange_after_draw() -> None:
    """T25 (66-8.1, 66-8.2): after the draw (A gets AS, B gets TS) A exchanges at point L."""
    s = play(deal(T23_DECK), "AH", "9H", "draw")
    assert "AS" in hand_of(s, A) and "TS" in hand_of(s, B)
    assert s.point == "L" and "exchange" in legal(s)
    s = apply(s, "exchange")
    assert "KS" in hand_of(s, A) and "9S" not in hand_of(s, A)
    assert card_str(s.bottom) == "9S"
    assert s.talon_size == 10
    assert card_str(s.talon[-1]) == "9S"
    assert "exchange" not in legal(s)  # once only


def test_T26_non_leader_cannot_exchange() -> None:
    """T26 (66-8.2 cond. 1, 66-8.5 exchange_by_non_leader = false): B holds 9S and has tricks; A on lead."""
    s = position("AC TC KD QD JH 9H", "9S AD TD JD 9C JC", trump_card="KS", drawn=4,
                 tricks=(1, 1), card_points=(14, 21), point="L", to_act=A, leader=A)
    assert "exchange" not in legal(s)  # A has no 9S
    s = apply(s, "AC")
    assert s.to_act == B and s.point == "F"
    assert "exchange" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "exchange")
    # control: with the option, the engine would offer it to the follower
    s_opt = s._replace(rules=Rules(exchange_by_non_leader=True))
    assert "exchange" in legal(s_opt)


def test_T27_exchange_at_trick6_loser_draws_nine() -> None:
    """T27 (66-8.2, 66-7.2): leader of trick 6 (talon = 2) with a trick may exchange; the loser of trick 6
    then draws 9S."""
    s = position("9S AS AC TC KD QD", "9H JH QH KH 9D JD", trump_card="KS", drawn=10, talon="AH",
                 tricks=(3, 2), card_points=(30, 20), point="L", to_act=A, leader=A)
    assert s.talon_size == 2
    assert "exchange" in legal(s)
    s = apply(s, "exchange")
    assert "KS" in hand_of(s, A) and card_str(s.bottom) == "9S"
    s = play(s, "AS", "9H")
    assert s.tricks == (4, 2) and s.point == "D" and s.to_act == A
    s = apply(s, "draw")
    assert "AH" in hand_of(s, A)
    assert "9S" in hand_of(s, B)
    assert s.talon_state == "exhausted"


def test_T28_no_exchange_when_exhausted() -> None:
    """T28 (66-8.2 cond. 3): talon exhausted -> no exchange even for the leader with 9S and tricks."""
    s = position("9S AS AC TC KD QD", "9H JH QH KH 9D JD", trump_card="KS", drawn=12,
                 tricks=(4, 2), card_points=(40, 20), point="L", to_act=A, leader=A)
    assert s.talon_state == "exhausted"
    assert "exchange" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "exchange")
    # control: same hand with the talon still open (2 cards) -> exchange legal
    assert "exchange" in legal(s._replace(drawn=10))


def test_T29_trump_card_is_nine() -> None:
    """T29 (66-8.2): the turned-up trump card is 9S -> no exchange for either player in this deal."""
    for seed in range(40):
        rng = random.Random(seed)
        d = list(random_deck(rng))
        i = d.index(parse_card("9S"))
        d[i], d[12] = d[12], d[i]
        s = deal(tuple(d))
        assert card_str(s.bottom) == "9S"
        choose = random_policy(rng, close=seed % 2 == 0)
        while not s.over:
            assert "exchange" not in legal_actions(s), (seed, s.history)
            s = apply(s, choose(s))


T30_DECK = spec_deck("AS TS QS QH JC 9D", "9S JS KC AC TD JD", "AH TH KH KD QD AD 9C QC TC 9H JH KS")


def test_T30_close_first_lead_opponent_exchanges() -> None:
    """T30 (66-10.2 item 3, 66-8.3, 66-5.2, 66-10.4): A closes before trick 1; B (no trick) may exchange at R."""
    s = deal(T30_DECK)
    assert "close" in legal(s)
    assert "close" not in legal(deal(T30_DECK, Rules(close_before_first_trick=False)))
    s = apply(s, "close")
    assert s.point == "R" and s.to_act == B
    assert legal(s) == {"exchange", "pass"}
    assert not s.close_info[0]  # B had no trick at closing
    s = apply(s, "exchange")
    assert "KS" in hand_of(s, B) and "9S" not in hand_of(s, B)
    assert card_str(s.bottom) == "9S"
    assert s.point == "L" and s.to_act == A
    assert not s.close_info[0]


def test_T31_close_first_lead_phase2_follow() -> None:
    """T31 (66-6.3, 66-6.4): continuation of T30: A leads AS; B (JS KC AC TD JD KS) must follow -> {JS, KS}."""
    s = play(deal(T30_DECK), "close", "exchange")
    assert hand_of(s, B) == set("JS KC AC TD JD KS".split())
    s = apply(s, "AS")
    assert legal(s) == {"JS", "KS"}


def test_T32_pass_loses_exchange() -> None:
    """T32 (66-8.3): B passes at R (or A has led) -> B can no longer exchange in this deal."""
    s = play(deal(T30_DECK), "close", "pass")
    assert s.point == "L" and s.to_act == A
    assert "exchange" not in legal(s)  # A has no 9S anyway
    s = apply(s, "AS")
    assert "exchange" not in legal(s)
    assert legal(s) == {"9S", "JS"}
    s = apply(s, "9S")
    # A won; play on with B never offered an exchange
    rng = random.Random(1)
    while not s.over:
        assert "exchange" not in legal_actions(s)
        acts = [a for a in legal_actions(s) if a != "claim"]
        s = apply(s, rng.choice(acts))
    # and B's close response is not offered again after a lead
    s = play(deal(T30_DECK), "close", "pass", "AS")
    with pytest.raises(IllegalAction):
        apply(s, "exchange")


def test_T33_requires_trick_option() -> None:
    """T33 (66-8.3, exchange_on_opponent_close = requires_trick): B (no trick) is not offered the exchange."""
    s = deal(T30_DECK, Rules.parse(["exchange_on_opponent_close=requires_trick"]))
    s = apply(s, "close")
    assert s.point == "L" and s.to_act == A
    assert "exchange" not in legal(s) and "pass" not in legal(s)
    s = apply(s, "AS")
    assert "exchange" not in legal(s)
    s_none = apply(deal(T30_DECK, Rules(exchange_on_opponent_close="none")), "close")
    assert s_none.point == "L" and s_none.to_act == A


def test_T34_closer_cannot_exchange_after_close() -> None:
    """T34 (66-8.4, 66-5.1): closer A holds 9S, closes, then tries to exchange -> illegal."""
    s = play(deal(T23_DECK), "AH", "9H", "draw")
    assert "exchange" in legal(s) and "close" in legal(s)
    s = apply(s, "close")
    assert s.point == "L" and s.to_act == A  # B has no 9S: no point R
    assert "exchange" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "exchange")
    # also when closing at point D
    s = play(deal(T23_DECK), "AH", "9H", "close")
    assert "exchange" not in legal(s)
    # exchange-then-close is fine
    s = play(deal(T23_DECK), "AH", "9H", "draw", "exchange", "close")
    assert s.closed_by == A and "KS" in hand_of(s, A)


# =========================================================================================
# 5.5 Marriages
# =========================================================================================


def test_T35_marriage_scores_and_binds_lead() -> None:
    """T35 (66-9.1, 66-9.2, 66-9.5, 66-6.1): A on lead with a trick holds KH QH -> MARRIAGE(H) legal,
    +20 at once, lead must be KH or QH."""
    s = position("KH QH AC 9C JD TD", "AH 9H KC QC 9D AD", trump_card="KS", drawn=2,
                 tricks=(1, 0), card_points=(10, 0), point="L", to_act=A, leader=A)
    assert "marry:H" in legal(s)
    s = apply(s, "marry:H")
    assert counted_points(s, A) == 30
    assert {"KH", "QH"} <= legal(s)
    assert not ({"AC", "9C", "JD", "TD"} & legal(s))
    with pytest.raises(IllegalAction):
        apply(s, "AC")
    s = apply(s, "QH")
    assert "KH" in hand_of(s, A)


def test_T36_trump_marriage_40() -> None:
    """T36 (66-9.1): as T35 with KS QS (trump) -> +40."""
    s = position("KS QS AC 9C JD TD", "AH 9H KC QC 9D AD", trump_card="AS", drawn=2,
                 tricks=(1, 0), card_points=(10, 0), point="L", to_act=A, leader=A)
    s = apply(s, "marry:S")
    assert counted_points(s, A) == 50
    assert legal(s) & {"KS", "QS"} == {"KS", "QS"}
    assert "AC" not in legal(s)


def test_T37_exchange_marry_close_lead() -> None:
    """T37 (66-9.4, 66-8.1, 66-10.2, 66-6.3): continuation of T25: exchange, MARRIAGE(S), CLOSE, lead QS."""
    s = play(deal(T23_DECK), "AH", "9H", "draw", "exchange")
    assert {"KS", "QS"} <= hand_of(s, A)
    s = apply(s, "marry:S")
    assert counted_points(s, A) == 11 + 40 == 51
    assert "close" in legal(s)
    s = apply(s, "close")
    assert s.point == "L" and s.to_act == A  # no point R: B lacks 9S
    assert "QS" in legal(s) and "TH" not in legal(s)
    s = apply(s, "QS")
    assert hand_of(s, B) == set("QH KC AC TD JD TS".split())
    assert legal(s) == {"TS"}
    s = apply(s, "TS")
    assert s.tricks == (1, 1)
    assert s.card_points == (11, 13)
    assert s.to_act == B and s.point == "L"  # closed: no point D, no draw
    assert counted_points(s, A) == 51
    assert replay(T23_DECK, "AH 9H draw exchange marry:S close QS TS".split()) == s


def test_T38_no_marriage_after_close() -> None:
    """T38 (66-9.4, 66-9.3, 66-5.1): A closes, then tries MARRIAGE in the same turn -> illegal."""
    s = position("KH QH AC 9C JD TD", "AH 9H KC QC 9D AD", trump_card="KS", drawn=2,
                 tricks=(1, 0), card_points=(10, 0), point="L", to_act=A, leader=A)
    assert "marry:H" in legal(s)
    s = apply(s, "close")
    assert s.point == "L" and s.to_act == A
    assert "marry:H" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "marry:H")


def test_T39_no_marriage_when_exhausted() -> None:
    """T39 (66-9.3): leader of trick 7 (talon exhausted, never closed) holds KH QH -> MARRIAGE illegal."""
    s = position("KH QH AC 9C JD TD", "AH 9H KC QC 9D AD", trump_card="KS", drawn=12,
                 tricks=(4, 2), card_points=(40, 20), point="L", to_act=A, leader=A)
    assert "marry:H" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "marry:H")
    assert "marry:H" in legal(s._replace(drawn=10))  # control: talon open


def test_T40_follower_cannot_marry() -> None:
    """T40 (66-9.2): the follower holding KH QH cannot declare."""
    s = position("AH 9H KC QC 9D", "KH QH AC 9C JD TD", trump_card="KS", drawn=2,
                 tricks=(1, 1), card_points=(10, 10), point="F", to_act=B, leader=A, lead=parse_card("AD"))
    assert not any(a.startswith("marry") for a in legal(s))
    with pytest.raises(IllegalAction):
        apply(s, "marry:H")


def test_T41_one_marriage_per_lead() -> None:
    """T41 (66-9.3, 66-9.8): leader holding KH QH KC QC may declare only one marriage on this lead."""
    s = position("KH QH KC QC 9D TD", "AH 9H AC 9C JD AD", trump_card="KS", drawn=2,
                 tricks=(1, 0), card_points=(10, 0), point="L", to_act=A, leader=A)
    assert {"marry:H", "marry:C"} <= legal(s)
    s = apply(s, "marry:H")
    assert not any(a.startswith("marry") for a in legal(s))
    with pytest.raises(IllegalAction):
        apply(s, "marry:C")
    assert counted_points(s, A) == 30
    s = apply(s, "KH")
    assert "QC" in hand_of(s, A) and "KC" in hand_of(s, A)


T42_DECK = spec_deck("KH QH 9S JC 9D TC", "AH 9H KC AC TD JD", "AS TS JS KD QD AD 9C QC QS TH JH KS")


def test_T42_pending_marriage_on_first_lead() -> None:
    """T42 (66-9.6, 66-9.5): A declares MARRIAGE(H) on the first lead, leads QH, B plays AH -> B +14,
    A's counted points 0 (20 pending)."""
    s = deal(T42_DECK)
    assert "marry:H" in legal(s)
    s = play(s, "marry:H", "QH")
    assert counted_points(s, A) == 0
    s = apply(s, "AH")
    assert s.tricks == (0, 1) and s.card_points == (0, 14)
    assert counted_points(s, B) == 14
    assert counted_points(s, A) == 0
    assert summary(s)["points"] == [0, 14]


def test_T43_pending_marriage_counts_after_first_trick() -> None:
    """T43 (66-9.5): continuation: B draws AS, A draws TS; B leads 9H; A trumps with 9S -> A's counted 20."""
    s = play(deal(T42_DECK), "marry:H", "QH", "AH", "draw")
    assert "AS" in hand_of(s, B) and "TS" in hand_of(s, A)
    s = play(s, "9H", "9S")
    assert s.tricks == (1, 1)
    assert s.card_points[A] == 0
    assert counted_points(s, A) == 20
    assert s.to_act == A


def test_T44_marriage_never_counts_without_trick() -> None:
    """T44 (66-9.5, 66-13.1 row 1, grade): A declares 40 on the first lead, never wins a trick;
    B claims with 70 -> B scores 3."""
    d = spec_deck("KS QS 9C JC 9D TC", "AS 9H KC AC TD JD", "AH TH KH QH JH TS 9S KD QD AD QC JS")
    s = play(deal(d), "marry:S", "QS", "AS")
    assert s.tricks == (0, 1) and s.marriages[A] == 40 and counted_points(s, A) == 0
    s = s._replace(card_points=(0, 70), tricks=(0, 5))
    s = apply(s, "claim")
    assert outcome(s).winner == B
    assert outcome(s).game_points == 3
    assert outcome(s).row == 1


def test_T45_no_marriage_before_first_trick_option() -> None:
    """T45 (66-9.6, marriage_before_first_trick = false): A may not declare on the first lead."""
    s = deal(T42_DECK, Rules.parse(["marriage_before_first_trick=false"]))
    assert "marry:H" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "marry:H")
    assert "marry:H" in legal(deal(T42_DECK))  # control: default allows it


# =========================================================================================
# 5.6 Closing
# =========================================================================================


def test_T46_follower_cannot_close() -> None:
    """T46 (66-10.2): the follower may not close."""
    s = apply(deal(T22_DECK), "AH")
    assert s.point == "F"
    assert "close" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "close")


def _to_trick6_point_d(seed: int) -> tuple[State, random.Random]:
    rng = random.Random(seed)
    deck = random_deck(rng)
    s = deal(deck)
    choose = random_policy(rng)
    while not (s.point == "D" and s.tricks[0] + s.tricks[1] == 6):
        a = choose(s)
        if a == "claim":
            a = "draw" if s.point == "D" else next(x for x in legal_actions(s) if x != "claim"
                                                    and not x.startswith("marry"))
        s = apply(s, a)
    return s, rng


def test_T47_close_after_trick6_before_draw() -> None:
    """T47 (66-10.2, 66-10.3, 66-7.4): after trick 6 (talon 2) the winner closes at D -> nothing drawn,
    5 cards each, 11 tricks in the deal, both talon cards out of play."""
    for seed in range(5):
        s, rng = _to_trick6_point_d(seed)
        assert s.talon_size == 2
        talon = set(card_str(c) for c in s.talon)
        assert "close" in legal(s)
        s = apply(s, "close")
        assert nhand(s, 0) == nhand(s, 1) == 5
        assert s.talon_size == 2 and s.talon_state == "closed"
        while not s.over:
            acts = [a for a in legal_actions(s) if a != "claim"]
            assert "draw" not in acts
            s = apply(s, rng.choice(acts) if s.point != "E" else "finish")
        assert s.tricks[0] + s.tricks[1] == 11
        played = {a for _, a in s.history if a in CARD_STR}
        assert not (played & talon)
        assert s.bonus_to == -1
        assert outcome(s).row == 6


def test_T48_no_close_after_last_draw() -> None:
    """T48 (66-10.2): after trick 6 the winner draws; closing at L is then illegal (talon exhausted)."""
    s, _ = _to_trick6_point_d(3)
    s = apply(s, "draw")
    assert s.point == "L" and s.talon_state == "exhausted"
    assert "close" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "close")


def test_T49_close_at_trick6_lead() -> None:
    """T49 (66-10.2 item 2): the leader of trick 6 (talon = 2) closes at L after drawing -> legal,
    6 cards each, 6 tricks remain."""
    for seed in range(5):
        rng = random.Random(100 + seed)
        s = deal(random_deck(rng))
        choose = random_policy(rng)
        while not (s.point == "L" and s.talon_size == 2):
            a = choose(s)
            if a == "claim" or a.startswith("marry"):
                a = "draw" if s.point == "D" else next(
                    x for x in legal_actions(s) if x in CARD_STR)
            s = apply(s, a)
        assert s.tricks[0] + s.tricks[1] == 5
        assert "close" in legal(s)
        s = apply(s, "close")
        assert nhand(s, 0) == nhand(s, 1) == 6
        while not s.over:
            acts = [a for a in legal_actions(s) if a != "claim"]
            s = apply(s, rng.choice(acts) if s.point != "E" else "finish")
        assert s.tricks[0] + s.tricks[1] == 5 + 6  # 6 tricks after the close, 11 in the deal


def test_T50_no_bonus_in_closed_deal() -> None:
    """T50 (66-12.2): deal closed by A, last trick won by A -> no last-trick bonus."""
    found = 0
    for seed in range(200):
        rng = random.Random(seed)
        s = deal(random_deck(rng))
        while not s.over:
            acts = [a for a in legal_actions(s) if a != "claim"]
            if "close" in acts and s.to_act == A:
                a = "close"
            elif s.point == "E":
                a = "finish"
            else:
                a = rng.choice([x for x in acts if x != "close"] or acts)
            before = s
            s = apply(s, a)
            if before.point == "F" and s.point == "E":
                last_winner = s.to_act
        if s.closed_by == A and last_winner == A:
            found += 1
            assert s.bonus_to == -1
            assert counted_points(s, A) == s.card_points[A] + (s.marriages[A] if s.tricks[A] else 0)
            assert outcome(s).row == 6  # A never claimed
        if found >= 5:
            break
    assert found >= 5


# =========================================================================================
# 5.7 Claims and scoring
# =========================================================================================


def claim_at(seat: int, card_points: tuple[int, int], tricks: tuple[int, int], marriages: tuple[int, int] = (0, 0),
             point: str = "D", rules: Rules = Rules(), drawn: int = 6, **kw: Any) -> Outcome:
    """A claim by ``seat`` in an unclosed deal with the given counts; returns the Outcome."""
    s = position("AC KC 9C 9D JD QD", "AH KH 9H TD JH QH", trump_card="KS", drawn=drawn,
                 tricks=tricks, card_points=card_points, marriages=marriages, point=point,
                 to_act=seat, leader=seat, rules=rules, **kw)
    assert "claim" in legal(s)
    return outcome(apply(s, "claim"))


def test_T51_claim_grade1() -> None:
    """T51 (66-11.1, 66-13.1 row 1, grade): A 66 claims, B 33 (2 tricks) -> A scores 1."""
    o = claim_at(A, (66, 33), (4, 2))
    assert (o.winner, o.game_points, o.row) == (A, 1, 1)


def test_T52_claim_schneider() -> None:
    """T52 (66-13.1 row 1, grade): A 66, B 32 (2 tricks) -> A scores 2."""
    o = claim_at(A, (66, 32), (4, 2))
    assert (o.winner, o.game_points, o.row) == (A, 2, 1)


def test_T53_zero_point_trick_is_not_schwarz() -> None:
    """T53 (66-1.2 Schwarz, grade): A 66, B 0 points but 1 trick -> A scores 2 (not 3)."""
    o = claim_at(A, (66, 0), (4, 1))
    assert (o.winner, o.game_points) == (A, 2)


def test_T54_schwarz() -> None:
    """T54 (grade): A 66+, B no tricks -> A scores 3."""
    o = claim_at(A, (70, 0), (5, 0))
    assert (o.winner, o.game_points) == (A, 3)


def test_T55_marriage_then_claim() -> None:
    """T55 (66-9.7, 66-11.2): A 48 card points (4 tricks) declares MARRIAGE(H) (-> 68) and claims before
    leading; B 35 -> A scores 1."""
    s = position("KH QH AC 9C JD TD", "AH 9H KC QC 9D AD", trump_card="KS", drawn=8,
                 tricks=(4, 1), card_points=(48, 35), point="L", to_act=A, leader=A)
    assert counted_points(s, A) == 48
    s = apply(s, "marry:H")
    assert counted_points(s, A) == 68
    assert "claim" in legal(s)
    o = outcome(apply(s, "claim"))
    assert (o.winner, o.game_points, o.row) == (A, 1, 1)


def test_T56_loser_marriage_counts_toward_33() -> None:
    """T56 (66-13.1 grade, D24): A 70 claims; B 14 card points in 1 trick + 20 declared = 34 -> A scores 1."""
    o = claim_at(A, (70, 14), (5, 1), marriages=(0, 20))
    assert (o.winner, o.game_points) == (A, 1)
    # control: without the marriage B would be schneider
    o = claim_at(A, (70, 14), (5, 1))
    assert (o.winner, o.game_points) == (A, 2)


def test_T57_false_claim() -> None:
    """T57 (66-13.1 row 5): A claims with 60 (B 40, 2 tricks) -> B scores 2."""
    o = claim_at(A, (60, 40), (3, 2))
    assert (o.winner, o.game_points, o.row) == (B, 2, 5)
    # boundary (66-11.1): 65 is not enough, 66 is
    o = claim_at(A, (65, 40), (3, 2))
    assert (o.winner, o.game_points, o.row) == (B, 2, 5)
    o = claim_at(A, (66, 40), (3, 2))
    assert (o.winner, o.game_points, o.row) == (A, 1, 1)


def test_T58_false_claim_opponent_trickless() -> None:
    """T58 (66-13.1 row 5, false_claim_points): A claims with 60, B no tricks -> B 2; 3 with two_or_three."""
    o = claim_at(A, (60, 0), (4, 0))
    assert (o.winner, o.game_points, o.row) == (B, 2, 5)
    o = claim_at(A, (60, 0), (4, 0), rules=Rules.parse(["false_claim_points=two_or_three"]))
    assert (o.winner, o.game_points, o.row) == (B, 3, 5)


def test_T59_no_claim_when_not_on_lead() -> None:
    """T59 (66-11.2): A has 70 but B is on lead -> A has no legal CLAIM until he wins a trick."""
    s = position("AC 9C TD", "KC JD 9H", trump_card="KS", drawn=12, tricks=(5, 4),
                 card_points=(70, 30), point="L", to_act=B, leader=B)
    assert s.to_act == B
    s = apply(s, "KC")
    assert s.point == "F" and s.to_act == A
    assert "claim" not in legal(s)
    with pytest.raises(IllegalAction):
        apply(s, "claim")
    s = apply(s, "AC")  # A wins the trick
    assert s.to_act == A and "claim" in legal(s)
    o = outcome(apply(s, "claim"))
    assert (o.winner, o.row) == (A, 1)


def test_T60_opponent_claims_first() -> None:
    """T60 (66-11.3): A reached 67 and led trick 9 without claiming; B wins trick 9 reaching 66
    (46 card points + 20 marriage) and claims -> B scores 1; A's 67 is irrelevant."""
    s = position("9C AD TD JD", "AC KC QH 9H", trump_card="KS", drawn=12, tricks=(5, 3),
                 card_points=(67, 35), marriages=(0, 20), point="L", to_act=A, leader=A)
    assert counted_points(s, A) == 67 and "claim" in legal(s)
    s = play(s, "9C")
    assert "AC" in legal(s)
    s = apply(s, "AC")
    assert s.to_act == B and counted_points(s, B) == 66
    assert s.point == "L"  # exhausted: no point D
    o = outcome(apply(s, "claim"))
    assert (o.winner, o.game_points, o.row) == (B, 1, 1)


def last_trick_position(a_card: str, b_card: str, card_points: tuple[int, int], tricks: tuple[int, int],
                        marriages: tuple[int, int] = (0, 0), rules: Rules = Rules()) -> State:
    """Unclosed, talon exhausted, one card each, A to lead the 12th trick."""
    return position(a_card, b_card, trump_card="KS", drawn=12, tricks=tricks, card_points=card_points,
                    marriages=marriages, point="L", to_act=A, leader=A, rules=rules)


def test_T61_claim_at_point_E() -> None:
    """T61 (66-12.2, 66-12.3, 66-13.1 row 1): A wins trick 12, 60 card points + 10 = 70, B 60; A claims at E
    -> A scores 1."""
    s = last_trick_position("AC", "9C", (49, 60), (6, 5))
    s = play(s, "AC", "9C")
    assert s.point == "E" and s.to_act == A
    assert legal(s) == {"claim", "finish"}
    assert s.card_points == (60, 60)
    assert counted_points(s, A) == 70 and s.bonus_to == A
    o = outcome(apply(s, "claim"))
    assert (o.winner, o.game_points, o.row) == (A, 1, 1)


def test_T62_played_out_tie() -> None:
    """T62 (66-13.1 row 8, 66-12.2): played out, no claim: A 55 + 10 = 65, B 65 -> no game points."""
    s = last_trick_position("9C", "9D", (55, 65), (6, 5))
    s = play(s, "9C", "9D")  # B void in clubs, no trump: A wins a 0-point last trick
    assert s.to_act == A and s.point == "E"
    assert counted_points(s, A) == 65 and counted_points(s, B) == 65
    o = outcome(apply(s, "finish"))
    assert o.winner is None and o.game_points == 0 and o.row == 8


def test_T64_played_out_no_claim() -> None:
    """T64 (66-13.1 row 7, played_out_scoring, row 5): A 100 never claimed, B 20 + 10 = 30 finishes at E ->
    A scores 1; 2 with graded; a claim by B at E would be false -> A 2 (row 5)."""
    s = last_trick_position("9C", "JC", (100, 18), (8, 3))
    s = play(s, "9C", "JC")
    assert s.to_act == B and s.point == "E"
    assert counted_points(s, A) == 100 and counted_points(s, B) == 30
    o = outcome(apply(s, "finish"))
    assert (o.winner, o.game_points, o.row) == (A, 1, 7)
    o = outcome(apply(s, "claim"))
    assert (o.winner, o.game_points, o.row) == (A, 2, 5)
    g = outcome(play(last_trick_position("9C", "JC", (100, 18), (8, 3), rules=Rules(played_out_scoring="graded")),
                     "9C", "JC", "finish"))
    assert (g.winner, g.game_points, g.row) == (A, 2, 7)


def test_T65_unclosed_played_out_totals() -> None:
    """T65 (66-12.4): unclosed deal played out without marriages -> 120 card points, 130 counted, 12 tricks."""
    for seed in range(30):
        rng = random.Random(seed)
        s = deal(random_deck(rng))
        choose = random_policy(rng, claim66=False, marry=False)
        s = play_out(s, choose)
        assert s.closed_by == -1
        assert sum(s.card_points) == 120
        assert counted_points(s, 0) + counted_points(s, 1) == 130
        assert sum(s.tricks) == 12
        assert outcome(s).row in (7, 8)
        assert s.bonus_to in (0, 1)


# =========================================================================================
# 5.8 Closed-deal scoring
# =========================================================================================


def closed_by_a(b_tricks: int, b_points: int, rules: Rules = Rules()) -> State:
    """A (on lead, talon open, 4 in the talon) closes; B had ``b_tricks`` tricks and ``b_points`` points."""
    a_tricks = 1 if b_tricks < 3 else 2
    s = position("AC KC 9C 9D JD QD", "AH KH 9H TD JH QH", trump_card="KS", drawn=8,
                 tricks=(a_tricks, b_tricks), card_points=(30, b_points), point="L", to_act=A, leader=A,
                 rules=rules)
    s = apply(s, "close")
    assert s.closed_by == A and s.point == "L" and s.to_act == A
    assert bool(s.close_info[0]) == (b_tricks > 0)
    return s


def test_T66_closer_claims_schneider() -> None:
    """T66 (66-13.1 row 2): A closed (B had 1 trick); A claims with 70; B ends with 25 -> A scores 2."""
    s = closed_by_a(1, 20)
    s = s._replace(card_points=(70, 25), tricks=(4, 2))
    o = outcome(apply(s, "claim"))
    assert (o.winner, o.game_points, o.row) == (A, 2, 2)


def test_T67_closer_graded_at_claim() -> None:
    """T67 (66-13.1 row 2, closer_win_basis): A closed when B had 1 trick and 20; B reached 40 when A claims
    with 70 -> A scores 1; 2 with closer_win_basis = close."""
    s = closed_by_a(1, 20)
    o = outcome(apply(s._replace(card_points=(70, 40), tricks=(4, 2)), "claim"))
    assert (o.winner, o.game_points, o.row) == (A, 1, 2)
    s = closed_by_a(1, 20, rules=Rules.parse(["closer_win_basis=close"]))
    o = outcome(apply(s._replace(card_points=(70, 40), tricks=(4, 2)), "claim"))
    assert (o.winner, o.game_points, o.row) == (A, 2, 2)


def test_T68_closer_claims_schwarz() -> None:
    """T68 (66-13.1 row 2, 66-13.2): A closed; B never takes a trick; A claims with 70 -> A scores 3."""
    s = closed_by_a(0, 0)
    o = outcome(apply(s._replace(card_points=(70, 0), tricks=(5, 0)), "claim"))
    assert (o.winner, o.game_points, o.row) == (A, 3, 2)


def closed_final_trick(s: State, a_points: int, b_points: int, a_tricks: int, b_tricks: int, a_card: str = "AC",
                       b_card: str = "9C") -> State:
    """From a closed state, jump to the last trick (one card each, A to lead) and play it out without claim."""
    s = s._replace(hands=(m(a_card), m(b_card)), card_points=(a_points, b_points), tricks=(a_tricks, b_tricks))
    s = play(s, a_card, b_card)
    assert s.point == "E"
    assert s.bonus_to == -1  # 66-12.2: no bonus in a closed deal
    return apply(s, "finish")


def test_T69_closer_fails_opponent_had_trick() -> None:
    """T69 (66-13.1 row 6): A closed when B had >= 1 trick; all cards played, A ends with 60 -> B scores 2."""
    s = closed_final_trick(closed_by_a(1, 20), 49, 40, 5, 3)
    assert s.card_points[A] == 60
    o = outcome(s)
    assert (o.winner, o.game_points, o.row) == (B, 2, 6)


def test_T70_closer_fails_opponent_trickless_at_close() -> None:
    """T70 (66-13.1 row 6, 66-10.4): A closed when B had no trick (B wins tricks later); played out,
    A ends with 60 -> B scores 3."""
    s = closed_final_trick(closed_by_a(0, 0), 49, 40, 5, 3)
    assert s.tricks[B] > 0 and s.card_points[A] == 60
    o = outcome(s)
    assert (o.winner, o.game_points, o.row) == (B, 3, 6)


def test_T71_closer_must_claim() -> None:
    """T71 (66-13.2, row 6): A closed (B had a trick), reached 80 but never claimed; all played -> B scores 2."""
    s = closed_final_trick(closed_by_a(1, 20), 69, 25, 6, 2)
    assert counted_points(s, A) == 80
    o = outcome(s)
    assert (o.winner, o.game_points, o.row) == (B, 2, 6)


def test_T72_closer_false_claim() -> None:
    """T72 (66-13.1 row 4, closer_false_claim): A closed (B had 2 tricks); A claims with 62 -> B scores 2;
    3 if B had no trick at closing; flat 2 with closer_false_claim = flat2."""
    s = closed_by_a(2, 25)
    o = outcome(apply(s._replace(card_points=(62, 30)), "claim"))
    assert (o.winner, o.game_points, o.row) == (B, 2, 4)
    s = closed_by_a(0, 0)
    o = outcome(apply(s._replace(card_points=(62, 30), tricks=(5, 1)), "claim"))
    assert (o.winner, o.game_points, o.row) == (B, 3, 4)
    s = closed_by_a(0, 0, rules=Rules(closer_false_claim="flat2"))
    o = outcome(apply(s._replace(card_points=(62, 30), tricks=(5, 1)), "claim"))
    assert (o.winner, o.game_points, o.row) == (B, 2, 4)


def test_T73_beaten_closer() -> None:
    """T73 (66-13.1 row 3, 66-13.3, beaten_closer_points): A closed when B had no trick; B later claims validly
    with 70 -> B scores 2; 3 with beaten_closer_points = as_failed_close."""
    for rules, gp in ((Rules(), 2), (Rules.parse(["beaten_closer_points=as_failed_close"]), 3)):
        s = closed_by_a(0, 0, rules=rules)
        s = s._replace(card_points=(40, 70), tricks=(3, 3), to_act=B, leader=B)
        assert "claim" in legal(s)
        o = outcome(apply(s, "claim"))
        assert (o.winner, o.game_points, o.row) == (B, gp, 3)


def test_T74_false_claim_against_closer() -> None:
    """T74 (66-13.1 row 5): A closed; B claims with 60 (false) -> A scores 2."""
    s = closed_by_a(1, 20)
    s = s._replace(card_points=(50, 60), tricks=(3, 3), to_act=B, leader=B)
    o = outcome(apply(s, "claim"))
    assert (o.winner, o.game_points, o.row) == (A, 2, 5)


def test_T75_close_before_draw_played_out() -> None:
    """T75 (66-12.4, 66-12.2, 66-13.1 rows 2-6): T22 closed before the draw and played to the end ->
    captured points = 120 - talon points; no bonus; outcome by rows 2-6 only."""
    talon_points = sum(RANK_POINTS[c[0]] for c in "AS TS JS KD QD AD 9C QC TC 9S JH KS".split())
    rows_seen: set[int | str] = set()
    for seed in range(40):
        rng = random.Random(seed)
        s = play(deal(T22_DECK), "AH", "9H", "close")
        claim_ok = seed % 2 == 1
        while not s.over:
            acts = legal_actions(s)
            if s.point == "E":
                a = "claim" if (claim_ok and rng.random() < 0.5) else "finish"
            else:
                choices = [x for x in acts if x != "claim"]
                if claim_ok and "claim" in acts and rng.random() < 0.3:
                    a = "claim"
                else:
                    a = rng.choice(choices)
            s = apply(s, a)
        assert s.bonus_to == -1
        assert 2 <= outcome(s).row <= 6
        assert s.talon_size == 12  # the closed talon keeps all its cards
        if s.hands == (0, 0):  # played to the end: 1 + 5 tricks, talon points never captured
            rows_seen.add("played out")
            assert sum(s.tricks) == 6
            assert sum(s.card_points) == 120 - talon_points == 60
        assert sum(s.card_points) <= 120 - talon_points
        if outcome(s).row == 6:  # B had no trick when A closed after trick 1
            assert (outcome(s).winner, outcome(s).game_points) == (B, 3)
        rows_seen.add(outcome(s).row)
    assert {"played out", 6} <= rows_seen and rows_seen & {2, 3, 4, 5}


# =========================================================================================
# 5.9 Match (harness.games.sixtysix.match)
# =========================================================================================


def _win(seat: int, gp: int = 1) -> Outcome:
    return Outcome(seat, gp, 1, "valid claim")


TIE = Outcome(None, 0, 8, "tie")


def test_T76_winner_deals_next() -> None:
    """T76 (66-3.3, 66-4.5): dealer_rotation = winner: B (the dealer) wins a deal -> B deals next, A leads."""
    from harness.games.sixtysix.match import match_to_act, next_match, player_of, start_match

    for first_dealer in (0, 1):
        mt = start_match(11, Rules(), first_dealer)
        assert mt.dealer == first_dealer
        dealer_player = player_of(mt, 1)
        a_player = player_of(mt, 0)
        assert dealer_player == first_dealer and a_player == 1 - first_dealer
        assert match_to_act(mt) == a_player  # non-dealer leads
        # B (the dealer, seat 1) wins the deal
        m2 = next_match(mt, _win(1, 2))
        assert m2.dealer == dealer_player
        assert player_of(m2, 1) == dealer_player and player_of(m2, 0) == a_player
        assert match_to_act(m2) == a_player
        assert m2.scores[dealer_player] == 2 and m2.scores[a_player] == 0
        assert m2.winner is None
        # now A (non-dealer) wins -> A deals the next deal
        m3 = next_match(m2, _win(0, 1))
        assert m3.dealer == a_player
        assert match_to_act(m3) == dealer_player
        assert m3.scores[a_player] == 1


def test_T76_winner_deals_next_by_play() -> None:
    """T76 (66-3.3, 66-14.2): playing a deal through match_apply, the player who scored deals the next deal."""
    from harness.games.sixtysix.match import match_apply, match_legal, match_to_act, player_of, start_match

    for seed in range(5):
        mt = start_match(seed, Rules())
        rng = random.Random(seed)
        deal_no = mt.deal_no
        players = [player_of(mt, 0), player_of(mt, 1)]
        assert match_to_act(mt) == players[0]
        last = mt
        while mt.deal_no == deal_no and mt.winner is None:
            acts = match_legal(mt)
            assert sorted(acts) == sorted(legal_actions(mt.state))
            last = mt
            mt = match_apply(mt, rng.choice(acts))
        res_scores = [mt.scores[p] - last.scores[p] for p in (0, 1)]
        if sum(res_scores) > 0:
            winner_player = 0 if res_scores[0] > 0 else 1
            assert mt.dealer == winner_player
            assert player_of(mt, 1) == winner_player
        else:
            assert mt.dealer == last.dealer


def test_T77_alternate_rotation() -> None:
    """T77 (66-3.3, 66-3.4): dealer_rotation = alternate -> the dealer alternates regardless of the winner."""
    from harness.games.sixtysix.match import next_match, start_match

    rules = Rules.parse(["dealer_rotation=alternate"])
    mt = start_match(3, rules, 0)
    dealers = [mt.dealer]
    for outcome in (_win(1), _win(1), TIE, _win(0), _win(1)):
        mt = next_match(mt, outcome)
        dealers.append(mt.dealer)
    assert dealers == [0, 1, 0, 1, 0, 1]


def test_T78_match_ends_at_seven() -> None:
    """T78 (66-3.1, 66-14.1): A has 5 game points and wins 2 -> 7, match over, A wins."""
    from harness.games.sixtysix.match import match_legal, match_to_act, next_match, player_of, start_match

    mt = start_match(5, Rules(), 1)
    a_player = player_of(mt, 0)
    scores = [0, 0]
    scores[a_player] = 5
    scores[1 - a_player] = 4
    mt = dataclasses.replace(mt, scores=(scores[0], scores[1]))
    m2 = next_match(mt, _win(0, 2))
    assert m2.scores[a_player] == 7 and m2.scores[1 - a_player] == 4
    assert m2.winner == a_player
    assert match_to_act(m2) is None
    assert match_legal(m2) == []
    # control: winning 1 leaves the match running
    m3 = next_match(mt, _win(0, 1))
    assert m3.scores[a_player] == 6 and m3.winner is None


def test_T79_tie_changes_nothing() -> None:
    """T79 (66-13.1 row 8, 66-3.4): A has 6 and the deal is a tie -> no change, same dealer, match continues."""
    from harness.games.sixtysix.match import next_match, player_of, start_match

    mt = start_match(9, Rules(), 0)
    a_player = player_of(mt, 0)
    scores = [0, 0]
    scores[a_player] = 6
    scores[1 - a_player] = 3
    mt = dataclasses.replace(mt, scores=(scores[0], scores[1]))
    m2 = next_match(mt, TIE)
    assert m2.scores == mt.scores
    assert m2.dealer == mt.dealer
    assert m2.winner is None
    assert m2.deal_no == mt.deal_no + 1
    assert m2.state is not None and not m2.state.over


def test_T62_tie_same_dealer_deals_next() -> None:
    """T62 (66-3.4): after a tied deal the same dealer deals again (winner rotation)."""
    from harness.games.sixtysix.match import next_match, start_match

    for fd in (0, 1):
        mt = start_match(1, Rules(), fd)
        assert next_match(mt, TIE).dealer == fd


def test_T63_tie_carry_over() -> None:
    """T63 (66-13.1 row 8, 66-13.4, tie_carry_over): the next deal's winner gets its game points + 1."""
    from harness.games.sixtysix.match import next_match, player_of, start_match

    rules = Rules.parse(["tie_carry_over=true"])
    mt = start_match(2, rules, 0)
    m1 = next_match(mt, TIE)
    assert m1.scores == (0, 0) and m1.carry == 1
    p = player_of(m1, 0)
    m2 = next_match(m1, _win(0, 2))
    assert m2.scores[p] == 3 and m2.scores[1 - p] == 0 and m2.carry == 0
    # two ties accumulate (66-13.4)
    m3 = next_match(next_match(next_match(mt, TIE), TIE), _win(1, 1))
    assert sum(m3.scores) == 3
    # default: no carry
    d1 = next_match(next_match(start_match(2, Rules(), 0), TIE), _win(0, 2))
    assert sum(d1.scores) == 2
