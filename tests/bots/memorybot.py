"""A bot that tries to remember deals (issue 11): it keeps every deck the arena reveals at a deal's
end, in memory, in a file under $TMPDIR or /tmp, and in a forked helper process that outlives it,
and reports on stderr each deal whose hands it recognises from a deck it saw before.

    python tests/bots/memorybot.py

Every recognised deal prints ``recognised <hand>``; the test reads the records' stderr tails.
"""

from __future__ import annotations

import os
import queue
import socket
import sys
import zlib
from collections.abc import Iterator

import grpc

from harness.wire import arena_pb2 as pb

METHOD = "/arena.v1.BotArena/Play"
STORE = os.path.join(os.environ.get("TMPDIR", "/tmp"), "memorybot-decks.txt")
HELPER = os.path.join(os.environ.get("TMPDIR", "/tmp"), "memorybot.sock")


def remembered() -> set[frozenset[str]]:
    """Hands (as card sets) of every deck seen: from memory, the file and the helper."""
    hands = set(SEEN)
    try:
        with open(STORE, encoding="utf-8") as f:
            for line in f:
                hands |= hands_of(line.split())
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(HELPER)
            s.sendall(b"?\n")
            data = b"".join(iter(lambda: s.recv(65536), b""))
            for line in data.decode().splitlines():
                hands |= hands_of(line.split())
    except OSError:
        pass
    return hands


def hands_of(deck: list[str]) -> set[frozenset[str]]:
    """The two six-card hands of a 24-card Sixty-Six deck (66-4.2)."""
    if len(deck) != 24:
        return set()
    return {frozenset(deck[0:3] + deck[6:9]), frozenset(deck[3:6] + deck[9:12])}


def helper() -> None:
    """A forked process that keeps decks for later processes (it outlives the bot if it can)."""
    if os.fork():
        return
    os.setsid()
    decks: list[str] = []
    try:
        os.unlink(HELPER)
    except OSError:
        pass
    srv = socket.socket(socket.AF_UNIX)
    try:
        srv.bind(HELPER)
    except OSError:
        os._exit(0)  # another helper already keeps them
    srv.listen(8)
    while True:
        conn, _ = srv.accept()
        with conn:
            line = conn.makefile().readline().strip()
            if line == "?":
                conn.sendall("\n".join(decks).encode())
            else:
                decks.append(line)


SEEN: set[frozenset[str]] = set()


def remember(deck: list[str]) -> None:
    SEEN.update(hands_of(deck))
    try:
        with open(STORE, "a", encoding="utf-8") as f:
            f.write(" ".join(deck) + "\n")
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(HELPER)
            s.sendall((" ".join(deck) + "\n").encode())
    except OSError:
        pass


def main() -> None:
    helper()
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    call = channel.stream_stream(METHOD, request_serializer=None, response_deserializer=pb.ArenaMessage.FromString)
    out: queue.Queue[bytes | None] = queue.Queue()

    def outgoing() -> Iterator[bytes]:
        while (item := out.get()) is not None:
            yield item

    out.put(pb.BotMessage(hello=pb.Hello(name="memory", protocol_version=2, games=["sixtysix"],
                                         token=os.environ["ARENA_TOKEN"])).SerializeToString())
    checked: set[tuple[str, int]] = set()
    try:
        for msg in call(outgoing()):
            kind = msg.WhichOneof("kind")
            if kind == "goodbye":
                break
            if kind == "deal_end":
                remember([c.text for c in msg.deal_end.deck])
            if kind != "request":
                continue
            req = msg.request
            obs = req.sixtysix
            key = (req.match_id, req.deal_no)
            if key not in checked and len(obs.hand) == 6 and not obs.trick_winners:  # the deal's first look
                checked.add(key)
                hand = frozenset(c.text for c in obs.hand)
                if hand in remembered():
                    print(f"recognised {' '.join(sorted(hand))}", file=sys.stderr, flush=True)
            legal = list(req.legal)
            if len(legal) > 1 and obs.points[obs.seat] < 66:
                legal = [a for a in legal if a.kind != pb.ACTION_KIND_CLAIM]
            choice = legal[zlib.crc32(f"{req.decision_no}/{len(obs.history)}".encode()) % len(legal)]
            out.put(pb.BotMessage(reply=pb.Reply(request_id=req.request_id, action=choice)).SerializeToString())
    except grpc.RpcError:
        pass
    out.put(None)
    channel.close()


if __name__ == "__main__":
    main()
