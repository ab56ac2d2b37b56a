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
import difflib
import re
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
            where = f" for {game}" if game else ""
            near = suggestion(str(name), known)
            if near is not None:  # issue 14: the nearest name, in the same one line
                raise ValueError(f"unknown rule option {str(name)[:60]!r}{where}: did you mean {near!r}?")
            listed = ", ".join(known)
            if len(listed) > 120:  # one short line: the listing command instead of every name
                listed = f"`arena rules options{' ' + game if game else ''}` lists them"
            raise ValueError(f"unknown rule option {str(name)[:60]!r}{where} (options: {listed})")
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


def suggestion(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to a mistyped ``name`` (difflib), or None when none is close.

    >>> suggestion("dealer_rotaton", ("match_target", "dealer_rotation")), suggestion("zzz", ("pack",))
    ('dealer_rotation', None)
    """
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


_EXPECTED = re.compile(r"\(expected (?:one of: )?(.+)\)$")
_RANGE = re.compile(r"(-?\d+)\s*(?:\.\.|to)\s*(-?\d+)")
_PROBES = ("?", "-1000000000", "1000000000")  # not a value of any option; ints out of range name the range


def option_values(game: Any, name: str) -> str:
    """The values rule option ``name`` of ``game`` accepts, as text (``1 to 1000``, ``winner, alternate``),
    learnt by asking the game itself: ``game.rules`` names what it expected for a value it refuses, and
    each value so named is kept only if the game accepts it."""
    ranges: list[str] = []
    for probe in _PROBES:
        try:
            game.rules({name: probe})
        except ValueError as e:
            m = _EXPECTED.search(str(e))
            if m is None:
                continue
            text = m.group(1)
            r = _RANGE.search(text)
            if r is not None:
                ranges.append(f"{r.group(1)} to {r.group(2)}")
                break
            words = [w for w in re.split(r", | or ", text) if w]
            if all(" " not in w for w in words):
                return ", ".join(w for w in words if _accepts(game, name, w))
        else:
            return "any text"
    return ranges[0] if ranges else "only " + game.rules_map(game.rules())[name]


def _accepts(game: Any, name: str, value: str) -> bool:
    try:
        game.rules({name: value})
    except ValueError:
        return False
    return True


def option_table(game: Any) -> list[tuple[str, str, str]]:
    """Every rule option of ``game`` (a :class:`harness.games.base.Game`) as (name, default, values),
    in the order of the game's own rules map."""
    defaults = game.rules_map(game.rules())
    return [(name, default, option_values(game, name)) for name, default in defaults.items()]
