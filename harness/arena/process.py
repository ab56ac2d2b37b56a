"""A bot process: launched in its own process group under :class:`Limits` (in the bubblewrap sandbox
when ``Limits.sandbox`` resolves to ``bwrap``), stderr kept as a bounded tail, stdout and stderr
written to a bounded log file when given one (:class:`BotLog`), watched for the group limits (with
psutil), stopped for sure."""

from __future__ import annotations

import asyncio
import atexit
import itertools
import os
import re
import shlex
import shutil
import signal
import sys
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

import psutil

from harness import eventloop

from . import sandbox
from .limits import Limits, group_stats, group_usage, watchable
from .watch import watch

TAIL_BYTES = 64 * 1024
LOG_BYTES = 1 << 20  # a bot's log file is rotated (to NAME.1) past this: at most twice this on disk
LINE_BYTES = 4096  # a longer line is written (and shown) in pieces
_LIVE: set[int] = set()  # process groups started here and not yet known to be gone


def argv_of(command: str) -> list[str]:
    """The argv of a command line; a leading ``python``/``python3`` becomes this interpreter.

    >>> argv_of("python bots/x.py --fast")[1:]
    ['bots/x.py', '--fast']
    """
    argv = shlex.split(command)
    if not argv:
        raise ValueError("empty bot command")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


def group_members(pgid: int, tree: bool = False) -> list[int]:
    """Live (non-zombie) processes in process group ``pgid`` (psutil); with ``tree`` (only
    while process ``pgid`` is not reaped) also every descendant of process ``pgid``."""
    return [pid for pid, zombie, _ in group_stats(pgid, tree, times=False) if not zombie]


