"""End-to-end arena tests: real bot processes over real gRPC on loopback."""

from __future__ import annotations

import asyncio
import json
import os
from argparse import Namespace
from pathlib import Path

import pytest

from arena_util import bot, groups, match, survivors, with_arena
from harness import eventloop
from harness.arena import Arena, Cause, Clock, Entrant, MatchResult, Session, play_match
from harness.arena.commands import cmd_replay
from harness.arena.process import argv_of
from harness.arena.record import deterministic, read, verify
from harness.games.sixtysix.options import Rules


def test_full_match_between_two_bots(tmp_path: Path) -> None:
    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        a, b = Entrant("alice", bot("random"), arena=arena), Entrant("bob", bot("random"), arena=arena)
        return await match(arena, a, b, seed=11, record_dir=tmp_path)

    r, pgids = asyncio.run(with_arena(go))
    assert r.cause is Cause.NORMAL and r.offender is None
    assert r.winner is not None and r.scores[r.winner] >= 7 > r.scores[1 - r.winner]
    assert r.decisions > 20 and r.deals >= 2
    lines = read(r.record)
    assert [d["type"] for d in lines][0] == "header" and lines[-2]["type"] == "end"
    deals = [d for d in lines if d["type"] == "deal"]
    assert sum(len(d["actions"]) for d in deals) == r.decisions
    assert all(len(d["ms"]) == len(d["actions"]) for d in deals)
    assert verify(r.record).ok
    assert survivors(pgids) == []


def test_full_match_over_a_unix_socket(tmp_path: Path) -> None:
    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        a, b = Entrant("a", bot("random"), arena=arena), Entrant("b", bot("random"), arena=arena)
        return await match(arena, a, b, seed=3, rules=Rules(match_target=3))

    r, pgids = asyncio.run(with_arena(go, listen=f"unix:{tmp_path / 'arena.sock'}"))
    assert r.cause is Cause.NORMAL and max(r.scores) >= 3
    assert survivors(pgids) == []


def test_same_seed_gives_the_same_record(tmp_path: Path) -> None:
    async def go(arena: Arena, out: Path) -> tuple[MatchResult, list[int]]:
        a, b = Entrant("a", bot("random"), arena=arena), Entrant("b", bot("random"), arena=arena)
        return await match(arena, a, b, seed=2024, record_dir=out, match_id="same")

    r1, _ = asyncio.run(with_arena(lambda ar: go(ar, tmp_path / "1")))
    r2, _ = asyncio.run(with_arena(lambda ar: go(ar, tmp_path / "2")))
    one, two = read(r1.record), read(r2.record)
    assert deterministic(one) == deterministic(two)
    assert [json.dumps(d) for d in deterministic(one)] == [json.dumps(d) for d in deterministic(two)]
    r3, _ = asyncio.run(with_arena(lambda ar: go(ar, tmp_path / "3")))  # another seed differs
    assert r3.seed == 2024


MISBEHAVIOUR = [
    ("sleep 0.5 3", Cause.TIMEOUT, "no reply within", Clock(move_ms=50, bank_ms=100, grace_ms=10)),
    ("illegal 3", Cause.ILLEGAL, "is not legal", Clock()),
    ("malformed 2", Cause.INVALID, "malformed action", Clock()),
    ("garbage 2", Cause.INVALID, "undecodable", Clock()),
    ("wrongid 2", Cause.INVALID, "wrong request id", Clock()),
    ("exit 4", Cause.CRASH, "exited with status 3", Clock()),
    ("hangup 3", Cause.DISCONNECT, "", Clock()),
    ("nohello", Cause.NO_HELLO, "no Hello within 1 s", Clock()),
]


