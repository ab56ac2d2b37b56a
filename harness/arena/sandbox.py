"""Spawned bots sealed with bubblewrap (Linux; Debian's ``bubblewrap``).

A sandboxed bot runs in its own PID namespace (the whole tree dies with it, ``setsid`` escapes
nothing), its own network namespace (no network: it reaches the arena through the arena's unix
socket, bound at :data:`INSIDE_SOCKET`), its own IPC namespace, with no capabilities, on a read-only
view of ``/`` in which these are empty:

* the private paths: ``$HOME``, ``./results`` and whatever the arena registers with
  :func:`keep_private` (the ``--out`` directory, the database's directory, league keys);
* the directories of every other bot command this process knows (:func:`register_bot`), unless
  one is also the working directory or contains this bot's own directory (then they share it);
* ``/run``, except the arena's socket; ``/tmp`` is a private writable tmpfs that vanishes with it.

Still readable: the bot's own files (the directory of its program or script, wherever it lies, even
under ``/tmp`` or ``$HOME``), its interpreter's installation (``prefix`` of ``prefix/bin/prog``; for a
script run directly, that of its ``#!`` interpreter),
the working directory, and the ``harness`` package itself (its SDK; an editable install's source may
lie under ``/tmp`` too). Where paths nest, the deeper rule wins; at the same path a private path
stays empty and the bot's own directory stays visible.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

INSIDE_SOCKET = "/run/arena/arena.sock"  # where the arena's unix socket appears inside
INSIDE_ADDRESS = f"unix:{INSIDE_SOCKET}"
CHOICES = ("auto", "bwrap", "none")
CANDIDATES = ("/usr/bin/bwrap",)  # then `bwrap` on PATH
HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this package: the SDK bots import
_PRIVATE: set[str] = set()  # hidden from every sandboxed bot of this process
_BOTS: set[str] = set()  # directories of every bot command this process knows
_warned: list[str] = []


def keep_private(*paths: str | os.PathLike[str] | None) -> None:
    """Hide ``paths`` (directories or files, existing now or later) from every sandboxed bot."""
    for p in paths:
        if p is not None and str(p):
            _PRIVATE.add(os.path.realpath(os.path.abspath(p)))


def private_paths() -> list[str]:
    """The paths hidden from bots: $HOME, ./results, and those registered with :func:`keep_private`."""
    home = os.environ.get("HOME") or str(Path.home())
    return sorted({os.path.realpath(home), os.path.realpath("results"), *_PRIVATE} - {"/"})  # never all of /


def _interpreter(program: str) -> bool:
    """Whether a program given with a slash is an installed tool (in a ``bin`` directory, or one on
    PATH, or this interpreter) rather than the bot itself."""
    d = os.path.dirname(os.path.abspath(program))
    on_path = {os.path.abspath(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p}
    return program == sys.executable or os.path.basename(d) in ("bin", "sbin") or d in on_path


def bot_dirs(argv: Sequence[str], cwd: str | None = None) -> list[str]:
    """The bot's own directory: that of the program when written with a slash and not an installed
    interpreter (see :func:`_interpreter`), else that of the first argument naming an existing path
    relative to ``cwd`` (the script an interpreter runs); as given and as real path."""
    base = os.path.abspath(cwd or ".")
    candidates = [argv[0]] if "/" in argv[0] and not _interpreter(argv[0]) else []
    # skip options, and an interpreter named by path (``env X=1 /venv/bin/python bot.py``: the bot is bot.py)
    candidates += [a for a in argv[1:] if not a.startswith("-") and not ("/" in a and _interpreter(a))]
    for arg in candidates:
        path = os.path.join(base, arg)
        if os.path.exists(path):
            found: list[str] = []
            for p in (os.path.abspath(path), os.path.realpath(path)):
                d = p if os.path.isdir(p) else os.path.dirname(p)
                if d not in found and d != "/":
                    found.append(d)
            return found
    return []


def register_bot(argv: Sequence[str], cwd: str | None = None) -> None:
    """Remember a bot command's directories: they are hidden from every other sandboxed bot (never
    an installed tool's directory, see :func:`_interpreter`)."""
    _BOTS.update(d for d in bot_dirs(argv, cwd) if not _interpreter(os.path.join(d, "x")))


def install_roots(program: str) -> list[str]:
    """Where a program's installation lies: its directory, or ``prefix`` for ``prefix/bin/prog``;
    for the path as given and for its real path (a venv's ``python`` is a symlink)."""
    roots: list[str] = []
    for p in (os.path.abspath(program), os.path.realpath(program)):
        d = os.path.dirname(p)
        root = os.path.dirname(d) if os.path.basename(d) in ("bin", "sbin") else d
        if root not in roots:
            roots.append(root)
    return roots


