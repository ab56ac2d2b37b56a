"""The three_handed wire codec (harness/wire/three_handed.py): every observation of random matches
round-trips exactly; the request bytes are protobuf's own; malformed messages are refused in one
line; the SDK gets the observation with its clock; DealEnd carries the game's detail."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from harness.games.base import DealEnd
from harness.games.registry import get
from harness.games.three_handed.game import Match
from harness.games.three_handed.options import Rules
from harness.sdk.client import Observation as SdkObservation
from harness.wire import arena_pb2 as pb
from harness.wire.codecs import codec
from harness.wire.convert import WireError
from harness.wire.notices import deal_end
from harness.wire.three_handed import CODEC, ThreeHandedRequest, observation_to_pb

G = get("three_handed")


def positions(n: int, cfg: dict[str, str] = {}) -> Iterator[tuple[Match, int, Rules]]:
    rules = G.rules(cfg)
    for seed in range(n):
        m = G.start(seed, rules)
        rng = random.Random(seed)
        while (p := G.to_act(m)) is not None:
            yield m, p, rules
            m = G.apply(m, rng.choice(G.legal(m)))


def _to_act(m: Match) -> int:
    p = G.to_act(m)
    assert p is not None
    return p


def test_codec_is_registered() -> None:
    assert codec("three_handed") is CODEC


@pytest.mark.parametrize("cfg", [{}, {"3h_must_head": "false", "3h_grade": "sum"}])
def test_every_observation_round_trips_and_the_bytes_are_protobufs(cfg: dict[str, str]) -> None:
    seen = points = 0
    for m, p, rules in positions(6, cfg):
        for seat_player in range(3):
            obs = G.observe(m, seat_player)
            legal = obs.legal
            body = CODEC.encode_request("m-1", G.deal(m).deal_no, 3, obs, legal, 900, 4000)
            req = pb.DecisionRequest.FromString(body)
            assert req.SerializeToString() == body  # protobuf's own bytes
            assert req.WhichOneof("observation") == "three_handed"
            assert CODEC.decode_request(req, rules) == obs
            points += obs.point == "T"
            seen += 1
    assert seen > 1000 and points > 10


def test_trump_is_unset_at_point_t_and_trump_card_only_when_shown() -> None:
    m = G.start(4, G.rules())
    obs = G.observe(m, _to_act(m))
    msg = observation_to_pb(obs)
    assert msg.trump == pb.SUIT_UNSPECIFIED and not msg.HasField("trump_card") and len(msg.hand) == 3
    m2 = G.apply(m, "trump:next")
    for p in range(3):
        msg = observation_to_pb(G.observe(m2, p))
        assert msg.HasField("trump_card") and msg.trump != pb.SUIT_UNSPECIFIED
        assert msg.history[0].action.text == "trump:next"


def test_the_sdk_gets_its_clock_and_a_three_handed_observation() -> None:
    m = G.start(1, G.rules())
    obs = G.observe(m, _to_act(m))
    req = pb.DecisionRequest.FromString(CODEC.encode_request("x", 1, 1, obs, obs.legal, 700, 3000))
    got = CODEC.decode_request(req, G.rules(), SdkObservation, move_ms=700, bank_ms=3000, received=1.5,
                               match_id="x")
    assert isinstance(got, ThreeHandedRequest)
    assert (got.move_ms, got.bank_ms, got.match_id, got.legal, got.hand) == (700, 3000, "x", obs.legal, obs.hand)
    assert got.deadline(1.0) == pytest.approx(2.2)


def _request() -> pb.DecisionRequest:
    m = G.start(2, G.rules())
    m = G.apply(m, "trump:C")
    obs = G.observe(m, _to_act(m))
    return pb.DecisionRequest.FromString(CODEC.encode_request("x", 1, 2, obs, obs.legal, 1, 1))


@pytest.mark.parametrize("spoil, word", [
    (lambda r: setattr(r.three_handed, "seat", 3), "seat"),
    (lambda r: r.three_handed.points.append(1), "points"),
    (lambda r: setattr(r.three_handed, "point", 9), "point"),
    (lambda r: setattr(r.three_handed, "trump", 7), "trump"),
    (lambda r: r.three_handed.hand.add(suit=pb.SUIT_HEARTS, rank=pb.RANK_SEVEN), "7H"),
    (lambda r: r.legal.add(text="close"), "close"),
    (lambda r: r.sixtysix.SetInParent(), "three_handed"),
])
def test_malformed_requests_are_refused_in_one_line(spoil: Callable[[pb.DecisionRequest], object],
                                                    word: str) -> None:
    req = _request()
    spoil(req)
    with pytest.raises(WireError) as e:
        CODEC.decode_request(req, G.rules())
    assert word in str(e.value) and "\n" not in str(e.value)


def test_deal_end_carries_the_claim() -> None:
    rng = random.Random(3)
    m = G.start(3, G.rules())
    ends: list[DealEnd] = []
    while G.to_act(m) is not None:
        done = G.deals_done(m)
        m = G.apply(m, rng.choice(G.legal(m)))
        if G.deals_done(m) > done:
            ends.append(G.deal_end(m))
    for end in ends:
        msg = pb.ArenaMessage.FromString(deal_end("m", end, CODEC)).deal_end
        assert msg.WhichOneof("detail") == "three_handed"
        d = msg.three_handed
        claimed = end.record["winner"] is not None
        assert d.claimed == claimed and d.reason == ("claim" if claimed else "finish")
        assert list(msg.points) == list(end.points) and len(msg.deck) == 24
        if claimed:
            assert d.winner == end.record["winner"] and d.game_points == end.points[d.winner] >= 1
    assert any(e.record["winner"] is not None for e in ends)


def test_rules_from_the_wire() -> None:
    assert CODEC.rules({"3h_grade": "max"}).grade == "max"
    with pytest.raises(WireError):
        CODEC.rules({"close_before_draw": "true"})
