"""Mixed tables of real bot processes over gRPC on loopback, Python (SDK) and Node.js together, in the
games beyond two players: three-handed Sixty-Six, four-handed partnerships seated as the tournament's
partner rotation seats them, and six-player Twenty-Two to the last survivor. Each match must end
NORMAL, its record must verify, and no bot process may be left behind (issues 12, 13).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena_util import groups, survivors
from harness.arena import Arena, Cause, Clock, Entrant, MatchResult, play_match
from harness.arena.record import read, verify
from harness.tournament.schedule import partnerships
from test_tournament import _leftover
from tools import NODE

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
NODE_DIR = ROOT / "sample_bots" / "node"
CLOCK = Clock(move_ms=5000, bank_ms=60000, hello_s=60.0)  # generous: nothing here is about time
BOTS = {
    "node": f"{NODE} {NODE_DIR / 'bot.js'}",
    "random": f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}",
    "greedy3h": f"{PY} {ROOT / 'tests' / 'bots' / 'greedy3h_bot.py'}",
    "greedy4": f"{PY} {ROOT / 'tests' / 'bots' / 'four_handed_greedy.py'}",
}

pytestmark = pytest.mark.needs("node-bot")  # `make node` installs its packages; `make test` runs it


def play(seating: Sequence[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, game: str,
         rules: dict[str, str], seed: int, match_id: str) -> tuple[MatchResult, list[dict]]:
    """One match of ``seating`` (names of BOTS, in player order) through a real arena; checks the match
    ended NORMAL, its record verifies and every bot process is gone. Returns the result and the record."""
    mark = f"e2e-{match_id}-{os.getpid()}"
    monkeypatch.setenv("ARENA_TEST_MARK", mark)  # every bot inherits it: a leftover is findable in /proc
    monkeypatch.setenv("NODE_BOT_STRICT", "1")  # the Node bot crashes (a CRASH result) rather than play legal[0]

    async def go() -> tuple[MatchResult, list[int]]:
        arena = Arena()
        await arena.start("127.0.0.1:0")
        es = [Entrant(f"{name}{i}", BOTS[name], arena=arena, hello_s=CLOCK.hello_s) for i, name in enumerate(seating)]
        try:
            r = await play_match(es, match_id=match_id, seed=seed, game=game, rules=rules, clock=CLOCK,
                                 record_dir=tmp_path)
        finally:
            await asyncio.gather(*(e.stop() for e in es))
            await arena.stop()
        return r, groups(*es)

    r, pgids = asyncio.run(go())
    assert r.cause is Cause.NORMAL, (r.cause, r.offender, r.detail)
    assert r.game == game and r.players == tuple(f"{n}{i}" for i, n in enumerate(seating))
    assert r.record is not None
    rep = verify(r.record)
    assert rep.ok, rep.divergence
    assert len(pgids) == len(seating) and survivors(pgids) == []
    assert _leftover(mark) == []
    lines = read(r.record)
    assert lines[0]["game"] == game
    end = next(d for d in lines if d["type"] == "end")
    assert end["cause"] == "normal" and end["ranks"] == list(r.ranks or ()) and end["scores"] == list(r.scores)
    return r, lines


def test_three_handed_python_greedy_sdk_random_and_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r, lines = play(("greedy3h", "random", "node"), tmp_path, monkeypatch, game="three_handed",
                    rules={"match_target": "3"}, seed=8, match_id="three")
    assert lines[0]["rules"]["match_target"] == "3"
    assert r.ranks is not None and r.ranks.count(0) == 1  # only a claimant scores: one winner (3H-6)
    winner = r.ranks.index(0)
    assert r.scores[winner] >= 3 and all(s < 3 for p, s in enumerate(r.scores) if p != winner)
    a, b = (p for p in range(3) if p != winner)  # the other two by game points, equal sharing second
    assert (r.ranks[a], r.ranks[b]) == ((1, 1) if r.scores[a] == r.scores[b] else (1, 2) if r.scores[a] > r.scores[b]
                                         else (2, 1))
    deals = [d for d in lines if d["type"] == "deal"]
    assert all(len(d["deck"].split()) == 24 for d in deals)  # 3H-1: the 24-card pack, all dealt
    claimed = {d["result"]["winner"] for d in deals if d["result"]["winner"] is not None}
    assert winner in claimed and sum(d["result"]["game_points"] for d in deals
                                     if d["result"]["winner"] == winner) == r.scores[winner]


def test_four_handed_partners_as_the_rotation_seats_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Node and the greedy SDK bot partner each other against two random bots, in both team orientations
    as the schedule's partner rotation seats them (seats 0 and 2 are partners, 1 and 3; 4H-1)."""
    legs = partnerships(("node", "random", "greedy4", "random"))[:2]
    assert legs == [("node", "random", "greedy4", "random"), ("random", "node", "random", "greedy4")]
    for leg, seating in enumerate(legs):
        r, lines = play(seating, tmp_path, monkeypatch, game="four_handed", rules={"pack": "24", "match_target": "3"},
                        seed=4, match_id=f"four-{leg}")
        assert r.teams == (0, 1, 0, 1) and lines[0]["teams"] == [0, 1, 0, 1]
        assert r.ranks is not None and sorted(r.ranks) == [0, 0, 1, 1]
        assert r.ranks[0] == r.ranks[2] and r.ranks[1] == r.ranks[3]  # partners share their place (4H-7)
        win = r.ranks.index(0) % 2
        assert r.scores[win] >= 3 and r.scores[win] == r.scores[win + 2]
        deals = [d for d in lines if d["type"] == "deal"]
        assert all(len(d["deck"].split()) == 24 and len(d["actions"]) == 24 for d in deals)  # 4H-2, 4H-9