@cache
def probe() -> tuple[str | None, str]:
    """A working bubblewrap (its path, "") or (None, why not), checked once per process."""
    if not sys.platform.startswith("linux"):
        return None, f"bubblewrap is Linux-only (this is {sys.platform})"
    found = [c for c in CANDIDATES if os.access(c, os.X_OK)] or [w for w in [shutil.which("bwrap")] if w]
    if not found:
        return None, "bubblewrap is not installed (no /usr/bin/bwrap, no bwrap on PATH)"
    argv = [found[0], *BASE, "--", "true"]
    try:
        run = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"{found[0]} does not run: {e}"
    if run.returncode != 0:
        last = (run.stderr.decode("utf-8", "replace").strip().splitlines() or [f"status {run.returncode}"])[-1]
        return None, f"{found[0]} cannot make a sandbox here: {last[:200]}"
    return found[0], ""


def resolve(choice: str) -> str:
    """``bwrap`` or ``none`` for a ``[limits] sandbox`` choice. ``auto`` is bwrap where it works;
    where it does not, one line on stderr says so (once) and bots run unsandboxed."""
    if choice not in CHOICES:
        raise ValueError(f"sandbox must be one of {', '.join(CHOICES)}, not {choice!r}")
    if choice != "auto":
        return choice
    path, why = probe()
    if path is not None:
        return "bwrap"
    if not _warned:
        _warned.append(why)
        print(f"arena: sandbox off: {why}; spawned bots run unsandboxed "
              '(install bubblewrap, or set [limits] sandbox = "none" to silence this)', file=sys.stderr)
    return "none"


# Namespaces, no capabilities, a read-only root, fresh /dev, /proc (of the new PID namespace) and /tmp.
BASE = ("--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--tmpfs", "/tmp")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def shebang(program: str, cwd: str) -> list[str]:
    """The interpreter named on a script's ``#!`` line (and, for ``#!/usr/bin/env NAME``, NAME on PATH),
    so that its installation is visible too; [] for anything else."""
    try:
        with open(os.path.join(cwd, program), "rb") as f:
            line = f.readline(512)
    except OSError:
        return []
    words = line[2:].decode("utf-8", "replace").split() if line.startswith(b"#!") else []
    if not words:
        return []
    if os.path.basename(words[0]) == "env":
        name = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), None)
        found = shutil.which(name) if name else None
        return [words[0], *([found] if found else [])]
    return [words[0]]


def command(argv: Sequence[str], *, cwd: str | None, socket: str | None, info_fd: int | None = None) -> list[str]:
    """``argv`` behind bubblewrap as described in this module; ``socket`` is the host path of the
    arena's unix socket (None: none), ``info_fd`` a descriptor bwrap writes its JSON (child pid) to."""
    path, why = probe()
    if path is None:
        raise OSError(f"sandbox 'bwrap' is not available: {why}")
    workdir = os.path.realpath(cwd or ".")
    program = argv[0] if "/" in argv[0] else (shutil.which(argv[0]) or argv[0])
    own = bot_dirs(argv, workdir)
    private = private_paths()
    others = [d for d in _BOTS if d not in own and not _within(workdir, d) and not any(_within(o, d) for o in own)]
    # (path, rank, kind): deeper paths go later; at one path: other bots' dirs, then exposures, then private
    ops: list[tuple[str, int, str]] = [("/tmp", 0, "scratch"), ("/run", 0, "hide")]
    ops += [(d, 0, "hide") for d in others]
    # the interpreter's installation: the program's, and that of an interpreter named by path in the
    # arguments (``env X=1 /venv/bin/python bot.py``)
    tools = [program, *(a for a in argv[1:] if "/" in a and not a.startswith("-") and _interpreter(a)),
             *shebang(program, workdir)]  # a script run directly: its #! interpreter's installation too
    roots = [r for t in tools for r in install_roots(t)]
    ops += [(d, 1, "show") for d in [*roots, *own, workdir, HARNESS] if os.path.isdir(d)]
    ops += [(p, 2, "hide") for p in private]
    ops.sort(key=lambda o: (o[0].rstrip("/").count("/") if o[0] != "/" else 0, o[1]))
    args = [path, *BASE]
    hides: list[str] = ["/tmp"]
    for p, _, kind in ops:
        if kind == "scratch" or (kind != "show" and not os.path.exists(p)):
            continue
        if kind == "show":
            if any(_within(p, h) for h in hides):  # else it is visible already
                args += ["--ro-bind", p, p]
            continue
        if kind == "hide" and os.path.isdir(p):
            args += ["--tmpfs", p]
            hides.append(p)
        elif kind == "hide":
            args += ["--ro-bind", "/dev/null", p]
        if p == "/run" and socket is not None:
            args += ["--ro-bind", socket, INSIDE_SOCKET]
    for h in hides:
        if h != "/tmp":
            args += ["--remount-ro", h]
    args += ["--chdir", workdir]
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    return [*args, "--", program, *argv[1:]]


def parse_info(data: bytes) -> int | None:
    """The sandbox's init pid (host view) from bwrap's ``--info-fd`` JSON, or None if incomplete."""
    try:
        return int(json.loads(data.decode("utf-8", "replace"))["child-pid"])
    except (ValueError, KeyError, TypeError):
        return None


def signal_of(code: int | None) -> int | None:
    """A sandboxed exit status as asyncio reports it: bwrap exits 128+N when the bot died of signal
    N (like a shell), which is reported as -N."""
    if code is not None and 128 < code < 128 + 65:
        return -(code - 128)
    return code
