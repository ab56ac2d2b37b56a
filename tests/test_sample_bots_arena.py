"""The sample bots (Python SDK and Node.js) play full matches through the real arena."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from arena_util import match, survivors, with_arena
from harness.arena import Arena, Cause, Clock, Entrant, MatchResult
from harness.arena.record import verify
from harness.games.sixtysix.options import Rules

BOTS = Path(__file__).resolve().parents[1] / "sample_bots"


def py(name: str) -> str:
    return f"{sys.executable} {BOTS / name}"


def play(a: str, b: str, tmp_path: Path, *, clock: Clock = Clock(), rules: Rules = Rules(),
         seed: int = 5) -> MatchResult:
    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        ea, eb = Entrant("a", a, arena=arena), Entrant("b", b, arena=arena)
        return await match(arena, ea, eb, seed=seed, clock=clock, rules=rules, record_dir=tmp_path)

    r, pgids = asyncio.run(with_arena(go))
    assert r.cause is Cause.NORMAL, (r.cause, r.detail)
    assert r.winner is not None and verify(r.record).ok
    assert survivors(pgids) == []
    return r


def test_random_against_greedy(tmp_path: Path) -> None:
    r = play(py("random_bot.py"), py("greedy_bot.py"), tmp_path)
    assert max(r.scores) >= 7


def test_search_bot_keeps_to_a_short_move_limit(tmp_path: Path) -> None:
    play(py("search_bot.py"), py("random_bot.py"), tmp_path, clock=Clock(move_ms=120, bank_ms=500),
         rules=Rules(match_target=3))


@pytest.mark.needs("node-bot")
def test_node_bot_plays_a_match(tmp_path: Path) -> None:
    play(f"node {BOTS / 'node' / 'bot.js'}", py("random_bot.py"), tmp_path, rules=Rules(match_target=4))
