"""The watchdog's cheap scan of a bot's processes straight from /proc (issue 18) finds what psutil finds:
the group, descendants that left it with setsid, zombies, and the same CPU times."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from harness.arena import limits

TREE = textwrap.dedent("""
    import os, subprocess, sys, time
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    child = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; subprocess.Popen(%r); "
                              "print('child', flush=True); time.sleep(60)" % (sleeper,)])
    zombie = subprocess.Popen(["true"])
    away = subprocess.Popen(sleeper, start_new_session=True)  # a descendant outside the group
    sum(range(3 * 10**6))  # some CPU time to compare
    os.waitid(os.P_PID, zombie.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: a zombie
    print("parent", flush=True)
    time.sleep(60)
""")


@pytest.mark.skipif(not limits.PROC_CHILDREN, reason="needs Linux with /proc/PID/task/TID/children")
def test_the_proc_scan_matches_psutil(monkeypatch: pytest.MonkeyPatch) -> None:
    proc = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, start_new_session=True, text=True)
    try:
        assert proc.stdout is not None
        assert {proc.stdout.readline().strip(), proc.stdout.readline().strip()} == {"child", "parent"}
        fast = limits.group_stats(proc.pid)
        monkeypatch.setattr(limits, "PROC_CHILDREN", False)
        slow = limits.group_stats(proc.pid)
        monkeypatch.setattr(limits, "PROC_CHILDREN", True)
        fast_again = limits.group_stats(proc.pid)
    finally:
        for pid in [p for p, *_ in limits.group_stats(proc.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()
    assert [(pid, z) for pid, z, _ in fast] == [(pid, z) for pid, z, _ in slow] == [(pid, z) for pid, z, _ in fast_again]
    assert len(fast) == 5  # the script, its child and grandchild, the zombie, the setsid sleeper
    assert sum(z for _, z, _ in fast) == 1
    for (_, _, a), (_, _, b), (_, _, c) in zip(fast, slow, fast_again):
        assert a <= b <= c  # CPU times only grow, and both read the same counters
    assert fast[0][2] > 0  # the script's own CPU time is counted


def test_group_members_leaves_out_zombies_and_reports_no_times() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        stats = limits.group_stats(proc.pid, times=False)
        assert [(pid, z, t) for pid, z, t in stats] == [(proc.pid, False, 0.0)]
    finally:
        proc.kill()
        proc.wait()
    assert limits.group_stats(proc.pid) == []
