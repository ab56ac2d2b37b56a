"""A bot process that sends fuzzed bytes, one case per stream, as the test tells it on stdin.

Each stdin line is ``TOKEN WHERE HEX``: open a stream and send the bytes HEX either as the first
message (WHERE = ``first``; the test puts the token inside when it wants one) or, after a proper
Hello with TOKEN, as the answer to the first request (WHERE = ``reply``); later requests get the
first legal action. When the stream ends the bot prints the case's token and how the stream
ended, and reads the next line. A refused stream (UNAUTHENTICATED: the arena is not yet
expecting TOKEN) is retried for up to a second.
"""

from __future__ import annotations

import queue
import sys
import time
from collections.abc import Iterator

import grpc

from harness.wire import arena_pb2 as pb

METHOD = "/arena.v1.BotArena/Play"


def one_stream(address: str, token: str, where: str, data: bytes) -> str:
    """Play one case; returns how its stream ended."""
    channel = grpc.insecure_channel(address)
    call = channel.stream_stream(METHOD, request_serializer=None, response_deserializer=None)
    out: queue.Queue[bytes | None] = queue.Queue()

    def outgoing() -> Iterator[bytes]:
        while (item := out.get()) is not None:
            yield item

    if where == "first":
        out.put(data)
    else:
        out.put(pb.BotMessage(hello=pb.Hello(name="fuzz", protocol_version=2, games=["sixtysix", "schnapsen"],
                                             token=token)).SerializeToString())
    sent = False
    ended = "OK"
    try:
        for raw in call(outgoing(), timeout=30):
            msg = pb.ArenaMessage.FromString(raw)
            kind = msg.WhichOneof("kind")
            if kind in ("goodbye", "match_end"):
                break
            if kind == "request":
                if where == "reply" and not sent:
                    out.put(data)
                    sent = True
                else:
                    out.put(pb.BotMessage(reply=pb.Reply(request_id=msg.request.request_id,
                                                         action=msg.request.legal[0])).SerializeToString())
    except grpc.RpcError as e:
        ended = e.code().name
    out.put(None)
    channel.close()
    return ended


def main() -> None:
    address = sys.argv[1]
    for line in sys.stdin:
        token, where, hexdata = line.split()
        data = bytes.fromhex(hexdata) if hexdata != "-" else b""
        deadline = time.monotonic() + 1.0
        while (ended := one_stream(address, token, where, data)) == "UNAUTHENTICATED" and time.monotonic() < deadline:
            time.sleep(0.02)
        print(token, ended, flush=True)


if __name__ == "__main__":
    main()
