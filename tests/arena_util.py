"""Helpers for the arena tests: start an arena, run bots from tests/bots, check for survivors."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from harness.arena import Arena, Clock, Entrant, MatchResult, play_match
from harness.arena.process import group_members
from harness.games.sixtysix.options import Rules

ROOT = Path(__file__).resolve().parents[1]
TESTBOT = f"python {ROOT / 'tests' / 'bots' / 'testbot.py'}"


def bot(mode: str) -> str:
    return f"{TESTBOT} {mode}"


async def with_arena(fn: Callable[[Arena], Awaitable[Any]], listen: str = "127.0.0.1:0") -> Any:
    arena = Arena()
    await arena.start(listen)
    try:
        return await fn(arena)
    finally:
        await arena.stop()


async def match(arena: Arena, a: Entrant, b: Entrant, *, seed: int = 1, record_dir: Path | None = None,
                clock: Clock = Clock(), match_id: str = "m", rules: Rules = Rules(),
                stop: bool = True) -> tuple[MatchResult, list[int]]:
    """Play one match; returns the result and the bots' process group ids (all stopped if ``stop``)."""
    try:
        r = await play_match((a, b), match_id=match_id, seed=seed, rules=rules, clock=clock, record_dir=record_dir)
    finally:
        if stop:
            await asyncio.gather(a.stop(), b.stop())
    return r, groups(a, b)


def groups(*entrants: Entrant) -> list[int]:
    """The process groups of the entrants' bot processes (a spawned bot's pid is its group id)."""
    return [e.process.pid for e in entrants if e.process is not None and e.process.pid is not None]


def survivors(pgids: list[int]) -> list[int]:
    """Live processes left in any of the groups."""
    return [pid for g in pgids for pid in group_members(g)]
