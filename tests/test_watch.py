"""The shared watch over spawned bots (issue 18, harness/arena/watch.py): one census per tick for every bot,
trees kept from census to census, and the same verdicts as a bot's own scan (tests/test_adversaries.py
holds the fork bombs, with and without setsid, to the process limit)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from harness.arena import limits, watch
from harness.arena.limits import Limits
from harness.arena.process import BotProcess

pytestmark = pytest.mark.skipif(not limits.PROC_CHILDREN, reason="the census reads Linux's /proc")

# A leader that starts a child, which starts a grandchild in a session of its own: the grandchild has left
# the group. The child exits when the leader's stdin says so, and then the grandchild's parent is gone.
ESCAPE = textwrap.dedent("""
    import subprocess, sys, time
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    code = ("import subprocess, sys; p = subprocess.Popen(%r, start_new_session=True); "
            "print(p.pid, flush=True); sys.stdin.readline()") % (sleeper,)
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    print(child.stdout.readline().strip(), flush=True)
    sys.stdin.readline()
    child.stdin.write("go\\n")
    child.stdin.flush()
    child.wait()
    print("gone", flush=True)
    time.sleep(60)
""")


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_descendant_that_left_the_group_stays_counted_after_its_parent_died() -> None:
    census = watch.Census()
    census.take()  # the machine before the bot: everything of the bot is a newcomer below
    leader = subprocess.Popen([sys.executable, "-c", ESCAPE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, start_new_session=True)
    escaped = -1
    try:
        assert leader.stdin is not None and leader.stdout is not None
        escaped = int(leader.stdout.readline())
        snap = census.take()
        assert snap.groups[escaped] != leader.pid  # not in the group: only the tree finds it
        known = watch.tree(snap, leader.pid, set(), seeded=True)  # newcomers, by their parents
        assert escaped in known and len(known) == 3
        assert watch.tree(snap, leader.pid, set(), seeded=False) == known  # the same by walking /proc
        leader.stdin.write("go\n")
        leader.stdin.flush()
        assert leader.stdout.readline().strip() == "gone"
        known = watch.tree(census.take(), leader.pid, known, seeded=True)
        assert known == {leader.pid, escaped}  # the child is gone; its orphan is still the bot's
        assert escaped not in (limits.proc_descendants(leader.pid) or [])  # which no walk from the leader finds
        assert watch.usage(known, frozenset(), times=False, limit=None) == (2, 0.0)
        assert watch.usage(known, frozenset({leader.pid}), times=False, limit=None) == (1, 0.0)
    finally:
        _kill([leader.pid, escaped])
        leader.wait()


def test_usage_tells_zombies_apart_when_it_matters() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import subprocess, os, time; z = subprocess.Popen(['true']); "
                             "os.waitid(os.P_PID, z.pid, os.WEXITED | os.WNOWAIT); print(z.pid, flush=True); "
                             "sum(range(3 * 10**6)); time.sleep(60)"], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout is not None
        zombie = int(proc.stdout.readline())
        members = watch.tree(watch.Census().take(), proc.pid, set(), False)
        assert members == {proc.pid, zombie}
        assert watch.usage(members, frozenset(), times=False, limit=None) == (2, 0.0)  # not asked: not read
        assert watch.usage(members, frozenset(), times=False, limit=1)[0] == 1  # over the limit: the zombie is not live
        live, cpu = watch.usage(members, frozenset(), times=True, limit=None)
        assert live == 1 and cpu > 0
        assert watch.usage(members, frozenset({proc.pid}), times=False, limit=None) == (1, 0.0)
    finally:
        proc.kill()
        proc.wait()


def test_one_census_per_tick_serves_every_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight bots on a 20 ms poll: a bot's own scan would be eight censuses per interval."""
    takes = []
    real = watch.Census.take

    def counted(self: watch.Census) -> watch.Snapshot:
        takes.append(time.monotonic())
        return real(self)

    monkeypatch.setattr(watch.Census, "take", counted)

    quiet = tmp_path / "quiet.py"
    quiet.write_text("import time\ntime.sleep(30)\n")
    bomb_py = tmp_path / "bomb.py"
    bomb_py.write_text("import os, time\nfor _ in range(5):\n    if os.fork() == 0:\n        break\ntime.sleep(30)\n")

    async def main() -> tuple[float, list[str | None]]:
        lim = Limits(poll_s=0.02, processes=4, sandbox="none")
        bots = [BotProcess(f"python {quiet}", {}, limits=lim) for _ in range(7)]
        bomb = BotProcess(f"python {bomb_py}", {}, limits=lim)  # six processes: over the limit of 4
        for b in (*bots, bomb):
            await b.start()
        t0 = time.monotonic()
        while bomb.killed_for is None and time.monotonic() - t0 < 60:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        elapsed = time.monotonic() - t0
        verdicts = [b.killed_for for b in bots]
        await asyncio.gather(*(b.stop(1.0) for b in (*bots, bomb)))
        assert bomb.killed_for is not None and bomb.killed_for.startswith("process limit:"), bomb.killed_for
        return elapsed, verdicts

    started = time.monotonic()
    elapsed, verdicts = asyncio.run(main())
    assert verdicts == [None] * 7  # the quiet bots were judged on their own trees
    window = [t for t in takes if t >= started + 0]  # every census of the run
    total = time.monotonic() - started
    assert 1 <= len(window) <= total / 0.02 + 2  # at most one per interval (a loaded machine ticks less often)
