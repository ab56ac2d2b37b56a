"""The rule options of three-handed Sixty-Six (RULES-SPEC 7.2, Appendix A): ``match_target``,
``3h_must_head`` and ``3h_grade``, and nothing else (any other option is refused).

>>> r = Rules.from_mapping({"3h_grade": "sum", "3h_must_head": "false"})
>>> r.grade, r.must_head, r.match_target, r.to_map()["3h_grade"]
('sum', False, 7, 'sum')
>>> Rules.from_mapping({"dealer_rotation": "winner"})
Traceback (most recent call last):
...
ValueError: unknown rule option 'dealer_rotation' for three_handed (options: match_target, 3h_must_head, 3h_grade)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from harness.games.options import read_options, show, to_bool, to_choice, to_int

GRADES = ("min", "max", "sum")  # 3H-6, the default first
FIELD_OF = {"match_target": "match_target", "3h_must_head": "must_head", "3h_grade": "grade"}  # option -> field
OPTIONS = tuple(FIELD_OF)
TARGET_RANGE = (1, 1000)


class Rules(NamedTuple):
    """One rule set of three-handed Sixty-Six; every default is the spec's."""

    match_target: int = 7  # 66-3.1
    must_head: bool = True  # 3h_must_head (3H-4)
    grade: str = "min"  # 3h_grade (3H-6)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """Rules from option names to values (strings, ints or bools); ValueError in one line names a bad one."""
        given = read_options(values, OPTIONS, _coerce, "three_handed")
        return cls()._replace(**{FIELD_OF[name]: value for name, value in given.items()})

    def to_map(self) -> dict[str, str]:
        """Every option as ``name -> text`` (``true``/``false`` for the boolean)."""
        return {name: show(getattr(self, field)) for name, field in FIELD_OF.items()}


def _coerce(name: str, raw: Any) -> Any:
    if name == "match_target":
        return to_int(name, raw, *TARGET_RANGE)
    if name == "3h_must_head":
        return to_bool(name, raw, strip=True)
    return to_choice(name, raw, GRADES, strip=True)
