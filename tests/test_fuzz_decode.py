"""Fuzz every place the arena decodes bot input, in-process, 10,000 cases each.

Places: the stream's first message (read_hello + check_hello), every later message
(Session._take: size, BotMessage decoding, Reply routing by request id), the action
(action_from_pb: a structured action, or any printable text of at most 64 characters, which the
membership check then calls ILLEGAL), the reply as a whole against the legal list (check_reply),
and the match loop of Sixty-Six and of Schnapsen driven by a session whose bot answers with
fuzzed bytes: it never raises and every match ends with a cause.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.arena import Cause, Fault, play_match
from harness.arena.match import check_reply
from harness.arena.server import PROTOCOL_VERSION, Session, check_hello, read_hello
from harness.games.registry import ids
from harness.games.sixtysix.cards import CARD_STR, SUITS
from harness.wire import arena_pb2 as pb
from harness.wire.convert import PROTOCOL_VERSION as WIRE_VERSION
from harness.wire.convert import RANK_LETTERS, TEXT_MAX, WireError, action_from_pb, action_to_pb

N = 10_000
FUZZ = settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck), database=None)
VOCAB = {*CARD_STR, *(f"marry:{s}" for s in SUITS), "exchange", "close", "claim", "draw", "pass", "finish"}
STRUCTURED = VOCAB | {r + s for r in RANK_LETTERS for s in SUITS}  # what a kind can name: any game's card
GAMES = ["sixtysix", "schnapsen"]

int32 = st.integers(-(2**31), 2**31 - 1)
enum = st.one_of(st.integers(0, 10), int32)
texts = st.one_of(st.sampled_from(sorted(VOCAB)), st.text(max_size=40))
cards = st.builds(pb.Card, suit=enum, rank=enum, text=texts)
actions = st.one_of(
    st.builds(lambda k, c, s, t: pb.Action(kind=k, card=c, suit=s, text=t), enum, cards, enum, texts),
    st.builds(lambda k, s, t: pb.Action(kind=k, suit=s, text=t), enum, enum, texts),
    st.sampled_from(sorted(VOCAB)).map(action_to_pb),
)
hellos = st.builds(
    lambda v, g, n, mc, tok: pb.BotMessage(hello=pb.Hello(protocol_version=v, games=g, name=n, max_concurrent=mc,
                                                          token=tok)),
    st.one_of(st.just(2), st.just(1), st.integers(0, 2**32 - 1)),
    st.lists(st.one_of(st.sampled_from(GAMES), st.text(max_size=10)), max_size=4),
    st.text(max_size=30), st.integers(0, 2**32 - 1), st.text(max_size=30))
replies = st.builds(lambda rid, a: pb.BotMessage(reply=pb.Reply(request_id=rid, action=a)),
                    st.one_of(st.integers(0, 6), st.integers(0, 2**64 - 1)), st.one_of(st.none(), actions))
messages = st.one_of(hellos, replies, st.just(pb.BotMessage()))
raw = st.one_of(st.binary(max_size=200), messages.map(lambda m: m.SerializeToString()),
                st.tuples(messages, st.binary(max_size=20)).map(lambda t: t[0].SerializeToString() + t[1]))


@FUZZ
@given(raw)
def test_first_message(data: bytes) -> None:
    got = read_hello(data)
    if isinstance(got, tuple):
        code, why = got
        assert why and "\n" not in why
        return
    problem = check_hello(got)
    ok = got.protocol_version == PROTOCOL_VERSION == WIRE_VERSION and any(g in ids() for g in got.games)
    assert (problem is None) == ok
    if got.protocol_version != PROTOCOL_VERSION:
        assert problem and f"protocol_version {got.protocol_version} is not supported" in problem


def fresh_session(loop: asyncio.AbstractEventLoop) -> Session:
    s = Session(pb.Hello(name="fuzz", protocol_version=2, games=GAMES), context=None, max_message_bytes=1024)
    for rid in (1, 2, 3):  # 1 and 2 pending, 3 expired unanswered
        s._last_id = rid
        s._pending[rid] = loop.create_future()
    s._pending.pop(3)
    s._expired.add(3)
    return s


LOOP = asyncio.new_event_loop()


@FUZZ
@given(st.one_of(raw, st.binary(min_size=1025, max_size=1100)))
def test_every_later_message(data: bytes) -> None:
    s = fresh_session(LOOP)
    got = s._take(data)
    if got is not None:
        assert isinstance(got, Fault) and got.cause is Cause.INVALID and "\n" not in got.detail
        assert not any(f.done() for f in s._pending.values())
        return
    msg = pb.BotMessage.FromString(data)  # accepted: a reply to a pending request, or the one late reply
    assert len(data) <= 1024 and msg.WhichOneof("kind") == "reply"
    rid = msg.reply.request_id
    assert rid in (1, 2, 3)
    if rid == 3:
        assert 3 not in s._expired and s._take(data) is not None  # a second late reply is INVALID
    else:
        assert s._pending[rid].result() == msg.reply
        assert isinstance(s._take(data), Fault)  # answering twice is INVALID


@FUZZ
@given(st.one_of(actions, st.binary(max_size=60)))
def test_action(a: Any) -> None:
    if isinstance(a, bytes):
        try:
            a = pb.Action.FromString(a)
        except Exception as e:  # noqa: BLE001 - only DecodeError may come out of protobuf
            assert type(e).__name__ == "DecodeError"
            return
    try:
        got = action_from_pb(a)
    except WireError as e:
        assert str(e) and "\n" not in str(e)
        assert a.kind != pb.ACTION_KIND_UNSPECIFIED or not (a.text.isprintable() and 0 < len(a.text) <= TEXT_MAX)
        return
    if a.kind == pb.ACTION_KIND_UNSPECIFIED:
        assert got == a.text and got.isprintable() and 0 < len(got) <= TEXT_MAX
    else:
        assert got in STRUCTURED


@FUZZ
@given(replies, st.lists(st.sampled_from(sorted(VOCAB)), min_size=1, max_size=8, unique=True))
def test_reply_against_the_legal_list(msg: pb.BotMessage, legal: list[str]) -> None:
    got = check_reply(msg.reply, tuple(legal))
    if isinstance(got, Fault):
        assert got.cause in (Cause.INVALID, Cause.ILLEGAL) and "\n" not in got.detail
        try:
            named = action_from_pb(msg.reply.action) if msg.reply.HasField("action") else None
        except WireError:
            named = None
        assert (got.cause is Cause.ILLEGAL) == (named is not None)  # decodes but is not legal: ILLEGAL
    else:
        assert got in legal


class FuzzSession(Session):
    """A session whose bot answers its first request with fuzzed bytes, then plays the first legal action."""

    def __init__(self, data: bytes | None) -> None:
        super().__init__(pb.Hello(name="fuzz", protocol_version=2, games=GAMES), context=None, max_message_bytes=2048)
        self.data = data

    async def _send(self, data: bytes) -> None:
        msg = pb.ArenaMessage.FromString(data)
        if msg.WhichOneof("kind") != "request":
            return
        req = msg.request
        if self.data is not None:
            answer, self.data = self.data, None
        else:
            answer = pb.BotMessage(reply=pb.Reply(request_id=req.request_id, action=req.legal[0])).SerializeToString()
        problem = self._take(answer)
        if problem is not None:
            self._fail(problem)


class FakeEntrant:
    """Just enough of an Entrant for the match loop, without a process or a network."""

    def __init__(self, name: str, data: bytes | None) -> None:
        self.name, self.session = name, FuzzSession(data)

    async def ensure(self) -> Session:
        return self.session

    async def explain(self, fault: Fault, session: Session | None = None) -> Fault:
        return fault

    def metered(self, session: Session) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()

    def stderr_tail(self) -> str:
        return ""


@settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.one_of(raw, replies.map(lambda m: m.SerializeToString()),
                 st.tuples(st.one_of(st.none(), actions)).map(
                     lambda t: b"\x12" + bytes([0]) if t[0] is None else
                     pb.BotMessage(reply=pb.Reply(request_id=1, action=t[0])).SerializeToString())),
       st.integers(0, 2**31), st.booleans(), st.sampled_from(GAMES))
def test_the_match_loop_never_raises(data: bytes, seed: int, first: bool, game: str) -> None:
    ents = (FakeEntrant("a", data if first else None), FakeEntrant("b", None if first else data))
    seen: list[Any] = []
    r = LOOP.run_until_complete(play_match(ents, match_id="fz", seed=seed, game=game, rules={"match_target": "1"},
                                           on_event=lambda e: seen.append(e) if e["type"] == "end" else None))
    assert seen and seen[0]["result"] is r
    assert r.cause in (Cause.NORMAL, Cause.INVALID, Cause.ILLEGAL), r
    assert r.game == game
    if r.cause is not Cause.NORMAL:
        assert r.offender in (0, 1) and r.winner == 1 - r.offender and r.detail
        assert r.ranks is not None and r.ranks[r.offender] == 1 and r.ranks[1 - r.offender] == 0
