"""A test bot that speaks the wire protocol with grpc directly, in one of several (mis)behaviours.

    python tests/bots/testbot.py MODE [ARG]

random          a pseudo-random legal action (a hash of what it sees and the decision number: cheap, repeatable)
sleep S [N]     like random, but sleeps S seconds before answering, from decision N on (default 1)
illegal [N]     from decision N on, plays a card that is not legal
exit [N]        exits with status 3 at decision N
nohello         connects, never says Hello, ignores SIGTERM and starts a child that does too
garbage [N]     from decision N on, sends bytes that do not decode as a BotMessage
malformed [N]   from decision N on, replies with an action whose text does not decode (unprintable)
wrongid [N]     from decision N on, echoes a request id that was never sent
hangup [N]      at decision N, closes its stream but keeps running

It lists the games in TESTBOT_GAMES (comma-separated; default sixtysix,schnapsen) in its Hello.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator

import grpc

from harness.games.sixtysix.cards import CARD_STR
from harness.wire import arena_pb2 as pb

METHOD = "/arena.v1.BotArena/Play"


def main() -> None:
    mode = sys.argv[1]
    args = sys.argv[2:]
    if mode == "nohello":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                          "time.sleep(600)"])
        time.sleep(600)
        return
    sleep_s = float(args[0]) if mode == "sleep" else 0.0
    rest = args[1:] if mode == "sleep" else args
    start = int(rest[0]) if rest else 1
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    call = channel.stream_stream(METHOD, request_serializer=None, response_deserializer=pb.ArenaMessage.FromString)
    out: queue.Queue[bytes | None] = queue.Queue()

    def outgoing() -> Iterator[bytes]:
        while (item := out.get()) is not None:
            yield item

    games = os.environ.get("TESTBOT_GAMES", "sixtysix,schnapsen").split(",")
    hello = pb.BotMessage(hello=pb.Hello(name=f"test-{mode}", protocol_version=2, games=games,
                                         token=os.environ["ARENA_TOKEN"]))
    out.put(hello.SerializeToString())
    try:
        call_iter = call(outgoing())
        for msg in call_iter:
            kind = msg.WhichOneof("kind")
            if kind == "goodbye":
                break
            if kind == "request":
                if mode == "hangup" and msg.request.decision_no >= start:
                    call_iter.cancel()
                    time.sleep(600)
                out.put(answer(mode, msg.request, start, sleep_s))
    except grpc.RpcError:
        pass
    out.put(None)
    channel.close()


def answer(mode: str, req: pb.DecisionRequest, start: int, sleep_s: float) -> bytes:
    n = req.decision_no
    misbehave = n >= start
    reply = pb.BotMessage(reply=pb.Reply(request_id=req.request_id))
    legal = list(req.legal)
    obs = getattr(req, req.WhichOneof("observation"))  # sixtysix or schnapsen: the same message
    if len(legal) > 1 and obs.points[obs.seat] < 66:  # claim only with 66, like the sample random bot
        legal = [a for a in legal if a.kind != pb.ACTION_KIND_CLAIM]
    # cheap and repeatable: a hash of what the seat sees (match ids are random on the wire)
    seen = f"{n}/{','.join(a.text for a in legal)}/{','.join(c.text for c in getattr(obs, 'hand', ()))}"
    reply.reply.action.CopyFrom(legal[zlib.crc32(seen.encode()) % len(legal)])
    if mode == "sleep" and misbehave:
        time.sleep(sleep_s)
    elif mode == "exit" and misbehave:
        os._exit(3)
    elif mode == "illegal" and misbehave:
        playable = {a.card.text for a in req.legal}
        bad = CARD_STR.index(next(c for c in CARD_STR if c not in playable))
        reply.reply.action.CopyFrom(pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(
            suit=pb.Suit.Name(bad // 6 + 1), rank=pb.Rank.Name(bad % 6 + 1))))
    elif mode == "garbage" and misbehave:
        return b"\xff\xff\xff\xffnot a protobuf"
    elif mode == "malformed" and misbehave:
        reply.reply.action.CopyFrom(pb.Action(text="bogus\x00"))
    elif mode == "wrongid" and misbehave:
        reply.reply.request_id = req.request_id + 1000
    return reply.SerializeToString()


if __name__ == "__main__":
    main()