@pytest.mark.parametrize("mode,cause,detail,clock", MISBEHAVIOUR, ids=[m[0].split()[0] for m in MISBEHAVIOUR])
def test_misbehaviour_is_a_recorded_forfeit(tmp_path: Path, mode: str, cause: Cause, detail: str,
                                            clock: Clock) -> None:
    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        a = Entrant("good", bot("random"), arena=arena)
        # 1 s to say Hello only where never saying it is the point: on a busy machine a bot can take
        # longer than that to start, and would then be recorded as no_hello instead of its misdeed
        b = Entrant("bad", bot(mode), arena=arena, hello_s=1.0 if cause is Cause.NO_HELLO else 120.0,
                    stop_grace_s=0.5)
        return await match(arena, a, b, seed=5, record_dir=tmp_path, clock=clock)

    r, pgids = asyncio.run(with_arena(go))
    assert (r.cause, r.offender, r.winner) == (cause, 1, 0), r
    assert detail in r.detail
    end = next(d for d in read(r.record) if d["type"] == "end")
    assert end["cause"] == str(cause) and end["offender"] == 1 and end["detail"] == r.detail
    if cause is Cause.NO_HELLO:
        assert end["deal_no"] == 0 and end["decision_no"] is None
    else:
        assert end["deal_no"] >= 1 and end["decision_no"] == r.decisions + 1 >= 2
    assert verify(r.record).ok
    assert len(pgids) == 2 and survivors(pgids) == []


def test_time_past_the_move_limit_comes_out_of_the_bank(tmp_path: Path) -> None:
    clock = Clock(move_ms=30, bank_ms=200, grace_ms=10)

    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        a = Entrant("fast", bot("random"), arena=arena)
        b = Entrant("slow", bot("sleep 0.06"), arena=arena)
        return await match(arena, a, b, seed=9, record_dir=tmp_path, clock=clock)

    r, pgids = asyncio.run(with_arena(go))
    assert (r.cause, r.offender) == (Cause.TIMEOUT, 1)
    slow = [ms for d in read(r.record) if d["type"] == "deal" for ms in d["ms"] if ms > clock.move_ms]
    assert 2 <= len(slow) <= 8  # each slow reply cost ~30 ms of the 200 ms bank, then the bank ran out
    assert survivors(pgids) == []


def test_one_process_serves_concurrent_matches_and_is_restarted_after_a_crash(tmp_path: Path) -> None:
    async def go(arena: Arena) -> tuple[list[MatchResult], list[int], list[int], MatchResult, MatchResult, int, list[int]]:
        a = Entrant("a", bot("random"), arena=arena)
        b = Entrant("b", bot("random"), arena=arena)
        crashy = Entrant("crashy", bot("exit 3"), arena=arena)
        try:
            rs = await asyncio.gather(*(play_match((a, b), match_id=f"c{i}", seed=i, rules=Rules(),
                                                   record_dir=tmp_path) for i in range(4)))
            pid = groups(a)
            first = await play_match((a, crashy), match_id="x1", seed=1, rules=Rules())
            second = await play_match((crashy, a), match_id="x2", seed=2, rules=Rules())
            return rs, pid, groups(a), first, second, crashy.crashes, groups(a, b, crashy)
        finally:
            await asyncio.gather(a.stop(), b.stop(), crashy.stop())

    rs, pid_before, pid_after, first, second, crashes, pgids = asyncio.run(with_arena(go))
    assert all(r.cause is Cause.NORMAL for r in rs)
    assert len(pid_before) == 1 and pid_before == pid_after  # one process served all the matches
    assert (first.cause, first.offender) == (Cause.CRASH, 1)
    assert (second.cause, second.offender) == (Cause.CRASH, 0)
    assert crashes == 1
    assert survivors(pgids) == []


def test_remote_bot_connects_with_its_token() -> None:
    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        a = Entrant("local", bot("random"), arena=arena)
        r = Entrant.parse("remote:friend", arena=arena, hello_s=10.0)
        token, address = r.token, arena.address
        assert token is not None and address is not None
        proc = await eventloop.spawn(
            *argv_of(bot("random")), env={"ARENA_ADDRESS": address, "ARENA_TOKEN": token,
                                         **os.environ}, start_new_session=True)
        try:
            return await match(arena, a, r, seed=4, rules=Rules(match_target=2))
        finally:
            await proc.wait()

    res, pgids = asyncio.run(with_arena(go))
    assert res.cause is Cause.NORMAL and res.players == ("local", "friend")
    assert survivors(pgids) == []


