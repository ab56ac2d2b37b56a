"""Twenty-Two (RULES-SPEC sections 4, 7.4, 7.5): properties, the information gate, the wire codec,
the conformance checks for 2, 3, 6 and 8 players (tests/test_games.py plays the default 4), the
rules tools' flags and the built-in players.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from harness.arena.record import Recorder, verify_lines
from harness.games.base import IllegalAction
from harness.games.twenty_two import GAME
from harness.games.twenty_two.cards import RANK
from harness.games.twenty_two.engine import State, apply, deal, follows, legal_actions
from harness.games.twenty_two.match import Match
from harness.games.twenty_two.observe import Observation
from harness.players import players_for
from harness.sdk.client import Observation as SdkObservation
from harness.wire import arena_pb2 as pb
from harness.wire.codecs import codec
from harness.wire.notices import deal_end, deal_start

REPO = Path(__file__).resolve().parents[1]
PLAYERS = (2, 3, 4, 6, 8)
CONFIGS: list[dict[str, Any]] = [
    {}, {"remove_penalty_cards": False}, {"set_bar": "last_meeting_set"}, {"set_trick_winner": "last_meeting_set"},
    {"dealer_after_elimination": "random"}, {"all_eliminated": "no_winner"}, {"penalty_limit": 11},
    {"decks": 2}, {"hand": 3},
]


def playout(rules: Any, seed: int, each: Any = None) -> tuple[Match, list[str]]:
    m = GAME.start(seed, rules)
    rng = random.Random(seed * 31 + 7)
    actions = []
    while GAME.to_act(m) is not None:
        legal = GAME.legal(m)
        if each is not None:
            each(m, legal)
        a = rng.choice(legal)
        m = GAME.apply(m, a)
        actions.append(a)
    return m, actions


def cards_in(s: State) -> Counter[str]:
    """Every card of a deal wherever it is: hands, stock, discards, tricks, the reveal."""
    c: Counter[str] = Counter()
    for h in s.hands:
        c.update(h)
    c.update(s.stock)
    for d in s.discarded:
        c.update(d)
    for _, cards in s.trick:
        c.update(cards)
    for _, plays, _ in s.tricks:
        for _, cards in plays:
            c.update(cards)
    c.update(s.revealed)
    return c


# -- properties --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_properties_over_random_matches(players: int, cfg: dict[str, Any]) -> None:
    """Cards conserved within a deal; every follow has the led size; totals never decrease; one
    winner, or the documented tie (22-8.4: a last simultaneous elimination with equal totals, or
    all_eliminated=no_winner)."""
    rules = GAME.rules({"players": players, **cfg})
    for seed in range(4 if players < 6 else 2):
        seen_totals: list[tuple[int, ...]] = []

        def check(m: Match, legal: tuple[str, ...]) -> None:
            s = m.state
            assert cards_in(s) == Counter(s.deck)
            assert len({len(h) for h in s.hands}) == 1 or s.point != "L"  # 22-7.2: equal hands at each lead
            if s.point == "F":
                k = len(s.trick[0][1])
                assert all(len(a.split("+")) == k for a in legal)  # 22-6.1
            if not seen_totals or seen_totals[-1] != m.totals:
                assert not seen_totals or all(a <= b for a, b in zip(seen_totals[-1], m.totals))
                seen_totals.append(m.totals)

        m, _ = playout(rules, seed, check)
        o = GAME.outcome(m)
        assert o is not None and o.scores == m.totals
        alive = [p for p in range(players) if not m.out[p]]
        assert len(alive) <= 1
        if len(alive) == 1:
            assert o.winners == tuple(alive)
        else:  # everyone left went out in the last deal
            last = [p for p in range(players) if m.out[p] == max(m.out)]
            if rules.all_eliminated == "no_winner":
                assert set(o.winners) == set(last)
            else:
                low = min(m.totals[p] for p in last)
                assert set(o.winners) == {p for p in last if m.totals[p] == low}
        for p in range(players):  # finishing order: later out ranks better
            for q in range(players):
                if (m.out[p] == 0 and m.out[q]) or (m.out[p] and m.out[q] and m.out[p] > m.out[q]):
                    assert o.ranks[p] < o.ranks[q]


def brute_follows(hand: tuple[str, ...], k: int, bar: tuple[int, ...]) -> list[str]:
    """22-6.3/22-6.4 by brute force over index subsets."""
    lowest = sorted(RANK[c] for c in hand)[:k]
    out = set()
    for idx in combinations(range(len(hand)), k):
        cards = [hand[i] for i in idx]
        d = sorted((RANK[c] for c in cards), reverse=True)
        if all(x >= b for x, b in zip(d, bar)) or sorted(d) == lowest:
            out.add("+".join(sorted(cards)))
    return sorted(out)


def test_the_bar_rule_against_a_brute_force_generator() -> None:
    rng = random.Random(22)
    pack = [r + s for s in "CDHS" for r in "23456789TJQKA"] * 2
    for _ in range(3000):
        n = rng.randrange(2, 12)
        hand = tuple(sorted(rng.sample(pack, n)))
        k = rng.randrange(1, n)
        bar = tuple(sorted((rng.randrange(13) for _ in range(k)), reverse=True))
        assert follows(hand, k, bar) == brute_follows(hand, k, bar), (hand, k, bar)


def test_illegal_multi_card_orders_and_cards_not_held_are_refused() -> None:
    """7.4: a multi-card action in any other order than sorted() is illegal."""
    s = deal(tuple("5C 2C 5D 3C 7C 4C".split()), 2, 3)  # seat 0: 5C 5D 7C
    assert "5C+5D" in legal_actions(s)
    for bad in ("5D+5C", "5C+5C", "5C+7C", "5C+5D+7C", "2C", "discard:5C", "done"):
        with pytest.raises(IllegalAction):
            apply(s, bad)


# -- the information gate ------------------------------------------------------------------------


def test_stock_order_and_discards_are_hidden() -> None:
    """Issue 13 / 22-4.3: nobody sees the stock's cards or order, nor anyone's discarded cards."""
    rules = GAME.rules({"players": 4})
    m = GAME.start(9, rules)
    s = m.state
    other = m._replace(state=s._replace(stock=tuple(reversed(s.stock))))
    for p in range(4):
        assert GAME.observe(m, p) == GAME.observe(other, p)
    # Seat 0 discards one card or another; after drawing, only seat 0's own view differs.
    a, b = s.hands[0][0], s.hands[0][-1]
    m1 = GAME.apply(GAME.apply(m, "discard:" + a), "done")
    m2 = GAME.apply(GAME.apply(m, "discard:" + b), "done")
    for seat in range(1, 4):
        p = m.seats[seat]
        o1, o2 = GAME.observe(m1, p), GAME.observe(m2, p)
        assert o1 == o2 and o1.discards == (1, 0, 0, 0)
    assert GAME.observe(m1, m.seats[0]).hand != GAME.observe(m2, m.seats[0]).hand
    fields = set(Observation.__dataclass_fields__)
    assert not fields & {"stock_cards", "discarded", "deck", "hands"}


def test_other_hands_are_hidden() -> None:
    rules = GAME.rules({"players": 3})
    m = GAME.start(4, rules)
    s = m.state
    swapped = m._replace(state=s._replace(hands=(s.hands[0], s.hands[2], s.hands[1])))
    assert GAME.observe(m, m.seats[0]) == GAME.observe(swapped, m.seats[0])


# -- the wire --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_observations_round_trip_and_match_protobufs_own_bytes(players: int) -> None:
    c = codec("twenty_two")
    rules = GAME.rules({"players": players})
    seen = 0
    for seed in range(3):
        m = GAME.start(seed, rules)
        rng = random.Random(seed)
        while (p := GAME.to_act(m)) is not None:
            obs = GAME.observe(m, p)
            legal = GAME.legal(m)
            body = c.encode_request("m", GAME.deal(m).deal_no, seen + 1, obs, legal, 1000, 5000)
            req = pb.DecisionRequest.FromString(body)
            assert req.SerializeToString() == body
            assert c.decode_request(req, rules) == obs
            assert tuple(a.text for a in req.legal) == legal
            if seen % 50 == 0:  # the SDK passes its own class and the clock: still this game's observation
                sdk = c.decode_request(req, rules, SdkObservation, move_ms=1000, bank_ms=5000, received=0.0,
                                       match_id="m")
                assert sdk == obs
            done = GAME.deals_done(m)
            m = GAME.apply(m, rng.choice(legal))
            seen += 1
            if GAME.deals_done(m) > done:
                end = GAME.deal_end(m)
                msg = pb.ArenaMessage.FromString(deal_end("m", end, c)).deal_end
                assert list(msg.twenty_two.losers) == end.record["losers"]
                assert msg.twenty_two.penalty == end.record["penalty"]
                assert [x.text for x in msg.twenty_two.revealed] == end.record["revealed"]
                assert len(msg.deck) == len(end.deck)
                for q in range(players):  # an eliminated player still gets the DealStart notice
                    if GAME.outcome(m) is None:
                        pb.ArenaMessage.FromString(deal_start("m", GAME.deal(m), q, GAME.scores(m)))
    assert seen > 100


def test_decode_refuses_another_game_and_bad_seats() -> None:
    c = codec("twenty_two")
    req = pb.DecisionRequest()
    req.sixtysix.SetInParent()
    with pytest.raises(ValueError):
        c.decode_request(req, GAME.rules())
    m = GAME.start(1, GAME.rules())
    body = c.encode_request("m", 1, 1, GAME.observe(m, GAME.to_act(m) or 0), GAME.legal(m), 1, 1)
    req = pb.DecisionRequest.FromString(body)
    req.twenty_two.to_act = 9
    with pytest.raises(ValueError, match="to_act"):
        c.decode_request(req, GAME.rules())


# -- conformance for N players (tests/test_games.py runs the default 4) ----------------------------


@pytest.mark.parametrize("players", (2, 3, 6, 8))
def test_conformance_for_n_players(players: int) -> None:
    rules = GAME.rules({"players": players})
    a, b = playout(rules, 1), playout(rules, 1)
    assert a[1] == b[1] and GAME.outcome(a[0]) == GAME.outcome(b[0])
    assert playout(rules, 2)[1] != a[1]
    m = GAME.start(3, rules)
    rng = random.Random(3)
    for _ in range(60):
        legal = GAME.legal(m)
        assert list(legal) == sorted(legal) and legal
        for x in legal:
            GAME.apply(m, x)
        with pytest.raises(IllegalAction):
            GAME.apply(m, "no-such-action")
        m = GAME.apply(m, rng.choice(legal))
    for seed in range(3):  # records replay and verify
        rec = Recorder({"match_id": f"m{seed}", "seed": seed, "game": "twenty_two",
                        "players": [f"p{i}" for i in range(players)], "teams": list(GAME.teams(rules)),
                        "rules": GAME.rules_map(rules), "clock": {}})
        m = GAME.start(seed, rules)
        rec.begin_deal(GAME.deal(m))
        rng = random.Random(seed)
        n = 0
        while GAME.to_act(m) is not None:
            act = rng.choice(GAME.legal(m))
            done = GAME.deals_done(m)
            m = GAME.apply(m, act)
            rec.action(act, 0.0)
            n += 1
            if GAME.deals_done(m) > done:
                rec.end_deal(GAME.deal_end(m))
                if GAME.outcome(m) is None:
                    rec.begin_deal(GAME.deal(m))
        o = GAME.outcome(m)
        assert o is not None
        rec.end = {"ranks": list(o.ranks), "scores": list(o.scores), "cause": "normal", "offender": None,
                   "deal_no": GAME.deal(m).deal_no, "decision_no": None, "detail": "", "deals": len(rec.deals),
                   "decisions": n, "duration_s": 0.0}
        lines = [dict(d) for d in (rec.header, *rec.deals, {"type": "end", **rec.end})]
        assert verify_lines(lines).ok
        lines[1] = dict(lines[1], actions=list(reversed(lines[1]["actions"])))
        assert not verify_lines(lines).ok
    assert GAME.rules(GAME.rules_map(rules)) == rules
    assert GAME.rules_changes(rules) == ([] if players == 4 else [f"players={players}"])


def test_rules_defaults_and_changes() -> None:
    """Appendix A: decks defaults to 1 for 2-6 players and 2 for 7-8."""
    assert GAME.rules({"players": 6}).decks == 1 and GAME.rules({"players": 7}).decks == 2
    assert GAME.rules_changes(GAME.rules({"players": 8, "decks": 1})) == ["players=8", "decks=1"]
    assert GAME.rules_changes(GAME.rules({"all_eliminated": "no_winner"})) == ["all_eliminated=no_winner"]


# -- the rules tools ------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", "rules", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=60)


FULL = " ".join(r + s for s in "CDHS" for r in "23456789TJQKA")


def test_cli_players_flag_and_bad_input() -> None:
    ok = _cli("run", "twenty_two", "--players", "6", "--deck", FULL)
    assert ok.returncode == 0
    assert json.loads(ok.stdout) == {
        "to_act": 0, "legal": json.loads(ok.stdout)["legal"], "hand_sizes": [7] * 6, "stock": 10, "over": False,
        "losers": [], "penalty": 0}
    assert list(json.loads(ok.stdout)) == ["to_act", "legal", "hand_sizes", "stock", "over", "losers", "penalty"]
    for args, word in ((("run", "twenty_two", "--deck", FULL), "--players"),
                       (("run", "sixtysix", "--players", "2", "--deck", FULL), "--players"),
                       (("run", "twenty_two", "--players", "9", "--deck", FULL), "9"),
                       (("run", "twenty_two", "--players", "4", "--deck", FULL + " 1X"), "1X"),
                       (("run", "twenty_two", "--players", "4", "--deck", FULL + " 2C"), "2C"),
                       (("run", "twenty_two", "--players", "4", "--deck", FULL, "--actions", "done done zz"), "zz"),
                       (("perft", "twenty_two", "--players", "4", "--deck", FULL, "--rule", "nope=1",
                         "--depth", "1"), "nope")):
        r = _cli(*args)
        assert r.returncode == 2 and r.stdout == "" and word in r.stderr and r.stderr.count("\n") == 1, (args, r)


# -- built-in players ------------------------------------------------------------------------------


def test_built_in_players_play_legal_actions_and_the_heuristic_beats_random() -> None:
    rules = GAME.rules({"players": 4})
    places = []
    for seed in range(24):
        bots = players_for("twenty_two", 4, random.Random(seed))
        order = [(seed + i) % 4 for i in range(4)]  # the heuristic takes each seat in turn
        m = GAME.start(seed, rules)
        while (p := GAME.to_act(m)) is not None:
            obs = GAME.observe(m, p)
            a = bots[order.index(p)][1](obs)
            assert a in obs.legal
            m = GAME.apply(m, a)
        o = GAME.outcome(m)
        assert o is not None
        places.append(o.ranks[order[0]])
    assert sum(places) / len(places) < 1.0  # random players average 1.5


def test_markers_return_when_the_pack_runs_short() -> None:
    """22-3.5's safeguard: with a high penalty_limit the kept cards would empty the pack; they go back
    before a deal could give no card (or one card each with no stock: a deal without a decision)."""
    rules = GAME.rules({"players": 3, "penalty_limit": 1000})
    m = GAME.start(1, rules)
    rng = random.Random(1)
    sizes = set()
    while GAME.deals_done(m) < 80:
        assert GAME.to_act(m) is not None  # every deal has a decision
        sizes.add(len(m.state.deck))
        m = GAME.apply(m, rng.choice(GAME.legal(m)))
    assert 52 in sizes and min(sizes) < 20 and all(s > 3 for s in sizes)
