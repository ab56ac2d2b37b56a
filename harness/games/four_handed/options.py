"""The rule options of four-handed partnership Sixty-Six (RULES-SPEC 3.3, 7.3, Appendix A).

>>> r = Rules.from_mapping({"pack": "24", "tie_carry_over": "false"})
>>> r.pack, r.tie_carry_over, r.match_target
(24, False, 7)
>>> Rules.from_mapping({"team_marriages": "leader_only"})
Traceback (most recent call last):
...
ValueError: rule option 'team_marriages' is 'leader_only': only 'none' is played (4H-6, RULES-SPEC 7.3)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from harness.games.options import read_options, show

RANGES = {"match_target": (1, 1000), "tie_carry_points": (0, 100)}  # 66-3.1, 66-13.4
BOOLS = ("tie_carry_over", "trump_ten_bonus")


@dataclass(frozen=True, slots=True)
class Rules:
    """One rule set; every default is RULES-SPEC 7.3's."""

    match_target: int = 7  # 4H-7: game = 7 points
    pack: int = 32  # 4H-2: 32 (8 each, 3-2-3) or 24 (6 each, 3-3)
    tie_carry_over: bool = True  # 4H-7: 65:65 adds a point to the next scoring deal (default here)
    tie_carry_points: int = 1
    team_marriages: str = "none"  # 4H-6: only "none" is played
    trump_ten_bonus: bool = False  # 4H-8: off; "true" is refused (see from_mapping)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """A rule set from ``name -> value`` (strings, ints or bools); ValueError in one line names
        the bad option or value."""
        return cls(**read_options(values, _FIELDS, _parse, "four_handed"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_FIELDS = tuple(Rules.__dataclass_fields__)


def _parse(name: str, value: Any) -> Any:
    text = show(value) if isinstance(value, bool) else str(value).strip().lower()
    if name in BOOLS:
        if text not in ("true", "false"):
            raise ValueError(f"bad value {value!r} for rule option {name!r} (expected true or false)")
        if name == "trump_ten_bonus" and text == "true":
            raise ValueError("rule option 'trump_ten_bonus' is 'true': not supported (4H-8 is a local rule "
                             "with unsettled details; RULES-SPEC 7.3 allows refusing it)")
        return text == "true"
    if name == "team_marriages":
        if text != "none":
            raise ValueError(f"rule option 'team_marriages' is {value!r}: only 'none' is played (4H-6, RULES-SPEC 7.3)")
        return "none"
    if name == "pack":
        if text not in ("32", "24"):
            raise ValueError(f"bad value {value!r} for rule option 'pack' (expected 32 or 24)")
        return int(text)
    lo, hi = RANGES[name]
    try:
        n = int(text, 10)
    except ValueError:
        n = None
    if isinstance(value, float) or n is None or not lo <= n <= hi:
        raise ValueError(f"bad value {value!r} for rule option {name!r} (expected an integer {lo}..{hi})")
    return n