def test_cancelled_match_is_recorded_as_interrupted(tmp_path: Path) -> None:
    async def go(arena: Arena) -> list[int]:
        a, b = Entrant("a", bot("random"), arena=arena), Entrant("b", bot("sleep 0.2"), arena=arena)
        task = asyncio.create_task(play_match((a, b), match_id="int", seed=1, rules=Rules(), record_dir=tmp_path))
        await asyncio.sleep(1.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.gather(a.stop(), b.stop())
        return groups(a, b)

    pgids = asyncio.run(with_arena(go))
    end = next(d for d in read(tmp_path / "int.jsonl") if d["type"] == "end")
    assert end["cause"] == "interrupted" and end["ranks"] is None
    assert verify(tmp_path / "int.jsonl").ok
    assert survivors(pgids) == []


def test_replay_verifies_a_record_and_reports_the_first_divergence(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        a, b = Entrant("a", bot("random"), arena=arena), Entrant("b", bot("random"), arena=arena)
        return await match(arena, a, b, seed=8, record_dir=tmp_path)

    r, _ = asyncio.run(with_arena(go))
    assert cmd_replay(Namespace(file=r.record)) == 0
    assert "record verified" in capsys.readouterr().out

    lines = Path(r.record).read_text().splitlines()
    deal2 = json.loads(lines[2])
    acts = deal2["actions"]
    i = next(k for k in range(len(acts)) if acts[k] != acts[k + 1] and len(acts[k]) == 2)
    acts[i] = "AH" if acts[i] != "AH" else "AS"  # most likely not in hand; at worst illegal later
    lines[2] = json.dumps(deal2)
    bad = tmp_path / "tampered.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    assert cmd_replay(Namespace(file=str(bad))) == 1
    err = capsys.readouterr().err
    assert f"deal {deal2['deal_no']}, action" in err and "illegal" in err

    lines = Path(r.record).read_text().splitlines()
    end = json.loads(lines[-2])
    end["ranks"] = end["ranks"][::-1]
    lines[-2] = json.dumps(end)
    bad.write_text("\n".join(lines) + "\n")
    rep = verify(bad)
    assert not rep.ok and rep.divergence is not None and rep.divergence.startswith("end: ranks")


def test_full_match_between_two_sample_bots(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[1] / "sample_bots"

    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        a = Entrant("random", f"python {sample / 'random_bot.py'}", arena=arena)
        b = Entrant("greedy", f"python {sample / 'greedy_bot.py'}", arena=arena)
        return await match(arena, a, b, seed=66, record_dir=tmp_path)

    r, pgids = asyncio.run(with_arena(go))
    assert r.cause is Cause.NORMAL, r
    assert max(r.scores) >= 7 and verify(r.record).ok
    assert survivors(pgids) == []


def test_a_late_reply_after_a_timeout_leaves_the_session_usable() -> None:
    """A timeout forfeits one match; the late reply must not break the bot's other matches."""
    from harness.games.sixtysix.match import start_match
    from harness.games.sixtysix.observe import observe
    from harness.wire.convert import request_to_pb

    async def go(arena: Arena) -> tuple[object, object, bool, list[int]]:
        e = Entrant("sleepy", bot("sleep 0.15"), arena=arena)
        try:
            session = await e.ensure()
            assert isinstance(session, Session), session
            m = start_match(3)
            obs = observe(m.state, m.state.to_act)
            first, _ = await session.decide(request_to_pb(0, "m1", 1, 1, obs, 50, 0).SerializeToString(), 0.05)
            await asyncio.sleep(0.25)  # the late reply to the first request arrives meanwhile
            second, _ = await session.decide(request_to_pb(0, "m2", 1, 1, obs, 1000, 0).SerializeToString(), 2.0)
            return first, second, session.alive, groups(e)
        finally:
            await e.stop()

    first, second, alive, pgids = asyncio.run(with_arena(go))
    assert getattr(first, "cause", None) is Cause.TIMEOUT
    assert not hasattr(second, "cause") and second.HasField("action")
    assert alive
    assert survivors(pgids) == []
