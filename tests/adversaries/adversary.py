"""A hostile bot: speaks the wire protocol with grpc and harness.wire directly, and misbehaves.

    python tests/adversaries/adversary.py MODE [ARG] [--at=N] [--dump=PATH]

Misbehaviour starts at decision N (default 2) of each match; before that the bot plays a random
legal action. With ``--dump=PATH`` every message it receives is appended to PATH as hex, one per
line, and notes (probes, how the stream ended) as lines starting with ``#``.

noconnect        never dials the arena; ignores SIGTERM
nohello          dials, opens the stream, never says Hello
badversion       says Hello with protocol_version 1 (the version before this one)
hang             never answers; ignores SIGTERM
slow S           answers every decision after S seconds
illegal          plays a card that is not legal
badaction KIND   an action that does not decode: kind (enum 42), rank (14), suit (marry 7), text (65
                 characters), utf8; or unknown: text that decodes but names no action ('bogus')
wrongid          echoes a request id that was never sent
oversize N       a well-formed Reply of N bytes (text padding)
flood            answers, then sends 5000 more copies of the answer
exit             exits with status 9
signal           kills itself with SIGSEGV
forkexit         starts 3 children that ignore SIGTERM, then exits with status 4
memhog           allocates 32 MiB blocks without bound
cpuspin          spins a CPU in a thread from decision 1 on, answering each decision after 20 ms
forkbomb         starts sleeping children without bound
chatter          writes 3 MiB to stdout and stderr at its requests 1..3, then exits with status 7 (at --at)
spy              answers with a request id it did not receive, after trying to hijack a stream
random           plays fair (with --dump, a capture of exactly what the arena sent)

Breaking out (issue 11; the sandbox must stop each): the bot tries, then exits with status 1 and
``blocked: <error>`` as its last stderr line when it failed, or status 66 and ``BREACH: <what>``
when it succeeded (so the match's CRASH detail says which).

readfile PATH    reads PATH (a database, another bot's file, a file in $HOME)
writefile PATH   creates PATH and writes to it (outside /tmp)
tcp PORT         opens a TCP connection to 127.0.0.1:PORT (the host's loopback)
setsid MARK      starts a child in a new session (``setsid``) with MARK in its command line that ignores
                 SIGTERM and sleeps, then exits with status 5 (the child must not survive)
forkbomb setsid  like forkbomb, each child in a new session (they leave the process group)
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import cast

import grpc

from harness.games.sixtysix.cards import CARD_STR
from harness.wire import arena_pb2 as pb

METHOD = "/arena.v1.BotArena/Play"
AT = 2  # set from --at in main()
DUMP: str | None = None  # set from --dump in main()
CHATTER = [1]  # chatter: the number of the next request this bot gets
SLEEPER = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"


def note(text: str) -> None:
    if DUMP:
        with open(DUMP, "a") as f:
            f.write(f"# {text}\n")


def hello(version: int = 2) -> bytes:
    return pb.BotMessage(hello=pb.Hello(name="adversary", protocol_version=version, games=["sixtysix", "schnapsen"],
                                        max_concurrent=64, token=os.environ["ARENA_TOKEN"])).SerializeToString()


def fair(req: pb.DecisionRequest) -> pb.BotMessage:
    """A random legal action, claiming only with 66 like the sample random bot."""
    legal = list(req.legal)
    obs = getattr(req, req.WhichOneof("observation"))  # sixtysix or schnapsen: the same message
    if len(legal) > 1 and obs.points[obs.seat] < 66:
        legal = [a for a in legal if a.kind != pb.ACTION_KIND_CLAIM] or legal
    rng = random.Random(f"{req.match_id}/{req.decision_no}")
    return pb.BotMessage(reply=pb.Reply(request_id=req.request_id, action=rng.choice(legal)))


def spin() -> None:
    while True:
        pass


def bad_action(kind: str, req: pb.DecisionRequest) -> pb.Action:
    if kind == "kind":
        return pb.Action(kind=cast(pb.ActionKind, 42))  # enum numbers the schema does not define (proto3 enums are open)
    if kind == "rank":
        return pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(suit=pb.SUIT_CLUBS, rank=cast(pb.Rank, 14)))
    if kind == "suit":
        return pb.Action(kind=pb.ACTION_KIND_MARRY, suit=cast(pb.Suit, 7))
    if kind == "utf8":
        return pb.Action(text="\u2660\x00" * 50)
    if kind == "unknown":
        return pb.Action(text="bogus")
    return pb.Action(text="bogus" * 13)


def spy_probe(address: str) -> None:
    """Try to open more streams with the used token and with a made-up one; note what happens."""
    for token in (os.environ["ARENA_TOKEN"], "guess-" + os.environ["ARENA_TOKEN"][:4]):
        ch = grpc.insecure_channel(address)
        call = ch.stream_stream(METHOD, request_serializer=None, response_deserializer=None)
        msg = pb.BotMessage(hello=pb.Hello(name="spy", protocol_version=2, games=["sixtysix"], token=token))
        try:
            got = list(call(iter([msg.SerializeToString()]), timeout=2.0))
            note(f"probe {token[:6]}: got {len(got)} messages")
            for data in got:
                dump(data)
        except grpc.RpcError as e:
            note(f"probe {token[:6]}: {e.code().name}")
        ch.close()


def breach(what: str, attempt: Callable[[], object]) -> None:
    """Try ``attempt``; exit 66 saying BREACH when it works, 1 saying blocked when it fails."""
    try:
        got = attempt()
    except Exception as e:  # noqa: BLE001 - whatever stopped it is the report
        sys.stderr.write(f"blocked: {what}: {type(e).__name__}: {e}\n")
        sys.stderr.flush()
        os._exit(1)
    sys.stderr.write(f"BREACH: {what}: {got}\n")
    sys.stderr.flush()
    os._exit(66)


def read_file(path: str) -> str:
    with open(path, "rb") as f:
        return f"read {len(f.read())} bytes"


def write_file(path: str) -> str:
    with open(path, "w") as f:
        f.write("pwned\n")
    return f"wrote {path}"


def tcp(port: str) -> str:
    import socket
    with socket.create_connection(("127.0.0.1", int(port)), timeout=5):
        return f"connected to 127.0.0.1:{port}"


def dump(data: bytes) -> None:
    if DUMP:
        with open(DUMP, "a") as f:
            f.write(data.hex() + "\n")


def answer(mode: str, arg: str, req: pb.DecisionRequest, out: queue.Queue[bytes | None]) -> None:
    """Put the reply (or the misbehaviour) for one request on ``out``."""
    n = req.decision_no
    reply = fair(req)
    if mode == "cpuspin" and n == 1:
        threading.Thread(target=spin, daemon=True).start()
    if mode in ("cpuspin",):
        time.sleep(0.02)
    if mode == "chatter":  # counts its own requests, whoever else plays decisions in between
        n = CHATTER.pop()
        CHATTER.append(n + 1)
    if mode == "chatter" and n <= 3:
        block = ("x" * 1023 + "\n") * 3072
        sys.stdout.write(block)
        sys.stdout.flush()
        sys.stderr.write(block + f"chatter {n} done\n")
        sys.stderr.flush()
    if mode == "slow":
        time.sleep(float(arg))
    if n < AT or mode in ("random", "cpuspin", "slow"):
        out.put(reply.SerializeToString())
        return
    if mode == "chatter":
        os._exit(7)
    if mode == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
    elif mode == "illegal":
        playable = {a.card.text for a in req.legal}
        bad = CARD_STR.index(next(c for c in CARD_STR if c not in playable))
        reply.reply.action.CopyFrom(pb.Action(kind=pb.ACTION_KIND_PLAY, card=pb.Card(
            suit=pb.Suit.Name(bad // 6 + 1), rank=pb.Rank.Name(bad % 6 + 1))))
    elif mode == "badaction":
        reply.reply.action.CopyFrom(bad_action(arg, req))
    elif mode == "wrongid":
        reply.reply.request_id = req.request_id + 1000
    elif mode == "oversize":
        reply.reply.action.text = "x" * int(arg)
    elif mode == "flood":
        data = reply.SerializeToString()
        for _ in range(5001):
            out.put(data)
        return
    elif mode == "exit":
        os._exit(9)
    elif mode == "signal":
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(10)
    elif mode == "forkexit":
        for _ in range(3):
            subprocess.Popen([sys.executable, "-c", SLEEPER])
        time.sleep(0.2)
        os._exit(4)
    elif mode == "memhog":
        hoard = []
        while True:
            hoard.append(bytearray(32 << 20))
    elif mode == "forkbomb":
        kids = []
        while True:
            kids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                                         start_new_session=arg == "setsid"))
            time.sleep(0.01)
    elif mode == "readfile":
        breach(f"read {arg}", lambda: read_file(arg))
    elif mode == "writefile":
        breach(f"write {arg}", lambda: write_file(arg))
    elif mode == "tcp":
        breach(f"tcp 127.0.0.1:{arg}", lambda: tcp(arg))
    elif mode == "setsid":
        subprocess.Popen([sys.executable, "-c", SLEEPER, arg], start_new_session=True,  # not holding stderr open
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.2)
        os._exit(5)
    elif mode == "spy":
        spy_probe(os.environ["ARENA_ADDRESS"])
        reply.reply.request_id = req.request_id + 1  # the next id: never sent to this stream yet
    out.put(reply.SerializeToString())


def main() -> None:
    global AT, DUMP
    opts = dict(a[2:].partition("=")[::2] for a in sys.argv[1:] if a.startswith("--"))
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    AT, DUMP = int(opts.get("at", "2")), opts.get("dump")
    mode, arg = args[0], (args[1] if len(args) > 1 else "")
    if mode == "noconnect":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
        return
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    call = channel.stream_stream(METHOD, request_serializer=None, response_deserializer=None)
    out: queue.Queue[bytes | None] = queue.Queue()

    def outgoing() -> Iterator[bytes]:
        while (item := out.get()) is not None:
            yield item

    if mode != "nohello":
        out.put(hello(1 if mode == "badversion" else 2))
    try:
        for data in call(outgoing()):
            dump(data)
            msg = pb.ArenaMessage.FromString(data)
            kind = msg.WhichOneof("kind")
            if kind == "goodbye":
                break
            if kind == "request":
                answer(mode, arg, msg.request, out)
    except grpc.RpcError as e:
        note(f"stream ended: {e.code().name}")
    if mode in ("nohello", "badversion"):
        time.sleep(600)
    out.put(None)
    channel.close()


if __name__ == "__main__":
    main()
