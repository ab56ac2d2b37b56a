"""The rules tools' shared steps (RULES-SPEC section 7): a written deck read and a deal played on
from it token by token, every error one line naming the bad token.

>>> read_deck(lambda: int("x"))
Traceback (most recent call last):
...
ValueError: bad deck: invalid literal for int() with base 10: 'x'
>>> play_out(0, ["1", "2", "x"], lambda s, a: s + int(a))
Traceback (most recent call last):
...
ValueError: illegal action 'x' (action 3): invalid literal for int() with base 10: 'x'
>>> play_out(0, ["1", "9"], lambda s, a: s + int(a), known={"1", "2"})
Traceback (most recent call last):
...
ValueError: unknown action '9' (action 2)
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import TypeVar

T = TypeVar("T")
S = TypeVar("S")


def read_deck(parse: Callable[[], T]) -> T:
    """``parse()``, its ValueError worded ``bad deck: ...``."""
    try:
        return parse()
    except ValueError as e:
        raise ValueError(f"bad deck: {e}") from None


def play_out(state: S, actions: Sequence[str], apply: Callable[[S, str], S],
             known: Container[str] | None = None) -> S:
    """``state`` after each of ``actions`` in turn; ValueError names a token outside ``known`` (when
    given) or one ``apply`` refuses, with its 1-based place."""
    for i, token in enumerate(actions, 1):
        if known is not None and token not in known:
            raise ValueError(f"unknown action {token!r} (action {i})")
        try:
            state = apply(state, token)
        except ValueError as e:
            raise ValueError(f"illegal action {token!r} (action {i}): {e}") from None
    return state


def perft(state: S, depth: int, over: Callable[[S], bool], legal: Callable[[S], Sequence[str]],
          apply: Callable[[S, str], S]) -> int:
    """Action sequences of length ``depth`` from ``state``; an ended deal (``over``) counts as one leaf.

    >>> perft(0, 3, lambda s: s >= 2, lambda s: ("1", "2"), lambda s, a: s + int(a))
    3
    """
    if depth == 0 or over(state):
        return 1
    acts = legal(state)
    if depth == 1:
        return len(acts)
    return sum(perft(apply(state, a), depth - 1, over, legal, apply) for a in acts)
