"""The game-generic conformance suite: every registered game must pass it (issue 10).

Each test runs once per game id of :mod:`harness.games.registry`, through the game interface only:
deterministic playouts per seed, legal actions until the end and only then none, every legal action
applies and an illegal one is refused, an outcome that is a ranking with scores and teams, the
wire round trip of every observation, and a record that replays and verifies.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from harness.arena.record import Recorder, verify_lines
from harness.games.base import IllegalAction, Outcome, turn
from harness.games.registry import get, ids
from harness.wire import arena_pb2 as pb
from harness.wire.codecs import codec

GAMES = pytest.mark.parametrize("game_id", ids())


def playout(game_id: str, seed: int, record: Recorder | None = None) -> tuple[Any, list[str]]:
    """A uniformly random match (chance from ``seed``, choices from a second rng)."""
    g = get(game_id)
    m = g.start(seed, g.rules())
    rng = random.Random(seed * 7 + 1)
    actions: list[str] = []
    if record is not None:
        record.begin_deal(g.deal(m))
    while g.to_act(m) is not None:
        legal = g.legal(m)
        assert legal, "legal actions until the match is over"
        assert list(legal) == sorted(legal)
        a = rng.choice(legal)
        done = g.deals_done(m)
        m = g.apply(m, a)
        actions.append(a)
        if record is not None:
            record.action(a, 0.0)
            if g.deals_done(m) > done:
                record.end_deal(g.deal_end(m))
                if g.outcome(m) is None:
                    record.begin_deal(g.deal(m))
    return m, actions


@GAMES
def test_playouts_are_deterministic_per_seed(game_id: str) -> None:
    g = get(game_id)
    for seed in range(5):
        a, b = playout(game_id, seed), playout(game_id, seed)
        assert a[1] == b[1] and g.outcome(a[0]) == g.outcome(b[0])
    assert playout(game_id, 1)[1] != playout(game_id, 2)[1]


@GAMES
def test_outcome_is_a_ranking_with_scores_and_teams(game_id: str) -> None:
    g = get(game_id)
    rules = g.rules()
    n = g.players(rules)
    for seed in range(20):
        m, _ = playout(game_id, seed)
        o = g.outcome(m)
        assert isinstance(o, Outcome)
        assert len(o.ranks) == len(o.scores) == len(o.teams) == n
        assert o.teams == g.teams(rules) and 0 in o.ranks and o.scores == g.scores(m)
        assert g.legal(m) == () and g.to_act(m) is None
        by_score = game_id != "twenty_two"  # 7.4: ranked by finishing order; its scores are penalty totals
        for p in range(n):  # a better rank never has a lower score (first to the target wins)
            for q in range(n):
                if by_score and o.ranks[p] < o.ranks[q]:
                    assert o.scores[p] >= o.scores[q]
        with pytest.raises(IllegalAction):
            g.apply(m, g.legal(g.start(seed, rules))[0])


@GAMES
def test_every_legal_action_applies_and_others_are_refused(game_id: str) -> None:
    g = get(game_id)
    rng = random.Random(3)
    m = g.start(11, g.rules())
    steps = 0
    while g.to_act(m) is not None and steps < 200:
        legal = g.legal(m)
        for a in legal:
            g.apply(m, a)  # no exception
        with pytest.raises(IllegalAction):
            g.apply(m, "no-such-action")
        m = g.apply(m, rng.choice(legal))
        steps += 1
    assert steps > 20


@GAMES
def test_observations_round_trip_through_the_wire_exactly(game_id: str) -> None:
    g = get(game_id)
    c = codec(game_id)
    rules = g.rules()
    seen = 0
    for seed in range(15):
        m = g.start(seed, rules)
        rng = random.Random(seed)
        n = 0
        while (p := g.to_act(m)) is not None:
            obs = g.observe(m, p)
            legal = g.legal(m)
            body = c.encode_request("match-x", g.deal(m).deal_no, n + 1, obs, legal, 1000, 5000)
            req = pb.DecisionRequest.FromString(body)
            assert req.WhichOneof("observation") == game_id
            back = c.decode_request(req, rules)
            assert back == obs
            assert tuple(a.text for a in req.legal) == legal
            seen += 1
            n += 1
            m = g.apply(m, rng.choice(legal))
    assert seen > 300


@GAMES
def test_a_record_replays_and_verifies(game_id: str) -> None:
    g = get(game_id)
    rules = g.rules()
    for seed in range(6):
        players = [f"p{i}" for i in range(g.players(rules))]  # N players (issue 12)
        rec = Recorder({"match_id": f"m{seed}", "seed": seed, "game": game_id, "players": players,
                        "teams": list(g.teams(rules)), "rules": g.rules_map(rules), "clock": {}})
        m, actions = playout(game_id, seed, rec)
        o = g.outcome(m)
        assert o is not None
        rec.end = {"ranks": list(o.ranks), "scores": list(o.scores), "cause": "normal", "offender": None,
                   "deal_no": g.deal(m).deal_no, "decision_no": None, "detail": "", "deals": len(rec.deals),
                   "decisions": len(actions), "duration_s": 0.0}
        lines = [dict(d) for d in (rec.header, *rec.deals, {"type": "end", **rec.end})]
        rep = verify_lines(lines)
        assert rep.ok, rep.divergence
        # A changed action is a divergence, found at that deal.
        lines[1] = dict(lines[1], actions=list(reversed(lines[1]["actions"])))
        assert not verify_lines(lines).ok


@GAMES
def test_rules_map_round_trips_and_names_changes(game_id: str) -> None:
    g = get(game_id)
    r = g.rules()
    assert g.rules(g.rules_map(r)) == r
    assert g.rules_changes(r) == []
    with pytest.raises(ValueError, match="no_such_option"):
        g.rules({"no_such_option": "1"})


@GAMES
def test_turn_agrees_with_to_act_observe_and_legal(game_id: str) -> None:
    """The match loop's one-step ``turn`` (a game's fast path, or the generic one) changes nothing."""
    g = get(game_id)
    rng = random.Random(4)
    m = g.start(4, g.rules())
    while (now := turn(g, m)) is not None:
        player, obs, legal = now
        assert (player, obs, legal) == (g.to_act(m), g.observe(m, player), g.legal(m))
        m = g.apply(m, rng.choice(legal))
    assert g.to_act(m) is None
