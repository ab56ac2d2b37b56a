"""The bubblewrap sandbox of spawned bots (issue 11), with real bot processes over real gRPC.

Tests that need bubblewrap skip, saying why, where it does not work; the adversaries that try to
break out are in tests/test_adversaries.py (19..26). Here: the sample bots run unchanged inside, a bot
under /tmp runs, the same attempts succeed without the sandbox (so those tests can fail), a bot that
timed out gets a fresh process, and the settings.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import sys
import signal
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from arena_util import ROOT, bot
from harness.arena import Arena, Cause, Clock, Entrant, MatchResult, play_match, sandbox
from harness.arena.limits import Limits
from harness.arena.process import BotLog, BotProcess, group_members
from harness.tournament.config import ConfigError, limits_of
from test_adversaries import ADVERSARY, TEST_LIMITS, marked, run, secret_db

needs_sandbox = pytest.mark.needs("sandbox")
NODE_BOT = ROOT / "sample_bots" / "node" / "bot.js"
UNSANDBOXED = replace(TEST_LIMITS, sandbox="none")


def namespaces(proc: BotProcess) -> set[tuple[str, str]]:
    """(pid, net) namespaces of the bot's own processes (not bubblewrap's), seen from the host."""
    assert proc.pid is not None
    found = set()
    for pid in group_members(proc.pid, tree=True):
        if pid in proc.overhead:
            continue
        try:
            found.add((os.readlink(f"/proc/{pid}/ns/pid"), os.readlink(f"/proc/{pid}/ns/net")))
        except OSError:
            continue
    return found


async def duel(a: str, b: str, limits: Limits = Limits(), cwd: str | None = None) -> tuple[object, list[set]]:
    arena = Arena()
    await arena.start()
    e1 = Entrant("a", a, arena=arena, limits=limits, cwd=cwd)
    e2 = Entrant("b", b, arena=arena, limits=limits, cwd=cwd)
    try:
        r = await play_match((e1, e2), match_id="m", seed=7, clock=Clock(move_ms=5000, bank_ms=20000))
        spaces = [namespaces(e.process) for e in (e1, e2) if e.process is not None]
    finally:
        await asyncio.gather(e1.stop(), e2.stop())
        await arena.stop()
    return r, spaces


@needs_sandbox
@pytest.mark.parametrize("a,b", [
    ("python sample_bots/greedy_bot.py", "python sample_bots/random_bot.py"),
    pytest.param("python sample_bots/greedy_bot.py", f"node {NODE_BOT}",
                 marks=pytest.mark.needs("node-bot")),
])
def test_the_sample_bots_play_unchanged_in_the_sandbox(a: str, b: str) -> None:
    r, spaces = asyncio.run(duel(a, b))
    assert r.cause is Cause.NORMAL and r.winner is not None, r  # type: ignore[attr-defined]
    ours = (os.readlink("/proc/self/ns/pid"), os.readlink("/proc/self/ns/net"))
    assert all(s and ours not in s for s in spaces), spaces  # each bot in its own PID and network namespace
    assert spaces[0].isdisjoint(spaces[1])  # and not in the other's


@needs_sandbox
def test_a_bot_whose_files_lie_under_tmp_runs(tmp_path: Path) -> None:
    home = tmp_path / "mybot"
    shutil.copytree(ROOT / "sample_bots", home / "sample_bots", ignore=shutil.ignore_patterns("node"))
    r, _ = asyncio.run(duel(f"python {home / 'sample_bots' / 'random_bot.py'}", bot("random")))
    assert r.cause is Cause.NORMAL, r  # type: ignore[attr-defined]


@needs_sandbox
@pytest.mark.parametrize("line", ["#!{python}", "#!/usr/bin/env {python}"])
def test_a_script_run_by_its_shebang_from_a_relative_path_runs(tmp_path: Path, line: str) -> None:
    """``./bots/mine`` whose ``#!`` names an interpreter installed under the hidden $HOME (this venv's
    python links there): its installation is shown, like that of an interpreter named in the command."""
    (tmp_path / "bots").mkdir()
    mine = tmp_path / "bots" / "mine"
    mine.write_text(line.format(python=sys.executable) + "\n" + (ROOT / "sample_bots" / "random_bot.py").read_text())
    mine.chmod(0o755)
    r, _ = asyncio.run(duel("./bots/mine", bot("random"), cwd=str(tmp_path)))
    assert r.cause is Cause.NORMAL, r  # type: ignore[attr-defined]


GRACEFUL = """import signal, sys, time
def bye(*_):
    time.sleep(0.2)  # some saving, inside the grace period
    sys.stderr.write("saved and gone\\n")
    sys.stderr.flush()
    sys.exit(0)
signal.signal(signal.SIGTERM, bye)
sys.stderr.write("ready\\n")
sys.stderr.flush()
while True:
    time.sleep(1)
