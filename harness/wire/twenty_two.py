"""Twenty-Two's wire codec: the ``twenty_two`` case of the request's ``observation`` oneof
(:class:`TwentyTwoObservation`) and of ``DealEnd.detail`` (RULES-SPEC 7.4, 7.5).

Requests are built as protobuf messages and serialized by protobuf itself. Single cards travel as
PLAY actions; ``7H+7S``, ``discard:7H`` and ``done`` as action text.

>>> from harness.games.twenty_two import GAME
>>> m = GAME.start(2, GAME.rules())
>>> p = GAME.to_act(m)
>>> obs = GAME.observe(m, p)
>>> body = CODEC.encode_request("m", 1, 1, obs, GAME.legal(m), 1000, 5000)
>>> CODEC.decode_request(pb.DecisionRequest.FromString(body), GAME.rules()) == obs
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.games.base import DealEnd
from harness.games.twenty_two.observe import Observation
from harness.games.twenty_two.options import Rules

from . import arena_pb2 as pb
from . import common
from .convert import (WireError, action_from_pb, card_from_pb, fill_card, len_field, packed_field, uint_field,
                      varint)

CASE = "twenty_two"
RANKS = "23456789TJQKA"
_RANK_PB: dict[str, Any] = {r: pb.Rank.Value(f"RANK_{n}") for r, n in zip(RANKS, (
    "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "JACK", "QUEEN", "KING", "ACE"))}
_RANK_TEXT = {v: k for k, v in _RANK_PB.items()}
_OBS = pb.TwentyTwoObservation
_POINT_PB = {"X": _OBS.POINT22_EXCHANGE, "L": _OBS.POINT22_LEAD, "F": _OBS.POINT22_FOLLOW, "over": _OBS.POINT22_OVER}
_POINT_TEXT = {v: k for k, v in _POINT_PB.items()}
MAX_PLAYERS = 8


def observation_to_pb(obs: Observation) -> pb.TwentyTwoObservation:
    """Exactly the fields of ``obs`` (legal actions and rules travel elsewhere)."""
    m = pb.TwentyTwoObservation(
        point=_POINT_PB[obs.point], leader=obs.leader, bar=[_RANK_PB[r] for r in obs.bar], stock=obs.stock,
        hand_sizes=obs.hand_sizes, discards=obs.discards, seats=obs.seats, totals=obs.totals,
        eliminated=obs.eliminated,
    )
    if obs.seat is not None:
        m.seat = obs.seat
    if obs.to_act is not None:
        m.to_act = obs.to_act
    for c in obs.hand:
        fill_card(m.hand.add(), c)
    for seat, cards in obs.trick:
        _fill_play(m.trick.add(), seat, cards)
    for leader, plays, winner in obs.tricks:
        t = m.tricks.add(leader=leader, winner=winner)
        for seat, cards in plays:
            _fill_play(t.plays.add(), seat, cards)
    for kept in obs.kept:
        k = m.kept.add()
        for c in kept:
            fill_card(k.cards.add(), c)
    return m


def observation_bytes(obs: Observation) -> bytes:
    """``observation_to_pb(obs).SerializeToString()``, put together directly (the match loop's path):
    fields in number order, optional ones when set (even to 0), repeated messages even when empty."""
    card = common.card_field
    return b"".join((
        b"" if obs.seat is None else b"\x08" + varint(obs.seat),
        b"" if obs.to_act is None else b"\x10" + varint(obs.to_act),
        uint_field(3, _POINT_PB[obs.point]),
        *[card(4, c) for c in obs.hand],
        uint_field(5, obs.leader),
        *[len_field(6, _play_bytes(seat, cards)) for seat, cards in obs.trick],
        packed_field(7, [_RANK_PB[r] for r in obs.bar]),
        *[len_field(8, uint_field(1, leader) + b"".join(len_field(2, _play_bytes(s, cs)) for s, cs in plays)
                    + uint_field(3, winner))
          for leader, plays, winner in obs.tricks],
        uint_field(9, obs.stock),
        packed_field(10, obs.hand_sizes),
        packed_field(11, obs.discards),
        packed_field(12, obs.seats),
        packed_field(13, obs.totals),
        *[len_field(14, b"".join(card(1, c) for c in kept)) for kept in obs.kept],
        packed_field(15, obs.eliminated),
    ))


def _play_bytes(seat: int, cards: Sequence[str]) -> bytes:
    return uint_field(1, seat) + b"".join(common.card_field(2, c) for c in cards)


def _fill_play(msg: pb.TwentyTwoPlay, seat: int, cards: Sequence[str]) -> None:
    msg.seat = seat
    for c in cards:
        fill_card(msg.cards.add(), c)


def observation_from_pb(m: pb.TwentyTwoObservation, rules: Rules, legal: Sequence[str] = ()) -> Observation:
    """The Observation encoded in ``m``; WireError names what does not decode."""
    try:
        point = _POINT_TEXT[m.point]
        bar = tuple(_RANK_TEXT[r] for r in m.bar)
    except KeyError:
        raise WireError(f"bad point {m.point} or bar {list(m.bar)}") from None
    players = len(m.totals)
    if not 2 <= players <= MAX_PLAYERS or len(m.kept) != players:
        raise WireError(f"totals for {players} players and kept cards for {len(m.kept)}")
    n = len(m.seats)
    seat = _index(m.seat, n, "seat") if m.HasField("seat") else None
    return Observation(
        seat=seat,
        to_act=_index(m.to_act, n, "to_act") if m.HasField("to_act") else None,
        point=point,
        hand=tuple(card_from_pb(c) for c in m.hand),
        leader=_index(m.leader, n, "leader") if n else m.leader,
        trick=tuple(_play(p, n) for p in m.trick),
        bar=bar,
        tricks=tuple((_index(t.leader, n, "leader"), tuple(_play(p, n) for p in t.plays), _index(t.winner, n, "winner"))
                     for t in m.tricks),
        stock=m.stock,
        hand_sizes=tuple(m.hand_sizes),
        discards=tuple(m.discards),
        seats=tuple(_index(p, players, "player") for p in m.seats),
        totals=tuple(m.totals),
        kept=tuple(tuple(card_from_pb(c) for c in k.cards) for k in m.kept),
        eliminated=tuple(_index(p, players, "player") for p in m.eliminated),
        legal=tuple(legal),
        rules=rules,
    )


def _play(p: pb.TwentyTwoPlay, n: int) -> tuple[int, tuple[str, ...]]:
    return _index(p.seat, n, "seat"), tuple(card_from_pb(c) for c in p.cards)


def _index(v: int, n: int, name: str) -> int:
    if v >= n:
        raise WireError(f"bad {name} {v} (of {n})")
    return v


class TwentyTwoCodec:
    """The ``twenty_two`` case of the observation and deal-detail oneofs."""

    game = CASE

    def encode_request(self, match_id: str, deal_no: int, decision_no: int, obs: Observation, legal: Sequence[str],
                       move_ms: int, bank_ms: int) -> bytes:
        return common.request_from_bytes(CASE, observation_bytes(obs), match_id, deal_no, decision_no, legal, move_ms,
                                         bank_ms)

    def decode_request(self, req: pb.DecisionRequest, rules: Rules, cls: Any = None, **extra: Any) -> Observation:
        """The request's Observation. ``cls`` (another game's SDK type) and ``extra`` (the clock) are
        not part of it and are dropped."""
        m = common.observation_of(req, CASE)
        legal = tuple(action_from_pb(a) for a in req.legal)
        return observation_from_pb(m, rules, legal)

    def rules(self, values: Mapping[str, str]) -> Rules:
        return common.rules_of(Rules.from_mapping, values)

    def fill_deal_end(self, msg: pb.DealEnd, end: DealEnd) -> None:
        r = end.record
        d = msg.twenty_two
        d.SetInParent()
        d.losers.extend(r["losers"])
        for c in r["revealed"]:
            fill_card(d.revealed.add(), c)
        d.penalty = r["penalty"]
        d.eliminated.extend(r["eliminated"])

    def __repr__(self) -> str:
        return "TwentyTwoCodec()"


CODEC = TwentyTwoCodec()