def test_six_player_twenty_two_to_the_last_survivor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seating = ("node", "random", "node", "random", "node", "random")
    r, lines = play(seating, tmp_path, monkeypatch, game="twenty_two", rules={"players": "6"}, seed=3,
                    match_id="twentytwo")
    ranks = r.ranks
    assert ranks is not None and len(ranks) == 6 and lines[0]["rules"]["players"] == "6"
    deals = [d for d in lines if d["type"] == "deal"]
    out_at = {p: i for i, d in enumerate(deals) for p in d["result"]["eliminated"]}
    limit = int(lines[0]["rules"]["penalty_limit"])
    assert all(s >= limit for p, s in enumerate(r.scores) if p in out_at)  # 22-8.1
    last = len(deals) - 1
    final = [p for p in range(6) if out_at.get(p) == last] if len(out_at) == 6 else []  # all out at once
    firsts = [p for p in range(6) if ranks[p] == 0]
    if not final:  # the last player left, never out, wins alone (22-8.4)
        assert len(out_at) == 5 and len(firsts) == 1 and firsts[0] not in out_at
    else:  # the last players all went out in the last deal: lowest total first, equal totals share
        assert set(firsts) <= set(final) and {r.scores[p] for p in firsts} == {min(r.scores[p] for p in final)}
        for p in final:
            for q in final:
                assert (ranks[p] < ranks[q]) == (r.scores[p] < r.scores[q]), (p, q, ranks, r.scores)
    for p in range(6):  # 22-8.4: who goes out later finishes ahead; going out in one deal shares a place
        for q in range(6):
            if p not in out_at and q in out_at or p in out_at and q in out_at and out_at[p] > out_at[q]:
                assert ranks[p] < ranks[q], (p, q, ranks)
            if p in out_at and q in out_at and out_at[p] == out_at[q] and p not in final:
                assert ranks[p] == ranks[q], (p, q, ranks)
    assert sorted(ranks)[0] == 0 and all(ranks[p] == sum(1 for q in range(6) if ranks[q] < ranks[p])
                                         for p in range(6))  # competition ranks
    assert deals[0]["hand"] == 7 and len(deals[0]["deck"].split()) == 52  # 22-1.1, 22-3.2
