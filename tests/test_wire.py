"""Protobuf conversion (protocol version 2): every action and observation of Sixty-Six and Schnapsen
round-trips in its own oneof case; the fast request encoding is protobuf's own bytes; the notices
carry players, teams, points and ranks; malformed input is a one-line WireError."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import cast

import pytest

from harness.games import registry
from harness.games.base import DealEnd, DealStart
from harness.games.schnapsen import GAME as SCHNAPSEN_GAME
from harness.games.sixtysix import CARD_STR, Rules, State, apply, deal, legal_actions
from harness.games.sixtysix.cards import CLASSIC, SCHNAPSEN, Pack
from harness.games.sixtysix.observe import observe
from harness.wire import arena_pb2 as pb
from harness.wire import notices
from harness.wire.codecs import SixtySixCodec, codec
from harness.wire.convert import (
    PROTOCOL_VERSION, TEXT_MAX, WireError, action_from_pb, action_to_pb, actions_from_pb, card_from_pb, card_to_pb,
    deck_from_pb, deck_to_pb, encode_request, hello, observation_from_pb, observation_to_pb, reply, request_from_pb,
    request_to_pb, rules_from_map, rules_to_map, wrap_request,
)

ACTIONS = [*CARD_STR, "marry:C", "marry:D", "marry:H", "marry:S", "exchange", "close", "claim", "draw", "pass",
           "finish"]
GENERIC_CARDS = [r + s for r in "2345678" for s in "CDHS"]  # ranks 2..8 for later games (RULES-SPEC 7.4)
TEXT_ONLY = ["trump:next", "trump:H", "7H+7S", "discard:7H", "done", "XX", "th", "marry:X", "\u2660" * TEXT_MAX]
PACKS = {"sixtysix": CLASSIC, "schnapsen": SCHNAPSEN}


def test_protocol_version_2() -> None:
    assert PROTOCOL_VERSION == 2


@pytest.mark.parametrize("action", ACTIONS + GENERIC_CARDS)
def test_action_round_trip(action: str) -> None:
    msg = action_to_pb(action)
    assert msg.text == action and msg.kind != pb.ACTION_KIND_UNSPECIFIED
    again = pb.Action.FromString(msg.SerializeToString())
    assert action_from_pb(again) == action
    assert action_from_pb(pb.Action(text=action)) == action  # text alone is enough when kind is unset


@pytest.mark.parametrize("action", TEXT_ONLY)
def test_other_notation_travels_as_text(action: str) -> None:
    """Actions no kind describes go out as text alone and come back unchanged: the game decides legality."""
    msg = action_to_pb(action)
    assert (msg.kind, msg.text) == (pb.ACTION_KIND_UNSPECIFIED, action)
    assert action_from_pb(pb.Action.FromString(msg.SerializeToString())) == action


def test_structure_wins_over_text() -> None:
    msg = action_to_pb("TH")
    msg.text = "garbage"
    assert action_from_pb(msg) == "TH"


def test_card_structure() -> None:
    for i, card in enumerate(CARD_STR):  # the decoder reads enums by position: C D H S, 9 J Q K T A
        c = card_to_pb(card)
        assert (c.suit, c.rank) == (i // 6 + 1, i % 6 + 1)
    for i, r in enumerate("2345678"):
        assert card_to_pb(r + "S").rank == 7 + i
    c = action_to_pb("TH").card
    assert (c.suit, c.rank, c.text) == (pb.SUIT_HEARTS, pb.RANK_TEN, "TH")
    assert card_from_pb(pb.Card(suit=pb.SUIT_CLUBS, rank=pb.RANK_NINE)) == "9C"
    assert card_from_pb(pb.Card(suit=pb.SUIT_SPADES, rank=pb.RANK_TWO)) == "2S"
    assert card_from_pb(pb.Card(suit=pb.SUIT_DIAMONDS, rank=pb.RANK_EIGHT)) == "8D"
    eights = card_to_pb("8H")
    assert (eights.suit, eights.rank) == (pb.SUIT_HEARTS, pb.RANK_EIGHT)
    assert [pb.Rank.Value(f"RANK_{n}") for n in ("TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT")] == \
        list(range(7, 14))


# cast(pb.Suit, 9) and the like: enum numbers the schema does not define (proto3 enums are open)
MALFORMED = [
    (pb.Action(), "no kind and no text"),
    (pb.Action(text="\x00" * 100), "is not an action"),
    (pb.Action(text="TH\n"), "'TH\\n' is not an action"),
    (pb.Action(text="x" * (TEXT_MAX + 1)), f"has {TEXT_MAX + 1} characters (at most {TEXT_MAX})"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY), "has no card"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=pb.SUIT_HEARTS)), "bad rank"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(rank=pb.RANK_ACE)), "bad suit"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=cast(pb.Suit, 9), rank=pb.RANK_ACE)), "bad suit value 9"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=pb.SUIT_CLUBS, rank=cast(pb.Rank, 14))),
     "bad rank value 14"),
    (pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=pb.SUIT_CLUBS, rank=cast(pb.Rank, 77))),
     "bad rank value 77"),
    (pb.Action(kind=pb.ACTION_KIND_MARRY), "has no suit"),
    (pb.Action(kind=pb.ACTION_KIND_MARRY, suit=cast(pb.Suit, 5)), "bad suit value 5"),
    (pb.Action(kind=cast(pb.ActionKind, 42)), "bad action kind value 42"),
    (pb.Action.FromString(b"\x08\x63"), "bad action kind value 99"),  # from raw bytes
]


@pytest.mark.parametrize("msg,reason", MALFORMED)
def test_malformed_action_is_a_one_line_wire_error(msg: pb.Action, reason: str) -> None:
    with pytest.raises(WireError) as e:
        action_from_pb(msg)
    assert reason in str(e.value)
    assert "\n" not in str(e.value)
    assert isinstance(e.value, ValueError)


def test_text_length_limit() -> None:
    assert action_from_pb(pb.Action(text="y" * TEXT_MAX)) == "y" * TEXT_MAX
    with pytest.raises(WireError):
        action_from_pb(pb.Action(text="y" * (TEXT_MAX + 1)))


@pytest.mark.parametrize("bad", ["", "a\nb", "\x00", "z" * (TEXT_MAX + 1)])
def test_bad_action_text_going_out(bad: str) -> None:
    with pytest.raises(WireError):
        action_to_pb(bad)


def _random_states(n: int, seed: int, rules: Rules = Rules(), pack: Pack = CLASSIC) -> Iterator[State]:
    rng = random.Random(seed)
    for _ in range(n):
        deck = list(pack.cards)
        rng.shuffle(deck)
        s = deal(deck, rules, (rng.randrange(7), rng.randrange(7)))
        while True:
            yield s
            if s.over:
                break
            s = apply(s, rng.choice(legal_actions(s)))


RULE_CASES = [
    ("sixtysix", Rules()),
    ("sixtysix", Rules(public_trick_history=False, exchange_rank="J")),
    ("schnapsen", SCHNAPSEN_GAME.rules()),
    ("schnapsen", SCHNAPSEN_GAME.rules({"public_trick_history": False, "exchange_requires_trick": True})),
]


@pytest.mark.parametrize("game,rules", RULE_CASES)
def test_observation_round_trip(game: str, rules: Rules) -> None:
    count = 0
    for s in _random_states(60, 7, rules, PACKS[game]):
        for seat in (0, 1):
            obs = observe(s, seat)
            data = observation_to_pb(obs).SerializeToString(deterministic=True)
            back = observation_from_pb(pb.SixtySixObservation.FromString(data), rules, obs.legal, pack=game)
            assert back == obs and back.pack == game
            count += 1
    assert count > 600


@pytest.mark.parametrize("game,rules", RULE_CASES)
def test_request_round_trip_in_the_games_case(game: str, rules: Rules) -> None:
    c = codec(game)
    seen = 0
    for s in _random_states(10, 3, rules, PACKS[game]):
        if s.over:
            continue
        obs = observe(s, s.to_act)
        req = request_to_pb(5, "m-1", 2, 9, obs, 1000, 8000, case=game)
        msg = pb.ArenaMessage(request=req)
        got = pb.ArenaMessage.FromString(msg.SerializeToString()).request
        assert got.WhichOneof("observation") == game
        assert (got.request_id, got.match_id, got.deal_no, got.decision_no) == (5, "m-1", 2, 9)
        assert (got.clock.move_ms, got.clock.bank_ms) == (1000, 8000)
        assert set(actions_from_pb(got.legal)) == set(legal_actions(s))
        assert request_from_pb(got, rules, case=game) == obs
        assert c.decode_request(got, rules) == obs
        seen += 1
    assert seen > 40


@pytest.mark.parametrize("game,rules", RULE_CASES + [
    ("sixtysix", Rules(public_trick_history=False, marriage_in_phase2=True)),
    ("sixtysix", Rules(exchange_rank="J", exchange_before_draw=True, pre_draw_declarations=True)),
])
def test_fast_request_encoding_is_protobufs_own(game: str, rules: Rules) -> None:
    """The match loop's hand-assembled request bytes equal protobuf's serialization, field for field,
    in the game's oneof case (field 10 for Sixty-Six, 11 for Schnapsen's 20-card deals)."""
    rng = random.Random(11)
    c = codec(game)
    count = 0
    for s in _random_states(40, 5, rules, PACKS[game]):
        assert len(s.deck) == len(PACKS[game].cards)
        for seat in (0, 1):
            obs = observe(s, seat)
            rid = rng.choice([1, 127, 128, 300, 2**40])
            match_id = rng.choice(["", "m-1", "x" * 200])  # 200: a two-byte length prefix
            deal_no, decision_no = rng.choice([(0, 0), (1, 1), (7, 130)])
            move_ms, bank_ms = rng.choice([(0, 0), (1000, 10000), (300_000, 5)])
            slow = pb.ArenaMessage(request=request_to_pb(rid, match_id, deal_no, decision_no, obs, move_ms, bank_ms,
                                                         case=game)).SerializeToString()
            fast = wrap_request(rid, encode_request(match_id, deal_no, decision_no, obs, move_ms, bank_ms, case=game))
            via_codec = wrap_request(rid, c.encode_request(match_id, deal_no, decision_no, obs, obs.legal, move_ms,
                                                           bank_ms))
            assert fast == slow == via_codec, (obs, rid, match_id)
            count += 1
    assert count > 500


@pytest.mark.parametrize("game", ["sixtysix", "schnapsen"])
def test_codec_round_trip_through_the_game_interface(game: str) -> None:
    """Random matches through the registry: every request decodes to the game's observation."""
    g, c = registry.get(game), codec(game)
    rng = random.Random(4)
    checked = 0
    for seed in range(40):
        rules = g.rules({"match_target": 5})
        wire_rules = c.rules(g.rules_map(rules))
        assert wire_rules == rules
        m = g.start(seed, rules)
        while (p := g.to_act(m)) is not None:
            obs, legal = g.observe(m, p), g.legal(m)
            body = c.encode_request("m", g.deal(m).deal_no, checked + 1, obs, legal, 500, 900)
            req = pb.DecisionRequest.FromString(body)
            assert req.WhichOneof("observation") == game
            back = c.decode_request(req, wire_rules)
            assert back == obs and back.legal == legal
            m = g.apply(m, rng.choice(legal))
            checked += 1
    assert checked > 250


