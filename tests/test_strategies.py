"""The built-in players in both games of the Sixty-Six family (classic Sixty-Six and Schnapsen).

Greedy must play Schnapsen sensibly: exchange the trump jack (SCH-5), marry (66-9), claim at 66
(66-11); search must find deals consistent with a 20-card observation; the sample bots declare
the games they play.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.games import registry
from harness.games.sixtysix.cards import parse_deck
from harness.games.sixtysix.engine import deal
from harness.games.sixtysix.observe import Observation, observe
from harness.sdk.helpers import Determinizer
from harness.strategies import greedy_action, random_action
from harness.strategies_search import Budget, search_action

ROOT = Path(__file__).resolve().parent.parent
FAMILY = ("sixtysix", "schnapsen")


def observations(game_id: str, matches: int, seed: int) -> Iterator[Observation]:
    """The observation of the player to act at every decision of random matches (claims only at 66)."""
    game = registry.get(game_id)
    rng = random.Random(seed)
    for i in range(matches):
        m = game.start(seed * 1000 + i, game.rules())
        while (p := game.to_act(m)) is not None:
            obs = game.observe(m, p)
            yield obs
            m = game.apply(m, random_action(obs, rng))


def schnapsen_obs(deck: str, seat: int = 0) -> Observation:
    game = registry.get("schnapsen")
    return observe(deal(parse_deck(deck, game.pack), game.rules()), seat)  # type: ignore[attr-defined]


def test_greedy_exchanges_the_trump_jack_in_schnapsen() -> None:
    # SCH-2: non-dealer 0-2 and 7-8, dealer 3-5 and 9-10, trump card 6 (AH); the non-dealer holds JH.
    obs = schnapsen_obs("JH QC KD TC AC QD AH JS TS KS QS JC KC JD TD AD TH KH QH AS")
    assert "exchange" in obs.legal and greedy_action(obs) == "exchange"  # SCH-5: no trick needed


def test_greedy_marries_trump_first_in_schnapsen() -> None:
    # Non-dealer holds KH QH (trump marriage, 40) and KS QS (20); trump card AH.
    obs = schnapsen_obs("KH QH KS TC AC QD AH QS JS JC KC JD TD AD TH JH QC KD TS AS")
    assert {"marry:H", "marry:S"} <= set(obs.legal)
    assert greedy_action(obs) == "marry:H"


@pytest.mark.parametrize("game_id", FAMILY)
def test_greedy_claims_at_66_exchanges_and_marries(game_id: str) -> None:
    """At every decision of random matches: claim with 66, else exchange, else marry, when legal."""
    seen = {"claim": 0, "exchange": 0, "marry": 0}
    for obs in observations(game_id, 30, 7):
        if not obs.legal:
            continue
        act = greedy_action(obs)
        assert act in obs.legal
        if "claim" in obs.legal and obs.points[obs.seat] >= 66:
            assert act == "claim"
            seen["claim"] += 1
        elif obs.point in "LD" and "exchange" in obs.legal:
            assert act == "exchange"
            seen["exchange"] += 1
        elif any(a.startswith("marry:") for a in obs.legal) and obs.point == "L":
            assert act.startswith("marry:")
            seen["marry"] += 1
        if act == "claim":
            assert obs.points[obs.seat] >= 66, "greedy never makes a false claim"
    assert min(seen.values()) >= 5, seen


@pytest.mark.parametrize("game_id", FAMILY)
def test_greedy_beats_random(game_id: str) -> None:
    """Fixed seeds, so the count is exact; greedy is far stronger in both games."""
    game = registry.get(game_id)
    wins = 0
    for seed in range(1, 21):
        for greedy_player in (0, 1):
            rng = random.Random(seed)
            m = game.start(seed, game.rules())
            while (p := game.to_act(m)) is not None:
                obs = game.observe(m, p)
                m = game.apply(m, greedy_action(obs) if p == greedy_player else random_action(obs, rng))
            outcome = game.outcome(m)
            assert outcome is not None
            wins += outcome.winners == (greedy_player,)
    assert wins >= 32, wins


@pytest.mark.parametrize("game_id", FAMILY)
def test_search_plays_legal_actions_from_consistent_deals(game_id: str) -> None:
    rng = random.Random(3)
    budget = Budget(samples=3, endgame_samples=2)
    n = 0
    for i, obs in enumerate(observations(game_id, 4, 11)):
        if not obs.legal or i % 3:
            continue
        Determinizer(obs)  # a world of the observed pack exists (raises ValueError otherwise)
        assert search_action(obs, rng, budget) in obs.legal
        n += 1
    assert n > 50


def test_search_claims_at_66_and_exchanges_the_jack_in_schnapsen() -> None:
    obs = schnapsen_obs("JH QC KD TC AC QD AH JS TS KS QS JC KC JD TD AD TH KH QH AS")
    assert search_action(obs, random.Random(1), Budget(samples=2)) == "exchange"
    for obs in observations("schnapsen", 10, 5):
        if "claim" in obs.legal and obs.points[obs.seat] >= 66 and obs.talon_state == "open":
            assert search_action(obs, random.Random(1), Budget(samples=2)) == "claim"


def _bot_class(file: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(file, ROOT / "sample_bots" / f"{file}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_sample_bots_declare_their_games() -> None:
    assert _bot_class("random_bot", "RandomBot").games == registry.ids()
    assert _bot_class("greedy_bot", "GreedyBot").games == FAMILY
    assert _bot_class("search_bot", "SearchBot").games == FAMILY


def test_random_bot_plays_schnapsen_deterministically() -> None:
    bot = _bot_class("random_bot", "RandomBot")()
    obs = next(o for o in observations("schnapsen", 1, 2) if len(o.legal) > 2)
    assert bot.act(obs) == bot.act(obs) in obs.legal
