"""The match loop's direct request encoding (issue 18) gives exactly protobuf's bytes, for every game.

Every decision of many seeded matches (random legal actions) is encoded both ways: the codec's
``encode_request`` (bytes put together from cached pieces) and a DecisionRequest built field by field
through the protobuf runtime and serialized.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf.message import Message

from harness.games.base import turn
from harness.games.registry import get as get_game
from harness.wire import arena_pb2 as pb
from harness.wire import four_handed, three_handed, twenty_two
from harness.wire.codecs import codec
from harness.wire.common import card_field, event_field, table_bytes
from harness.wire.convert import packed_field, uint_field, card_to_pb, fill_action, observation_to_pb

GAMES = ["sixtysix", "schnapsen", "three_handed", "four_handed", "twenty_two"]
TO_PB: dict[str, Callable[[Any], Message]] = {"sixtysix": observation_to_pb, "schnapsen": observation_to_pb,
         "three_handed": three_handed.observation_to_pb, "four_handed": four_handed.observation_to_pb,
         "twenty_two": twenty_two.observation_to_pb}


def slow_request(game: str, obs: object, legal: tuple[str, ...], decision_no: int, bank_ms: int) -> bytes:
    """The request built through the protobuf runtime, field by field."""
    req = pb.DecisionRequest(match_id="m0123456789abcdef", deal_no=2, decision_no=decision_no,
                             clock=pb.Clock(move_ms=1000, bank_ms=bank_ms))
    for a in legal:
        fill_action(req.legal.add(), a)
    getattr(req, game).CopyFrom(TO_PB[game](obs))
    return req.SerializeToString()


@pytest.mark.parametrize("game", GAMES)
def test_encode_request_is_protobufs_bytes(game: str) -> None:
    g = get_game(game)
    rules, c = g.rules(), codec(game)
    rng = random.Random(18)
    checked = 0
    for seed in range(25):
        m = g.start(seed, rules)
        while (now := turn(g, m)) is not None:
            _, obs, legal = now
            checked += 1
            bank = rng.choice((0, 1, 127, 128, 300, 10_000, 70_000))
            fast = c.encode_request("m0123456789abcdef", 2, checked, obs, legal, 1000, bank)
            assert fast == slow_request(game, obs, legal, checked, bank), (seed, checked)
            m = g.apply(m, rng.choice(legal))
    assert checked > 500


def test_the_pieces_are_protobufs_bytes() -> None:
    assert uint_field(13, 0) == b"" and packed_field(10, ()) == b""
    want = pb.ThreeHandedObservation(points=[0, 127, 128, 300]).SerializeToString()
    assert packed_field(10, (0, 127, 128, 300)) == want
    assert card_field(4, "AC") == pb.ThreeHandedObservation(hand=[card_to_pb("AC")]).SerializeToString()
    e = pb.FourHandedObservation()
    fill_action(e.trick.add(seat=0).action, "TS")
    fill_action(e.trick.add(seat=3).action, "9H")
    assert event_field(8, 0, "TS") + event_field(8, 3, "9H") == e.SerializeToString()

    class Seen:  # seat 0 to act: an optional field set to 0 is still written
        seat, to_act, hand, trump_card, leader, trick, history = 0, 0, (), None, 0, (), ()

    assert table_bytes(Seen(), 0, 0, ()) == pb.FourHandedObservation(to_act=0).SerializeToString() == b"\x10\x00"
