"""A league test bot speaking the wire protocol with grpc directly (address and token from
ARENA_ADDRESS / ARENA_TOKEN; ARENA_TLS_CA for TLS).

    python tests/bots/leaguebot.py MODE [ARG]

random          a random legal action (claims only with 66, like the sample random bot)
slow S          like random, sleeping S seconds before each answer
hangup N        at decision N of its first match, closes its stream and stays alive without reconnecting
rejoin N        at decision N of its first match, closes its stream, reconnects with the same token and plays on
stale           like random, but before each answer also sends a wrong action for every request id it
                was sent before (stale ids): none of them may ever land on another bot's seat

It prints one line per event on stdout ("welcome", "rejoined", "status CODE: details").
"""

from __future__ import annotations

import os
import queue
import random
import sys
import time
from collections.abc import Iterator

import grpc

from harness.wire import arena_pb2 as pb

METHOD = "/arena.v1.BotArena/Play"


def say(line: str) -> None:
    print(line, flush=True)


def channel() -> grpc.Channel:
    ca = os.environ.get("ARENA_TLS_CA")
    if ca:
        return grpc.secure_channel(os.environ["ARENA_ADDRESS"], grpc.ssl_channel_credentials(open(ca, "rb").read()))
    return grpc.insecure_channel(os.environ["ARENA_ADDRESS"])


def choose(req: pb.DecisionRequest) -> pb.Action:
    legal = list(req.legal)
    obs = getattr(req, req.WhichOneof("observation"))  # sixtysix or schnapsen: the same message
    if len(legal) > 1 and obs.points[obs.seat] < 66:
        legal = [a for a in legal if a.kind != pb.ACTION_KIND_CLAIM]
    return random.Random(f"{req.match_id}/{req.decision_no}").choice(legal)


def stream(mode: str, arg: float, first: bool) -> str:
    """One connection; returns 'again' to reconnect, else 'done'."""
    ch = channel()
    call = ch.stream_stream(METHOD, request_serializer=None, response_deserializer=pb.ArenaMessage.FromString)
    out: queue.Queue[bytes | None] = queue.Queue()

    def outgoing() -> Iterator[bytes]:
        while (item := out.get()) is not None:
            yield item

    out.put(pb.BotMessage(hello=pb.Hello(name=f"league-{mode}", protocol_version=2, games=["sixtysix", "schnapsen"],
                                         token=os.environ["ARENA_TOKEN"])).SerializeToString())
    matches = 0
    try:
        it = call(outgoing())
        for msg in it:
            kind = msg.WhichOneof("kind")
            if kind == "welcome":
                say("welcome" if first else "rejoined")
            elif kind == "goodbye":
                say(f"goodbye {msg.goodbye.reason}")
                break
            elif kind == "match_end":
                matches += 1
                say(f"match_end {msg.match_end.match_id} {pb.Termination.Name(msg.match_end.termination)}")
            elif kind == "request":
                req = msg.request
                if first and matches == 0 and mode in ("hangup", "rejoin") and req.decision_no >= arg:
                    it.cancel()
                    if mode == "hangup":
                        say("hung up")
                        time.sleep(600)
                    time.sleep(0.3)
                    return "again"
                if mode == "slow":
                    time.sleep(arg)
                if mode == "stale":
                    for rid in range(1, req.request_id):
                        out.put(pb.BotMessage(reply=pb.Reply(request_id=rid, action=pb.Action(text="close")))
                                .SerializeToString())
                answer = pb.BotMessage(reply=pb.Reply(request_id=req.request_id, action=choose(req)))
                out.put(answer.SerializeToString())
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.CANCELLED:
            say(f"status {e.code().name}: {e.details()}")
    finally:
        out.put(None)
        ch.close()
    return "done"


def main() -> None:
    mode = sys.argv[1]
    arg = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    first = True
    while stream(mode, arg, first) == "again":
        first = False


if __name__ == "__main__":
    main()
