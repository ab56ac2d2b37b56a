"""The steps the codecs of three-handed, four-handed and Twenty-Two share: the request around a
game's observation message, the game's rules from a MatchStart's map, and the checks of seats,
cards, actions and counts, each raising :class:`WireError` in one line.

>>> seat(3, 4), seat(3, 3)
Traceback (most recent call last):
...
harness.wire.convert.WireError: bad seat 3
>>> sized([1, 2], 3, "points")
Traceback (most recent call last):
...
harness.wire.convert.WireError: points has 2 values, expected 3
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from . import arena_pb2 as pb
from .convert import WireError, action_from_pb, card_from_pb, fill_action, fill_card

R = TypeVar("R")


class TableView(Protocol):
    """What :func:`fill_table` reads of a three- or four-handed observation."""

    @property
    def to_act(self) -> int | None: ...
    @property
    def hand(self) -> Sequence[str]: ...
    @property
    def trump_card(self) -> str | None: ...
    @property
    def trick(self) -> Sequence[tuple[int, str]]: ...
    @property
    def history(self) -> Sequence[tuple[int, str]]: ...


def request_bytes(case: str, observation: Any, match_id: str, deal_no: int, decision_no: int,
                  legal: Sequence[str], move_ms: int, bank_ms: int) -> bytes:
    """The serialized DecisionRequest with ``observation`` (a message) in oneof case ``case``."""
    req = pb.DecisionRequest(match_id=match_id, deal_no=deal_no, decision_no=decision_no,
                             clock=pb.Clock(move_ms=move_ms, bank_ms=bank_ms))
    for a in legal:
        fill_action(req.legal.add(), a)
    getattr(req, case).CopyFrom(observation)
    return req.SerializeToString()


def observation_of(req: pb.DecisionRequest, case: str) -> Any:
    """The observation message of oneof case ``case``; WireError when ``req`` carries another."""
    which = req.WhichOneof("observation")
    if which != case:
        raise WireError(f"the request carries no {case} observation ({which})")
    return getattr(req, case)


def rules_of(make: Callable[[dict[str, str]], R], values: Mapping[str, str]) -> R:
    """``make(values)``: a game's rules from a MatchStart's map, a bad option as WireError."""
    try:
        return make(dict(values))
    except ValueError as e:
        raise WireError(str(e)) from None


def fill_table(m: pb.ThreeHandedObservation | pb.FourHandedObservation, obs: TableView) -> None:
    """Write the seat to act, the hand, the trump card, the trick and the history of ``obs`` into ``m``."""
    if obs.to_act is not None:
        m.to_act = obs.to_act
    for c in obs.hand:
        fill_card(m.hand.add(), c)
    if obs.trump_card is not None:
        fill_card(m.trump_card, obs.trump_card)
    for s, a in obs.trick:
        fill_action(m.trick.add(seat=s).action, a)
    for s, a in obs.history:
        fill_action(m.history.add(seat=s).action, a)


def seat(v: int, n: int) -> int:
    """``v`` when it is one of ``n`` seats."""
    if v >= n:
        raise WireError(f"bad seat {v}")
    return v


def card(msg: pb.Card, known: Container[str], game: str) -> str:
    """The card ``msg`` when it is one of ``known`` (the cards of ``game``)."""
    c = card_from_pb(msg)
    if c not in known:
        raise WireError(f"{c!r} is not a card of {game}")
    return c


def action(msg: pb.Action, known: Container[str], what: str) -> str:
    """The action ``msg`` when it is one of ``known``; else WireError ``'x' is not <what>``."""
    a = action_from_pb(msg)
    if a not in known:
        raise WireError(f"{a!r} is not {what}")
    return a


def sized(values: Sequence[int], n: int, name: str) -> Sequence[int]:
    """``values`` when there are ``n`` of them."""
    if len(values) != n:
        raise WireError(f"{name} has {len(values)} values, expected {n}")
    return values
