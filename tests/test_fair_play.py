"""Fair play (issue 11): deals nobody can predict, legs that share deals only where no bot can
remember them, and nothing a bot receives that names a seed."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from harness.arena.limits import Limits
from harness.tournament.config import TournamentConfig, from_flags
from harness.tournament.runner import legs_policy, schedule
from test_tournament import ROOT

PY = sys.executable
RANDOM = f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"


def _cfg(*bots: str) -> TournamentConfig:
    return from_flags(list(bots) or ["a=x", "b=y", "c=z"], seed=7)


def test_every_unit_has_its_own_seed_and_legs_share_it_only_when_fair() -> None:
    none = Limits(sandbox="none")
    independent = schedule(replace(_cfg(), limits=none))
    assert legs_policy(replace(_cfg(), limits=none)).shared is False
    assert len({p.seed for p in independent}) == len(independent)  # no two matches on the same deals
    trusted = schedule(replace(_cfg(), limits=none, duplicate="trusted"))
    units: dict[str, set[int]] = {}
    for p in trusted:
        units.setdefault(p.pair_id, set()).add(p.seed)
    assert all(len(s) == 1 for s in units.values())  # a unit's legs share their deals
    assert len({next(iter(s)) for s in units.values()}) == len(units)  # and no two units do
    # A remote entrant never plays two legs on the same deals, trusted or not.
    mixed = schedule(replace(_cfg("a=x", "b=y", "c=remote:c"), limits=none, duplicate="trusted"))
    for p in mixed:
        others = [q for q in mixed if q.pair_id == p.pair_id and q is not p]
        assert all((q.seed == p.seed) == ("c" not in p.players) for q in others)
    assert legs_policy(replace(_cfg(), duplicate="off")).shared is False


def test_without_a_seed_each_tournament_draws_a_secret_and_publishes_only_finished_seeds(tmp_path: Path) -> None:
    def run(out: Path) -> dict:
        done = subprocess.run([PY, "-m", "harness.cli", "tournament", "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}",
                               "--limit", "sandbox=none", "--db", str(out / "arena.db"), "--out", str(out)],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "independent deals" in done.stdout  # says why the legs do not share deals
        return json.loads((out / "tournament" / "leaderboard.json").read_text())  # OUT/<name>/ (issue 14)

    one, two = run(tmp_path / "1"), run(tmp_path / "2")
    s1, s2 = one["tournament"]["match_seeds"], two["tournament"]["match_seeds"]
    assert set(s1) == set(s2) == {m["match_id"] for m in one["matches"]}
    assert not set(s1.values()) & set(s2.values())  # two tournaments, nothing in common
    assert "seed" not in one["tournament"]  # the secret is never published
    assert "independent deals" in one["tournament"]["schedule"]


def test_a_hand_set_seed_with_remote_entrants_is_warned_about(tmp_path: Path) -> None:
    proc = subprocess.Popen([PY, "-m", "harness.cli", "tournament", "--bot", f"a={RANDOM}", "--bot", "b=remote:bee",
                             "--seed", "5", "--db", str(tmp_path / "a.db"), "--out", str(tmp_path),
                             "--limit", "sandbox=none"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # printed before any bot starts; then it waits for the remote bot
    finally:
        proc.kill()
        proc.wait()
    assert "warning: the seed" in line and "remote entrants" in line, line


def test_a_protocol_violation_is_told_to_the_offender_with_match_end_and_goodbye() -> None:
    """Issue 11: a wrong request id (a protocol-level forfeit) no longer just cuts the stream."""
    import asyncio

    import grpc

    from harness.arena import Arena, Entrant, play_match
    from harness.arena.result import Cause, MatchResult
    from harness.wire import arena_pb2 as pb

    async def go() -> tuple[MatchResult, list[pb.ArenaMessage]]:
        arena = Arena()
        await arena.start("127.0.0.1:0")
        good = Entrant("good", RANDOM, arena=arena, limits=Limits(sandbox="none"))
        bad = Entrant("bad", remote_name="bad", arena=arena, token="tok-bad", hello_s=30)
        match = asyncio.ensure_future(play_match((bad, good), match_id="pv", seed=3))
        channel = grpc.aio.insecure_channel(arena.address)
        call = channel.stream_stream("/arena.v1.BotArena/Play")(timeout=30)
        await call.write(pb.BotMessage(hello=pb.Hello(name="bad", protocol_version=2, games=["sixtysix"],
                                                      token="tok-bad")).SerializeToString())
        seen: list[pb.ArenaMessage] = []
        while True:
            data = await call.read()
            if data is grpc.aio.EOF:
                break
            msg = pb.ArenaMessage.FromString(data)
            seen.append(msg)
            if msg.WhichOneof("kind") == "request":
                wrong = pb.BotMessage(reply=pb.Reply(request_id=msg.request.request_id + 99))
                await call.write(wrong.SerializeToString())
            if msg.WhichOneof("kind") == "goodbye":
                break
        r = await match
        await good.stop()
        await channel.close()
        await arena.stop()
        return r, seen

    r, seen = asyncio.run(go())
    assert r.cause is Cause.INVALID and r.offender == 0 and "wrong request id" in r.detail
    kinds = [m.WhichOneof("kind") for m in seen]
    assert kinds[-2:] == ["match_end", "goodbye"], kinds
    end = seen[-2].match_end
    assert end.termination == pb.TERMINATION_INVALID and "wrong request id" in end.detail
    assert "wrong request id" in seen[-1].goodbye.reason


def test_one_name_rule_for_every_entry_point(tmp_path: Path) -> None:
    """``remote:../../x`` wrote a record outside --out; names are checked the same way everywhere."""
    from harness.league.keys import name_problem
    from harness.tournament.config import ConfigError

    for bad in ("../../x", "<b>x</b>", "..", "a b"):
        done = subprocess.run([PY, "-m", "harness.cli", "match", RANDOM, f"remote:{bad}", "--out", str(tmp_path),
                               "--no-live"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "bad remote bot name" in done.stderr
        assert name_problem(bad) is not None
        try:
            from_flags([f"ok=remote:{bad}", f"{bad}=x"], seed=1)
            raise AssertionError("accepted")
        except ConfigError:
            pass
    assert list(tmp_path.iterdir()) == [] and not (tmp_path.parent / "x").exists()


def test_the_record_header_keeps_the_hello_time_given(tmp_path: Path) -> None:
    from harness.arena.record import read

    done = subprocess.run([PY, "-m", "harness.cli", "match", RANDOM, RANDOM, "--hello-time", "7.5", "--seed", "1",
                           "--out", str(tmp_path), "--no-live"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert read(next(tmp_path.glob("*.jsonl")))[0]["clock"]["hello_s"] == 7.5


MEMORY = f"{PY} {ROOT / 'tests' / 'bots' / 'memorybot.py'}"


def _recognised(out: Path, *extra: str) -> int:
    """Deals that the remembering bots recognised in a duplicate tournament of two of them."""
    from harness.arena.record import read

    done = subprocess.run([PY, "-m", "harness.cli", "tournament", "--bot", f"m1={MEMORY}", "--bot", f"m2={MEMORY}",
                           "--rounds", "2", "--concurrency", "1", "--db", str(out / "a.db"), "--out", str(out),
                           *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    n = 0
    records = list((out / "records").rglob("*.jsonl"))
    assert len(records) == 4  # 2 rounds of one duplicate pair
    for rec in records:
        lines = read(rec)
        assert next(d for d in lines if d["type"] == "end")["cause"] == "normal"  # really played
        tails = next(d for d in lines if d["type"] == "stderr")["tails"]
        n += sum(t.count("recognised ") for t in tails)
    return n


@pytest.mark.needs("sandbox")
def test_remembering_bots_recognise_no_second_leg_deal_in_the_sandbox(tmp_path: Path) -> None:
    """The control first: without the sandbox and with duplicate = "trusted", one process plays both
    legs and the bot does recognise the deals of the second leg (so the check has teeth)."""
    try:
        assert _recognised(tmp_path / "trusted", "--limit", "sandbox=none", "--duplicate", "trusted") > 0
    finally:
        _forget_memories()  # unsandboxed, its forked helper escaped (setsid) and its files stayed
    assert _recognised(tmp_path / "sandboxed") == 0
    assert not _memory_processes()  # in the sandbox the helper died with its bot


def _memory_processes() -> list[int]:
    """Live processes running tests/bots/memorybot.py."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if b"memorybot.py" in (d / "cmdline").read_bytes():
                    found.append(int(d.name))
            except OSError:
                pass
    return found


def _forget_memories() -> None:
    """Stop the escaped helpers and remove what the unsandboxed bots left in the host's /tmp."""
    import os
    import signal

    for pid in _memory_processes():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for name in ("memorybot-decks.txt", "memorybot.sock"):
        try:
            os.unlink(os.path.join(os.environ.get("TMPDIR", "/tmp"), name))
        except OSError:
            pass
