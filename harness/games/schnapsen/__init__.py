"""Schnapsen (RULES-SPEC section 3.1, 7.1): classic Sixty-Six with the 20-card pack (SCH-1, SCH-2)
and the Schnapsen column of Appendix A as its default rules. Every classic option is accepted.

>>> r = GAME.rules()
>>> r.exchange_rank, r.last_trick, r.dealer_rotation, len(GAME.start(1, r).state.deck)
('J', 'wins_deal', 'alternate', 20)
"""

from harness.games.sixtysix.cards import SCHNAPSEN
from harness.games.sixtysix.game import SixtySixFamily

PRESET = {
    "dealer_rotation": "alternate",  # SCH-3
    "close_before_draw": False,  # SCH-7
    "exchange_requires_trick": False,  # SCH-5
    "exchange_on_opponent_close": "none",  # SCH-6
    "exchange_rank": "J",  # SCH-5
    "marriage_in_phase2": True,  # SCH-8
    "last_trick": "wins_deal",  # SCH-9
    "false_claim_points": "two_or_three",  # SCH-11
    "beaten_closer_points": "as_failed_close",  # SCH-10
    "closer_win_basis": "close",  # SCH-10
}

GAME = SixtySixFamily("schnapsen", "Schnapsen", SCHNAPSEN, PRESET)

__all__ = ["GAME", "PRESET"]