def test_a_request_of_another_game_does_not_decode() -> None:
    obs = observe(next(_random_states(1, 1)), 0)
    req = request_to_pb(1, "m", 1, 1, obs, 100, 100, case="sixtysix")
    with pytest.raises(WireError, match="no schnapsen observation"):
        codec("schnapsen").decode_request(req, SCHNAPSEN_GAME.rules())
    with pytest.raises(WireError, match="no sixtysix observation"):
        request_from_pb(pb.DecisionRequest(request_id=1))


def test_the_family_decodes_only_its_own_cards_and_actions() -> None:
    """Ranks 2..8 are fine on the wire, but not in a Sixty-Six observation."""
    obs = observe(next(_random_states(1, 2)), 0)
    m = observation_to_pb(obs)
    m.hand[0].rank = pb.RANK_SEVEN
    with pytest.raises(WireError, match="bad rank value 12"):
        observation_from_pb(m)
    req = request_to_pb(1, "m", 1, 1, obs, 100, 100)
    req.legal.add(text="trump:next")
    with pytest.raises(WireError, match="not a Sixty-Six action"):
        request_from_pb(req)


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


def test_codec_registry_and_rules() -> None:
    assert {codec(g).game for g in registry.ids()} == set(registry.ids())
    assert isinstance(codec("schnapsen"), SixtySixCodec)
    with pytest.raises(ValueError, match="no wire codec for game 'chess'"):
        codec("chess")
    rules = codec("schnapsen").rules({})  # the Schnapsen column of Appendix A (SCH-5, SCH-9)
    assert (rules.exchange_rank, rules.last_trick) == ("J", "wins_deal")
    assert codec("sixtysix").rules({}) == Rules()
    assert codec("schnapsen").rules({"exchange_rank": "9"}).exchange_rank == "9"  # any option still accepted
    with pytest.raises(WireError, match="unknown rule option 'nope'"):
        codec("schnapsen").rules({"nope": "1"})


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
    assert h.hello.protocol_version == 2 and list(h.hello.games) == ["sixtysix"]
    h = hello("bot", games=("schnapsen", "sixtysix"))
    assert list(h.hello.games) == ["schnapsen", "sixtysix"]
    r = reply(12, "marry:S")
    assert r.reply.request_id == 12 and action_from_pb(r.reply.action) == "marry:S"


