"""Session.decide's own deadline timer and its lazy notice flusher (issue 18), on a stream that the test
drives: a write that blocks (a bot that stopped reading), a cancellation from outside, notices posted
while a request is being written. The real-bot cases are in test_arena_match.py."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from harness.arena.result import Cause, Fault
from harness.arena.server import Session
from harness.wire import arena_pb2 as pb
from harness.wire.convert import reply

REQUEST = pb.DecisionRequest(match_id="m1").SerializeToString()


class Stream:
    """The gRPC context's write side: records what is written; ``hold`` makes writes wait for ``go``."""

    def __init__(self) -> None:
        self.written: list[pb.ArenaMessage] = []
        self.hold = False
        self.go = asyncio.Event()
        self.writing = asyncio.Event()

    async def write(self, data: bytes) -> None:
        self.writing.set()
        if self.hold:
            await self.go.wait()
        self.written.append(pb.ArenaMessage.FromString(data))


def session() -> tuple[Session, Stream]:
    stream = Stream()
    return Session(pb.Hello(name="t", protocol_version=2, games=["sixtysix"]), stream), stream


def notice(text: str) -> bytes:
    return pb.ArenaMessage(goodbye=pb.Goodbye(reason=text)).SerializeToString()


def kinds(stream: Stream) -> list[str]:
    return [m.goodbye.reason if m.WhichOneof("kind") == "goodbye" else f"request {m.request.request_id}"
            for m in stream.written]


def test_a_write_that_never_ends_is_a_timeout_and_its_late_reply_is_dropped() -> None:
    async def go() -> tuple[Any, Session]:
        s, stream = session()
        stream.hold = True  # the bot stopped reading: the write blocks
        got, _ = await s.decide(REQUEST, 0.05)
        return got, s

    got, s = asyncio.run(go())
    assert isinstance(got, Fault) and got.cause is Cause.TIMEOUT and got.detail == "no reply within 50 ms"
    assert s._take(reply(1, "s-QH").SerializeToString()) is None  # the one late reply: dropped
    assert isinstance(s._take(reply(1, "s-QH").SerializeToString()), Fault)  # a second one is INVALID


def test_no_reply_is_a_timeout_and_a_reply_in_time_wins() -> None:
    async def go() -> tuple[Any, Any]:
        s, stream = session()
        late, _ = await s.decide(REQUEST, 0.05)
        asyncio.get_running_loop().call_soon(s._take, reply(2, "s-QH").SerializeToString())
        on_time, _ = await s.decide(REQUEST, 30.0)
        return late, on_time

    late, on_time = asyncio.run(go())
    assert isinstance(late, Fault) and late.cause is Cause.TIMEOUT
    assert not isinstance(on_time, Fault) and on_time.request_id == 2


@pytest.mark.parametrize("phase", ["writing", "waiting for the reply"])
def test_a_cancellation_from_outside_is_not_a_timeout(phase: str) -> None:
    async def go() -> tuple[bool, Session]:
        s, stream = session()
        stream.hold = phase == "writing"
        task = asyncio.create_task(s.decide(REQUEST, 30.0))
        await stream.writing.wait()
        await asyncio.sleep(0)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return True, s
        return False, s

    cancelled, s = asyncio.run(go())
    assert cancelled
    assert s._take(reply(1, "s-QH").SerializeToString()) is None  # unanswered: its late reply is dropped


def test_notices_go_out_in_order_with_or_without_a_decision() -> None:
    async def go() -> tuple[list[str], list[str], list[str]]:
        s, stream = session()
        s.post(notice("alone"))  # no decision follows: the flusher writes it
        while not stream.written:
            await asyncio.sleep(0)
        alone = kinds(stream)
        s.post(notice("before"))  # the decision that follows writes it first
        loop = asyncio.get_running_loop()
        loop.call_later(0.01, s._take, reply(1, "s-QH").SerializeToString())
        await s.decide(REQUEST, 30.0)
        first = kinds(stream)
        stream.hold, stream.go = True, asyncio.Event()
        stream.writing.clear()
        task = asyncio.create_task(s.decide(REQUEST, 30.0))
        await stream.writing.wait()
        s.post(notice("during"))  # posted while request 2 is being written
        stream.go.set()
        while len(stream.written) < 5:  # "during" goes out with no decision after it
            await asyncio.sleep(0.001)
        s._take(reply(2, "s-QH").SerializeToString())
        await task
        return alone, first, kinds(stream)

    alone, first, every = asyncio.run(go())
    assert alone == ["alone"]
    assert first == ["alone", "before", "request 1"]
    assert every == ["alone", "before", "request 1", "request 2", "during"]
