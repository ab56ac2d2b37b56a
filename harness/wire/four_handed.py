"""The wire codec of four-handed partnership Sixty-Six: its ``FourHandedObservation`` in the request's
``observation`` oneof (case ``four_handed``) and its ``FourHandedDealDetail`` in ``DealEnd.detail``.

Requests are built as protobuf messages and serialized by protobuf itself (so the bytes are
protobuf's by construction). Decoding checks every field and raises :class:`WireError` in one line.

>>> from harness.games.four_handed import GAME
>>> m = GAME.start(1, GAME.rules())
>>> obs = GAME.observe(m, GAME.to_act(m))
>>> req = pb.DecisionRequest.FromString(CODEC.encode_request("m", 1, 1, obs, obs.legal, 1000, 5000))
>>> CODEC.decode_request(req, GAME.rules()) == obs
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from functools import partial
from typing import Any

from harness.games.base import DealEnd
from harness.games.four_handed.cards import CARD_INDEX, SUITS
from harness.games.four_handed.observe import Observation
from harness.games.four_handed.options import Rules

from . import arena_pb2 as pb
from . import common
from .convert import WireError, packed_field, uint_field

GAME_ID = "four_handed"
_SUIT_PB: dict[str, pb.Suit] = dict(zip(SUITS, (pb.SUIT_CLUBS, pb.SUIT_DIAMONDS, pb.SUIT_HEARTS, pb.SUIT_SPADES)))
_POINT_PB = {"L": pb.POINT_LEAD, "F": pb.POINT_FOLLOW, "over": pb.POINT_OVER}
_POINT_TEXT = {v: k for k, v in _POINT_PB.items()}
_FIELDS = frozenset(f.name for f in fields(Observation))


def observation_to_pb(obs: Observation) -> pb.FourHandedObservation:
    """Exactly the fields of ``obs`` (legal actions and rules travel elsewhere)."""
    m = pb.FourHandedObservation(
        seat=obs.seat, point=_POINT_PB[obs.point], trump_suit=_SUIT_PB[obs.trump_suit], leader=obs.leader,
        points=obs.points, tricks=obs.tricks, game_score=obs.game_score, team=obs.team,
    )
    common.fill_table(m, obs)
    return m


def observation_bytes(obs: Observation) -> bytes:
    """``observation_to_pb(obs).SerializeToString()``, put together directly (the match loop's path)."""
    return common.table_bytes(obs, _POINT_PB[obs.point], _SUIT_PB[obs.trump_suit], (
        packed_field(10, obs.points), packed_field(11, obs.tricks), packed_field(12, obs.game_score),
        uint_field(13, obs.team)))


_seat = partial(common.seat, n=4)
_card = partial(common.card, known=CARD_INDEX, game="four-handed Sixty-Six")


def _play(e: pb.Event) -> tuple[int, str]:
    a = common.action(e.action, CARD_INDEX, "a card of four-handed Sixty-Six")
    return _seat(e.seat), a


def _pair(values: Sequence[int], name: str) -> tuple[int, int]:
    a, b = common.sized(values, 2, name)
    return (a, b)


def observation_from_pb(m: pb.FourHandedObservation, rules: Rules, legal: Sequence[str] = (),
                        cls: Any = None, **extra: Any) -> Observation:
    """The observation ``m`` encodes; ``cls`` (a subclass of the game's Observation) and ``extra``
    (its fields, e.g. the clock) are used when they fit, else left out."""
    try:
        point = _POINT_TEXT[m.point]
    except KeyError:
        raise WireError(f"bad point {m.point}") from None
    if not 1 <= m.trump_suit <= 4:
        raise WireError(f"bad trump suit value {m.trump_suit}")
    if m.team > 1:
        raise WireError(f"bad team {m.team}")
    make = cls if isinstance(cls, type) and issubclass(cls, Observation) else Observation
    known = _FIELDS if make is Observation else frozenset(f.name for f in fields(make))
    return make(
        seat=_seat(m.seat),
        to_act=_seat(m.to_act) if m.HasField("to_act") else None,
        point=point,
        hand=tuple(_card(c) for c in m.hand),
        trump_suit=SUITS[m.trump_suit - 1],
        trump_card=_card(m.trump_card) if m.HasField("trump_card") else None,
        leader=_seat(m.leader),
        trick=tuple(_play(e) for e in m.trick),
        history=tuple(_play(e) for e in m.history),
        points=_pair(m.points, "points"),
        tricks=_pair(m.tricks, "tricks"),
        game_score=_pair(m.game_score, "game_score"),
        team=m.team,
        legal=tuple(legal),
        rules=rules,
        **{k: v for k, v in extra.items() if k in known},
    )


class FourHandedCodec:
    """The codec of ``four_handed`` (see :class:`harness.wire.codecs.Codec`)."""

    game = GAME_ID
    case = GAME_ID

    def encode_request(self, match_id: str, deal_no: int, decision_no: int, obs: Observation, legal: Sequence[str],
                       move_ms: int, bank_ms: int) -> bytes:
        return common.request_from_bytes(GAME_ID, observation_bytes(obs), match_id, deal_no, decision_no, legal,
                                         move_ms, bank_ms)

    def decode_request(self, req: pb.DecisionRequest, rules: Rules, cls: Any = None, **extra: Any) -> Observation:
        m = common.observation_of(req, GAME_ID)
        legal = tuple(common.action(a, CARD_INDEX, "a four-handed action") for a in req.legal)
        return observation_from_pb(m, rules, legal, cls, **extra)

    def rules(self, values: Mapping[str, str]) -> Rules:
        return common.rules_of(Rules.from_mapping, values)

    def fill_deal_end(self, msg: pb.DealEnd, end: DealEnd) -> None:
        r = end.record
        d = msg.four_handed
        d.SetInParent()
        d.tie = r["winner"] is None
        d.winner = r["winner"] or 0
        d.game_points = r["game_points"]
        d.carried = r["carried"]
        d.points.extend(r["points"])
        d.tricks.extend(r["tricks"])
        d.reason = r["reason"]

    def __repr__(self) -> str:
        return "FourHandedCodec()"


CODEC = FourHandedCodec()
