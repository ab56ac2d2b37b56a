"""One preflight for every command that starts bots (``arena match``, ``arena tournament``,
``arena league add``) and every server that listens (``arena match --listen``, ``arena league serve``).

Each check raises :class:`PreflightError` with one line naming the problem, before anything starts:
no process, no server, no database write.

>>> check_bot("remote:alice")
>>> check_bot("remote:bad name")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
harness.preflight.PreflightError: bad remote bot name 'bad name' (letters, digits, _ . + -, a letter or digit first, no '..', at most 40)
>>> check_bot("no-such-program-xyz --fast", "mine")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
harness.preflight.PreflightError: bot 'mine': cannot start 'no-such-program-xyz --fast': 'no-such-program-xyz' not found
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
from collections.abc import Iterable
from pathlib import Path

from harness.names import RULE, valid_name

REMOTE_PREFIX = "remote:"
# Interpreters whose first argument (not an option) names the program file, which must exist.
INTERPRETERS = ("python", "node", "nodejs", "ruby", "perl", "bash", "sh", "php", "deno", "bun")


class PreflightError(ValueError):
    """A bot or address that cannot work; the message is one line."""


def check_name(name: object, what: str = "entrant") -> None:
    """PreflightError unless ``name`` follows :mod:`harness.names`."""
    if not valid_name(name):
        raise PreflightError(f"bad {what} name {_show(name)} ({RULE})")


def check_bot(spec: str, name: str | None = None, cwd: str | Path | None = None, what: str = "bot") -> None:
    """A bot spec (``remote:NAME`` or a command line) that can start: a valid remote name, or a
    command whose program exists (found on PATH or as a file) and, for an interpreter such as
    ``python`` or ``node``, whose script file exists (relative to ``cwd``, default: here)."""
    if spec.startswith(REMOTE_PREFIX):
        remote = spec[len(REMOTE_PREFIX):]
        if not valid_name(remote):
            raise PreflightError(f"bad remote bot name {_show(remote)} ({RULE})")
        return
    check_command(spec, name, cwd, what)


def check_command(command: str, name: str | None = None, cwd: str | Path | None = None, what: str = "bot") -> None:
    """PreflightError when ``command`` cannot start (see :func:`check_bot`)."""
    from harness.arena.process import argv_of

    who = f"{what} '{name}': " if name else ""
    try:
        argv = argv_of(command)
    except ValueError as e:
        raise PreflightError(f"{who}bad command {_show(command)}: {e}") from None
    base = Path(cwd) if cwd is not None else Path.cwd()
    prog = argv[0]
    found = (base / prog).is_file() if "/" in prog else shutil.which(prog) is not None
    if not found:
        raise PreflightError(f"{who}cannot start {_show(command)}: '{prog}' not found")
    if Path(prog).name.rstrip("0123456789.") in INTERPRETERS:
        at = next((i for i, a in enumerate(argv[1:], 1) if not a.startswith("-")), None)
        inline = {"-m", "-c", "-e", "-r", "--eval"} & set(argv[1:at])  # no program file: a module or code
        if at is not None and not inline and not (base / argv[at]).is_file():
            raise PreflightError(f"{who}cannot start {_show(command)}: no file '{argv[at]}'")


def check_bots(specs: Iterable[tuple[str, str]], cwd: str | Path | None = None, what: str = "bot") -> None:
    """:func:`check_name` and :func:`check_bot` for each ``(name, spec)``; the first problem is raised."""
    for name, spec in specs:
        check_bot(spec, name, cwd, what)
        check_name(name, what)


def check_listen(listen: str) -> None:
    """PreflightError "port N is in use" (or why else it cannot be bound) for a ``HOST:PORT`` that a
    server is about to listen on; ``unix:PATH`` and port 0 always pass. Checked with a plain socket
    (as gRPC binds, with SO_REUSEADDR), so no gRPC log line is printed."""
    if listen.startswith("unix:"):
        return
    host, sep, port_text = listen.rpartition(":")
    if not sep or not port_text.isdigit() or int(port_text) > 65535:
        raise PreflightError(f"bad listen address {_show(listen)} (expected HOST:PORT or unix:PATH)")
    port = int(port_text)
    if port == 0:
        return
    host = host.strip("[]") or "0.0.0.0"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise PreflightError(f"cannot listen on {_show(listen)}: {e.strerror}") from None
    for family, kind, proto, _, addr in infos[:1]:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(addr)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    raise PreflightError(f"port {port} is in use") from None
                raise PreflightError(f"cannot listen on {_show(listen)}: {e.strerror or e}") from None


class Held:
    """An exclusive lock on ``PATH.lock`` (see :func:`hold`), released by :meth:`close` (which removes
    the file) or when the process ends, however it ends (the file stays, unlocked)."""

    def __init__(self, fd: int, path: Path | None = None) -> None:
        self.fd = fd
        self.path = path

    def close(self) -> None:
        if self.fd >= 0:
            if self.path is not None and _same_file(self.path, self.fd):
                self.path.unlink(missing_ok=True)  # still locked: whoever opens it next retries (hold)
            os.close(self.fd)
            self.fd = -1


def _same_file(path: Path, fd: int) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not removed, nor made again)."""
    try:
        st, mine = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def hold(path: str | Path, what: str = "league database", lock: Path | None = None,
         refusal: str = "{what} '{path}' is already being served{by}; stop that server first, or use another --db") -> Held:
    """Take the one-server lock of the database at ``path`` (a sidecar ``PATH.lock``, or ``lock``, holding
    the pid of the server); PreflightError with ``refusal`` when another live process holds it (issue 14:
    a second league server on one database is refused; a tournament is run by one process at a time)."""
    import fcntl

    lock = lock or Path(f"{path}.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            other = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            by = f" by process {other}" if other.isdigit() else ""
            raise PreflightError(refusal.format(what=what, path=path, by=by)) from None
        if _same_file(lock, fd):
            break
        os.close(fd)  # its holder removed it as it let go: lock the file that is there now
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return Held(fd, lock)


def holder(lock: Path) -> int | None:
    """The pid of the live process holding the lock file ``lock`` (see :func:`hold`), or None."""
    import fcntl

    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return None
    except OSError:
        pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
        return int(pid) if pid.isdigit() else 0
    finally:
        os.close(fd)


def _show(value: object, width: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return repr(text if len(text) <= width else text[: width - 1] + "…")
