"""Cards as small ints, and the notation that names them.

A card is ``suit * 6 + rank`` with ranks ordered by strength (9 J Q K T A = 0..5)
and suits C D H S = 0..3.  A set of cards is a 24-bit mask (bit ``card``). Schnapsen plays
the same cards without the nines (SCH-1): its :data:`SCHNAPSEN` pack is a subset.

>>> parse_card("TH")
16
>>> card_str(16), POINTS[16]
('TH', 10)
>>> cards_of(mask_of([parse_card("AS"), parse_card("9C")]))
['9C', 'AS']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

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


def parse_card(text: str) -> int:
    """The card named ``text`` (e.g. ``"TH"``); ValueError names a bad token."""
    try:
        return CARD_INDEX[text]
    except KeyError:
        raise ValueError(f"{text!r} is not a card (rank 9 J Q K T A, then suit C D H S)") from None


def card_str(card: int) -> str:
    return CARD_STR[card]


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class Pack(NamedTuple):
    """The cards a game deals: its name (which also keys its shuffles) and the cards in card order."""

    name: str
    cards: tuple[int, ...]
    ranks: str  # the rank letters, weakest first


CLASSIC = Pack("sixtysix", DECK, RANKS)  # 66-1.1
SCHNAPSEN = Pack("schnapsen", tuple(c for c in DECK if c % 6 != NINE), RANKS[1:])  # SCH-1


def beats(led: int, card: int, trump: int) -> bool:
    """Whether ``card``, played to a trick led with ``led``, wins it (66-6.5): a higher card of the
    led suit, or a trump on a non-trump lead. The one trick rule of the Sixty-Six family.

    >>> beats(parse_card("KH"), parse_card("TH"), 0), beats(parse_card("AH"), parse_card("9C"), 0)
    (True, True)
    >>> beats(parse_card("9H"), parse_card("AS"), 0)
    False
    """
    if card // 6 == led // 6:
        return card > led
    return card // 6 == trump


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


def parse_deck(text: str, pack: Pack = CLASSIC) -> tuple[int, ...]:
    """A deck written as the pack's cards, each once, top first (66-4.2, SCH-2).

    >>> len(parse_deck(" ".join(CARD_STR))), len(parse_deck(" ".join(CARD_STR[c] for c in SCHNAPSEN.cards), SCHNAPSEN))
    (24, 20)
    """
    tokens = text.split()
    seen: set[int] = set()
    deck = []
    for tok in tokens:
        c = parse_card(tok)
        if c not in pack.cards:
            raise ValueError(f"{tok!r} is not a card of {pack.name} (ranks {' '.join(pack.ranks)})")
        if c in seen:
            raise ValueError(f"card {tok!r} appears twice in the deck")
        seen.add(c)
        deck.append(c)
    if len(deck) != len(pack.cards):
        raise ValueError(f"the deck has {len(deck)} cards, expected {len(pack.cards)}")
    return tuple(deck)


def deck_str(deck: Iterable[int]) -> str:
    return " ".join(CARD_STR[c] for c in deck)
