"""The wire codec of three-handed Sixty-Six: its ``ThreeHandedObservation`` in the request's
``observation`` oneof (case ``three_handed``) and its ``ThreeHandedDealDetail`` in ``DealEnd.detail``.

Requests are built as protobuf messages and serialized by protobuf itself, so the bytes are
protobuf's by construction. Decoding checks every field and raises :class:`WireError` in one line.
A bot's SDK asks for its clock fields (``move_ms``, ``bank_ms``, ``received``, ``match_id``): they come
back on a :class:`ThreeHandedRequest`, the observation with the clock of its decision.

>>> from harness.games.three_handed import GAME
>>> m = GAME.start(1, GAME.rules())
>>> obs = GAME.observe(m, GAME.to_act(m))
>>> req = pb.DecisionRequest.FromString(CODEC.encode_request("m", 1, 1, obs, obs.legal, 1000, 5000))
>>> CODEC.decode_request(req, GAME.rules()) == obs, req.three_handed.point == pb.THREE_HANDED_POINT_TRUMP
(True, True)
>>> CODEC.decode_request(req, GAME.rules(), None, move_ms=1000).move_ms
1000
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from functools import partial
from typing import Any

from harness.games.base import DealEnd
from harness.games.three_handed.engine import ACTIONS, BIT_OF, SUITS
from harness.games.three_handed.observe import ThreeHandedObservation
from harness.games.three_handed.options import Rules

from . import arena_pb2 as pb
from . import common
from .convert import WireError, packed_field, uint_field

GAME_ID = "three_handed"
_SUIT_PB = {s: i + 1 for i, s in enumerate(SUITS)}  # SUIT_CLUBS = 1 .. SUIT_SPADES = 4
_POINT_PB = {"T": pb.THREE_HANDED_POINT_TRUMP, "L": pb.THREE_HANDED_POINT_LEAD, "F": pb.THREE_HANDED_POINT_FOLLOW,
             "E": pb.THREE_HANDED_POINT_END, "over": pb.THREE_HANDED_POINT_OVER}
_POINT_TEXT = {v: k for k, v in _POINT_PB.items()}


@dataclass(frozen=True, slots=True, eq=False)
class ThreeHandedRequest(ThreeHandedObservation):
    """The observation of one decision with its clock (what a bot's ``act`` receives over the wire)."""

    move_ms: int = 0  # the limit for this decision
    bank_ms: int = 0  # the time bank left in the match
    received: float = 0.0  # time.monotonic() when the request arrived
    match_id: str = ""

    def deadline(self, fraction: float = 0.5) -> float:
        """The monotonic time by which ``fraction`` of the move limit is used up."""
        return self.received + fraction * self.move_ms / 1000.0


_REQUEST_FIELDS = frozenset(f.name for f in fields(ThreeHandedRequest)) - frozenset(
    f.name for f in fields(ThreeHandedObservation))


def observation_to_pb(obs: ThreeHandedObservation) -> pb.ThreeHandedObservation:
    """Exactly the fields of ``obs`` (legal actions and rules travel elsewhere)."""
    m = pb.ThreeHandedObservation(seat=obs.seat, point=_POINT_PB[obs.point], leader=obs.leader, points=obs.points,
                                  tricks=obs.tricks, marriages=obs.marriages, game_score=obs.game_score)
    if obs.trump is not None:
        m.trump = _SUIT_PB[obs.trump]  # type: ignore[assignment]
    common.fill_table(m, obs)
    return m


def observation_bytes(obs: ThreeHandedObservation) -> bytes:
    """``observation_to_pb(obs).SerializeToString()``, put together directly (the match loop's path)."""
    return common.table_bytes(obs, _POINT_PB[obs.point], 0 if obs.trump is None else _SUIT_PB[obs.trump], (
        packed_field(10, obs.points), packed_field(11, obs.tricks), packed_field(12, obs.marriages),
        packed_field(13, obs.game_score)))


_seat = partial(common.seat, n=3)
_card = partial(common.card, known=BIT_OF, game="three-handed Sixty-Six")


def _action(msg: pb.Action) -> str:
    return common.action(msg, ACTIONS, "a three-handed action")


def _event(e: pb.Event, cards_only: bool) -> tuple[int, str]:
    a = _action(e.action)
    if cards_only and a not in BIT_OF:
        raise WireError(f"{a!r} in the trick is not a card")
    return _seat(e.seat), a


def _triple(values: Sequence[int], name: str) -> tuple[int, int, int]:
    a, b, c = common.sized(values, 3, name)
    return (a, b, c)


def observation_from_pb(m: pb.ThreeHandedObservation, rules: Rules, legal: Sequence[str] = (),
                        cls: Any = None, **extra: Any) -> ThreeHandedObservation:
    """The observation ``m`` encodes. ``cls`` is used when it is a ThreeHandedObservation class;
    otherwise clock fields in ``extra`` give a :class:`ThreeHandedRequest` (others are dropped)."""
    try:
        point = _POINT_TEXT[m.point]
    except KeyError:
        raise WireError(f"bad point {m.point}") from None
    if m.trump > 4:
        raise WireError(f"bad trump suit value {m.trump}")
    if isinstance(cls, type) and issubclass(cls, ThreeHandedObservation):
        make: type[ThreeHandedObservation] = cls
        known = frozenset(f.name for f in fields(cls))
    elif any(k in _REQUEST_FIELDS for k in extra):
        make, known = ThreeHandedRequest, _REQUEST_FIELDS
    else:
        make, known = ThreeHandedObservation, frozenset()
    return make(
        seat=_seat(m.seat),
        to_act=_seat(m.to_act) if m.HasField("to_act") else None,
        point=point,
        hand=tuple(sorted(_card(c) for c in m.hand)),
        trump=SUITS[m.trump - 1] if m.trump else None,
        trump_card=_card(m.trump_card) if m.HasField("trump_card") else None,
        leader=_seat(m.leader),
        trick=tuple(_event(e, True) for e in m.trick),
        history=tuple(_event(e, False) for e in m.history),
        points=_triple(m.points, "points"),
        tricks=_triple(m.tricks, "tricks"),
        marriages=_triple(m.marriages, "marriages"),
        game_score=_triple(m.game_score, "game_score"),
        legal=tuple(legal),
        rules=rules,
        **{k: v for k, v in extra.items() if k in known},
    )


class ThreeHandedCodec:
    """The codec of ``three_handed`` (see :class:`harness.wire.codecs.Codec`)."""

    game = GAME_ID
    case = GAME_ID

    def encode_request(self, match_id: str, deal_no: int, decision_no: int, obs: ThreeHandedObservation,
                       legal: Sequence[str], move_ms: int, bank_ms: int) -> bytes:
        return common.request_from_bytes(GAME_ID, observation_bytes(obs), match_id, deal_no, decision_no, legal,
                                         move_ms, bank_ms)

    def decode_request(self, req: pb.DecisionRequest, rules: Rules, cls: Any = None,
                       **extra: Any) -> ThreeHandedObservation:
        m = common.observation_of(req, GAME_ID)
        legal = tuple(_action(a) for a in req.legal)
        return observation_from_pb(m, rules, legal, cls, **extra)

    def rules(self, values: Mapping[str, str]) -> Rules:
        return common.rules_of(Rules.from_mapping, values)

    def fill_deal_end(self, msg: pb.DealEnd, end: DealEnd) -> None:
        r = end.record
        d = msg.three_handed
        d.SetInParent()
        d.claimed = r["winner"] is not None
        d.winner = r["winner"] or 0
        d.game_points = r["game_points"]
        d.trump = r["trump"]
        d.reason = r["reason"]

    def __repr__(self) -> str:
        return "ThreeHandedCodec()"


CODEC = ThreeHandedCodec()
