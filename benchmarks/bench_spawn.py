"""What starting a bot costs: a spawned command through the launcher, with and without the sandbox.

    python benchmarks/bench_spawn.py [--runs 30] [--command "python -S -c pass"]

Each run starts the command as the arena does (harness.arena.process.BotProcess: the supervising
launcher, its process group, limits, bubblewrap or not) and waits for it to end; the runs alternate
between the modes so that load drifts hit both. Prints the median and p90 wall time per mode, and
the plain ``subprocess`` start of the same command as the floor.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.arena import sandbox  # noqa: E402
from harness.arena.limits import Limits  # noqa: E402
from harness.arena.process import BotProcess, argv_of  # noqa: E402


async def once(command: str, limits: Limits | None) -> float:
    t0 = time.perf_counter()
    proc = BotProcess(command, env={}, cwd=str(ROOT), limits=limits)
    await proc.start()
    await proc.wait_exit(60.0)
    return time.perf_counter() - t0


def plain(command: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv_of(command), cwd=ROOT, check=False)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30, help="runs per mode (default 30)")
    ap.add_argument("--command", default="python -S -c pass", help="the command (default: python -S -c pass)")
    args = ap.parse_args()
    modes: dict[str, Limits | None] = {"launcher, no sandbox": replace(Limits(), sandbox="none")}
    if sandbox.probe()[0] is not None:
        modes["launcher, bwrap sandbox"] = replace(Limits(), sandbox="bwrap")
    times: dict[str, list[float]] = {"plain subprocess": [], **{m: [] for m in modes}}
    for _ in range(args.runs):
        times["plain subprocess"].append(plain(args.command))
        for name, limits in modes.items():
            times[name].append(asyncio.run(once(args.command, limits)))
    for name, ts in times.items():
        ts.sort()
        print(f"{name:26} median {statistics.median(ts) * 1000:6.1f} ms   p90 {ts[int(0.9 * (len(ts) - 1))] * 1000:6.1f} ms"
              f"   ({len(ts)} runs of {args.command!r})")


if __name__ == "__main__":
    main()