# -- notices -------------------------------------------------------------------------------


def test_match_start_notice() -> None:
    g = registry.get("schnapsen")
    rules_map = g.rules_map(g.rules())
    data = notices.match_start("m-7", "schnapsen", 1, ("a", "b"), (0, 1), rules_map, 400, 9000)
    expected = pb.ArenaMessage(match_start=pb.MatchStart(
        match_id="m-7", game="schnapsen", player=1, players=["a", "b"], rules=rules_map,
        clock=pb.Clock(move_ms=400, bank_ms=9000), teams=[0, 1]))
    got = pb.ArenaMessage.FromString(data)
    assert got == expected
    assert got.SerializeToString(deterministic=True) == expected.SerializeToString(deterministic=True)
    assert codec("schnapsen").rules(got.match_start.rules) == g.rules()


def test_deal_start_notice_says_who_sits_where() -> None:
    d = DealStart(deal_no=3, dealer=0, seats=(1, 0), record={})
    for player, seat in ((0, 1), (1, 0)):
        data = notices.deal_start("m", d, player, (4, 2))
        assert data == pb.ArenaMessage(deal_start=pb.DealStart(
            match_id="m", deal_no=3, dealer=0, seat=seat, game_score=[4, 2], seats=[1, 0])).SerializeToString()


