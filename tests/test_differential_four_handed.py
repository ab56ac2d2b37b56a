"""Differential tests: the engine (harness.games.four_handed) against the independent reference
model tests/reference/ref4h.py (written from RULES-SPEC 1, 3.3, 7.3 and Appendix A only).

(a) random decks + random legal play, both packs: legal actions, summary() and what the
    observation shows (hand, turned-up trump while public) after every action;
(b) perft from random positions, depths 1..4 (5 for a few);
(c) the CLI (`python -m harness.cli rules run|perft four_handed ...`) against the reference;
(d) whole matches through the game interface under the defaults and every non-default option value
    (match_target, pack, tie_carry_over, tie_carry_points): seats, scores, deal points, carried
    ties and the final ranking against the reference's match;
(e) the refused option values (7.3).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness.games import registry  # noqa: E402
from harness.games.four_handed.engine import State, apply, legal_actions, perft, summary  # noqa: E402
from harness.games.four_handed.observe import observe  # noqa: E402
from reference.ref4h import (  # noqa: E402
    DEFAULTS, NON_DEFAULT, REFUSED, RefDeal, RefMatch, pack_cards,
)
from reference.ref4h import perft as ref_perft  # noqa: E402

GAME = registry.get("four_handed")
PACKS = (32, 24)
CONFIGS: list[dict[str, str]] = [{}] + [{k: v} for k, values in NON_DEFAULT.items() for v in values]


def cfg_id(cfg: dict) -> str:
    return "default" if not cfg else ",".join(f"{k}={v}" for k, v in cfg.items())


def random_deck(rng: random.Random, pack: int) -> list[str]:
    cards = pack_cards(pack)
    rng.shuffle(cards)
    return cards


def engine_deal(deck: list[str], pack: int) -> State:
    return GAME.position(" ".join(deck), [], GAME.rules({"pack": pack}))


def test_defaults_match_the_spec() -> None:
    """7.3 / Appendix A: the game's defaults are the reference's."""
    assert GAME.rules_map(GAME.rules()) == DEFAULTS
    assert GAME.players(GAME.rules()) == 4 and GAME.teams(GAME.rules()) == (0, 1, 0, 1)


@pytest.mark.parametrize("pack", PACKS)
def test_random_play_agrees_with_the_reference(pack: int) -> None:
    rng = random.Random(1000 + pack)
    deals = 0
    for _ in range(300):
        deck = random_deck(rng, pack)
        s, ref = engine_deal(deck, pack), RefDeal(deck, pack)
        while True:
            assert list(legal_actions(s)) == ref.legal()
            assert summary(s) == ref.summary()
            for seat in range(4):
                o = observe(s, seat)
                assert list(o.hand) == sorted(ref.hands[seat])
                assert o.trump_card == ref.trump_card_public()  # 7.3: public until the dealer plays it
                assert [c for _, c in o.trick] == [c for _, c in ref.trick]
            if ref.over:
                break
            a = rng.choice(ref.legal())
            s = apply(s, a)
            ref.act(a)
        assert sum(ref.points) == 130  # 4H-5
        deals += 1
    assert deals == 300


@pytest.mark.parametrize("pack", PACKS)
def test_perft_agrees_with_the_reference(pack: int) -> None:
    rng = random.Random(7 + pack)
    for i in range(12):
        deck = random_deck(rng, pack)
        s, ref = engine_deal(deck, pack), RefDeal(deck, pack)
        for _ in range(rng.randrange(0, pack - 4)):  # a random position somewhere in the deal
            a = rng.choice(ref.legal())
            s = apply(s, a)
            ref.act(a)
        top = 5 if i < 3 else 4
        for depth in range(1, top + 1):
            assert perft(s, depth) == ref_perft(ref, depth), (deck, depth)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", "rules", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=60)


@pytest.mark.parametrize("pack", PACKS)
def test_cli_agrees_with_the_reference(pack: int) -> None:
    rng = random.Random(3 * pack)
    for _ in range(3):
        deck = random_deck(rng, pack)
        ref = RefDeal(deck, pack)
        actions: list[str] = []
        for _ in range(rng.randrange(1, 2 * pack // 3)):
            a = rng.choice(ref.legal())
            ref.act(a)
            actions.append(a)
        rule = [] if pack == 32 else ["--rule", "pack=24"]
        run = _cli("run", "four_handed", "--deck", " ".join(deck), "--actions", " ".join(actions), *rule)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == json.dumps(ref.summary())  # keys in 7.3's order
        pf = _cli("perft", "four_handed", "--deck", " ".join(deck), "--actions", " ".join(actions), "--depth", "3",
                  *rule)
        assert pf.returncode == 0 and int(pf.stdout) == ref_perft(ref, 3)


@pytest.mark.parametrize("cfg", CONFIGS, ids=cfg_id)
def test_matches_agree_with_the_reference(cfg: dict) -> None:
    rules = GAME.rules(cfg)
    ties = 0
    for seed in range(12 if cfg.get("match_target") != "11" else 4):
        rng = random.Random(seed)
        m = GAME.start(seed, rules)
        d = GAME.deal(m)
        ref = RefMatch(d.dealer, cfg)
        while True:
            d = GAME.deal(m)
            assert d.dealer == ref.dealer and d.seats == tuple(ref.seat_player(k) for k in range(4))
            ref.begin(d.record["deck"].split())
            assert ref.deal is not None and len(ref.deal.deck) == int(cfg.get("pack", "32"))
            done = GAME.deals_done(m)
            res = None
            while GAME.deals_done(m) == done:
                p = GAME.to_act(m)
                assert p == ref.seat_player(ref.deal.to_act)
                legal = GAME.legal(m)
                assert list(legal) == ref.deal.legal()
                a = rng.choice(legal)
                m = GAME.apply(m, a)
                res = ref.act(a)
            assert res is not None
            end = GAME.deal_end(m)
            ties += end.record["winner"] is None
            assert list(end.points) == res["points_by_player"]
            assert list(GAME.scores(m)) == ref.scores == list(end.scores)
            o = GAME.outcome(m)
            if o is not None:
                assert list(o.ranks) == ref.ranks() and o.teams == (0, 1, 0, 1)
                break
            assert ref.ranks() is None


@pytest.mark.parametrize("name,value", [(k, v) for k, vs in REFUSED.items() for v in vs])
def test_refused_values_are_refused_in_one_line(name: str, value: str) -> None:
    with pytest.raises(ValueError) as e:
        GAME.rules({name: value})
    assert name in str(e.value) and "\n" not in str(e.value)


def test_unknown_options_are_refused() -> None:
    for name in ("dealer_rotation", "auto_claim", "nope"):
        with pytest.raises(ValueError, match=name):
            GAME.rules({name: "x"})
    with pytest.raises(ValueError, match="pack"):
        GAME.rules({"pack": "20"})
