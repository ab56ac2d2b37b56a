"""The built-in players in both games of the Sixty-Six family (classic Sixty-Six and Schnapsen).

Greedy must play Schnapsen sensibly: exchange the trump jack (SCH-5), marry (66-9), claim at 66
(66-11); search must find deals consistent with a 20-card observation; the sample bots declare
the games they play, and ``greedy_bot.py`` plays every registered game from what the SDK decodes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena_util import with_arena
from harness.arena import Arena, Cause, Clock, Entrant, play_match
from harness.games import registry
from harness.games.base import turn
from harness.games.sixtysix.cards import parse_deck
from harness.games.sixtysix.engine import deal
from harness.games.sixtysix.observe import Observation, observe
from harness.players import players_for
from harness.sdk import Observation as SdkObservation
from harness.sdk.helpers import Determinizer
from harness.strategies import greedy_action, random_action
from harness.strategies_search import Budget, search_action
from harness.wire import arena_pb2 as pb
from harness.wire.codecs import codec

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
    assert _bot_class("greedy_bot", "GreedyBot").games == registry.ids()
    assert _bot_class("search_bot", "SearchBot").games == FAMILY


def test_random_bot_plays_schnapsen_deterministically() -> None:
    bot = _bot_class("random_bot", "RandomBot")()
    obs = next(o for o in observations("schnapsen", 1, 2) if len(o.legal) > 2)
    assert bot.act(obs) == bot.act(obs) in obs.legal


def sdk_decoded(game_id: str, rules_map: dict[str, str], obs: Any, legal: tuple[str, ...], n: int) -> Any:
    """``obs`` as a bot's ``act`` receives it: encoded by the game's codec as the arena sends it,
    parsed, and decoded with the rules of the MatchStart map exactly as the SDK's connection does."""
    c = codec(game_id)
    req = pb.DecisionRequest.FromString(c.encode_request("m1", 1, n, obs, legal, 1000, 5000))
    return c.decode_request(req, c.rules(rules_map), SdkObservation, move_ms=req.clock.move_ms,
                            bank_ms=req.clock.bank_ms, received=1.0, match_id=req.match_id)


GREEDY_GAMES: list[tuple[str, dict[str, str]]] = [(g, {}) for g in registry.ids()] + [
    ("twenty_two", {"players": "3"}), ("twenty_two", {"players": "7"})]


@pytest.mark.parametrize(("game_id", "values"), GREEDY_GAMES)
def test_greedy_bot_plays_every_game_from_what_the_sdk_decodes(game_id: str, values: dict[str, str]) -> None:
    """Every seat is greedy_bot.py, fed through the wire codec and the SDK's decode: each of its actions
    is legal and is the game's own greedy action on the undecoded observation (players_for's first)."""
    bot = _bot_class("greedy_bot", "GreedyBot")()
    game = registry.get(game_id)
    rules = game.rules(values)
    rules_map = game.rules_map(rules)
    own = players_for(game_id, game.players(rules), random.Random(0))[0][1]
    decisions = 0
    for seed in range(1, 4):
        m = game.start(seed, rules)
        while (now := turn(game, m)) is not None:
            _, obs, legal = now
            decisions += 1
            act = bot.act(sdk_decoded(game_id, rules_map, obs, legal, decisions))
            assert act in legal and act == own(obs), (game_id, seed, act)
            m = game.apply(m, act)
        assert game.outcome(m) is not None
    assert decisions > 100


def test_greedy_bot_refuses_an_observation_of_no_game() -> None:
    with pytest.raises(TypeError, match="no greedy player"):
        _bot_class("greedy_bot", "GreedyBot")().act(object())


@pytest.mark.parametrize(("game_id", "players"), [("three_handed", 3), ("four_handed", 4), ("twenty_two", 4)])
def test_greedy_bot_plays_a_real_match_of_each_table_game(game_id: str, players: int) -> None:
    """greedy_bot.py against random_bot.py processes over gRPC: an illegal or undecodable action would
    end the match as a forfeit (ILLEGAL/INVALID), so NORMAL means every greedy action was legal."""
    py = f"{sys.executable} {ROOT / 'sample_bots'}"

    async def go(arena: Arena) -> Any:
        bots = (Entrant("greedy", f"{py}/greedy_bot.py", arena=arena),
                *(Entrant(f"random{i}", f"{py}/random_bot.py", arena=arena) for i in range(1, players)))
        try:
            return await play_match(bots, match_id="g", seed=5, game=game_id,
                                    clock=Clock(move_ms=5000, bank_ms=60_000))
        finally:
            await asyncio.gather(*(b.stop() for b in bots))

    r = asyncio.run(with_arena(go))
    assert r.cause is Cause.NORMAL, (r.cause, r.detail)
    assert len(r.ranks) == players and r.decisions > 50
