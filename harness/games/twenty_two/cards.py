"""Cards of Twenty-Two (RULES-SPEC 22-1): 52 cards, or 104 with two packs, ranks 2..A, suits irrelevant.

Cards are notation strings (``7H``, ``TS``); with two packs the same string may occur twice.

>>> RANK["2C"], RANK["AS"], VALUE["AS"], VALUE["KD"], VALUE["7H"]
(0, 12, 11, 10, 7)
>>> len(pack(1)), len(pack(2)), parse_deck("AH 2C AH", 2)
(52, 104, ('AH', '2C', 'AH'))
>>> parse_deck("AH 2C AH", 1)
Traceback (most recent call last):
...
ValueError: card 'AH' appears 2 times (1 pack)
"""

from __future__ import annotations

from collections import Counter

RANKS = "23456789TJQKA"  # 22-1.2, low to high
SUITS = "CDHS"
CARDS = tuple(r + s for s in SUITS for r in RANKS)
RANK = {c: RANKS.index(c[0]) for c in CARDS}  # card -> 0 (two) .. 12 (ace)
RANK_VALUE = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11)  # 22-1.3 by rank index
VALUE = {c: RANK_VALUE[RANK[c]] for c in CARDS}  # card -> penalty value


def pack(decks: int = 1) -> tuple[str, ...]:
    """The whole pack: ``decks`` copies of the 52 cards (22-1.1)."""
    return CARDS * decks


def parse_deck(text: str, decks: int = 1) -> tuple[str, ...]:
    """Cards written top first, separated by spaces; ValueError names a bad token or a card that
    appears more often than ``decks`` packs hold."""
    cards = tuple(text.split())
    for t in cards:
        if t not in RANK:
            raise ValueError(f"bad card {t!r}")
    for c, k in Counter(cards).items():
        if k > decks:
            raise ValueError(f"card {c!r} appears {k} times ({decks} pack{'s' if decks > 1 else ''})")
    return cards
