"""Protobuf conversion: every action and observation round-trips; malformed input is a WireError."""

from __future__ import annotations

import random

import pytest

from harness.games.sixtysix import CARD_STR, Rules, apply, deal, legal_actions
from harness.games.sixtysix.observe import observe
from harness.wire import arena_pb2 as pb
from harness.wire.convert import (
    WireError, action_from_pb, action_to_pb, actions_from_pb, card_from_pb, deck_from_pb, deck_to_pb, hello,
    encode_request, observation_from_pb, observation_to_pb, reply, request_from_pb, request_to_pb, rules_from_map,
    rules_to_map, wrap_request,
)

ACTIONS = [*CARD_STR, "marry:C", "marry:D", "marry:H", "marry:S", "exchange", "close", "claim", "draw", "pass",
           "finish"]


@pytest.mark.parametrize("action", ACTIONS)
def test_action_round_trip(action: str) -> None:
    msg = action_to_pb(action)
    assert msg.text == action
    again = pb.Action.FromString(msg.SerializeToString())
    assert action_from_pb(again) == action
    assert action_from_pb(pb.Action(text=action)) == action  # text alone is enough when kind is unset


def test_structure_wins_over_text() -> None:
    msg = action_to_pb("TH")
    msg.text = "garbage"
    assert action_from_pb(msg) == "TH"


def test_card_structure() -> None:
    c = action_to_pb("TH").card
    assert (c.suit, c.rank, c.text) == (pb.SUIT_HEARTS, pb.RANK_TEN, "TH")
    assert card_from_pb(pb.Card(suit=pb.SUIT_CLUBS, rank=pb.RANK_NINE)) == "9C"


MALFORMED = [
    (pb.Action(), "no kind and no text"),
    (pb.Action(text="XX"), "'XX' is not an action"),
    (pb.Action(text="marry:X"), "is not an action"),
    (pb.Action(text="th"), "is not an action"),
    (pb.Action(text="\x00" * 100), "is not an action"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY), "has no card"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=pb.SUIT_HEARTS)), "bad rank"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(rank=pb.RANK_ACE)), "bad suit"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=9, rank=pb.RANK_ACE)), "bad suit value 9"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=1, rank=77)), "bad rank value 77"),
    (pb.Action(kind=pb.ACTION_KIND_MARRY), "has no suit"),
    (pb.Action(kind=pb.ACTION_KIND_MARRY, suit=5), "bad suit value 5"),
    (pb.Action(kind=42), "bad action kind value 42"),
    (pb.Action.FromString(b"\x08\x63"), "bad action kind value 99"),  # from raw bytes
]


@pytest.mark.parametrize("msg,reason", MALFORMED)
def test_malformed_action_is_a_one_line_wire_error(msg: pb.Action, reason: str) -> None:
    with pytest.raises(WireError) as e:
        action_from_pb(msg)
    assert reason in str(e.value)
    assert "\n" not in str(e.value)
    assert isinstance(e.value, ValueError)


def test_bad_action_text_going_out() -> None:
    with pytest.raises(WireError):
        action_to_pb("TX")


def _random_states(n: int, seed: int, rules: Rules = Rules()):
    rng = random.Random(seed)
    for _ in range(n):
        deck = list(range(24))
        rng.shuffle(deck)
        s = deal(deck, rules, (rng.randrange(7), rng.randrange(7)))
        while True:
            yield s
            if s.over:
                break
            s = apply(s, rng.choice(legal_actions(s)))


@pytest.mark.parametrize("rules", [Rules(), Rules(public_trick_history=False, exchange_rank="J")])
def test_observation_round_trip(rules: Rules) -> None:
    count = 0
    for s in _random_states(60, 7, rules):
        for seat in (0, 1):
            obs = observe(s, seat)
            data = observation_to_pb(obs).SerializeToString(deterministic=True)
            back = observation_from_pb(pb.SixtySixObservation.FromString(data), rules, obs.legal)
            assert back == obs
            count += 1
    assert count > 800


def test_request_round_trip() -> None:
    for s in _random_states(10, 3):
        if s.over:
            continue
        obs = observe(s, s.to_act)
        req = request_to_pb(5, "m-1", 2, 9, obs, 1000, 8000)
        msg = pb.ArenaMessage(request=req)
        got = pb.ArenaMessage.FromString(msg.SerializeToString()).request
        assert (got.request_id, got.match_id, got.deal_no, got.decision_no) == (5, "m-1", 2, 9)
        assert (got.clock.move_ms, got.clock.bank_ms) == (1000, 8000)
        assert set(actions_from_pb(got.legal)) == set(legal_actions(s))
        assert request_from_pb(got, s.rules) == obs


@pytest.mark.parametrize("rules", [Rules(), Rules(public_trick_history=False, marriage_in_phase2=True),
                                   Rules(exchange_rank="J", exchange_before_draw=True, pre_draw_declarations=True)])
def test_fast_request_encoding_is_protobufs_own(rules: Rules) -> None:
    """The match loop's hand-assembled request bytes equal protobuf's serialization, field for field."""
    rng = random.Random(11)
    count = 0
    for s in _random_states(40, 5, rules):
        for seat in (0, 1):
            obs = observe(s, seat)
            rid = rng.choice([1, 127, 128, 300, 2**40])
            match_id = rng.choice(["", "m-1", "x" * 200])  # 200: a two-byte length prefix
            deal_no, decision_no = rng.choice([(0, 0), (1, 1), (7, 130)])
            move_ms, bank_ms = rng.choice([(0, 0), (1000, 10000), (300_000, 5)])
            fast = wrap_request(rid, encode_request(match_id, deal_no, decision_no, obs, move_ms, bank_ms))
            slow = pb.ArenaMessage(request=request_to_pb(rid, match_id, deal_no, decision_no, obs, move_ms, bank_ms))
            assert fast == slow.SerializeToString(), (obs, rid, match_id)
            count += 1
    assert count > 500


def test_request_without_observation() -> None:
    with pytest.raises(WireError, match="no sixtysix observation"):
        request_from_pb(pb.DecisionRequest(request_id=1))


def test_bad_observation_fields() -> None:
    obs = observe(next(_random_states(1, 1)), 0)
    m = observation_to_pb(obs)
    del m.tricks[:]
    with pytest.raises(WireError, match="tricks has 0 values"):
        observation_from_pb(m)
    m = observation_to_pb(obs)
    m.seat = 7
    with pytest.raises(WireError, match="bad seat 7"):
        observation_from_pb(m)


def test_rules_map_round_trip() -> None:
    rules = Rules(match_target=11, tie_carry_over=True, exchange_rank="J", closer_win_basis="close")
    m = rules_to_map(rules)
    assert m["tie_carry_over"] == "true" and m["match_target"] == "11"
    assert rules_from_map(m) == rules
    with pytest.raises(WireError, match="unknown rule option 'nope'"):
        rules_from_map({"nope": "1"})


def test_deck_and_messages() -> None:
    deck = tuple(random.Random(2).sample(range(24), 24))
    assert deck_from_pb(deck_to_pb(deck)) == deck
    h = hello("bot", token="t", max_concurrent=4)
    assert h.hello.protocol_version == 1 and list(h.hello.games) == ["sixtysix"]
    r = reply(12, "marry:S")
    assert r.reply.request_id == 12 and action_from_pb(r.reply.action) == "marry:S"
