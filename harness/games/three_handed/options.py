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

GRADES = ("min", "max", "sum")  # 3H-6, the default first
OPTIONS = ("match_target", "3h_must_head", "3h_grade")
TARGET_RANGE = (1, 1000)


class Rules(NamedTuple):
    """One rule set of three-handed Sixty-Six; every default is the spec's."""

    match_target: int = 7  # 66-3.1
    must_head: bool = True  # 3h_must_head (3H-4)
    grade: str = "min"  # 3h_grade (3H-6)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """Rules from option names to values (strings, ints or bools); ValueError in one line names a bad one."""
        r = cls()
        for name, raw in values.items():
            if name == "match_target":
                r = r._replace(match_target=_int(name, raw))
            elif name == "3h_must_head":
                r = r._replace(must_head=_bool(name, raw))
            elif name == "3h_grade":
                text = str(raw).strip()
                if text not in GRADES:
                    raise ValueError(f"bad value {raw!r} for rule option '3h_grade' (expected one of: {', '.join(GRADES)})")
                r = r._replace(grade=text)
            else:
                raise ValueError(f"unknown rule option {name!r} for three_handed (options: {', '.join(OPTIONS)})")
        return r

    def to_map(self) -> dict[str, str]:
        """Every option as ``name -> text`` (``true``/``false`` for the boolean)."""
        return {"match_target": str(self.match_target), "3h_must_head": "true" if self.must_head else "false",
                "3h_grade": self.grade}


def _bool(name: str, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off"):
        return False
    raise ValueError(f"bad value {raw!r} for rule option {name!r} (expected true or false)")


def _int(name: str, raw: Any) -> int:
    lo, hi = TARGET_RANGE
    try:
        if isinstance(raw, bool):
            raise ValueError
        value = int(raw)
    except (TypeError, ValueError):
        raise ValueError(f"bad value {raw!r} for rule option {name!r} (expected a whole number)") from None
    if not lo <= value <= hi:
        raise ValueError(f"bad value {raw!r} for rule option {name!r} (expected {lo} to {hi})")
    return value
