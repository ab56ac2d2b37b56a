"""The Sixty-Six engine's State: the field order the trick resolution relies on, and the decision-point enum."""

from __future__ import annotations

from harness.games.sixtysix.cards import parse_deck
from harness.games.sixtysix.engine import Point, State, apply, deal, legal_actions

DECK = parse_deck("AH TH KH 9H QS KC QH JC 9D AC TD JD KS AS TS JS KD QD AD 9C QC TC 9S JH")


def test_engine_fields_are_in_the_order_trick_builds_them() -> None:
    """engine._trick builds State positionally for speed; a reordered field must fail here."""
    assert State._fields == (
        "rules", "deck", "stock", "talon_n", "score", "hands", "drawn", "bottom", "trump", "closed_by",
        "close_info", "tricks", "card_points", "marriages", "bonus_to", "point", "to_act", "leader", "lead",
        "married", "turn", "history", "outcome",
    )
    s = apply(apply(deal(DECK), "AH"), "9H")  # 66-5.4: the leader wins with the ace and is at point D
    assert (s.point, s.to_act, s.leader, s.tricks, s.card_points, s.lead) == (Point.DRAW, 0, 0, (1, 0), (11, 0), -1)


def test_decision_points_are_an_enum_that_reads_as_the_spec_letters() -> None:
    s = deal(DECK)
    assert s.point is Point.LEAD and s.point == "L" and f"{s.point}" == "L"
    s = apply(s, "AH")
    assert s.point is Point.FOLLOW
    assert {p.value for p in Point} == {"L", "D", "R", "F", "E", "over"}
    assert "claim" in legal_actions(apply(s, "9H"))
