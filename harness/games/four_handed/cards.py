"""Cards of four-handed partnership Sixty-Six: the 32-card pack (4H-2; ranks ``7 8 9 J Q K T A``)
and its 24-card subset (ranks ``9 J Q K T A``), as small ints and as 32-bit masks.

A card is ``4 * r + s`` where ``r`` indexes :data:`RANK_ORDER` (the rank letters in *string* order,
``7 8 9 A J K Q T``) and ``s`` indexes ``C D H S``. So the ascending card order is exactly the
``sorted()`` order of the notation strings (RULES-SPEC section 7): a legal set, walked bit by bit
from the lowest, is already sorted. Strength within a suit is separate (:data:`STRENGTH`).

>>> parse_card("TH"), CARD_STR[parse_card("TH")], POINTS[parse_card("TH")]
(30, 'TH', 10)
>>> cards_of(mask_of([parse_card("AS"), parse_card("7C"), parse_card("TD")]))
('7C', 'AS', 'TD')
>>> [CARD_STR[c] for c in sorted(PACK24, key=lambda c: (SUIT_OF[c], STRENGTH[c]))][:6]
['9C', 'JC', 'QC', 'KC', 'TC', 'AC']
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "CDHS"
RANK_ORDER = "789AJKQT"  # rank letters in string (ASCII) order: the card index order
STRENGTH_ORDER = "789JQKTA"  # 4H-2 / 66-1.2: weakest first; 7 and 8 below the nine
RANK_POINTS = {"7": 0, "8": 0, "9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}  # 66-1.3, 4H-2

CARDS: tuple[int, ...] = tuple(range(32))
CARD_STR: tuple[str, ...] = tuple(RANK_ORDER[c // 4] + SUITS[c % 4] for c in CARDS)
CARD_INDEX: dict[str, int] = {s: i for i, s in enumerate(CARD_STR)}
SUIT_OF: tuple[int, ...] = tuple(c % 4 for c in CARDS)
STRENGTH: tuple[int, ...] = tuple(STRENGTH_ORDER.index(RANK_ORDER[c // 4]) for c in CARDS)
POINTS: tuple[int, ...] = tuple(RANK_POINTS[RANK_ORDER[c // 4]] for c in CARDS)
SUIT_MASK: tuple[int, ...] = tuple(sum(1 << c for c in CARDS if c % 4 == s) for s in range(4))
# Cards of the same suit that are stronger than the card: what beats it within its suit.
ABOVE: tuple[int, ...] = tuple(sum(1 << d for d in CARDS if d % 4 == c % 4 and STRENGTH[d] > STRENGTH[c])
                               for c in CARDS)

PACK32: tuple[int, ...] = CARDS  # 4H-2: 8 cards each
PACK24: tuple[int, ...] = tuple(c for c in CARDS if CARD_STR[c][0] not in "78")  # 4H-2: 6 cards each
PACKS: dict[int, tuple[int, ...]] = {32: PACK32, 24: PACK24}

# Notation of every subset of one byte of the mask, so a mask turns into its sorted strings in 4 lookups.
_BYTE_STRS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple(CARD_STR[8 * q + i] for i in range(8) if b >> i & 1) for b in range(256)) for q in range(4))


def parse_card(text: str) -> int:
    """The card named ``text``; ValueError names a bad token."""
    try:
        return CARD_INDEX[text]
    except KeyError:
        raise ValueError(f"{text!r} is not a card (rank 7 8 9 J Q K T A, then suit C D H S)") from None


def parse_deck(text: str, pack: int) -> list[int]:
    """A deck written as the ``pack``-card pack's cards, each once, top first (4H-2); ValueError names
    a bad token in one line.

    >>> parse_deck("7C 7C", 32)
    Traceback (most recent call last):
    ...
    ValueError: '7C' (card 2) appears twice
    """
    cards: list[int] = []
    for i, t in enumerate(text.split(), 1):
        c = CARD_INDEX.get(t)
        if c is None or c not in PACKS[pack]:
            raise ValueError(f"{t!r} (card {i}) is not a card of the {pack}-card pack")
        if c in cards:
            raise ValueError(f"{t!r} (card {i}) appears twice")
        cards.append(c)
    if len(cards) != pack:
        raise ValueError(f"{len(cards)} cards, expected {pack} (pack={pack})")
    return cards


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> tuple[str, ...]:
    """The cards of a mask as notation, in ``sorted()`` order."""
    t0, t1, t2, t3 = _BYTE_STRS
    return t0[mask & 255] + t1[mask >> 8 & 255] + t2[mask >> 16 & 255] + t3[mask >> 24 & 255]


def ints_of(mask: int) -> list[int]:
    """The cards of a mask as ints, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
