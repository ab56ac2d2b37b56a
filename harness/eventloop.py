"""The event loop every command runs on: uvloop where it is installed, else asyncio's own.

The arena's work per decision is mostly event-loop plumbing around gRPC (issue 18): on uvloop the
arena process spends about 15% less CPU per decision (``benchmarks/bench_match.py``). Set
``ARENA_EVENT_LOOP=asyncio`` to run on the standard loop instead (``uvloop`` to insist on it).

uvloop starts bots with ``fork()``; gRPC's fork handlers would then run at every launch, so
:mod:`harness` turns them off before gRPC starts (nothing in the arena forks with gRPC in use).
Processes are started with :func:`spawn`, which keeps the garbage collector out of the fork.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
CHOICES = ("auto", "uvloop", "asyncio")


def factory(choice: str | None = None) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The loop factory for ``choice`` (default: ``ARENA_EVENT_LOOP``, else ``auto``); None means
    asyncio's default. ValueError names a bad choice, or uvloop when it was asked for and is missing.

    >>> factory("asyncio") is None
    True
    """
    choice = (choice or os.environ.get("ARENA_EVENT_LOOP") or "auto").strip().lower()
    if choice not in CHOICES:
        raise ValueError(f"ARENA_EVENT_LOOP must be one of {', '.join(CHOICES)}, not {choice!r}")
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise ValueError("ARENA_EVENT_LOOP=uvloop, but uvloop is not installed (pip install uvloop)") from None
        return None
    new_loop: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return new_loop


def name(loop: asyncio.AbstractEventLoop) -> str:
    """``uvloop`` or ``asyncio``: what a benchmark prints next to its figures."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"


def run(main: Coroutine[Any, Any, T], choice: str | None = None) -> T:
    """Run ``main`` to completion on a new loop of the chosen kind, like :func:`asyncio.run`."""
    with asyncio.Runner(loop_factory=factory(choice)) as runner:
        return runner.run(main)


_paused = 0  # spawns in progress, on any loop of this process
_was_enabled = True  # whether the collector ran before the first of them paused it
_pause_lock = threading.Lock()


async def spawn(program: str, *args: str, **kwargs: Any) -> asyncio.subprocess.Process:
    """:func:`asyncio.create_subprocess_exec`, with Python's garbage collector paused until the
    process has started.

    uvloop forks and then, in the child, runs Python's after-fork handlers before the exec. A
    collection triggered there can finalize a gRPC object left in a reference cycle (a stopped aio
    server, say): its shutdown waits, in a loop, for gRPC's poller thread, which the child does not
    have. The child then spins at full CPU and never execs, and uvloop's spawn, which waits for the
    exec, blocks the parent's event loop with it (seen in ``bench_tournament.py``; reproduced by
    tests/test_eventloop.py). With the collector paused the child cannot collect before its exec.
    Spawns that overlap (several loops, or tasks of one) keep it paused until the last one is done."""
    global _paused, _was_enabled
    with _pause_lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        return await asyncio.create_subprocess_exec(program, *args, **kwargs)
    finally:
        with _pause_lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()
