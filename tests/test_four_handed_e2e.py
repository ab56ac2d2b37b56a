"""Four-handed Sixty-Six with real bot processes over gRPC on loopback (issue 12): the command line
`arena match` with four random bots, a record that replays; and an SDK bot (`harness.sdk.run`) playing
the game's observation as partners against two random bots."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from harness.arena import Arena, Entrant, play_match
from harness.arena.record import read, verify
from harness.arena.result import Cause, MatchResult

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
RANDOM = f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"
GREEDY4 = f"{PY} {ROOT / 'tests' / 'bots' / 'four_handed_greedy.py'}"


def test_arena_match_of_four_random_bots_records_and_replays(tmp_path: Path) -> None:
    bot = f"{PY} sample_bots/random_bot.py"
    done = subprocess.run([PY, "-m", "harness.cli", "match", bot, bot, bot, bot, "--game", "four_handed", "--no-live",
                           "--seed", "12", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    [path] = tmp_path.glob("*.jsonl")
    lines = read(path)
    header, end = lines[0], next(d for d in lines if d["type"] == "end")
    assert header["game"] == "four_handed" and header["teams"] == [0, 1, 0, 1] and header["rules"]["pack"] == "32"
    assert end["cause"] == "normal" and sorted(end["ranks"]) == [0, 0, 1, 1]
    win = end["ranks"].index(0) % 2
    assert end["ranks"] == [0 if p % 2 == win else 1 for p in range(4)] and end["scores"][win] >= 7
    deals = [d for d in lines if d["type"] == "deal"]
    assert all(len(d["deck"].split()) == 32 and len(d["actions"]) == 32 for d in deals)  # 4H-2, 4H-9
    assert all((b["dealer"] - a["dealer"]) % 4 == 1 for a, b in zip(deals, deals[1:]))  # 7.3: seat 0 deals next
    assert sum(d["result"]["game_points"] for d in deals if d["result"]["winner"] == win) == end["scores"][win]
    rep = verify(path)
    assert rep.ok, rep.divergence
    replay = subprocess.run([PY, "-m", "harness.cli", "replay", str(path)], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert replay.returncode == 0 and "record verified" in replay.stdout
    # A changed card is found.
    text = path.read_text().splitlines()
    first = json.loads(text[1])
    first["actions"][0], first["actions"][1] = first["actions"][1], first["actions"][0]
    text[1] = json.dumps(first, separators=(",", ":"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(text) + "\n")
    assert not verify(bad).ok


def test_an_sdk_bot_plays_partners_with_itself_against_random_bots(tmp_path: Path) -> None:
    async def go() -> MatchResult:
        arena = Arena()
        await arena.start("127.0.0.1:0")
        es = (Entrant("g1", GREEDY4, arena=arena), Entrant("r1", RANDOM, arena=arena),
              Entrant("g2", GREEDY4, arena=arena), Entrant("r2", RANDOM, arena=arena))
        try:
            return await play_match(es, match_id="four", seed=4, game="four_handed",
                                    rules={"pack": "24", "match_target": "3"}, record_dir=tmp_path)
        finally:
            await asyncio.gather(*(e.stop() for e in es))
            await arena.stop()

    r = asyncio.run(go())
    assert r.cause is Cause.NORMAL, r.detail
    assert r.teams == (0, 1, 0, 1) and r.ranks is not None and sorted(r.ranks) == [0, 0, 1, 1]
    lines = read(tmp_path / "four.jsonl")
    assert lines[0]["rules"]["pack"] == "24" and lines[0]["rules"]["match_target"] == "3"
    assert all(len(d["deck"].split()) == 24 for d in lines if d["type"] == "deal")
    assert verify(tmp_path / "four.jsonl").ok
