"""A worker process of a local tournament (issue 18): ``python -m harness.tournament.worker --parent=PID``.

It reads framed pickles on stdin (:func:`harness.tournament.executor.frame`): first ``("job", Job,
label)``, then ``("unit", Unit)``, ``("stop",)`` (start no new match) and ``("cancel",)`` (interrupt the
matches in flight); EOF ends it. It answers on stdout: ``("ready", pid, cpus)`` (the CPUs it is pinned to,
or None) once its arena server and bots are up (or ``("start_error", line)``), then ``("result",
UnitResult)`` per unit. Anything else written to stdout goes to stderr, so nothing can corrupt the pipe.

With ``--cpus=LIST`` (:func:`harness.lifeline.cpu_sets`) it runs on those CPUs only, and so do its bots.

It dies with the arena: the kernel SIGKILLs it when its parent dies (``PR_SET_PDEATHSIG``), and EOF on
stdin stops its matches and bots; its bots' launchers (:mod:`harness.arena.launch` ``--parent``) kill
their process groups when it dies.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

from harness.lifeline import die_with_parent, parent_cpus, parent_of, pin


async def serve(out: Any, pinned: frozenset[int] | None = None) -> None:
    from functools import partial

    from harness.arena.match import play_match
    from harness.tournament.executor import Job, StartError, UnitPlayer, UnitResult, failure, frame, read_frame
    from harness.tournament.runner import Bots

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def send(msg: Any) -> None:
        out.write(frame(msg))
        out.flush()

    first = await read_frame(reader)
    if first is None:
        return
    _, job, label = first
    assert isinstance(job, Job)
    from harness.arena.sandbox import keep_private

    keep_private(*job.private)  # issue 11: the out and db directories stay empty for this process's bots too
    bots = Bots(job.entrants, hello_s=job.hello_s, limits=job.limits, per_leg=job.per_leg, log_dir=job.log_dir)
    tasks: set[asyncio.Task[None]] = set()
    try:
        try:
            await bots.start(job.game)
        except StartError as e:
            send(("start_error", str(e)))
            return
        send(("ready", os.getpid(), pinned))
        play = partial(play_match, strict=True) if job.strict else play_match
        player = UnitPlayer(bots.seat, play, job, bots.crashes, label)

        async def one(unit: Any) -> None:
            try:
                res = await player.unit(unit)
            except asyncio.CancelledError:
                res = UnitResult(unit.index, crashes=bots.crashes(), worker=label, void=True)
            except Exception as e:  # noqa: BLE001 - the writer raises it
                res = UnitResult(unit.index, crashes=bots.crashes(), worker=label, void=True, error=failure(e))
            send(("result", res))

        while (msg := await read_frame(reader)) is not None:
            if msg[0] == "unit":
                t = asyncio.ensure_future(one(msg[1]))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
            elif msg[0] == "stop":
                player.stopping = True
            elif msg[0] == "cancel":
                player.stopping = True
                for t in list(tasks):
                    t.cancel()
    finally:
        for t in list(tasks):
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await bots.close()


def main(argv: list[str]) -> int:
    die_with_parent(parent_of(argv))
    cpus = parent_cpus(argv)
    if cpus is not None:  # before any thread starts: gRPC's threads and the bots inherit it
        refused = pin(cpus)
        if refused is not None:
            print(f"arena: worker {os.getpid()} runs on every CPU (pinning was refused: {refused})", file=sys.stderr)
            cpus = None
    for sig in (signal.SIGINT, signal.SIGTERM):  # a signal to the whole group: the arena decides (EOF, SIGKILL)
        signal.signal(sig, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")  # the pipe to the arena; fd 1 (anyone's print) now goes to stderr
    os.dup2(2, 1)
    from harness import eventloop

    try:
        eventloop.run(serve(out, cpus))
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
