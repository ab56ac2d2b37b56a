"""``NAME=VALUE`` arguments (``--rule``, ``--limit``) read one way for every command."""

from __future__ import annotations

from collections.abc import Iterable


def assignment(item: str, what: str = "rule option") -> tuple[str, str]:
    """``name=value`` as a stripped pair; ValueError names an item not so written.

    >>> assignment(" players = 4 ")
    ('players', '4')
    >>> assignment("cpu", "limit")
    Traceback (most recent call last):
    ValueError: limit 'cpu' is not written name=value
    """
    name, sep, value = item.partition("=")
    if not sep:
        raise ValueError(f"{what} {item!r} is not written name=value")
    return name.strip(), value.strip()


def assignments(items: Iterable[str] | None, what: str = "rule option") -> dict[str, str]:
    """Every ``name=value`` of ``items`` as a mapping (a later one wins)."""
    return dict(assignment(item, what) for item in items or ())
