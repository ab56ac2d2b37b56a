"""Classic two-player Sixty-Six: cards, rule options, the deal engine, the match, and observe()."""

from .cards import CARD_STR, DECK, POINTS, card_str, cards_of, deck_str, parse_card, parse_deck
from .engine import (
    IllegalAction,
    Outcome,
    State,
    apply,
    counted_points,
    deal,
    follow_cards,
    legal_actions,
    perft,
    replay,
    summary,
)
from .options import Rules

__all__ = [
    "CARD_STR", "DECK", "POINTS", "IllegalAction", "Outcome", "Rules", "State", "apply", "card_str",
    "cards_of", "counted_points", "deal", "deck_str", "follow_cards", "legal_actions", "parse_card",
    "parse_deck", "perft", "replay", "summary",
]
