"""The rule options of classic Sixty-Six (RULES-SPEC Appendix A), as one frozen value.

Each field carries the option's spec name and default, so a rule set can be written
``name=value`` on the command line or in a config file.

>>> Rules.parse(["dealer_rotation=alternate", "tie_carry_over=true"]).dealer_rotation
'alternate'
>>> Rules.parse(["closer_win_basis=later"])
Traceback (most recent call last):
...
ValueError: bad value 'later' for rule option 'closer_win_basis' (expected one of: end, close)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.games.options import changed_options, option_texts, parse_assignments, read_fields

# Allowed values of each string-valued option, the default first.
CHOICES: dict[str, tuple[str, ...]] = {
    "dealer_rotation": ("winner", "alternate"),  # 66-3.3
    "exchange_on_opponent_close": ("any", "requires_trick", "none"),  # 66-8.3
    "exchange_rank": ("9", "J"),  # 66-8.1, SCH-5
    "last_trick": ("bonus10", "wins_deal"),  # 66-12.2, SCH-9
    "false_claim_points": ("flat2", "two_or_three"),  # 66-13.1 row 5
    "closer_false_claim": ("as_failed_close", "flat2"),  # row 4
    "beaten_closer_points": ("flat2", "as_failed_close"),  # row 3
    "closer_win_basis": ("end", "close"),  # row 2
    "played_out_scoring": ("one", "graded"),  # row 7
}
# Allowed ranges of each integer option.
RANGES: dict[str, tuple[int, int]] = {
    "match_target": (1, 1000),  # 66-3.1
    "tie_carry_points": (0, 100),  # 66-13.4
    "close_min_talon": (2, 12),  # 66-10.2
    "exchange_min_talon": (2, 12),  # 66-8.5
}


@dataclass(frozen=True, slots=True)
class Rules:
    """One rule set of classic Sixty-Six; every default is the spec's."""

    match_target: int = 7
    dealer_rotation: str = "winner"
    tie_carry_over: bool = False
    tie_carry_points: int = 1
    close_before_first_trick: bool = True
    close_before_draw: bool = True
    close_min_talon: int = 2
    exchange_requires_trick: bool = True
    exchange_before_draw: bool = False
    exchange_by_non_leader: bool = False
    exchange_min_talon: int = 2
    exchange_on_opponent_close: str = "any"
    exchange_rank: str = "9"
    marriage_before_first_trick: bool = True
    marriage_in_phase2: bool = False
    marriage_then_close: bool = True
    pre_draw_declarations: bool = False
    phase2_must_head: bool = True
    phase2_must_trump: bool = True
    last_trick: str = "bonus10"
    false_claim_points: str = "flat2"
    closer_false_claim: str = "as_failed_close"
    beaten_closer_points: str = "flat2"
    closer_win_basis: str = "end"
    played_out_scoring: str = "one"
    auto_claim: bool = False
    public_trick_history: bool = True

    @classmethod
    def parse(cls, assignments: Iterable[str]) -> Rules:
        """Rules from ``name=value`` strings; ValueError names the bad token."""
        return cls.from_mapping(parse_assignments(assignments))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """Rules from a mapping of option names to values (strings, ints or bools)."""
        return cls(**read_fields(cls, values, RANGES, CHOICES))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def changes(self) -> list[str]:
        """The ``name=value`` strings that differ from the defaults."""
        return changed_options(option_texts(self.to_dict()), option_texts(Rules().to_dict()))
