"""Four-handed Sixty-Six on the wire and behind its information gate (issue 12, RULES-SPEC 7.3, 7.5):
observations round-trip exactly, malformed ones are refused in one line, the deal detail travels,
a partner's hand is as hidden as an opponent's, and the built-in players play legally."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from harness.games import registry
from harness.games.four_handed.engine import DEAL_SEATS, apply, legal_actions
from harness.games.four_handed.observe import Observation, observe
from harness.players import players_for
from harness.sdk.client import Observation as SdkObservation
from harness.strategies_four_handed import greedy_action, trick_winner
from harness.wire import arena_pb2 as pb
from harness.wire import notices
from harness.wire.codecs import codec
from harness.wire.convert import WireError

GAME = registry.get("four_handed")
CODEC = codec("four_handed")


def observations(pack: int, seeds: range) -> Iterator[tuple[Any, int, Observation]]:
    rules = GAME.rules({"pack": pack})
    for seed in seeds:
        rng = random.Random(seed)
        m = GAME.start(seed, rules)
        while (p := GAME.to_act(m)) is not None:
            yield m, p, GAME.observe(m, p)
            m = GAME.apply(m, rng.choice(GAME.legal(m)))


@pytest.mark.parametrize("pack", [32, 24])
def test_every_observation_round_trips_and_is_protobufs_own_bytes(pack: int) -> None:
    rules = GAME.rules({"pack": pack})
    n = 0
    for m, p, obs in observations(pack, range(3)):
        body = CODEC.encode_request("m", GAME.deal(m).deal_no, n + 1, obs, obs.legal, 1000, 5000)
        req = pb.DecisionRequest.FromString(body)
        assert req.SerializeToString() == body
        assert req.WhichOneof("observation") == "four_handed"
        assert CODEC.decode_request(req, rules) == obs
        assert tuple(a.text for a in req.legal) == obs.legal
        # A seat that is not to act sees the same position with no legal actions.
        other = GAME.observe(m, (p + 1) % 4)
        assert other.legal == () and other.history == obs.history and other.hand != obs.hand
        n += 1
    assert n > 200


def test_the_sdk_gets_the_games_observation_with_the_clock() -> None:
    _, _, obs = next(iter(observations(32, range(1))))
    req = pb.DecisionRequest.FromString(CODEC.encode_request("m", 1, 1, obs, obs.legal, 700, 900))
    got = CODEC.decode_request(req, GAME.rules(), SdkObservation, move_ms=700, bank_ms=900, received=1.0,
                               match_id="m")
    assert isinstance(got, Observation) and got == obs
    assert (got.move_ms, got.bank_ms, got.match_id) == (700, 900, "m") and got.deadline(1.0) == pytest.approx(1.7)


def _request() -> pb.DecisionRequest:
    m, _, obs = next(o for o in observations(32, range(1)) if o[2].trick)
    return pb.DecisionRequest.FromString(CODEC.encode_request("m", 1, 1, obs, obs.legal, 1, 1))


@pytest.mark.parametrize("damage,match", [
    (lambda r: r.four_handed.ClearField("points"), "points has 0 values"),
    (lambda r: setattr(r.four_handed, "seat", 4), "bad seat 4"),
    (lambda r: setattr(r.four_handed, "team", 2), "bad team 2"),
    (lambda r: setattr(r.four_handed, "trump_suit", 0), "bad trump suit"),
    (lambda r: setattr(r.four_handed, "point", pb.POINT_DRAW), "bad point"),
    (lambda r: setattr(r.four_handed.hand[0], "rank", pb.RANK_TWO), "not a card of four-handed"),
    (lambda r: r.legal.add(text="claim"), "not a four-handed action"),
    (lambda r: r.sixtysix.SetInParent(), "no four_handed observation"),
])
def test_malformed_observations_are_refused_in_one_line(damage: Callable[[pb.DecisionRequest], object],
                                                         match: str) -> None:
    req = _request()
    damage(req)
    with pytest.raises(WireError, match=match) as e:
        CODEC.decode_request(req, GAME.rules())
    assert "\n" not in str(e.value)


def test_the_deal_detail_travels_by_team() -> None:
    rng = random.Random(1)
    m = GAME.start(1, GAME.rules())
    while GAME.deals_done(m) == 0:
        m = GAME.apply(m, rng.choice(GAME.legal(m)))
    end = GAME.deal_end(m)
    msg = pb.ArenaMessage.FromString(notices.deal_end("m", end, CODEC)).deal_end
    d = msg.four_handed
    assert msg.WhichOneof("detail") == "four_handed"
    assert list(d.points) == end.record["points"] and sum(d.points) == 130
    assert list(d.tricks) == end.record["tricks"] and sum(d.tricks) == 8
    assert d.tie == (end.record["winner"] is None) and d.game_points == end.record["game_points"]
    assert list(msg.points) == list(end.points) and len(msg.deck) == 32
    assert {c.rank for c in msg.deck} >= {pb.RANK_SEVEN, pb.RANK_EIGHT}


def test_rules_travel_and_a_refused_option_is_a_wire_error() -> None:
    assert CODEC.rules(GAME.rules_map(GAME.rules({"pack": 24}))) == GAME.rules({"pack": 24})
    with pytest.raises(WireError, match="team_marriages"):
        CODEC.rules({"team_marriages": "leader_only"})


# -- hidden information: the partner's hand is as hidden as an opponent's ---------------------------------


def _swap_in_deck(deck: list[str], a: str, b: str) -> list[str]:
    out = list(deck)
    i, j = out.index(a), out.index(b)
    out[i], out[j] = out[j], out[i]
    return out


@pytest.mark.parametrize("pack", [32, 24])
def test_a_seat_sees_nothing_of_the_other_hands_not_even_the_partners(pack: int) -> None:
    """Swapping unplayed cards between the other three hands (partner included) never changes what a
    seat observes, at any point of the deal; swapping into its own hand does."""
    rules = GAME.rules({"pack": pack})
    rng = random.Random(pack)
    checked = 0
    for _ in range(60):
        deck = GAME.deal(GAME.start(rng.randrange(10**6), rules)).record["deck"].split()
        s = GAME.position(" ".join(deck), [], rules)
        acts: list[str] = []
        for _ in range(rng.randrange(0, pack - 1)):
            a = rng.choice(legal_actions(s))
            acts.append(a)
            s = apply(s, a)
        me = rng.randrange(4)
        played = {c for _, c in s.history}
        seat_of = {c: DEAL_SEATS[pack][i] for i, c in enumerate(deck)}
        others = [k for k in range(4) if k != me]
        x, y = rng.sample(others, 2)  # e.g. the partner and an opponent
        cx = [c for c in deck if seat_of[c] == x and c not in played and c != deck[-1]]
        cy = [c for c in deck if seat_of[c] == y and c not in played and c != deck[-1]]
        if not cx or not cy:
            continue
        swapped = _swap_in_deck(deck, rng.choice(cx), rng.choice(cy))
        try:
            t = GAME.position(" ".join(swapped), acts, rules)
        except ValueError:
            continue  # the history is not legal with the other hands: not the same public position
        assert observe(t, me) == observe(s, me)
        assert observe(t, x) != observe(s, x)
        checked += 1
    assert checked > 20


def test_the_wire_carries_no_card_of_another_hand() -> None:
    for m, p, obs in observations(32, range(2)):
        for seat in range(4):
            o = GAME.observe(m, seat)
            req = pb.DecisionRequest.FromString(CODEC.encode_request("m", 1, 1, o, o.legal, 1, 1))
            f = req.four_handed
            cards = {c.text for c in f.hand} | {e.action.text for e in f.history} | {
                e.action.text for e in f.trick} | ({f.trump_card.text} if f.HasField("trump_card") else set())
            public = {c for _, c in o.history} | ({o.trump_card} if o.trump_card else set())
            assert cards <= set(o.hand) | public


def test_the_trump_card_is_shown_to_all_while_the_dealer_holds_it() -> None:
    seen_public = seen_gone = 0
    for m, p, obs in observations(32, range(3)):
        dealer_hand = GAME.observe(m, GAME.deal(m).dealer).hand
        turned = GAME.deal(m).record["deck"].split()[-1]
        if turned in dealer_hand:
            assert obs.trump_card == turned
            seen_public += 1
        else:
            assert obs.trump_card is None
            seen_gone += 1
    assert seen_public and seen_gone


# -- built-in players ----------------------------------------------------------------------------------


def test_greedy_does_not_over_take_its_partner_when_it_may_choose() -> None:
    chose = 0
    for m, p, obs in observations(32, range(30)):
        if not obs.trick or len(obs.legal) < 2:
            continue
        seat, best = trick_winner(obs.trick, obs.trump_suit)
        a = greedy_action(obs)
        assert a in obs.legal
        if seat == obs.partner:
            from harness.strategies_four_handed import _beats

            if any(not _beats(c, best, obs.trump_suit) for c in obs.legal):
                assert not _beats(a, best, obs.trump_suit)
                chose += 1
        elif any(c[1] == obs.trump_suit for c in obs.legal) and all(
                c[1] == obs.trump_suit for c in obs.legal) and obs.trick[0][1][1] != obs.trump_suit:
            assert a[1] == obs.trump_suit  # void: trumps
    assert chose > 10


def test_greedy_partners_beat_random_partners() -> None:
    wins = 0
    for seed in range(40):
        bots = players_for("four_handed", 4, random.Random(seed))
        m = GAME.start(seed, GAME.rules())
        while (p := GAME.to_act(m)) is not None:
            m = GAME.apply(m, bots[p][1](GAME.observe(m, p)))
        o = GAME.outcome(m)
        assert o is not None
        wins += o.ranks[0] == 0  # players 0 and 2 are greedy
    assert wins >= 28, wins
