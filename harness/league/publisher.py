"""The leaderboard after each round, computed and written by a worker process (issue 18).

Rating every match on record, rendering ``leaderboard.{md,json,html}`` and drawing the page of each
new match is most of a league server's work, and all of it used to block the event loop between
rounds. The :class:`Publisher` hands it to one worker process: the worker reads the league's SQLite
file (read-only, a WAL snapshot taken after the round was committed), builds the same
:class:`~harness.leaderboard.Board` with :func:`harness.league.board.league_board`, writes the same
files, and sends back the board without its match list, which is what the server needs for pairing
and for its gRPC answers. The page of each match is drawn as soon as the match ends (:meth:`Publisher.page`),
while the round goes on, so a round's publication is left with the board and the three files. The
event loop keeps serving bots and clients meanwhile, and the work runs on another core.

The worker is a child the server spawns itself (no fork of a process with gRPC threads). It exits
when the server closes the pipe, or when the server dies (the pipe ends). When it cannot start or
fails, the server publishes in its own process, as before.
"""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import queue
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.leaderboard import Board
from harness.rating import Model, Standings

from .board import league_board
from .store import Store


@dataclass(frozen=True)
class Page:
    """Draw the page of one finished match's record (written beside it, as the leaderboard links it)."""

    record: str


@dataclass(frozen=True)
class Job:
    """One publication: what :func:`league_board` and :func:`harness.leaderboard.files.write` need."""

    db: str
    out: str
    title: str
    provisional_below: int
    model: Model
    extra_meta: dict[str, Any]


def publish(store: Store, job: Job) -> Board:
    """Build the board from ``store`` and write the leaderboard files and pages; returns the full board."""
    from harness.leaderboard.files import write

    board = league_board(store, title=job.title, provisional_below=job.provisional_below, model=job.model,
                         extra_meta=job.extra_meta)
    write(board, job.out)
    return board


def slim(board: Board) -> Board:
    """``board`` without what only the files need (every match, head-to-head, rating history)."""
    st = board.standings
    return dataclasses.replace(board, played=(), records={}, pages={},
                               standings=Standings(st.rows, {}, {}, st.matches, st.model))


def _serve(jobs: Any, answers: Any) -> None:
    """The worker: a :class:`Job` gets one answer (("ok", slim board) or ("error", text)); a
    :class:`Page` gets none. Ends when the pipe does."""
    from harness.viewer.files import ensure_pages

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a stop is the server's to handle: it ends the pipe
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    store: Store | None = None
    try:
        while True:
            try:
                job: Job | Page = jobs.recv()
            except (EOFError, OSError):
                return
            if isinstance(job, Page):
                ensure_pages({"": job.record})  # a record it cannot read is drawn at the next publish, or never
                continue
            try:
                if store is None or store.path != Path(job.db):
                    store = Store.reader(job.db)
                answers.send(("ok", slim(publish(store, job))))
            except Exception as e:  # noqa: BLE001 - reported to the server, which publishes itself
                answers.send(("error", f"{type(e).__name__}: {e}"))
    except (EOFError, OSError, KeyboardInterrupt):
        return
    finally:
        if store is not None:
            store.close()


Answer = tuple[str, Any]


class Publisher:
    """The worker process, and a thread that feeds it jobs in order and hands back its answers."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        jobs_r, self._jobs = ctx.Pipe(duplex=False)
        self._answers, answers_w = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_serve, args=(jobs_r, answers_w), name="league-publisher", daemon=True)
        self._proc.start()
        jobs_r.close()  # the worker holds the only other ends: it sees EOF when this process goes away
        answers_w.close()
        self._queue: queue.SimpleQueue[tuple[Job | Page, Callable[[Answer], None] | None] | None] = \
            queue.SimpleQueue()
        self._broken: str | None = None
        self._feeder = threading.Thread(target=self._feed, name="league-publisher", daemon=True)
        self._feeder.start()

    @property
    def alive(self) -> bool:
        return self._broken is None and self._proc.is_alive()

    def _feed(self) -> None:
        while (item := self._queue.get()) is not None:
            job, reply = item
            answer: Answer | None = None
            if self._broken is None:
                try:
                    self._jobs.send(job)
                    if reply is not None:
                        answer = self._answers.recv()
                except (OSError, EOFError, ValueError) as e:
                    self._broken = f"the worker is gone ({type(e).__name__})"
            if reply is not None:
                reply(answer or ("error", self._broken or "no answer"))

    def page(self, record: str | None) -> None:
        """Have the worker draw the page of a finished match now, rather than when the round is published."""
        if record:
            self._queue.put((Page(record), None))

    async def publish(self, job: Job) -> Board:
        """The slim board (see :func:`slim`) once the worker has written the files; raises when it failed."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Answer] = loop.create_future()

        def settle(answer: Answer) -> None:
            if not fut.done():
                fut.set_result(answer)

        def reply(answer: Answer) -> None:
            try:
                loop.call_soon_threadsafe(settle, answer)
            except RuntimeError:  # the loop is closed: nobody waits any more
                pass

        self._queue.put((job, reply))
        kind, value = await fut
        if kind != "ok":
            raise RuntimeError(value)
        assert isinstance(value, Board)
        return value

    def close(self, timeout: float = 10.0) -> None:
        """End the worker once it has done the jobs given (pages included), killing it after ``timeout`` seconds."""
        self._queue.put(None)
        self._feeder.join(timeout)
        if self._feeder.is_alive():  # the worker is stuck: its pipe ends with it, which frees the feeder
            self._proc.kill()
            self._feeder.join(5)
        self._jobs.close()
        self._proc.join(timeout)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(5)
        self._answers.close()
