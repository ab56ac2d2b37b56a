"""Rule options written ``name=value`` (RULES-SPEC Appendix A): the coercions every game's ``Rules``
shares, each raising ValueError in one line that names the option and the bad value.

>>> parse_assignments(["match_target = 3", "auto_claim=yes"])
{'match_target': '3', 'auto_claim': 'yes'}
>>> to_bool("auto_claim", "on"), to_int("match_target", " 7", 1, 1000), to_choice("exchange_rank", "J", ("9", "J"))
(True, 7, 'J')
>>> to_int("match_target", True, 1, 1000)
Traceback (most recent call last):
...
ValueError: bad value True for rule option 'match_target' (expected a whole number)
>>> read_options({"pack": "24"}, ("match_target",), to_bool, "three_handed")
Traceback (most recent call last):
...
ValueError: unknown rule option 'pack' for three_handed (options: match_target)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

TRUE = ("true", "1", "yes", "on")
FALSE = ("false", "0", "no", "off")


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """``name=value`` strings as a mapping, both sides stripped; ValueError names a token without ``=``."""
    values: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"rule option {item!r} is not written name=value")
        values[name.strip()] = value.strip()
    return values


def read_options(values: Mapping[str, Any], known: Sequence[str], coerce: Callable[[str, Any], Any],
         game: str = "") -> dict[str, Any]:
    """Each option of ``values`` coerced, in order; ValueError names the first unknown option (with
    ``game`` and its options when ``game`` is given) or the first bad value."""
    out: dict[str, Any] = {}
    for name, raw in values.items():
        if name not in known:
            where = f" for {game} (options: {', '.join(known)})" if game else ""
            raise ValueError(f"unknown rule option {name!r}{where}")
        out[name] = coerce(name, raw)
    return out


def read_fields(cls: type, values: Mapping[str, Any], ranges: Mapping[str, tuple[int, int]],
                choices: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """:func:`read_options` for a dataclass of options: each coerced by its field's type (bool, int or str)."""
    kinds = {f.name: f.type if isinstance(f.type, str) else f.type.__name__ for f in dataclasses.fields(cls)}

    def coerce(name: str, raw: Any) -> Any:
        kind = kinds[name]
        if kind == "bool":
            return to_bool(name, raw)
        if kind == "int":
            return to_int(name, raw, *ranges[name])
        return to_choice(name, raw, choices[name])

    return read_options(values, tuple(kinds), coerce)


def to_bool(name: str, raw: Any, strip: bool = False) -> bool:
    """``true``/``false`` (or 1/0, yes/no, on/off, any case; around spaces too with ``strip``)."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower() if strip else str(raw).lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ValueError(f"bad value {raw!r} for rule option {name!r} (expected true or false)")


def to_int(name: str, raw: Any, lo: int, hi: int) -> int:
    """A whole number from ``lo`` to ``hi`` (a bool is not one)."""
    try:
        if isinstance(raw, bool):
            raise ValueError
        value = int(raw)
    except (TypeError, ValueError):
        raise ValueError(f"bad value {raw!r} for rule option {name!r} (expected a whole number)") from None
    if not lo <= value <= hi:
        raise ValueError(f"bad value {raw!r} for rule option {name!r} (expected {lo} to {hi})")
    return value


def to_choice(name: str, raw: Any, choices: Sequence[str], strip: bool = False) -> str:
    """One of ``choices``, as written (around spaces dropped with ``strip``)."""
    text = str(raw).strip() if strip else str(raw)
    if text not in choices:
        raise ValueError(f"bad value {raw!r} for rule option {name!r} (expected one of: {', '.join(choices)})")
    return text


def show(value: Any) -> str:
    """An option's value as written: ``true``/``false`` for a bool."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def option_texts(values: Mapping[str, Any]) -> dict[str, str]:
    """Every option as ``name -> text`` (:func:`show`)."""
    return {k: show(v) for k, v in values.items()}


def changed_options(current: Mapping[str, str], default: Mapping[str, str]) -> list[str]:
    """``name=value`` for each option of ``current`` whose text differs from ``default``'s."""
    return [f"{k}={v}" for k, v in current.items() if default[k] != v]
