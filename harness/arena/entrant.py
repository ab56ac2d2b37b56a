"""A participant: a bot command the arena launches and keeps, or a remote bot that dials in."""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol

from . import sandbox
from .limits import Limits
from .process import BotLog, BotProcess, argv_of, describe_exit
from .result import Cause, Fault
from .server import Arena, Session

REMOTE_PREFIX = "remote:"


class Player(Protocol):
    """What the match loop needs of a participant: an :class:`Entrant`, or a league's seat (which may
    also offer ``rejoin(fault) -> Session | Fault`` after a lost stream)."""

    name: str

    async def ensure(self) -> Session | Fault: ...

    def metered(self, session: Session) -> AbstractContextManager[None]: ...

    async def explain(self, fault: Fault, session: Session | None = None) -> Fault: ...

    def stderr_tail(self) -> str: ...
REMOTE_HELLO_S = 300.0  # a person starts a remote bot by hand


class Entrant:
    """One player for any number of matches, possibly concurrent, over one bot stream.

    A command entrant is launched on first use with a fresh one-time token in ARENA_TOKEN and
    the address in ARENA_ADDRESS; if its process or stream dies it is relaunched for the next
    match and ``crashes`` counts that. A process that timed out is not reused: the next match gets
    a fresh one, and the old one is stopped once its other matches end. A remote entrant waits for
    a bot presenting ``token``. A command entrant runs under ``limits`` (default :class:`Limits`;
    None for none), sandboxed when ``limits.sandbox`` says so. A command entrant dials the arena's unix
    socket (``arena.local_address``, or ``arena.address`` when that is one), sandboxed or not, else its
    TCP address; remote bots use the TCP address.
    """

    def __init__(self, name: str, command: str | None = None, remote_name: str | None = None, *,
                 arena: Arena | None = None, token: str | None = None, hello_s: float | None = None,
                 stop_grace_s: float = 2.0, cwd: str | None = None, limits: Limits | None = Limits(),
                 log_dir: str | Path | None = None, on_stderr: Callable[[str, str], None] | None = None) -> None:
        if (command is None) == (remote_name is None):
            raise ValueError("an entrant has either a command or a remote name")
        self.name = name
        self.command = command
        self.remote_name = remote_name
        self.arena = arena
        self.token = token or "t" + secrets.token_urlsafe(18)  # fixed for a remote entrant, renewed per launch otherwise
        self.hello_s = hello_s if hello_s is not None else (10.0 if command else REMOTE_HELLO_S)
        self.stop_grace_s = stop_grace_s
        self.cwd = cwd
        self.limits = limits
        # issue 14: a command's stdout and stderr go to log_dir/NAME.log (bounded, every launch);
        # on_stderr(name, line) sees each new stderr line
        self.log = BotLog(Path(log_dir) / f"{_file_name(name)}.log") if log_dir is not None and command else None
        self.on_stderr = on_stderr
        self.crashes = 0  # relaunches after the process or stream died
        self.failed_starts = 0
        self.session: Session | None = None
        self.process: BotProcess | None = None
        self._lock = asyncio.Lock()
        self._stale: set[Session] = set()  # sessions of processes that timed out: never given a match again
        self._busy: dict[Session, int] = {}  # matches in progress per session
        self._retiring: set[asyncio.Task[None]] = set()
        self._waiting: asyncio.Future[Session | Fault] | None = None  # a remote bot's Hello being awaited
        self._given_up: str | None = None  # why waits for a remote bot end at once (give_up)
        if command is not None:
            try:
                sandbox.register_bot(argv_of(command), cwd)  # hidden from every other sandboxed bot
            except ValueError:
                pass  # an empty or unparsable command fails at launch, with its own message

    @classmethod
    def parse(cls, spec: str, name: str | None = None, **kw: object) -> Entrant:
        """``remote:NAME`` or a command line."""
        if spec.startswith(REMOTE_PREFIX):
            remote = spec[len(REMOTE_PREFIX):]
            return cls(name or remote, remote_name=remote, **kw)  # type: ignore[arg-type]
        return cls(name or spec, command=spec, **kw)  # type: ignore[arg-type]

    async def ensure(self, arena: Arena | None = None) -> Session | Fault:
        """A live session, launching or waiting for the bot if needed; a Fault (NO_HELLO) on failure."""
        async with self._lock:
            if arena is not None:
                self.arena = arena
            if self.arena is None:
                raise RuntimeError("Entrant.ensure needs an Arena")
            if self.session is not None and self.session in self._stale:
                self.session, self.process = None, None  # its process is stopped once idle (metered)
            if self.session is not None:
                if self.session.alive:
                    return self.session
                self.crashes += 1
                self.session = None
            if self.process is not None:
                await self.process.stop(self.stop_grace_s)
                self.process = None
            got = await (self._launch() if self.command is not None else self._await_remote())
            if isinstance(got, Session):
                self.session = got
            else:
                self.failed_starts += 1
            return got

    def give_up(self, why: str = "the arena is stopping") -> None:
        """Stop waiting for a remote bot: the wait in progress, and every later one, ends at once with
        an INTERRUPTED fault (not a forfeit: the match is not recorded). For one Ctrl-C (issue 14)."""
        self._given_up = why
        if self._waiting is not None and not self._waiting.done():
            self._waiting.set_result(Fault(Cause.INTERRUPTED, f"{why} while waiting for remote bot '{self.remote_name}'"))

    async def _await_remote(self) -> Session | Fault:
        assert self.arena is not None
        if self._given_up:
            return Fault(Cause.INTERRUPTED, f"{self._given_up} while waiting for remote bot '{self.remote_name}'")
        fut = self._waiting = self.arena.expect(self.token)
        try:
            return await asyncio.wait_for(fut, self.hello_s)
        except TimeoutError:
            return Fault(Cause.NO_HELLO, f"remote bot '{self.remote_name}' did not connect within {self.hello_s:g} s")
        finally:
            self.arena.forget(self.token)

    async def _launch(self) -> Session | Fault:
        assert self.arena is not None and self.command is not None and self.arena.address is not None
        self.token = "t" + secrets.token_urlsafe(18)  # never "-...": safe as a command-line argument
        fut = self.arena.expect(self.token)
        local = getattr(self.arena, "local_address", None) or self.arena.address
        socket = local[len("unix:"):] if local.startswith("unix:") else None
        try:
            # issue 18: a spawned bot dials the unix socket when the arena has one (sandboxed or not;
            # cheaper per message than TCP); the TCP address is for remote bots
            proc = BotProcess(self.command, {"ARENA_ADDRESS": local, "ARENA_TOKEN": self.token}, self.cwd,
                              self.limits, socket=socket, log=self.log, on_stderr=self._stderr_line)
            if proc.sandboxed and socket is None:
                raise OSError(f"a sandboxed bot reaches the arena through a unix socket; this arena listens on "
                              f"{self.arena.address} only")
            await proc.start()
        except (OSError, ValueError) as e:
            self.arena.forget(self.token)
            return Fault(Cause.NO_HELLO, f"cannot start '{self.command}': {e}")
        self.process = proc
        exited = asyncio.ensure_future(proc.wait_exit(self.hello_s))
        try:
            waiting: set[asyncio.Future[Any]] = {fut, exited}
            done, _ = await asyncio.wait(waiting, timeout=self.hello_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
        if fut in done and not fut.cancelled():
            got = fut.result()
        elif proc.returncode is not None:
            got = Fault(Cause.NO_HELLO, f"{describe_exit(proc.returncode)} before saying Hello{_last_line(proc)}")
        else:
            got = Fault(Cause.NO_HELLO, f"no Hello within {self.hello_s:g} s")
        if isinstance(got, Fault):
            self.arena.forget(self.token)
            await proc.stop(self.stop_grace_s)
        else:
            got.process = proc
        return got

    @contextmanager
    def metered(self, session: Session) -> Iterator[None]:
        """Charge the CPU time of ``session``'s process to one match while inside (see Limits.cpu_s)."""
        proc = session.process
        k = proc.open_window() if isinstance(proc, BotProcess) else None
        self._busy[session] = self._busy.get(session, 0) + 1
        try:
            yield
        finally:
            if k is not None:
                proc.close_window(k)
            self._busy[session] -= 1
            if not self._busy[session]:
                del self._busy[session]
                if session in self._stale:
                    task = asyncio.ensure_future(self._retire(session))
                    self._retiring.add(task)
                    task.add_done_callback(self._retiring.discard)

    async def _retire(self, session: Session) -> None:
        """Stop the process of a session that timed out, once no match uses it."""
        await session.goodbye("a bot that timed out is not reused", wait_s=min(1.0, self.stop_grace_s))
        if isinstance(session.process, BotProcess):
            await session.process.stop(self.stop_grace_s)

    async def explain(self, fault: Fault, session: Session | None = None) -> Fault:
        """Turn a lost stream into CRASH when the process (of ``session``, else the current one) has
        exited, waiting briefly to see it; the rest of its process group is killed at once."""
        proc = session.process if session is not None and session.process is not None else self.process
        timed_out = session if session is not None else self.session
        if fault.cause is Cause.TIMEOUT and timed_out is not None and self.command is not None:
            self._stale.add(timed_out)
        if fault.cause is not Cause.DISCONNECT or not isinstance(proc, BotProcess):
            return fault
        code = await proc.wait_exit(0.5)
        if code is None:
            return fault
        await proc.stop(0.0)  # orphaned children must not outlive the crash
        why = f"{proc.killed_for}; " if proc.killed_for else ""
        return Fault(Cause.CRASH, f"{why}{describe_exit(code)}{_last_line(proc)}")

    def stderr_tail(self) -> str:
        return self.process.stderr_tail() if self.process is not None else ""

    @property
    def log_path(self) -> str | None:
        """The bot's log file (stdout and stderr), when it keeps one."""
        return None if self.log is None else str(self.log.path)

    def _stderr_line(self, line: str) -> None:
        if self.on_stderr is not None:
            self.on_stderr(self.name, line)

    async def stop(self) -> None:
        """Say Goodbye, then stop the process (SIGTERM, grace, SIGKILL to its group)."""
        async with self._lock:
            if self.session is not None:
                await self.session.goodbye("the arena is done", wait_s=min(1.0, self.stop_grace_s))
                self.session = None
            if self.process is not None:
                await self.process.stop(self.stop_grace_s)
            stale = [s for s in self._stale if isinstance(s.process, BotProcess)]
            self._stale.clear()
            await asyncio.gather(*(s.process.stop(self.stop_grace_s) for s in stale), *self._retiring,
                                 return_exceptions=True)


def _last_line(proc: BotProcess) -> str:
    """The last meaningful stderr lines for a forfeit's detail (issue 14: not just a version banner)."""
    said = proc.stderr_summary()
    return f"; stderr: {said}" if said else ""


def _file_name(name: str) -> str:
    """An entrant name as a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".") or "bot"