@pytest.mark.parametrize("game", ["sixtysix", "schnapsen"])
def test_deal_end_notice_from_a_played_deal(game: str) -> None:
    g, c = registry.get(game), codec(game)
    rng = random.Random(9)
    m = g.start(12, g.rules())
    while g.deals_done(m) == 0:
        m = g.apply(m, rng.choice(g.legal(m)))
    end = g.deal_end(m)
    got = pb.ArenaMessage.FromString(notices.deal_end("m", end, c)).deal_end
    assert got.WhichOneof("detail") == game
    detail = getattr(got, game)
    r = end.record
    assert (detail.tie, detail.winner, detail.game_points, detail.row, detail.reason) == (
        r["winner"] is None, r["winner"] or 0, r["game_points"], r["row"], r["reason"])
    assert tuple(got.points) == end.points and tuple(got.game_score) == end.scores
    assert tuple(card_from_pb(x) for x in got.deck) == end.deck
    assert len(got.deck) == len(PACKS[game].cards)
    expected = pb.ArenaMessage(deal_end=pb.DealEnd(
        match_id="m", deal_no=end.deal_no, deck=[card_to_pb(x) for x in end.deck], game_score=end.scores,
        points=end.points))
    getattr(expected.deal_end, game).CopyFrom(pb.SixtySixDealDetail(
        tie=r["winner"] is None, winner=r["winner"] or 0, game_points=r["game_points"], row=r["row"],
        reason=r["reason"]))
    assert notices.deal_end("m", end, c) == expected.SerializeToString()


def test_deal_end_notice_of_a_tie() -> None:
    end = DealEnd(deal_no=2, points=(0, 0), scores=(1, 1), deck=tuple(CARD_STR),
                  record={"winner": None, "game_points": 0, "row": 8, "reason": "tie"})
    got = pb.ArenaMessage.FromString(notices.deal_end("m", end, codec("sixtysix"))).deal_end
    assert got.HasField("sixtysix") and got.sixtysix.tie and got.sixtysix.row == 8
    assert list(got.points) == [0, 0]


def test_match_end_notice() -> None:
    data = notices.match_end("m", (1, 0), (5, 7), (0, 1), pb.TERMINATION_ILLEGAL, "'9C' is not legal")
    assert data == pb.ArenaMessage(match_end=pb.MatchEnd(
        match_id="m", ranks=[1, 0], game_score=[5, 7], teams=[0, 1], termination=pb.TERMINATION_ILLEGAL,
        detail="'9C' is not legal")).SerializeToString()
    tie = pb.ArenaMessage.FromString(notices.match_end("m", (0, 0), (7, 7), (0, 1), pb.TERMINATION_NORMAL, ""))
    assert list(tie.match_end.ranks) == [0, 0]
    none = pb.ArenaMessage.FromString(notices.match_end("m", None, (0, 0), (0, 1), pb.TERMINATION_INTERRUPTED, "x"))
    assert list(none.match_end.ranks) == [] and list(none.match_end.teams) == [0, 1]


def test_old_fields_are_reserved() -> None:
    """Version 1's winner fields are gone for good: their numbers cannot come back with a new meaning."""
    de, me = pb.DealEnd.DESCRIPTOR, pb.MatchEnd.DESCRIPTOR
    assert not {"tie", "winner", "game_points", "row", "reason"} & set(de.fields_by_name)
    assert not {"has_winner", "winner"} & set(me.fields_by_name)
    assert {3, 4, 5, 6, 7}.isdisjoint(de.fields_by_number) and {2, 3}.isdisjoint(me.fields_by_number)
    assert pb.DecisionRequest.DESCRIPTOR.fields_by_name["schnapsen"].number == 11
