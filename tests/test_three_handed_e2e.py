"""Three-handed Sixty-Six with real bot processes over gRPC on loopback (issue 12): `arena match A B C
--game three_handed` of three sample random bots writes a record that replays; a match of three
different bots (the SDK greedy player, the SDK random bot, a raw-gRPC test bot) through the match loop
ends normally with a ranking of three and passes the deal to the left (7.2)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.arena import Arena, Entrant, play_match
from harness.arena.record import read, verify
from harness.arena.result import Cause

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
RANDOM = f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"
GREEDY3H = f"{PY} {ROOT / 'tests' / 'bots' / 'greedy3h_bot.py'}"
TESTBOT = f"env TESTBOT_GAMES=three_handed {PY} {ROOT / 'tests' / 'bots' / 'testbot.py'} random"


def _dealers_pass_left(deals: list[dict[str, Any]]) -> None:
    for a, b in zip(deals, deals[1:]):
        assert b["dealer"] == (a["dealer"] + 1) % 3  # the player at seat 0 deals next


def test_arena_match_of_three_random_bots_on_the_command_line(tmp_path: Path) -> None:
    p = subprocess.run([PY, "-m", "harness.cli", "match", "python sample_bots/random_bot.py",
                        "python sample_bots/random_bot.py", "python sample_bots/random_bot.py",
                        "--game", "three_handed", "--no-live", "--seed", "11", "--out", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    records = list(tmp_path.glob("*.jsonl"))
    assert len(records) == 1
    lines = read(records[0])
    head, end = lines[0], next(x for x in lines if x["type"] == "end")
    assert head["game"] == "three_handed" and len(head["players"]) == 3 and head["teams"] == [0, 1, 2]
    assert end["cause"] == "normal" and sorted(end["ranks"])[0] == 0 and len(end["ranks"]) == 3
    assert max(end["scores"]) >= 7
    deals = [x for x in lines if x["type"] == "deal"]
    _dealers_pass_left(deals)
    assert all(len(d["deck"].split()) == 24 and d["actions"][0].startswith("trump:") for d in deals)
    rep = verify(records[0])
    assert rep.ok, rep.divergence
    replay = subprocess.run([PY, "-m", "harness.cli", "replay", str(records[0])], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr


def test_three_different_bots_play_a_match_that_replays(tmp_path: Path) -> None:
    async def go() -> object:
        arena = Arena()
        await arena.start("127.0.0.1:0")
        bots = (Entrant("greedy3h", GREEDY3H, arena=arena), Entrant("random", RANDOM, arena=arena),
                Entrant("testbot", TESTBOT, arena=arena))
        try:
            return await play_match(bots, match_id="t3", seed=4, game="three_handed", record_dir=tmp_path)
        finally:
            await asyncio.gather(*(b.stop() for b in bots))
            await arena.stop()

    r = asyncio.run(go())
    assert r.cause is Cause.NORMAL, r.detail  # type: ignore[attr-defined]
    assert len(r.ranks) == 3 and r.ranks.count(0) == 1 and r.teams == (0, 1, 2)  # type: ignore[attr-defined]
    assert max(r.scores) >= 7  # type: ignore[attr-defined]
    rep = verify(tmp_path / "t3.jsonl")
    assert rep.ok, rep.divergence
    deals = [x for x in read(tmp_path / "t3.jsonl") if x["type"] == "deal"]
    _dealers_pass_left(deals)
    # A changed action in the record is found by replay.
    text = (tmp_path / "t3.jsonl").read_text()
    first = deals[0]["actions"][0]
    other = "trump:C" if first != "trump:C" else "trump:D"
    (tmp_path / "bad.jsonl").write_text(text.replace(f'"actions":["{first}"', f'"actions":["{other}"', 1))
    assert not verify(tmp_path / "bad.jsonl").ok
