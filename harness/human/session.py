"""A person as a player of the normal match loop (:mod:`harness.arena.match`).

:class:`Human` is a :class:`harness.arena.entrant.Player` whose session is :class:`HumanSession`: the
match loop sends it the same bytes it sends a bot (notices and DecisionRequests), the session decodes
them with the game's wire codec, shows the person their seat's view (:mod:`harness.human.view`) and
answers with the action typed on the keyboard. The person has no clock: the loop's time limit is
ignored here (the bots keep theirs). Typing ``q`` (or end of input) asks the command to stop the match.
"""

from __future__ import annotations

import asyncio
import os
import sys
import termios
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from rich.console import Console
from rich.text import Text

from harness.arena.result import Cause, Fault
from harness.arena.server import PROTOCOL_VERSION, Session
from harness.games.registry import get as get_game
from harness.wire import arena_pb2 as pb
from harness.wire.codecs import codec as get_codec
from harness.wire.convert import reply as reply_msg

from .view import QUIT_WORDS, Table, action_text, choose, decision_view, ordered


class Keyboard:
    """Lines typed on a file descriptor (stdin), read by the event loop without blocking it. Every
    complete line goes to ``on_line``; end of input sends None."""

    def __init__(self, on_line: Callable[[str | None], None], fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.on_line = on_line
        self._buf = b""
        self._watching = False
        self._paused = False
        self.interactive = os.isatty(self.fd)  # a person types here (a terminal), not a script piping answers

    def start(self) -> None:
        """Watch the descriptor; one that cannot be watched (a regular file, /dev/null) is read by a
        daemon thread instead, which never keeps the program alive."""
        loop = asyncio.get_running_loop()
        try:
            loop.add_reader(self.fd, self._readable)
            self._watching = True
        except (PermissionError, OSError, ValueError):
            threading.Thread(target=self._read_blocking, args=(loop,), daemon=True).start()

    def _read_blocking(self, loop: asyncio.AbstractEventLoop) -> None:
        with open(self.fd, "rb", closefd=False) as f:
            for raw in f:
                loop.call_soon_threadsafe(self.on_line, raw.decode("utf-8", "replace").rstrip("\r\n"))
        loop.call_soon_threadsafe(self.on_line, None)

    def pause(self) -> None:
        """Stop reading for a while (piped answers wait in the pipe: a script cannot flood memory)."""
        if self._watching:
            asyncio.get_running_loop().remove_reader(self.fd)
            self._watching, self._paused = False, True

    def resume(self) -> None:
        if self._paused:
            asyncio.get_running_loop().add_reader(self.fd, self._readable)
            self._watching, self._paused = True, False

    def stop(self) -> None:
        if self._watching:
            asyncio.get_running_loop().remove_reader(self.fd)
        self._watching = self._paused = False

    def discard_typed_ahead(self) -> None:
        """Forget what was typed while it was not the person's turn."""
        if self.interactive:
            self._buf = b""
            try:
                termios.tcflush(self.fd, termios.TCIFLUSH)
            except termios.error:
                pass

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.stop()
            self.on_line(None)
            return
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            self.on_line(line.decode("utf-8", "replace"))


class HumanSession(Session):
    """The person's end of the match: what a bot stream would carry, shown and answered in the terminal."""

    def __init__(self, name: str, game: str, console: Console) -> None:
        hello = pb.Hello(name=name, version="human", protocol_version=PROTOCOL_VERSION, games=[game],
                         max_concurrent=1)
        super().__init__(hello, None)
        self.console = console
        self.game = get_game(game)
        self.codec = get_codec(game)
        self.rules: Any = None
        self.table: Table | None = None
        self.task: asyncio.Task[Any] | None = None  # what to cancel when the person quits
        self.quit = False
        self._answer: asyncio.Future[str] | None = None
        self._legal: tuple[str, ...] = ()
        self.keyboard = Keyboard(self._typed)
        self._scripted: deque[str | None] = deque()  # lines piped in while it was not the person's turn

    # -- notices: the same bytes a bot receives --------------------------------------------------------

    def post(self, data: bytes) -> None:
        msg = pb.ArenaMessage.FromString(data)
        kind = msg.WhichOneof("kind")
        if kind == "match_start":
            ms = msg.match_start
            self.rules = self.codec.rules(dict(ms.rules))
            rules_map = dict(ms.rules)
            self.table = Table(game=ms.game, title=self.game.title, names=tuple(ms.players), me=ms.player,
                               teams=tuple(ms.teams), target=_target(rules_map),
                               clock=f"bots: {ms.clock.move_ms / 1000:g} s a move + {ms.clock.bank_ms / 1000:g} s "
                                     f"bank · you: no clock")
        elif kind == "deal_start" and self.table is not None:
            ds = msg.deal_start
            self.table = replace(self.table, deal_no=ds.deal_no, dealer=ds.dealer, seats=tuple(ds.seats),
                                 scores=tuple(ds.game_score))

    # -- decisions: no clock for a person ------------------------------------------------------------

    async def decide(self, request: bytes, timeout_s: float) -> tuple[Any, float]:
        """Show the person's view and wait for their choice, however long it takes."""
        loop = asyncio.get_running_loop()
        req = pb.DecisionRequest.FromString(request)
        obs = self.codec.decode_request(req, self.rules)
        assert self.table is not None
        self._last_id += 1  # the id a stream would have given this request (Session.decide)
        self.console.print(decision_view(obs, self.table, req.decision_no))
        self._legal = ordered(obs.legal, obs.hand, self.game.id)
        self.keyboard.discard_typed_ahead()
        self._answer = loop.create_future()
        self.console.print("› ", end="")
        while self._scripted and not self._answer.done():  # answers piped in ahead of time
            self._typed(self._scripted.popleft())
        if not self._answer.done():
            self.keyboard.resume()
        t0 = loop.time()
        try:
            action = await self._answer
        finally:
            self._answer = None
        self.console.print(Text.assemble(("you: ", "dim"), action_text(action, obs)))
        return reply_msg(self._last_id, action).reply, loop.time() - t0

    def _typed(self, line: str | None) -> None:
        """A line from the keyboard: the answer to the open question, a quit, or noise between turns."""
        waiting = self._answer is None or self._answer.done()
        if waiting and not self.keyboard.interactive and (line is not None or self._scripted):
            self._scripted.append(line)  # piped answers (and their end) are used in turn
            self.keyboard.pause()
            return
        if line is None or line.strip().lower() in QUIT_WORDS:
            self.leave()
            return
        if waiting or self._answer is None:
            if line.strip():
                self.console.print(Text("not your turn yet", "dim"))
            return
        action = choose(line, self._legal)
        if action is None:
            self.console.print(Text.assemble((f"{line.strip()[:40]!r}", "bold red"),
                                             f" is not an action here: type 1–{len(self._legal)} or an "
                                             "action as written, q to quit"))
            self.console.print("› ", end="")
            return
        self._answer.set_result(action)

    def leave(self) -> None:
        """The person quits: the match is stopped (its record says interrupted)."""
        if self.quit:
            return
        self.quit = True
        self.console.print()
        self.console.print(Text("leaving the match…", "bold"))
        if self.task is not None and not self.task.done():
            self.task.cancel()

    # -- no stream to close ----------------------------------------------------------------------------

    async def goodbye(self, reason: str = "done", wait_s: float = 1.0) -> None:
        self.close()

    def close(self) -> None:
        self._released.set()
        self._fail(Fault(Cause.DISCONNECT, "session closed by the arena"))
        self.closed.set()
        self.keyboard.stop()


def _target(rules: dict[str, str]) -> str:
    """How the match ends, from its rules map: ``to 7`` (66-3.1), ``out at 22`` (22-8.1)."""
    if "match_target" in rules:
        return f"to {rules['match_target']}"
    if "penalty_limit" in rules:
        return f"out at {rules['penalty_limit']}"
    return ""


class Human:
    """The person as a :class:`harness.arena.entrant.Player` of the match loop."""

    def __init__(self, session: HumanSession) -> None:
        self.session = session
        self.name = session.name

    async def ensure(self) -> Session | Fault:
        return self.session

    @contextmanager
    def metered(self, session: Session) -> Iterator[None]:
        yield

    async def explain(self, fault: Fault, session: Session | None = None) -> Fault:
        return fault

    def stderr_tail(self) -> str:
        return ""
