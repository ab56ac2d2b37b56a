"""Twenty-Two with real bot processes over gRPC on loopback (issue 13): `arena match` with four
random bots to the last survivor (exit 0, a record that replays), and a six-player match through
the match loop whose finishing order follows the record.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from harness.arena import Arena, Entrant, play_match
from harness.arena.record import read, verify
from harness.arena.result import Cause

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
RANDOM = f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"


def test_arena_match_with_four_random_bots_to_the_last_survivor(tmp_path: Path) -> None:
    out = tmp_path / "z"
    r = subprocess.run([PY, "-m", "harness.cli", "match", RANDOM, RANDOM, RANDOM, RANDOM, "--game", "twenty_two",
                        "--no-live", "--out", str(out), "--seed", "7"], capture_output=True, text=True, cwd=ROOT,
                       timeout=240)
    assert r.returncode == 0, r.stderr
    assert "winner" in r.stdout
    [record] = list(out.glob("*.jsonl"))
    rep = verify(record)
    assert rep.ok, rep.divergence
    lines = read(record)
    assert lines[0]["game"] == "twenty_two" and lines[0]["rules"]["players"] == "4"
    end = [d for d in lines if d["type"] == "end"][0]
    assert end["cause"] == "normal" and end["ranks"].count(0) >= 1 and len(end["ranks"]) == 4
    deals = [d for d in lines if d["type"] == "deal"]
    assert deals[0]["hand"] == 7 and len(deals[0]["deck"].split()) == 52  # 22-3.2
    for before, after in zip(deals, deals[1:]):  # 22-3.3, 22-8.2: the loser's card sets the hand; a loser deals
        res = before["result"]
        assert after["hand"] <= res["penalty"]
        standing = [p for p in res["losers"] if p not in res["eliminated"]]
        if standing:
            assert after["dealer"] in standing
    replay = subprocess.run([PY, "-m", "harness.cli", "replay", str(record)], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert replay.returncode == 0, replay.stderr


def test_a_six_player_match_of_real_bots(tmp_path: Path) -> None:
    async def go() -> object:
        arena = Arena()
        await arena.start("127.0.0.1:0")
        bots = [Entrant(f"r{i}", RANDOM, arena=arena) for i in range(6)]
        try:
            return await play_match(bots, match_id="six", seed=3, game="twenty_two", rules={"players": "6"},
                                    record_dir=tmp_path)
        finally:
            await asyncio.gather(*(b.stop() for b in bots))
            await arena.stop()

    r = asyncio.run(go())
    assert r.cause is Cause.NORMAL and r.game == "twenty_two"  # type: ignore[attr-defined]
    ranks = r.ranks  # type: ignore[attr-defined]
    assert len(ranks) == 6 and 0 in ranks
    lines = read(tmp_path / "six.jsonl")
    deals = [d for d in lines if d["type"] == "deal"]
    out_at = {p: i for i, d in enumerate(deals) for p in d["result"]["eliminated"]}
    for p in range(6):  # finishing order: eliminated later ranks better (7.4)
        for q in range(6):
            if p in out_at and q in out_at and out_at[p] > out_at[q]:
                assert ranks[p] < ranks[q]
    assert verify(tmp_path / "six.jsonl").ok