"""


@needs_sandbox
@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_stopped_bot_gets_its_sigterm_grace_in_the_sandbox_too(tmp_path: Path, sandboxed: bool) -> None:
    script = tmp_path / "graceful.py"
    script.write_text(GRACEFUL)
    log = BotLog(tmp_path / "graceful.log")

    async def main() -> BotProcess:
        limits = Limits() if sandboxed else UNSANDBOXED
        p = BotProcess(f"python {script}", {}, limits=limits, log=log)
        await p.start()
        for _ in range(6000):  # until it says ready (event-based, generous)
            if "err| ready" in (tmp_path / "graceful.log").read_text(errors="replace"):
                break
            await asyncio.sleep(0.01)
        while sandboxed and len(p.overhead) < 2:  # bubblewrap has reported its init
            await asyncio.sleep(0.01)
        await p.stop(grace=60.0)
        return p

    p = asyncio.run(main())
    text = (tmp_path / "graceful.log").read_text(errors="replace")
    assert "err| saved and gone" in text, text
    assert p.returncode == 0, p.returncode  # it left by itself, not by the SIGKILL after the grace


# -- without the sandbox the same attempts work: the adversary tests can fail -----------------------


@pytest.mark.parametrize("what", ["readfile", "readbot", "tcp", "writefile"])
def test_unsandboxed_the_breakouts_succeed(tmp_path: Path, what: str) -> None:
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    db = secret_db(tmp_path / "db" / "arena.db")
    sandbox.keep_private(db.parent)  # does nothing without the sandbox
    target = tmp_path / f"pwned-{secrets.token_hex(4)}"
    arg = {"readfile": str(db), "readbot": str(ROOT / "tests" / "bots" / "testbot.py"),
           "tcp": str(listener.getsockname()[1]), "writefile": str(target)}[what]
    try:
        r = run(tmp_path, f"{ADVERSARY} {'readfile' if what == 'readbot' else what} {arg}", limits=UNSANDBOXED)
    finally:
        listener.close()
    assert r.adv.cause is Cause.CRASH and "exited with status 66; stderr: BREACH:" in r.adv.detail, r.adv.detail


def test_unsandboxed_a_setsid_child_escapes(tmp_path: Path) -> None:
    mark = f"adv-setsid-{secrets.token_hex(6)}"
    r = run(tmp_path, f"{ADVERSARY} setsid {mark}", limits=UNSANDBOXED)
    escaped = marked(mark)
    for pid in escaped:
        os.kill(pid, signal.SIGKILL)
    assert r.adv.cause is Cause.CRASH and escaped  # what only the sandbox prevents


# -- a bot that times out is not reused ----------------------------------------------------------


def test_a_bot_that_timed_out_gets_a_fresh_process_for_its_next_match() -> None:
    async def go() -> tuple[list[MatchResult], list[int], list[int]]:
        arena = Arena()
        await arena.start()
        slow = Entrant("slow", bot("sleep 5 3"), arena=arena, stop_grace_s=0.2)
        fair = Entrant("fair", bot("random"), arena=arena)
        results: list[MatchResult] = []
        pids: list[int] = []
        try:
            for k in range(2):
                r = await play_match((fair, slow), match_id=f"m{k}", seed=k,
                                     clock=Clock(move_ms=200, bank_ms=200, grace_ms=10))
                results.append(r)
                assert slow.process is not None and slow.process.pid is not None
                pids.append(slow.process.pid)
            await asyncio.sleep(0)
            await asyncio.gather(*slow._retiring)
            left = group_members(pids[0])
        finally:
            await asyncio.gather(slow.stop(), fair.stop())
            await arena.stop()
        return results, pids, left

    results, pids, left = asyncio.run(go())
    assert [(r.cause, r.offender) for r in results] == [(Cause.TIMEOUT, 1)] * 2
    assert pids[0] != pids[1]  # the second match was played by a new process
    assert left == []  # and the first one is gone


# -- settings ---------------------------------------------------------------------------------------


def test_the_sandbox_setting() -> None:
    assert limits_of({"sandbox": "none"}).sandbox == "none"
    assert limits_of({"sandbox": "bwrap"}).sandbox == "bwrap"
    assert limits_of({}).sandbox == "auto" and "sandbox" not in limits_of({}).to_dict()  # as stored before
    for bad in ("docker", 1, True, ""):
        with pytest.raises(ConfigError, match=r"^bad limit sandbox .* \(expected one of: bwrap, none\)$"):
            limits_of({"sandbox": bad})
    with pytest.raises(ValueError, match="limit sandbox"):
        Limits(sandbox="chroot")


def test_without_bubblewrap_auto_says_so_once_and_bwrap_refuses(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sandbox, "CANDIDATES", ("/nonexistent/bwrap",))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(sandbox, "_warned", [])
    sandbox.probe.cache_clear()
    try:
        assert sandbox.resolve("auto") == "none" and sandbox.resolve("auto") == "none"
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith("arena: sandbox off: bubblewrap is not installed"), err

        async def start() -> object:
            arena = Arena()
            await arena.start()
            try:
                return await Entrant("x", bot("random"), arena=arena, limits=Limits(sandbox="bwrap")).ensure()
            finally:
                await arena.stop()

        fault = asyncio.run(start())
        assert fault.cause is Cause.NO_HELLO and "sandbox 'bwrap' is not available" in fault.detail  # type: ignore[attr-defined]
    finally:
        sandbox.probe.cache_clear()


def test_the_arena_listens_for_spawned_bots_on_a_private_unix_socket() -> None:
    async def go() -> tuple[str | None, str | None, bool]:
        arena = Arena()
        address = await arena.start("127.0.0.1:0")
        local = arena.local_address
        assert local is not None and local.startswith("unix:")
        sock_dir = os.path.dirname(local[len("unix:"):])
        mode = stat.S_IMODE(os.stat(sock_dir).st_mode)
        assert mode == 0o700, oct(mode)  # nobody else on the machine connects there
        await arena.stop()
        return address, local, os.path.exists(sock_dir)

    address, local, still_there = asyncio.run(go())
    assert address is not None and address.startswith("127.0.0.1:") and not still_there
