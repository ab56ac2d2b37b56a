"""Schnapsen everywhere a game is (issue 10), with real bot processes over gRPC on loopback and real
SQLite files: a match that replays, a tournament killed with SIGKILL and resumed, a league round; and
the refusals: a bot that does not list the game, a protocol version 1 bot (told why in a Goodbye).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import grpc

from harness.arena import Arena, Entrant, play_match
from harness.arena.record import read, verify
from harness.arena.result import Cause, Fault, MatchResult
from harness.tournament.schedule import round_robin
from harness.wire import arena_pb2 as pb
from test_league import League, Proc, procs, wait_for  # noqa: F401 - the fixture
from test_tournament import ROOT, _env, _recorded, _wait_gone

PY = sys.executable
RANDOM = f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"
GREEDY = f"{PY} {ROOT / 'sample_bots' / 'greedy_bot.py'}"
SIXTYSIX_ONLY = f"env TESTBOT_GAMES=sixtysix {PY} {ROOT / 'tests' / 'bots' / 'testbot.py'} random"
T = TypeVar("T")


def test_a_schnapsen_match_between_real_bots_records_and_replays(tmp_path: Path) -> None:
    async def go(arena: Arena) -> MatchResult:
        a, b = Entrant("greedy", GREEDY, arena=arena), Entrant("random", RANDOM, arena=arena)
        try:
            return await play_match((a, b), match_id="s1", seed=9, game="schnapsen", record_dir=tmp_path)
        finally:
            await asyncio.gather(a.stop(), b.stop())

    r = _with_arena(go)
    assert r.cause is Cause.NORMAL and r.game == "schnapsen" and r.ranks is not None and sorted(r.ranks) == [0, 1]
    assert max(r.scores) >= 7 and r.teams == (0, 1)
    lines = read(tmp_path / "s1.jsonl")
    assert lines[0]["game"] == "schnapsen" and lines[0]["rules"]["exchange_rank"] == "J"
    deals = [d for d in lines if d["type"] == "deal"]
    assert all(len(d["deck"].split()) == 20 and "9" not in d["deck"] for d in deals)  # SCH-1
    assert [d["dealer"] for d in deals[:3]] in ([0, 1, 0], [1, 0, 1])  # SCH-3: the deal alternates
    rep = verify(tmp_path / "s1.jsonl")
    assert rep.ok, rep.divergence
    # The record of a Sixty-Six match cannot pass for Schnapsen: the game is part of the replay.
    text = (tmp_path / "s1.jsonl").read_text().replace('"game":"schnapsen"', '"game":"sixtysix"', 1)
    (tmp_path / "as66.jsonl").write_text(text)
    assert not verify(tmp_path / "as66.jsonl").ok


def test_a_bot_that_does_not_list_the_game_is_never_given_a_match(tmp_path: Path) -> None:
    async def go(arena: Arena) -> MatchResult:
        a, b = Entrant("only66", SIXTYSIX_ONLY, arena=arena), Entrant("random", RANDOM, arena=arena)
        try:
            return await play_match((a, b), match_id="x", seed=1, game="schnapsen", record_dir=tmp_path)
        finally:
            await asyncio.gather(a.stop(), b.stop())

    r = _with_arena(go)
    assert (r.cause, r.offender, r.decisions) == (Cause.NO_HELLO, 0, 0)
    assert "does not play schnapsen" in r.detail
    # A tournament refuses at start, with one line naming the bot and the game.
    done = subprocess.run([PY, "-m", "harness.cli", "tournament", "--game", "schnapsen", "--bot",
                           f"only66={SIXTYSIX_ONLY}", "--bot", f"random={RANDOM}", "--db", str(tmp_path / "t.db"),
                           "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "only66" in done.stderr and "schnapsen" in done.stderr


def test_a_protocol_version_1_bot_is_told_why_in_a_goodbye() -> None:
    async def go(arena: Arena) -> tuple[pb.ArenaMessage, Fault, grpc.StatusCode]:
        fut = arena.expect("tok")
        channel = grpc.aio.insecure_channel(arena.address)
        call = channel.stream_stream("/arena.v1.BotArena/Play")(timeout=10)
        hello = pb.BotMessage(hello=pb.Hello(name="old", protocol_version=1, games=["sixtysix"], token="tok"))
        await call.write(hello.SerializeToString())
        got = pb.ArenaMessage.FromString(await call.read())
        fault = await fut
        assert isinstance(fault, Fault), fault
        try:
            await call.read()
        except grpc.aio.AioRpcError as e:
            code = e.code()
        await channel.close()
        return got, fault, code

    got, fault, code = _with_arena(go)
    assert got.WhichOneof("kind") == "goodbye" and "protocol_version 1 is not supported" in got.goodbye.reason
    assert fault.cause is Cause.NO_HELLO and code == grpc.StatusCode.FAILED_PRECONDITION


def test_a_schnapsen_tournament_survives_sigkill_and_resumes(tmp_path: Path) -> None:
    mark = f"sch-{os.getpid()}"
    bots = {"random": RANDOM, "greedy": GREEDY, "random2": RANDOM}
    args = [PY, "-m", "harness.cli", "tournament", "--game", "schnapsen", "--name", "sch", "--rounds", "2",
            "--seed", "7", "--concurrency", "2", "--db", str(tmp_path / "arena.db"), "--out", str(tmp_path),
            "--limit", "sandbox=none"]  # killed at a random moment: see test_crash_safety._cmd
    for name, command in bots.items():
        args += ["--bot", f"{name}={command}"]
    scheduled = [p.match_id for p in round_robin(list(bots), 2, 7)]
    proc = subprocess.Popen(args, cwd=ROOT, env=_env(mark), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for("two matches", lambda: len(_recorded(tmp_path / "arena.db")) >= 2 or proc.poll() is not None, 120)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not _wait_gone(mark)
    done = subprocess.run([*args, "--resume"], cwd=ROOT, env=_env(mark), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _recorded(tmp_path / "arena.db") == scheduled  # each once, in schedule order
    doc = json.loads((tmp_path / "sch" / "leaderboard.json").read_text())  # OUT/<name>/ (issue 14)
    assert [m["match_id"] for m in doc["matches"]] == scheduled
    assert "Schnapsen" in (tmp_path / "sch" / "leaderboard.md").read_text()
    for rec in (tmp_path / "records").rglob("*.jsonl"):
        assert verify(rec).ok, rec
    assert not _wait_gone(mark)


def test_a_league_of_schnapsen_plays_schnapsen_and_keeps_its_game(tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path, "--game", "schnapsen")
    procs.append(lg.proc)
    a, b = lg.register("a"), lg.register("b", owner="other")
    procs += [lg.bot(a.token), lg.bot(b.token)]
    wait_for("two matches", lambda: lg.board().matches >= 2, 60)
    records = sorted((tmp_path / "out" / "records").glob("*.jsonl"))
    assert records and all(read(r)[0]["game"] == "schnapsen" for r in records)
    assert lg.stop() == 0
    # The database keeps its game: serving it as another game is refused in one line.
    bad = subprocess.run([PY, "-m", "harness.cli", "league", "serve", "--listen", "127.0.0.1:0", "--db",
                          str(lg.db), "--game", "sixtysix"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "schnapsen" in bad.stderr, bad.stderr


def _with_arena(fn: Callable[[Arena], Awaitable[T]]) -> T:
    async def run() -> T:
        arena = Arena()
        await arena.start("127.0.0.1:0")
        try:
            return await fn(arena)
        finally:
            await arena.stop()

    return asyncio.run(run())


def test_league_add_creates_a_league_of_the_named_game_and_refuses_another(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")

    def add(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([PY, "-m", "harness.cli", "league", "add", "--db", db, "--name", "g", "--command",
                               GREEDY, *extra], cwd=ROOT, capture_output=True, text=True, timeout=60)

    assert add("--game", "schnapsen").returncode == 0
    for bad in (("--game", "sixtysix"), ("--game", "chess")):
        done = add(*bad)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert add().returncode == 0  # no --game: whatever the league plays
    from harness.league.store import Store

    store = Store(db)
    try:
        assert store.league.game == "schnapsen"
    finally:
        store.close()
