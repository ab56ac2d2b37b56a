"""Differential tests: the Twenty-Two engine against the independent reference model
tests/reference/ref22.py (written from RULES-SPEC sections 4, 7.4 and Appendix A only).

(a) random decks and random legal play for 2, 3, 4, 6 and 8 players, under the defaults and each
    single option value of set_bar / set_trick_winner, with one and two packs and short decks:
    legal actions and the `rules run` JSON are compared after every action;
(b) perft from random positions;
(c) the CLI (`python -m harness.cli rules run|perft twenty_two --players N ...`) against the reference.
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

from harness.games.twenty_two import GAME  # noqa: E402
from harness.games.twenty_two.options import Rules  # noqa: E402
from harness.games.twenty_two.engine import apply, legal_actions, perft, summary  # noqa: E402
from reference.ref22 import OPTIONS, RefDeal  # noqa: E402
from reference.ref22 import perft as ref_perft  # noqa: E402

CARDS = [r + s for s in "CDHS" for r in "23456789TJQKA"]
PLAYERS = (2, 3, 4, 6, 8)
CONFIGS: list[dict[str, str]] = [{}] + [{k: v} for k, vals in OPTIONS.items() for v in vals[1:]] + [
    {"set_bar": "last_meeting_set", "set_trick_winner": "last_meeting_set"}]


def cfg_id(cfg: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in cfg.items()) or "default"


def random_deck(rng: random.Random, players: int, decks: int) -> list[str]:
    cards = CARDS * decks
    rng.shuffle(cards)
    if rng.random() < 0.3:  # a short deck (22-3.5): fewer cards each, or a small stock
        cards = cards[:rng.randrange(players, len(cards))]
    return cards


def rules_for(players: int, decks: int, hand: int, cfg: dict) -> Rules:
    return GAME.rules({"players": players, "decks": decks, "hand": hand, **cfg})


def policy(rng: random.Random, legal: list[str]) -> str:
    """Random, with a taste for sets and for finishing the exchange, so that deals go deep."""
    sets = [a for a in legal if "+" in a]
    if sets and rng.random() < 0.5:
        return rng.choice(sets)
    return rng.choice(legal)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=cfg_id)
def test_legal_and_summary_match_the_reference(players: int, cfg: dict) -> None:
    rng = random.Random(f"{players}/{cfg_id(cfg)}")
    compared = 0
    for game_no in range(30):
        decks = 2 if players >= 7 or game_no % 3 == 0 else 1
        hand = rng.choice((7, 7, 2, 3, 5, 10, 11))
        deck = random_deck(rng, players, decks)
        rules = rules_for(players, decks, hand, cfg)
        s = GAME.position(" ".join(deck), [], rules)
        ref = RefDeal(deck, players, hand, cfg)
        while True:
            assert summary(s) == ref.summary(), (deck, players, hand, cfg)
            compared += 1
            if s.point == "over":
                break
            a = policy(rng, legal_actions(s))
            s = apply(s, a)
            ref.act(a)
    assert compared > 200


@pytest.mark.parametrize("players", PLAYERS)
def test_perft_matches_the_reference(players: int) -> None:
    rng = random.Random(players)
    for i in range(4):
        cfg = CONFIGS[i % len(CONFIGS)]
        decks = 2 if players >= 7 else 1
        deck = random_deck(rng, players, decks)
        hand = rng.choice((2, 3, 4))
        rules = rules_for(players, decks, hand, cfg)
        s = GAME.position(" ".join(deck), [], rules)
        ref = RefDeal(deck, players, hand, cfg)
        for _ in range(rng.randrange(0, 6)):  # from a random position
            if s.point == "over":
                break
            a = rng.choice(legal_actions(s))
            s = apply(s, a)
            ref.act(a)
        for depth in (1, 2, 3):
            assert perft(s, depth) == ref_perft(ref, depth), (deck, players, hand, cfg, depth)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", "rules", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=60)


@pytest.mark.parametrize("players", (2, 4, 8))
def test_cli_agrees_with_the_reference(players: int) -> None:
    rng = random.Random(100 + players)
    decks = 2 if players >= 7 else 1
    deck = random_deck(rng, players, decks)
    ref = RefDeal(deck, players, 3)
    actions = []
    for _ in range(8):
        if ref.stage == "over":
            break
        a = rng.choice(ref.legal())
        ref.act(a)
        actions.append(a)
    base = ["--players", str(players), "--deck", " ".join(deck), "--actions", " ".join(actions), "--rule", "hand=3"]
    if decks == 2:
        base += ["--rule", "decks=2"]
    run = _cli("run", "twenty_two", *base)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ref.summary()
    pf = _cli("perft", "twenty_two", *base, "--depth", "2")
    assert pf.returncode == 0, pf.stderr
    assert int(pf.stdout) == ref_perft(ref, 2)
