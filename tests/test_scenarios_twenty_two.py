"""RULES-SPEC section 6: the Twenty-Two conformance scenarios U01-U16 (and 4.9's worked examples),
each test citing its ID. Deals are built through the rules tools' entry point (``GAME.position``:
a deck top first, dealt one card at a time, seat i gets d[i], d[i+N], ...); match-level scenarios
through the match functions.
"""

from __future__ import annotations

import pytest

from harness.games.base import IllegalAction
from harness.games.twenty_two import GAME
from harness.games.twenty_two.engine import State, apply, deal, legal_actions, summary
from harness.games.twenty_two.match import Match, match_apply, ranks
from harness.games.twenty_two.options import Rules


def deck_of(hands: list[str], stock: str = "") -> str:
    """The deck that deals ``hands`` (one string of cards per seat, equal lengths) and then ``stock``."""
    split = [h.split() for h in hands]
    k = len(split[0])
    assert all(len(h) == k for h in split)
    return " ".join([split[i % len(split)][i // len(split)] for i in range(k * len(split))] + stock.split())


def position(hands: list[str], actions: str = "", stock: str = "", **rules: object) -> State:
    return GAME.position(deck_of(hands, stock), actions.split(), GAME.rules({"players": len(hands), **rules}))


def rank_set(legal: list[str]) -> set[tuple[str, ...]]:
    """Legal plays by rank only (suits are irrelevant, 22-1.2)."""
    return {tuple(sorted(c[0] for c in a.split("+"))) for a in legal}


# -- tricks and legal follows ------------------------------------------------------------------


U01_HANDS = ["7C 3C 4C 5C 6C 9C 3D", "2C 4D 5D 6D 7D 8D 9D", "TC 3H 4H 5H 6H 7H 9H",
             "TD JC QC JD QD AD 3S", "KC AC KH AH QH JH TH", "QS JS 8S 8H 6S 5S 2S"]


def test_U01_single_card_lead_example_1() -> None:
    """U01 (4.9 Example 1): lead 7; 2; 10; 10; K; player 6 (Q J 8 8 6 5 2) may only play his 2; player 5 wins."""
    s = position(U01_HANDS, "7C 2C TC TD KC")
    assert s.point == "F" and s.to_act == 5
    assert legal_actions(s) == ["2S"]
    s = apply(s, "2S")
    assert s.tricks[-1][2] == 4 and s.to_act == 4 and s.point == "L"


U02_HANDS = ["6C 6D 6H 8D 8H 9D 9H", "TC 9C 7C AH AS 4H 4S", "JC TD 7D AC AD QH QS",
             "KC QC TH JD JH 4C 4D", "2C 2D 3C 5C 5D 7H 7S", "KD KH 8C 6S 6C 5H 3D"]


def test_U02_three_card_set_example_2() -> None:
    """U02 (4.9 Example 2, two packs: five sixes): bar after player 5 = [K, Q, 10]; player 6 must play 3 5 6;
    player 4 wins."""
    s = position(U02_HANDS, "6C+6D+6H 7C+9C+TC 7D+JC+TD KC+QC+TH 2C+2D+3C", decks=2)
    assert s.to_act == 5
    assert s.bar == (11, 10, 8)  # K Q T
    legal = legal_actions(s)
    assert rank_set(legal) == {("3", "5", "6")}
    assert legal == ["3D+5H+6C", "3D+5H+6S"]  # either six: any card of the boundary rank (22-6.4)
    s = apply(s, legal[0])
    assert s.tricks[-1][2] == 3 and s.to_act == 3


def test_U02_needs_two_packs() -> None:
    """U02 holds five sixes: with one pack the deck is refused (7.4)."""
    with pytest.raises(ValueError, match="6C"):
        position(U02_HANDS)


def test_U03_equal_higher_or_lowest() -> None:
    """U03: single lead 8, then 9; a follower with A 9 4 3 may play 9, A or 3."""
    s = position(["8C 2C 5C 6C", "9C 2D 5D 6D", "AS 9S 4S 3S"], "8C 9C")
    assert legal_actions(s) == ["3S", "9S", "AS"]


def test_U04_mixed_ranks_or_lowest() -> None:
    """U04: pair lead 5 5; a follower with 9 6 3 2 may play 9 6 (mixed ranks) or 3 2 (lowest)."""
    s = position(["5C 5D 7C 8C", "9S 6S 3S 2S"], "5C+5D")
    assert legal_actions(s) == ["2S+3S", "6S+9S"]


def test_U05_bar_is_positionwise() -> None:
    """U05: pair lead 8 8; next plays K 8; next holds Q Q 2: bar [K, 8]; only Q 2; the K player wins."""
    s = position(["8C 8D 4C", "KS 8S 3S", "QH QD 2H"], "8C+8D 8S+KS")
    assert s.bar == (11, 6)
    assert rank_set(legal_actions(s)) == {("2", "Q")}
    s = apply(s, "2H+QD")
    assert s.tricks[-1][2] == 1


def test_U06_default_bar_and_winner() -> None:
    """U06 default: lead 9 9; player 2 (K 5 A) plays 5 K; bar [K, 9]; player 3 (T T 2) must play T 2;
    player 2 wins."""
    s = position(["9C 9D 3C", "KS 5S AS", "TH TD 2H"], "9C+9D 5S+KS")
    assert s.bar == (11, 7)
    assert rank_set(legal_actions(s)) == {("2", "T")}
    with pytest.raises(IllegalAction):
        apply(s, "TD+TH")
    s = apply(s, "2H+TD")
    assert s.tricks[-1][2] == 1


def test_U06_last_meeting_set_options() -> None:
    """U06 with set_bar = set_trick_winner = last_meeting_set (22-6.5, 22-7.1): player 3 may play T T and wins."""
    s = position(["9C 9D 3C", "KS 5S AS", "TH TD 2H"], "9C+9D 5S+KS",
                 set_bar="last_meeting_set", set_trick_winner="last_meeting_set")
    assert s.bar == (7, 7)
    assert "TD+TH" in legal_actions(s)
    s = apply(s, "TD+TH")
    assert s.tricks[-1][2] == 2


def test_U07_ties_go_to_the_later_player() -> None:
    """U07: pair lead 9 9; player 2 plays his lowest pair 9 2 and wins (ties to the later player)."""
    s = position(["9C 9D 5C", "9S 2S AS"], "9C+9D")
    assert "2S+9S" in legal_actions(s)
    s = apply(s, "2S+9S")
    assert s.tricks[-1][2] == 1


def test_U08_second_king_wins() -> None:
    """U08: singles 9, K, 3, K: the second K (4th player) wins and leads."""
    s = position(["9C 2C 3C", "KC 2D 3D", "3H 4H 5H", "KD 2S 3S"], "9C KC 3H KD")
    assert s.tricks[-1][2] == 3 and s.to_act == 3 and s.point == "L"


def test_U09_a_set_leaves_a_card() -> None:
    """U09 (22-5.3): holding 10 10 10 the leader may lead one or two 10s, not three."""
    s = position(["TC TD TH", "2C 3C 4C"])
    legal = legal_actions(s)
    assert rank_set(legal) == {("T",), ("T", "T")}
    assert "TC+TD+TH" not in legal
    with pytest.raises(IllegalAction):
        apply(s, "TC+TD+TH")


# -- the reveal and the match ------------------------------------------------------------------


def match_at(rules: Rules, totals: tuple[int, ...], cards: list[str], dealer: int, deal_no: int = 2,
             kept: tuple[tuple[str, ...], ...] | None = None, out: tuple[int, ...] | None = None) -> Match:
    """A match whose current deal gives one card each (``cards``, by seat) with one card in the
    stock, so that each seat's ``done`` leads to the reveal (22-7.2)."""
    p = rules.players
    out = out or (0,) * p
    seats = tuple(q for q in ((dealer + i) % p for i in range(1, p + 1)) if not out[q])
    assert len(seats) == len(cards)
    state = deal(tuple(cards) + ("2S",), len(seats), 1, rules)
    return Match(rules, 5, totals, kept or ((),) * p, out, dealer, seats, deal_no, state, (), False)


def reveal(m: Match) -> Match:
    for _ in m.seats:
        m = match_apply(m, "done")
    return m


def test_U10_ties_all_lose_and_draw_for_the_deal() -> None:
    """U10: reveal P1 K, P2 K, P3 9: P1 and P2 lose 10 each; the next deal has 10 cards each; P1 or P2 deals."""
    s = position(["KC", "KD", "9H"])  # one card each, no stock: over at once (7.4)
    assert summary(s)["losers"] == [0, 1] and summary(s)["penalty"] == 10 and s.point == "over"
    rules = Rules(players=3)
    dealers = set()
    for seed in range(12):
        m = match_at(rules, (0, 0, 0), ["KC", "KD", "9H"], dealer=2)._replace(seed=seed)
        m = reveal(m)
        assert m.totals == (10, 10, 0)
        assert m.state.size == 10 and m.deal_no == 3
        assert m.dealer in (0, 1)
        dealers.add(m.dealer)
    assert dealers == {0, 1}  # a seeded draw between the two losers (22-8.2)


@pytest.mark.parametrize("total, card, after, eliminated", [(15, "7C", 22, True), (12, "9C", 21, False),
                                                            (11, "AC", 22, True)])
def test_U11_twenty_two_or_more_eliminates(total: int, card: str, after: int, eliminated: bool) -> None:
    """U11: 15 + 7 = 22 (out); 12 + 9 = 21 (survives); 11 + A = 22 (out)."""
    rules = Rules(players=3)
    m = reveal(match_at(rules, (total, 0, 0), [card, "2C", "3C"], dealer=2))
    assert m.totals[0] == after
    assert (m.out[0] != 0) is eliminated
    assert m.results[-1].eliminated == ((0,) if eliminated else ())
    assert (0 in GAME.observe(m, 1).eliminated) is eliminated


def test_U12_a_two_gives_one_trick_then_the_reveal() -> None:
    """U12: a deal lost with a 2 gives 2 cards each: one trick, then the reveal."""
    rules = Rules(players=3)
    m = reveal(match_at(rules, (0, 0, 0), ["2C", "2D", "2H"], dealer=2))  # everyone loses with a 2
    assert m.totals == (2, 2, 2) and m.state.size == 2
    s = m.state
    while s.point == "X":
        s = apply(s, "done")
    assert s.point == "L"
    while s.point != "over":
        s = apply(s, legal_actions(s)[0])
    assert len(s.tricks) == 1 and s.losers


def test_U13_kept_penalty_card_is_out_of_the_pack() -> None:
    """U13 (22-3.4, 22-3.5): 6 players, first deal lost with a Q: 51 cards left, 8 each, stock 3."""
    rules = Rules(players=6)
    m = reveal(match_at(rules, (0,) * 6, ["QC", "2C", "3C", "4C", "5C", "6C"], dealer=5, deal_no=1))
    assert m.totals[0] == 10 and m.kept[0] == ("QC",)
    assert len(m.state.deck) == 51 and "QC" not in m.state.deck
    assert m.state.size == 8 and len(m.state.stock) == 3
    # remove_penalty_cards = false: the queen stays in the pack.
    m2 = reveal(match_at(Rules(players=6, remove_penalty_cards=False), (0,) * 6,
                         ["QC", "2C", "3C", "4C", "5C", "6C"], dealer=5, deal_no=1))
    assert len(m2.state.deck) == 52 and m2.state.size == 8 and len(m2.state.stock) == 4


FULL = [r + s for s in "CDHS" for r in "23456789TJQKA"]


def test_U14_discards_are_limited_by_the_stock() -> None:
    """U14 (22-4.2): 6 players, 7 each, stock 10: P1 discards 7 and draws 7 (stock 3); P2 may discard at
    most 3; after 3, P3-P6 cannot exchange."""
    s = GAME.position(" ".join(FULL), [], GAME.rules({"players": 6}))
    assert len(s.stock) == 10 and all(len(h) == 7 for h in s.hands)
    for c in s.hands[0]:
        s = apply(s, "discard:" + c)
    assert summary(s)["hand_sizes"] == [0, 7, 7, 7, 7, 7] and summary(s)["stock"] == 10
    s = apply(s, "done")
    assert len(s.hands[0]) == 7 and len(s.stock) == 3 and s.to_act == 1
    hand = s.hands[1]
    for c in hand[:3]:
        assert any(a.startswith("discard:") for a in legal_actions(s))
        s = apply(s, "discard:" + c)
    assert legal_actions(s) == ["done"]  # a fourth discard would exceed the stock
    with pytest.raises(IllegalAction):
        apply(s, "discard:" + hand[3])
    s = apply(s, "done")
    assert len(s.stock) == 0 and s.point == "L" and s.to_act == 0  # P3-P6 skipped


def test_U15_all_eliminated_lowest_total_wins() -> None:
    """U15 (22-8.4): survivors at 20 and 15 both reveal a Q: 30 and 25, both out; the 25 player wins."""
    rules = Rules(players=3)
    out = (1, 0, 0)
    m = reveal(match_at(rules, (22, 20, 15), ["QC", "QD"], dealer=2, out=out))
    assert m.totals == (22, 30, 25) and m.over
    assert ranks(m) == (2, 1, 0)
    assert GAME.outcome(m) is not None and GAME.outcome(m).winners == (2,)  # type: ignore[union-attr]
    nw = reveal(match_at(Rules(players=3, all_eliminated="no_winner"), (22, 20, 15), ["QC", "QD"], dealer=2, out=out))
    assert ranks(nw) == (2, 0, 0)  # no winner: the two share the top place, the earlier out is last


def test_U16_eight_players_two_packs() -> None:
    """U16 (22-1.1): 8 players use 104 cards; 7 each (56 dealt, stock 48); sets of up to 8 may be led."""
    rules = GAME.rules({"players": 8})
    assert rules.decks == 2
    m = GAME.start(1, rules)
    assert len(m.state.deck) == 104 and m.state.size == 7 and len(m.state.stock) == 48
    sevens = ["7C", "7D", "7H", "7S"] * 2
    pool = [c for c in FULL * 2 if c[0] != "7" and c != "2C"]
    hands = [" ".join(sevens + ["2C"])] + [" ".join(pool[9 * i: 9 * i + 9]) for i in range(7)]
    s = position(hands, hand=9)
    while s.point == "X":
        s = apply(s, "done")
    assert "7C+7C+7D+7D+7H+7H+7S+7S" in legal_actions(s)
