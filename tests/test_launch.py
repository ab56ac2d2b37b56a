"""The launcher (harness/arena/launch.py) as the supervisor of a sandboxed bot (issue 11), with real
processes: when the arena dies, even by SIGKILL, the whole process group of the bot dies with it,
including members that never asked to die with their parent (like bubblewrap's namespace init in the
moment after it is cloned); the supervisor ends as its command ended; nothing starts for a dead arena.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.arena.limits import LAUNCHER

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")


def _marked(mark: str) -> list[int]:
    """Live processes that carry ``mark`` in their environment."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if mark.encode() in (d / "environ").read_bytes() and b"State:\tZ" not in (d / "status").read_bytes():
                    found.append(int(d.name))
            except OSError:
                pass
    return found


def _wait(predicate: Callable[[], object], what: str, limit: float = 60.0) -> None:
    end = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < end, what
        time.sleep(0.05)


# A stand-in for the arena: starts the launcher with --parent=itself in a new session (as
# process.BotProcess does), prints the launcher's pid, then sleeps until it is killed.
ARENA = """
import os, subprocess, sys, time
p = subprocess.Popen([sys.executable, "-I", "-S", sys.argv[1], f"--parent={os.getpid()}", "--", *sys.argv[2:]],
                     start_new_session=True)
print(p.pid, flush=True)
time.sleep(3600)
"""


def test_the_whole_group_dies_with_a_sigkilled_arena(tmp_path: Path) -> None:
    """``sh`` forks a child that has no parent-death signal (fork clears it) and stays in the group:
    an exec'ing launcher left that child behind when the arena was SIGKILLed; the supervisor kills it."""
    mark = f"LAUNCH_TEST_{secrets.token_hex(4)}"
    ready = tmp_path / "ready"
    command = ["sh", "-c", f"sleep 3600 & touch {ready}; wait"]
    arena = subprocess.Popen([sys.executable, "-c", ARENA, str(LAUNCHER), *command],
                             env={**os.environ, "LAUNCH_MARK": mark}, stdout=subprocess.PIPE, text=True)
    try:
        assert arena.stdout is not None
        assert int(arena.stdout.readline()) > 0  # the launcher runs
        _wait(ready.exists, "the command never started")
        assert len(_marked(mark)) >= 4  # arena, launcher, sh, sleep
        arena.kill()
        arena.wait()
        _wait(lambda: not _marked(mark), f"left behind: {_marked(mark)}")  # zombies aside: not ours to reap
    finally:
        arena.kill()
        for pid in _marked(mark):
            os.kill(pid, signal.SIGKILL)


# A command that forks a member of its group deaf to SIGTERM (as bubblewrap's namespace init is, while
# it waits to be released), then waits: SIGTERM to the group ends the command but not that member.
DEAF = """
import os, signal, sys, time
if os.fork() == 0:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    open(sys.argv[1], "w").close()
    time.sleep(3600)
    os._exit(0)
time.sleep(3600)
"""


@pytest.mark.parametrize("end_group", [True, False])
def test_what_a_sandboxed_command_left_in_the_group_ends_with_it(tmp_path: Path, end_group: bool) -> None:
    """The arena stops a bot with SIGTERM to its group and, after a grace, SIGKILL; an arena killed in
    between (the CI failure of tests/test_crash_safety.py: a bubblewrap init left waiting for its dead
    parent) must not leave the deaf member behind: with ``--end-group=1`` (sandboxed bots) the
    supervisor kills it when its command ends. Without it the member is left for the arena to see (a
    stray, for ``arena check-bot``) and kill."""
    mark = f"LAUNCH_TEST_{secrets.token_hex(4)}"
    ready = tmp_path / "ready"
    stand_in = ARENA.replace('f"--parent={os.getpid()}"', 'f"--parent={os.getpid()}", "--end-group=1"') if end_group else ARENA
    assert ("--end-group=1" in stand_in) == end_group
    arena = subprocess.Popen([sys.executable, "-c", stand_in, str(LAUNCHER), sys.executable, "-c", DEAF, str(ready)],
                             env={**os.environ, "LAUNCH_MARK": mark}, stdout=subprocess.PIPE, text=True)
    try:
        assert arena.stdout is not None
        launcher = int(arena.stdout.readline())
        _wait(ready.exists, "the command never started")
        assert len(_marked(mark)) >= 4  # arena, launcher, command, the deaf member
        os.killpg(launcher, signal.SIGTERM)  # what BotProcess.stop sends first
        if not end_group:
            _wait(lambda: not _alive(launcher), "the supervisor outlived its command")
            assert len(_marked(mark)) == 2  # the arena and the deaf member, in the group still
            os.killpg(launcher, signal.SIGKILL)  # what the arena does after the grace
        _wait(lambda: _marked(mark) == [arena.pid], f"left behind: {set(_marked(mark)) - {arena.pid}}")
        arena.kill()  # the arena dies before its SIGKILL: nothing of the bot may be waiting for it
        arena.wait()
        assert not _marked(mark)
    finally:
        arena.kill()
        for pid in _marked(mark):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        return b"State:\tZ" not in Path(f"/proc/{pid}/status").read_bytes()
    except OSError:
        return False


