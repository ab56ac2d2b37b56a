"""A raw-gRPC bot that plays any of the five games with the game's greedy player and writes every
message the arena sends it, byte for byte (hex, one a line), to FILE.

    python tests/bots/wiredump_bot.py FILE

It decodes nothing through the SDK (only the game codecs), so that tests/test_records_identical.py
can compare exactly what a bot sees before and after a change of the arena.
"""

from __future__ import annotations

import os
import queue
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import grpc  # noqa: E402

from harness.players import greedy_action  # noqa: E402
from harness.wire import arena_pb2 as pb  # noqa: E402
from harness.wire.codecs import codec  # noqa: E402
from harness.wire.convert import hello, reply  # noqa: E402

METHOD = "/arena.v1.BotArena/Play"
GAMES = ("sixtysix", "schnapsen", "three_handed", "four_handed", "twenty_two")


def main() -> None:
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    call = channel.stream_stream(METHOD, request_serializer=None, response_deserializer=None)
    out: queue.Queue[bytes | None] = queue.Queue()
    out.put(hello("wiredump", "1", os.environ["ARENA_TOKEN"], 1, GAMES).SerializeToString())
    matches: dict[str, tuple[Any, Any]] = {}

    def outgoing() -> Iterator[bytes]:
        while (item := out.get()) is not None:
            yield item

    with open(sys.argv[1], "a", encoding="ascii") as dump:
        try:
            for data in call(outgoing()):
                dump.write(data.hex() + "\n")
                dump.flush()
                msg = pb.ArenaMessage.FromString(data)
                kind = msg.WhichOneof("kind")
                if kind == "goodbye":
                    break
                if kind == "match_start":
                    c = codec(msg.match_start.game)
                    matches[msg.match_start.match_id] = (c, c.rules(msg.match_start.rules))
                elif kind == "request":
                    c, rules = matches[msg.request.match_id]
                    obs = c.decode_request(msg.request, rules)
                    out.put(reply(msg.request.request_id, greedy_action(obs)).SerializeToString())
        except grpc.RpcError:
            pass
    out.put(None)
    channel.close()


if __name__ == "__main__":
    main()
