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
from .convert import (WireError, action_from_pb, action_to_pb, card_from_pb, card_to_pb, envelope, fill_action,
                      fill_card, len_field, uint_field, varint)

R = TypeVar("R")
CASE_FIELDS = {f.name: f.number for f in pb.DecisionRequest.DESCRIPTOR.oneofs_by_name["observation"].fields}


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
    """The serialized DecisionRequest with ``observation`` (a message) in oneof case ``case``: the bytes
    protobuf writes for it, put together around the observation's own (:func:`convert.envelope`)."""
    return envelope(match_id, deal_no, decision_no, legal, move_ms, bank_ms, CASE_FIELDS[case],
                    observation.SerializeToString())


def request_from_bytes(case: str, observation: bytes, match_id: str, deal_no: int, decision_no: int,
                       legal: Sequence[str], move_ms: int, bank_ms: int) -> bytes:
    """:func:`request_bytes` for an observation already serialized (see :func:`table_bytes`)."""
    return envelope(match_id, deal_no, decision_no, legal, move_ms, bank_ms, CASE_FIELDS[case], observation)


_CARD_FIELDS: dict[tuple[int, str], bytes] = {}
_EVENT_FIELDS: dict[tuple[int, int, str], bytes] = {}


def card_field(field: int, card: str) -> bytes:
    """A Card message field, serialized (remembered: a game has a few dozen cards)."""
    data = _CARD_FIELDS.get((field, card))
    if data is None:
        data = len_field(field, card_to_pb(card).SerializeToString())
        if len(_CARD_FIELDS) < 4096:
            _CARD_FIELDS[field, card] = data
    return data


def event_field(field: int, seat: int, action: str) -> bytes:
    """An Event message field (seat, action), serialized (remembered)."""
    data = _EVENT_FIELDS.get((field, seat, action))
    if data is None:
        data = len_field(field, uint_field(1, seat) + len_field(2, action_to_pb(action).SerializeToString()))
        if len(_EVENT_FIELDS) < 16384:
            _EVENT_FIELDS[field, seat, action] = data
    return data


def table_bytes(obs: Any, point: int, trump: int, tail: Sequence[bytes]) -> bytes:
    """The serialized three- or four-handed observation: fields 1-9 (seat, to_act, point, hand, trump,
    trump card, leader, trick, history; these two messages agree on them) from ``obs``, then ``tail``,
    the game's later fields already serialized. The same bytes as protobuf's for the message that
    :func:`fill_table` and the game's own fields give (tests/test_wire_fast_encode.py holds it to that)."""
    return b"".join((
        uint_field(1, obs.seat),
        b"" if obs.to_act is None else b"\x10" + varint(obs.to_act),  # optional: set even when 0
        uint_field(3, point),
        *[card_field(4, c) for c in obs.hand],
        uint_field(5, trump),
        b"" if obs.trump_card is None else card_field(6, obs.trump_card),
        uint_field(7, obs.leader),
        *[event_field(8, s, a) for s, a in obs.trick],
        *[event_field(9, s, a) for s, a in obs.history],
        *tail,
    ))


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