def _launch(*command: str, parent: int | None = None) -> subprocess.CompletedProcess[bytes]:
    opts = [f"--parent={os.getpid() if parent is None else parent}"]
    return subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), *opts, "--", *command],
                          capture_output=True, timeout=120)


def test_the_supervisor_ends_as_its_command_did() -> None:
    assert _launch("sh", "-c", "exit 3").returncode == 3
    assert _launch("sh", "-c", "kill -TERM $$").returncode == -signal.SIGTERM
    assert _launch("sh", "-c", "kill -KILL $$").returncode == -signal.SIGKILL
    run = _launch("sh", "-c", "echo out; echo err >&2")
    assert (run.returncode, run.stdout, run.stderr) == (0, b"out\n", b"err\n")


def test_a_missing_program_is_127_with_one_line() -> None:
    run = _launch("/nonexistent/bot")
    assert run.returncode == 127
    assert run.stderr.decode().strip() == "launch: cannot run '/nonexistent/bot': No such file or directory"


def test_nothing_starts_when_the_arena_is_gone(tmp_path: Path) -> None:
    """``--parent`` names a process that is not the launcher's parent (the arena died and the
    launcher was adopted): it starts nothing and exits 125."""
    flag = tmp_path / "ran"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    run = _launch("touch", str(flag), parent=gone.pid)
    assert run.returncode == 125
    assert not flag.exists()


def test_signals_sent_to_the_group_do_not_orphan_the_command(tmp_path: Path) -> None:
    """SIGTERM to the group reaches the command (default action restored by exec); the supervisor
    outlives it and reports its death by that signal."""
    ready = tmp_path / "ready"
    p = subprocess.Popen([sys.executable, "-I", "-S", str(LAUNCHER), f"--parent={os.getpid()}", "--",
                          "sh", "-c", f"touch {ready}; exec sleep 3600"], start_new_session=True)
    try:
        _wait(ready.exists, "the command never started")
        _wait(lambda: _children_named(p.pid, b"sleep"), "sleep never ran")
        os.killpg(p.pid, signal.SIGTERM)
        assert p.wait(timeout=60) == -signal.SIGTERM
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _children_named(pid: int, name: bytes) -> bool:
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return any((Path("/proc") / k / "comm").read_bytes().strip() == name for k in kids)
    except OSError:
        return False


@pytest.mark.parametrize("box", ["none", pytest.param("bwrap", marks=pytest.mark.needs("sandbox"))])
def test_a_sigkilled_tournament_leaves_no_bot_that_had_not_connected(tmp_path: Path, box: str) -> None:
    """End to end: `arena tournament` with a bot that never dials the arena (and ignores SIGTERM) is
    SIGKILLed while it waits for its Hello; with and without the sandbox nothing of it survives."""
    root = Path(__file__).resolve().parents[1]
    mark = f"LAUNCH_TEST_{secrets.token_hex(4)}"
    adversary = f"python {root / 'tests' / 'adversaries' / 'adversary.py'} noconnect"
    arena = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "tournament", "--name", "t", "--seed", "1", "--hello-time", "600",
         "--limit", f"sandbox={box}", "--db", str(tmp_path / "arena.db"), "--out", str(tmp_path),
         "--bot", f"silent={adversary}", "--bot", "random=python sample_bots/random_bot.py"],
        cwd=root, env={**os.environ, "LAUNCH_MARK": mark}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def adversary_runs() -> bool:  # the bot itself, not the launcher or bubblewrap naming it
            for pid in _marked(mark):
                try:
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if any(a.endswith(b"adversary.py") for a in argv) and not any(
                        a.endswith((b"launch.py", b"bwrap")) for a in argv):
                    return True
            return False
        _wait(adversary_runs, "the bot never started", 120)
        arena.kill()
        arena.wait()
        _wait(lambda: not _marked(mark), f"left behind: {_marked(mark)}")
    finally:
        arena.kill()
        for pid in _marked(mark):
            os.kill(pid, signal.SIGKILL)
