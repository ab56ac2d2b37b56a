"""Fuzzed bytes end to end: 200 cases from a real bot process over real gRPC into a real arena.

A fuzz bot (tests/adversaries/fuzzbot.py) sends each case on a fresh stream, either as its first
message or as its answer to the first request; the arena plays a short match for each against a
fair bot. Every case must end in a recorded, verifiable cause against the fuzz bot (or a normal
end when the bytes happened to be a fine message), and the fair bot must never be harmed.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena_util import ROOT, bot
from harness import eventloop
from harness.arena import Arena, Cause, Clock, Entrant, MatchResult, play_match
from harness.arena.record import read, verify
from harness.games.sixtysix.options import Rules
from harness.wire import arena_pb2 as pb

from test_fuzz_decode import actions, hellos, raw

FUZZBOT = ROOT / "tests" / "adversaries" / "fuzzbot.py"
CASES = 200
CLOCK = Clock(move_ms=1000, bank_ms=1000, grace_ms=10)
ALLOWED = {"first": {Cause.NO_HELLO, Cause.NORMAL}, "reply": {Cause.INVALID, Cause.ILLEGAL, Cause.NORMAL}}

first_cases = st.one_of(
    st.binary(max_size=80).map(lambda b: ("first", b, False)),
    st.tuples(hellos, st.binary(max_size=8)).map(lambda t: ("first", t, True)),
)
reply_cases = st.one_of(
    raw.map(lambda b: ("reply", b, False)),
    st.one_of(st.none(), actions).map(lambda a: ("reply", pb.BotMessage(reply=pb.Reply(
        request_id=1, action=a)).SerializeToString(), False)),
)


def encode(case: tuple, token: str) -> tuple[str, bytes]:
    """(where, bytes); a structured Hello gets the case's token, then its random suffix."""
    where, payload, structured = case
    if structured:
        msg, suffix = payload
        m = pb.BotMessage()
        m.CopyFrom(msg)
        m.hello.token = token
        return where, m.SerializeToString() + suffix
    return where, payload


class Stand:
    """An arena, a fair bot and the fuzz bot process, run on an event loop in a thread across cases."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.seen: list[tuple[int, str, MatchResult, bytes]] = []
        self.call(self._start())

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(90)

    async def _start(self) -> None:
        self.arena = Arena(hello_read_s=1.0)
        address = await self.arena.start("127.0.0.1:0")
        self.good = Entrant("good", bot("random"), arena=self.arena)
        self.client = await eventloop.spawn(
            sys.executable, str(FUZZBOT), address, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            start_new_session=True)

    async def case(self, case: tuple) -> None:
        """One case on a fresh stream with its own token; the result goes to ``seen``."""
        i = len(self.seen)
        token = f"fz{i}-{secrets.token_hex(4)}"
        where, data = encode(case, token)
        # A fuzzed first message that is no Hello never names its token, so the wait runs out: keep it short.
        # A proper Hello may take longer on a loaded machine.
        fz = Entrant("fuzz", remote_name="fuzz", arena=self.arena, token=token,
                     hello_s=0.3 if where == "first" else 5.0)
        task = asyncio.create_task(play_match((self.good, fz), match_id=f"fz{i}", seed=i, clock=CLOCK,
                                              rules=Rules(match_target=1), record_dir=self.out))
        await asyncio.sleep(0.01)  # the entrant now expects the token
        assert self.client.stdin is not None and self.client.stdout is not None
        self.client.stdin.write(f"{token} {where} {data.hex() or '-'}\n".encode())
        await self.client.stdin.drain()
        r = await task
        await fz.stop()
        done = await asyncio.wait_for(self.client.stdout.readline(), 40)
        assert done.split()[0] == token.encode(), (i, done)
        self.seen.append((i, where, r, data))

    async def after(self) -> MatchResult:
        fair = Entrant("fair", bot("random"), arena=self.arena)
        try:
            return await play_match((self.good, fair), match_id="after", seed=1, rules=Rules(match_target=1),
                                    record_dir=self.out)
        finally:
            await fair.stop()

    async def _close(self) -> None:
        assert self.client.stdin is not None
        self.client.stdin.close()
        await self.client.wait()
        await self.good.stop()
        await self.arena.stop()

    def close(self) -> None:
        self.call(self._close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture(scope="module")
def stand(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stand]:
    s = Stand(tmp_path_factory.mktemp("fuzz"))
    yield s
    s.close()


@settings(max_examples=CASES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(case=st.one_of(first_cases, reply_cases, reply_cases, reply_cases))
def test_a_fuzzed_case_from_a_real_bot_ends_in_a_recorded_cause(stand: Stand, case: tuple) -> None:
    stand.call(stand.case(case))
    i, where, r, data = stand.seen[-1]
    info = (i, where, data.hex(), r)
    assert r.cause in ALLOWED[where], info
    if r.cause is not Cause.NORMAL:
        assert (r.offender, r.winner) == (1, 0) and r.detail, info
    assert r.record is not None, info
    end = next(d for d in read(r.record) if d["type"] == "end")
    assert end["cause"] == str(r.cause), info
    assert verify(r.record).ok, (info, verify(r.record).divergence)


def test_after_the_fuzz_the_arena_and_the_fair_bot_are_fine(stand: Stand) -> None:
    assert len(stand.seen) >= CASES
    assert {Cause.NO_HELLO, Cause.INVALID} <= {r.cause for _, _, r, _ in stand.seen}  # both decoders reached
    last = stand.call(stand.after())
    assert last.cause is Cause.NORMAL
    assert stand.good.crashes == 0 and stand.good.failed_starts == 0
