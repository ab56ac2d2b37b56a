"""The rule options of Twenty-Two (RULES-SPEC Appendix A, section 7.4) as one frozen value.

``players`` (2..8) seats the match; ``decks`` defaults to 1 for 2-6 players and 2 for 7-8 (22-1.1);
``hand`` is the number of cards of the first deal (22-3.2) and of a deal in the rules tools.

>>> r = Rules.from_mapping({"players": "8"})
>>> r.players, r.decks, r.set_bar
(8, 2, 'positionwise_max_all')
>>> Rules.from_mapping({"set_bar": "last"})
Traceback (most recent call last):
...
ValueError: bad value 'last' for rule option 'set_bar' (expected one of: positionwise_max_all, last_meeting_set)
>>> Rules.from_mapping({"players": 9})
Traceback (most recent call last):
...
ValueError: bad value 9 for rule option 'players' (expected 2 to 8)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.games.options import option_texts, read_fields

CHOICES: dict[str, tuple[str, ...]] = {
    "set_bar": ("positionwise_max_all", "last_meeting_set"),  # 22-6.5
    "set_trick_winner": ("highest_card", "last_meeting_set"),  # 22-7.1
    "dealer_after_elimination": ("next_clockwise", "random"),  # 22-8.2
    "all_eliminated": ("lowest_total_wins", "no_winner"),  # 22-8.4
}
RANGES: dict[str, tuple[int, int]] = {
    "players": (2, 8),  # 22-1.1
    "decks": (1, 2),  # 22-1.1
    "hand": (1, 52),  # 22-3.2: cards in the first deal
    "penalty_limit": (1, 1000),  # 22-2.1, 22-8.1
}


@dataclass(frozen=True, slots=True)
class Rules:
    """One rule set of Twenty-Two; every default is the spec's."""

    players: int = 4
    decks: int = 1
    hand: int = 7
    penalty_limit: int = 22
    remove_penalty_cards: bool = True  # 22-3.4
    set_bar: str = "positionwise_max_all"
    set_trick_winner: str = "highest_card"
    dealer_after_elimination: str = "next_clockwise"
    all_eliminated: str = "lowest_total_wins"

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """Rules from option names to values (strings, ints or bools); ValueError names a bad one.
        Without ``decks``, two packs for 7 or 8 players (22-1.1)."""
        kwargs = read_fields(cls, values, RANGES, CHOICES)
        if "decks" not in kwargs:
            kwargs["decks"] = 2 if kwargs.get("players", 4) >= 7 else 1
        return cls(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_map(self) -> dict[str, str]:
        """Every option as ``name -> text`` (``true``/``false`` for booleans)."""
        return option_texts(self.to_dict())

    def changes(self) -> list[str]:
        """``name=value`` for each option that differs from the defaults for this many players."""
        default = Rules.from_mapping({"players": self.players}).to_map()
        return [f"{k}={v}" for k, v in self.to_map().items() if default[k] != v or (k == "players" and v != "4")]

