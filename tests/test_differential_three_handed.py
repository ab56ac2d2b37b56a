"""Differential tests: the three_handed engine (harness.games.three_handed) against the independent
reference model tests/reference/ref3h.py (written from RULES-SPEC 1, 3.2, 7.2 and Appendix A only).

(a) random decks and random legal play (several policies), default rules and every non-default
    value of ``3h_must_head`` and ``3h_grade``: legal actions and ``summary()`` after every action;
(b) perft from random positions, depths 1..4;
(c) ``arena rules run|perft three_handed`` on the command line against the reference.
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
from reference.ref3h import CARDS, DEFAULTS, NON_DEFAULT, RefDeal  # noqa: E402
from reference.ref3h import perft as ref_perft  # noqa: E402

GAME = registry.get("three_handed")
CONFIGS: list[dict[str, str]] = [{}] + [{k: v} for k, vs in NON_DEFAULT.items() for v in vs]
IDS = ["default"] + [f"{k}={v}" for k, vs in NON_DEFAULT.items() for v in vs]


def deck(rng: random.Random) -> list[str]:
    d = list(CARDS)
    rng.shuffle(d)
    return d


def engine(cards: list[str], cfg: dict[str, str], actions: list[str] = []) -> object:
    return GAME.position(" ".join(cards), actions, GAME.rules(cfg))


def choose(legal: list[str], rng: random.Random, policy: str) -> str:
    if policy == "claims" and "claim" in legal:
        return "claim"
    if policy == "marries":
        m = [a for a in legal if a.startswith("marry:")]
        if m:
            return m[0]
    if policy == "never_claim" and len(legal) > 1 and "claim" in legal:
        legal = [a for a in legal if a != "claim"]
    return rng.choice(legal)


def test_defaults_agree() -> None:
    assert GAME.rules_map(GAME.rules()) == DEFAULTS


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_legal_and_summary_agree_along_random_play(cfg: dict[str, str]) -> None:
    rng = random.Random(hash(tuple(cfg.items())) & 0xFFFF)
    rules = GAME.rules(cfg)
    steps = claims = nexts = 0
    for n in range(150):
        cards = deck(rng)
        ref = RefDeal(cards, cfg)
        s = GAME.position(" ".join(cards), [], rules)
        policy = ("random", "claims", "marries", "never_claim")[n % 4]
        while True:
            assert GAME.summary(s) == ref.summary(), (cards, s.history)
            legal = ref.legal()
            if not legal:
                break
            a = choose(legal, rng, policy)
            claims += a == "claim"
            nexts += a == "trump:next"
            ref.act(a)
            s = GAME.position(" ".join(cards), [a for _, a in s.history] + [a], rules) if steps % 50 == 0 \
                else _step(s, a)
            steps += 1
    assert steps > 3000 and claims > 20 and nexts > 10


def _step(s: object, a: str) -> object:
    from harness.games.three_handed.engine import apply

    return apply(s, a)  # type: ignore[arg-type]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_perft_agrees_from_random_positions(cfg: dict[str, str]) -> None:
    rng = random.Random(7 + len(cfg))
    checked = 0
    for _ in range(12):
        cards = deck(rng)
        ref = RefDeal(cards, cfg)
        actions: list[str] = []
        for _ in range(rng.randrange(0, 20)):
            legal = ref.legal()
            if not legal:
                break
            a = rng.choice(legal)
            ref.act(a)
            actions.append(a)
        s = engine(cards, cfg, actions)
        for depth in range(1, 5 if checked % 3 else 4):
            assert GAME.perft(s, depth) == ref_perft(ref, depth), (cards, actions, depth)
        checked += 1
    assert checked == 12


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", "rules", *argv], capture_output=True, text=True,
                          cwd=REPO, timeout=60)


def test_cli_run_and_perft_agree_with_the_reference() -> None:
    rng = random.Random(12)
    for cfg in ({}, {"3h_must_head": "false"}, {"3h_grade": "sum"}):
        cards = deck(rng)
        ref = RefDeal(cards, cfg)
        actions: list[str] = []
        while ref.legal() and len(actions) < 14:
            a = rng.choice(ref.legal())
            ref.act(a)
            actions.append(a)
        rules = [x for k, v in cfg.items() for x in ("--rule", f"{k}={v}")]
        p = run_cli("run", "three_handed", "--deck", " ".join(cards), "--actions", " ".join(actions), *rules)
        assert p.returncode == 0 and p.stderr == ""
        out = json.loads(p.stdout)
        assert out == ref.summary()
        assert list(out) == ["to_act", "legal", "trump", "points", "tricks", "talon", "over", "winner", "game_points"]
        p = run_cli("perft", "three_handed", "--deck", " ".join(cards), "--actions", " ".join(actions),
                    "--depth", "3", *rules)
        assert p.returncode == 0 and int(p.stdout) == ref_perft(ref, 3)


@pytest.mark.parametrize("argv, word", [
    (["--actions", "trump:X"], "trump:X"),
    (["--actions", "trump:C 9C"], "9C"),  # d[23] of the reversed pack: seat 2's card, not seat 0's
    (["--rule", "dealer_rotation=winner"], "dealer_rotation"),
    (["--rule", "3h_grade=avg"], "avg"),
])
def test_cli_bad_input_is_one_line_and_exit_2(argv: list[str], word: str) -> None:
    cards = " ".join(CARDS[::-1])
    p = run_cli("run", "three_handed", "--deck", cards, *argv)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and word in p.stderr


def test_cli_bad_deck_is_refused() -> None:
    p = run_cli("run", "three_handed", "--deck", " ".join(CARDS[:23]))
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1 and "deck" in p.stderr
