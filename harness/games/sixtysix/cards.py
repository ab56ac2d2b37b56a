"""Cards as small ints, and the notation that names them.

A card is ``suit * 6 + rank`` with ranks ordered by strength (9 J Q K T A = 0..5)
and suits C D H S = 0..3.  A set of cards is a 24-bit mask (bit ``card``).

>>> parse_card("TH")
16
>>> card_str(16), POINTS[16]
('TH', 10)
>>> cards_of(mask_of([parse_card("AS"), parse_card("9C")]))
['9C', 'AS']
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "9JQKTA"  # 66-1.2, weakest first
SUITS = "CDHS"
RANK_POINTS = (0, 2, 3, 4, 10, 11)  # 66-1.3
NINE, JACK, QUEEN, KING, TEN, ACE = range(6)

DECK: tuple[int, ...] = tuple(range(24))
CARD_STR: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CARD_INDEX: dict[str, int] = {s: i for i, s in enumerate(CARD_STR)}
SUIT_OF: tuple[int, ...] = tuple(c // 6 for c in DECK)
RANK_OF: tuple[int, ...] = tuple(c % 6 for c in DECK)
POINTS: tuple[int, ...] = tuple(RANK_POINTS[c % 6] for c in DECK)
SUIT_MASK: tuple[int, ...] = tuple(63 << (6 * s) for s in range(4))
FULL_MASK = (1 << 24) - 1


def parse_card(text: str) -> int:
    """The card named ``text`` (e.g. ``"TH"``); ValueError names a bad token."""
    try:
        return CARD_INDEX[text]
    except KeyError:
        raise ValueError(f"{text!r} is not a card (rank 9 J Q K T A, then suit C D H S)") from None


def card_str(card: int) -> str:
    return CARD_STR[card]


def suit_index(text: str) -> int:
    """The suit named by one letter ``C D H S``."""
    i = SUITS.find(text) if len(text) == 1 else -1
    if i < 0:
        raise ValueError(f"{text!r} is not a suit (C D H S)")
    return i


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# Per-suit lookup: the cards present in a 6-bit slice, weakest first.
_SLICE: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(6 * s + r for r in range(6) if bits >> r & 1) for bits in range(64)) for s in range(4)
)


def cards_in(mask: int) -> list[int]:
    """The cards of a mask in card order (clubs first, weakest first within a suit)."""
    return [
        *_SLICE[0][mask & 63],
        *_SLICE[1][mask >> 6 & 63],
        *_SLICE[2][mask >> 12 & 63],
        *_SLICE[3][mask >> 18 & 63],
    ]


def cards_of(mask: int) -> list[str]:
    """The notation of every card in a mask, in plain string order."""
    return sorted(CARD_STR[c] for c in cards_in(mask))


def parse_deck(text: str) -> tuple[int, ...]:
    """A deck written as 24 distinct cards, top first (66-4.2).

    >>> len(parse_deck(" ".join(CARD_STR)))
    24
    """
    tokens = text.split()
    seen: set[int] = set()
    deck = []
    for tok in tokens:
        c = parse_card(tok)
        if c in seen:
            raise ValueError(f"card {tok!r} appears twice in the deck")
        seen.add(c)
        deck.append(c)
    if len(deck) != 24:
        raise ValueError(f"the deck has {len(deck)} cards, expected 24")
    return tuple(deck)


def deck_str(deck: Iterable[int]) -> str:
    return " ".join(CARD_STR[c] for c in deck)