class BotLog:
    """A bot's stdout and stderr, line by line (``out| `` and ``err| ``), appended to ``path`` (one
    ``==`` line per launch and per stop); past ``cap`` bytes the file becomes ``path.1`` (replacing
    an older one) and a new one starts, so a bot's output never takes more than ``2 * cap`` on disk.
    A write that fails (a full disk) is dropped: the match goes on."""

    def __init__(self, path: str | Path, cap: int = LOG_BYTES) -> None:
        self.path = Path(path)
        self.cap = cap
        self._f: IO[bytes] | None = None
        self._size = 0

    def _open(self) -> IO[bytes]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = self._f = open(self.path, "ab")
        self._size = f.tell()
        return f

    def write(self, prefix: bytes, lines: list[bytes]) -> None:
        """Append ``lines`` (without their newlines), each after ``prefix``."""
        try:
            f = self._f or self._open()
            for line in lines:
                data = prefix + line + b"\n"
                if self._size and self._size + len(data) > self.cap:
                    f.close()
                    os.replace(self.path, self.path.with_name(self.path.name + ".1"))
                    f = self._open()
                f.write(data)
                self._size += len(data)
            f.flush()
        except OSError:
            pass

    def note(self, text: str) -> None:
        """One ``==`` line: the time (UTC) and ``text``."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.write(b"== ", [f"{now} {text}".encode("utf-8", "replace")])

    def close(self) -> None:
        if self._f is not None:
            try:
                self._f.close()
            except OSError:
                pass
            self._f = None


_NOISE = re.compile(r"^(Node\.js v[\d.]+|Traceback \(most recent call last\):|[\s{}()\[\]^~,;.]*)$")
_ERRORISH = re.compile(r"(?i)error|exception|fatal|panic|cannot|can't|could not|failed|denied|not found|"
                       r"no such|no module|killed|abort")


def stderr_summary(text: str, lines: int = 3, limit: int = 300) -> str:
    """The last meaningful lines of a bot's stderr, joined with `` | ``: the last line that reads
    like an error and up to ``lines - 1`` after it, leaving out stack frames and source excerpts
    (indented lines), a runtime's version banner (``Node.js v20...``) and lines of punctuation; else
    the last line that remains. Each line is cut at 200 characters, the whole at ``limit``.

    >>> stderr_summary("Traceback (most recent call last):\\n  File \\"b.py\\", line 1\\n    x()\\nValueError: boom\\n")
    'ValueError: boom'
    >>> stderr_summary("node:internal/modules/cjs/loader:1228\\n  throw err;\\n  ^\\n\\nError: Cannot find module 'x'\\n"
    ...                "Require stack:\\n- /b/bot.js\\n    at Module._load (node:internal)\\n{\\n  code: 'MODULE_NOT_FOUND'\\n}\\n\\n"
    ...                "Node.js v20.20.2\\n")
    "Error: Cannot find module 'x' | Require stack: | - /b/bot.js"
    >>> stderr_summary("Node.js v20.20.2\\n"), stderr_summary("starting\\nready\\n")
    ('Node.js v20.20.2', 'ready')
    """
    raw = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    kept = [ln for ln in raw if not ln[:1].isspace() and not _NOISE.match(ln)]
    if not kept:
        return raw[-1][:limit] if raw else ""
    start, n = len(kept) - 1, 1
    for i in range(len(kept) - 1, -1, -1):
        if _ERRORISH.search(kept[i]):
            start, n = i, lines
            break
    out = " | ".join(ln if len(ln) <= 200 else ln[:197] + "..." for ln in kept[start:start + n])
    return out if len(out) <= limit else out[: limit - 3] + "..."


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


@atexit.register
def _kill_all() -> None:
    for pgid in list(_LIVE):
        _killpg(pgid, signal.SIGKILL)


def sandbox_chain(init: int | None) -> set[int]:
    """The sandbox's own processes above the bot: its namespace init and that one's parent
    (bubblewrap's outer process, a child of the launcher that supervises it, see launch.py)."""
    if init is None:
        return set()
    try:
        return {init, psutil.Process(init).ppid()}
    except psutil.Error:
        return {init}


class BotProcess:
    """One launched bot command. ``pid`` is also its process group id.

    Sandboxed (``limits.sandbox`` resolves to ``bwrap``), ``pid`` is the launcher supervising
    bubblewrap (launch.py), which kills the group when the arena dies;
    ``socket`` (the host path of the arena's unix socket) is bound inside and ARENA_ADDRESS names it
    there (without one the bot reaches nothing). No ``limits`` means no limits and no sandbox.
    ``log``: the bot's log file (stdout and stderr, :class:`BotLog`); None: stdout is discarded.
    ``on_stderr``: called with each new line of stderr (in the event loop), e.g. to show it live.
    """

    def __init__(self, command: str, env: Mapping[str, str], cwd: str | None = None,
                 limits: Limits | None = None, socket: str | None = None, log: BotLog | None = None,
                 on_stderr: Callable[[str], None] | None = None) -> None:
        self.command = command
        self.argv = argv_of(command)
        self.limits = limits
        self.sandbox = sandbox.resolve(limits.sandbox) if limits is not None else "none"
        self.socket = socket
        self._overhead: frozenset[int] = frozenset()  # the launcher's and the sandbox's own processes
        self._env = {**os.environ, **env}
        self._cwd = cwd
        self._proc: asyncio.subprocess.Process | None = None
        self._tail = bytearray()
        self._drained = 0  # bytes read from stdout and stderr so far
        self.log = log
        self.on_stderr = on_stderr
        self._drain: asyncio.Task[None] | None = None
        self._drain_out: asyncio.Task[None] | None = None
        self._windows: dict[int, float] = {}  # open per-match CPU windows: id -> group CPU s at the start
        self._ids = itertools.count(1)
        self._stopped = False
        self.killed_for: str | None = None  # why the watchdog killed the group, if it did

    @property
    def overhead(self) -> frozenset[int]:
        """The processes of the group that are not the bot's: the launcher that supervises it and,
        sandboxed, bubblewrap's outer process and namespace init (once bubblewrap has reported it)."""
        return self._overhead

    @property
    def sandboxed(self) -> bool:
        return self.sandbox == "bwrap"

    async def start(self) -> None:
        """Launch; raises OSError when the command cannot be executed (or sandboxed)."""
        argv = self.argv
        info: tuple[int, int] | None = None
        if self.limits is not None:
            self._check_runnable()
            if self.sandboxed:
                info = os.pipe()
                try:
                    argv = sandbox.command(argv, cwd=self._cwd, socket=self.socket, info_fd=info[1])
                except OSError:
                    os.close(info[0])
                    os.close(info[1])
                    raise
                if self.socket is not None:
                    self._env["ARENA_ADDRESS"] = sandbox.INSIDE_ADDRESS
            argv = self.limits.wrap(argv, die_with_arena=True, end_group=self.sandboxed)  # launch.py supervises it
        try:
            self._proc = await eventloop.spawn(
                *argv, env=self._env, cwd=self._cwd, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE if self.log is not None else asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, start_new_session=True,
                pass_fds=() if info is None else (info[1],),
            )
        except BaseException:
            if info is not None:
                os.close(info[0])
            raise
        finally:
            if info is not None:
                os.close(info[1])
        _LIVE.add(self._proc.pid)
        if self.limits is not None:
            self._overhead = frozenset({self._proc.pid})  # the launcher
        if info is not None:
            self._read_info(info[0])
        if self.log is not None:
            self.log.note(f"started (pid {self._proc.pid}, sandbox {self.sandbox}): {self.command}")
            self._drain_out = asyncio.create_task(self._read(self._proc.stdout, b"out| "))
        self._drain = asyncio.create_task(self._read(self._proc.stderr, b"err| "))
        if self.limits is not None and self.limits.watched:
            watch().add(self)  # one census per tick for every bot of this arena (harness/arena/watch.py)

    def _read_info(self, fd: int) -> None:
        """Learn the sandbox's init pid from bwrap's --info-fd, without blocking, to leave it (and
        bwrap itself) out of the process count."""
        loop = asyncio.get_running_loop()
        got = bytearray()
        os.set_blocking(fd, False)

        def readable() -> None:
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            got.extend(chunk)
            init = sandbox.parse_info(bytes(got))
            if init is not None or not chunk:
                loop.remove_reader(fd)
                os.close(fd)
                assert self._proc is not None
                self._overhead = frozenset({self._proc.pid, *sandbox_chain(init)})

        loop.add_reader(fd, readable)

    def _check_runnable(self) -> None:
        """The launcher execs the command, so report a missing program here, as exec would."""
        prog = self.argv[0]
        if "/" in prog:
            path = os.path.join(self._cwd or ".", prog)
            if not os.access(path, os.X_OK) or os.path.isdir(path):
                raise FileNotFoundError(f"no executable '{prog}'")
        elif shutil.which(prog, path=self._env.get("PATH")) is None:
            raise FileNotFoundError(f"'{prog}' not found on PATH")

    def open_window(self) -> int:
        """Start charging the group's CPU time to one match; returns its window id."""
        k = next(self._ids)
        pgid = self.pid
        self._windows[k] = group_usage(pgid, tree=self._unreaped)[1] \
            if pgid is not None and self.limits and self.limits.cpu_s and watchable() else 0.0
        return k

    def close_window(self, k: int) -> None:
        self._windows.pop(k, None)

    @property
    def _unreaped(self) -> bool:
        """Whether the first process is not reaped yet (so its pid, and its descendants, are ours)."""
        return self._proc is not None and self._proc.returncode is None

    def kill(self, reason: str) -> None:
        """SIGKILL the whole group (and descendants that left it) now, remembering why (the match loop
        reports it as a CRASH)."""
        if self.killed_for is None:
            self.killed_for = reason
        if self._proc is not None:
            self._kill_all(signal.SIGKILL)

    def _signal_bot(self, sig: int) -> None:
        """``sig`` to the bot's own processes only (the group and its tree, without the launcher and the
        sandbox's processes): a sandboxed bot gets its SIGTERM grace, and its sandbox ends when it does."""
        assert self._proc is not None
        for pid in group_members(self._proc.pid, tree=True):
            if pid not in self._overhead:
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass

    def _kill_all(self, sig: int) -> None:
        assert self._proc is not None
        pgid = self._proc.pid
        _killpg(pgid, sig)
        if self._unreaped:
            for pid in group_members(pgid, tree=True):
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass

    @property
    def watch_key(self) -> tuple[int, float, frozenset[int], bool, bool, int | None] | None:
        """What the watch scans for this bot (harness.arena.watch.Watched); None once it is gone, stopped or killed."""
        limits, proc = self.limits, self._proc
        if limits is None or proc is None or proc.returncode is not None or self._stopped or self.killed_for:
            return None
        times = limits.cpu_s is not None and bool(self._windows)  # else only the count is needed
        return proc.pid, limits.poll_s, self._overhead, self._unreaped, times, limits.processes

    def judge(self, live: int, cpu: float) -> None:
        """One scan of the watch: too many processes, or too much CPU in a match window, kills the group."""
        limits = self.limits
        if limits is None or self.killed_for or self._proc is None or self._proc.returncode is not None:
            return
        if limits.processes is not None and live > limits.processes:
            self.kill(f"process limit: {live} processes in the group (limit {limits.processes})")
        elif limits.cpu_s is not None and self._windows:
            used = cpu - min(self._windows.values())
            if used > limits.cpu_s:
                self.kill(f"CPU limit: {used:.2f} s used during the match (limit {limits.cpu_s:g} s)")

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        """The exit status; -N for death by signal N (also inside the sandbox, see sandbox.signal_of)."""
        if self._proc is None:
            return None
        code = self._proc.returncode
        return sandbox.signal_of(code) if self.sandboxed else code

    def stderr_tail(self) -> str:
        return self._tail.decode("utf-8", "replace")

    def stderr_summary(self) -> str:
        """The last meaningful lines of stderr (:func:`stderr_summary`)."""
        return stderr_summary(self.stderr_tail())

    async def _finish_drains(self) -> None:
        """Read what the bot wrote before it ended, to the end of its pipes: as long as output still
        comes (a busy machine may take more than a second), but not past a second without any (a child
        that escaped the group could hold a pipe open for ever)."""
        for drain in (self._drain, self._drain_out):
            while drain is not None and not drain.done():
                before = self._drained
                try:
                    await asyncio.wait_for(asyncio.shield(drain), 1.0)
                except asyncio.TimeoutError:
                    if self._drained == before:
                        drain.cancel()
                        break
                except Exception:  # noqa: BLE001 - a broken pipe ends the drain
                    break

    async def _read(self, stream: asyncio.StreamReader | None, prefix: bytes) -> None:
        """Drain stdout (``out| ``) or stderr (``err| ``): stderr into the tail, both into the log
        line by line, each stderr line to ``on_stderr``."""
        if stream is None:
            return
        err = prefix == b"err| "
        partial = b""
        while chunk := await stream.read(65536):
            self._drained += len(chunk)
            if err:
                self._tail += chunk
                if len(self._tail) > TAIL_BYTES:
                    del self._tail[: len(self._tail) - TAIL_BYTES]
            if self.log is None and not (err and self.on_stderr):
                continue
            *lines, partial = (partial + chunk).split(b"\n")
            if len(partial) > LINE_BYTES:  # an endless line is taken as it is
                lines.append(partial)
                partial = b""
            self._lines(prefix, lines)
        if partial:
            self._lines(prefix, [partial])

    def _lines(self, prefix: bytes, lines: list[bytes]) -> None:
        if not lines:
            return
        if self.log is not None:
            self.log.write(prefix, lines)
        if prefix == b"err| " and self.on_stderr is not None:
            for line in lines:
                try:
                    self.on_stderr(line.decode("utf-8", "replace").rstrip("\r"))
                except Exception:  # noqa: BLE001 - a display problem must not stop the drain
                    pass

    async def wait_exit(self, timeout: float) -> int | None:
        """The exit status once the process has exited within ``timeout``, else None."""
        proc = self._proc
        if proc is None:
            return None
        # Not proc.wait(): asyncio resolves that only once every pipe is closed, and a child that
        # outlives the bot holds its stderr open. ``returncode`` is set as soon as the bot exits.
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while proc.returncode is None and loop.time() < end:
            await asyncio.sleep(0.005)
        return self.returncode

    async def stop(self, grace: float = 2.0) -> None:
        """SIGTERM to the group (sandboxed: to the bot's processes inside), up to ``grace`` seconds for it
        to go, then SIGKILL to the group; reap."""
        proc = self._proc
        if proc is None or self._stopped:
            return
        self._stopped = True
        pgid = proc.pid
        if self.sandboxed and len(self._overhead) > 1:
            self._signal_bot(signal.SIGTERM)  # the sandbox itself would end at once, SIGKILLing the bot
        else:
            self._kill_all(signal.SIGTERM)
        loop = asyncio.get_running_loop()
        end = loop.time() + grace
        while loop.time() < end and (proc.returncode is None or group_members(pgid)):
            await asyncio.sleep(0.01 if proc.returncode is None else 0.02)
        self._kill_all(signal.SIGKILL)
        await self.wait_exit(5.0)
        # In the sandbox, the namespace's init is in the group and ends only after every process of
        # the namespace is gone (pid_namespaces(7)): an empty group means nothing of the bot is left.
        while group_members(pgid) and loop.time() < end + 2.0:
            await asyncio.sleep(0.01)
        _LIVE.discard(pgid)
        watch().discard(self)
        await self._finish_drains()
        if self.log is not None:
            self.log.note(f"stopped: {describe_exit(self.returncode)}")
            self.log.close()


def describe_exit(code: int | None) -> str:
    """``exited with status 3`` or ``killed by SIGSEGV``."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"
