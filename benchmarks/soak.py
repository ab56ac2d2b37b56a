"""Soak: many matches between hostile bots and the sample bots; the arena must not leak.

Plays ``--matches`` (default 1,000) matches of a duplicate round robin at ``--concurrency`` (default 2)
with the real runner, real bot processes over gRPC on loopback and a real SQLite store, under
:class:`Limits` (1 GiB address space, 256 open files, 16 processes per bot). The entrants are the
sample random and greedy bots and adversaries from tests/adversaries/adversary.py: hang, slow,
illegal, garbage (undecodable action), wrongid, oversize, crash (exit), signal (SIGSEGV), forkexit
(children that ignore SIGTERM), flood, chatter (megabytes on stdout and stderr) and memhog (runs into
the address-space limit).

It prints, for the arena process (this one), open file descriptors and resident memory at the
start (before the arena server and any bot), after the first tenth of the matches (warm) and at the
end (after every bot was stopped), the bot processes left (by an environment mark), the matches
recorded, and the causes tally (overall and per offender). Bounds, each with PASS/FAIL:

    leftover processes == 0
    fd growth (start -> end) <= 10
    RSS growth (start -> end) <= 50 MB
    every match played is recorded once

Run:  .venv/bin/python benchmarks/soak.py [--matches 1000] [--concurrency 2] [--keep DIR]
Exit status 0 when every bound holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.arena.limits import GiB, Limits  # noqa: E402
from harness.arena.result import MatchResult  # noqa: E402
from harness.tournament import config as cfgmod  # noqa: E402
from harness.tournament import runner  # noqa: E402
from harness.tournament.schedule import Pairing, total  # noqa: E402
from harness.tournament.store import Store  # noqa: E402

ADVERSARY = f"python {ROOT / 'tests' / 'adversaries' / 'adversary.py'}"
ENTRANTS = {
    "random": f"python {ROOT / 'sample_bots' / 'random_bot.py'}",
    "greedy": f"python {ROOT / 'sample_bots' / 'greedy_bot.py'}",
    "hang": f"{ADVERSARY} hang",
    "slow": f"{ADVERSARY} slow 0.15",
    "illegal": f"{ADVERSARY} illegal",
    "garbage": f"{ADVERSARY} badaction text",
    "wrongid": f"{ADVERSARY} wrongid",
    "oversize": f"{ADVERSARY} oversize 100000",
    "crash": f"{ADVERSARY} exit",
    "signal": f"{ADVERSARY} signal",
    "forkexit": f"{ADVERSARY} forkexit",
    "flood": f"{ADVERSARY} flood",
    "chatter": f"{ADVERSARY} chatter --at=4",
    "memhog": f"{ADVERSARY} memhog",
}
LIMITS = Limits(address_space_bytes=1 * GiB, open_files=256, processes=16, poll_s=0.1)
FD_BOUND = 10
RSS_BOUND_MB = 50.0


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def marked(mark: str) -> list[int]:
    """Live processes carrying ``mark`` in their environment (every bot and its children)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            try:
                if mark.encode() in (d / "environ").read_bytes():
                    found.append(int(d.name))
            except OSError:
                pass
    return found


async def soak(matches: int, concurrency: int, out: Path) -> dict[str, Any]:
    """Play the matches; returns the measurements."""
    per_round = total(len(ENTRANTS), 1)
    cfg = cfgmod.from_flags([f"{n}={c}" for n, c in ENTRANTS.items()], name="soak",
                            rounds=math.ceil(matches / per_round), seed=66, concurrency=concurrency,
                            move_s=0.1, bank_s=0.3, db=str(out / "soak.db"), out=str(out))
    cfg = cfgmod.build(name=cfg.name, entrants=cfg.entrants, rounds=cfg.rounds, seed=cfg.seed,
                       concurrency=cfg.concurrency, move_s=cfg.move_s, bank_s=cfg.bank_s, rules=cfg.rules,
                       limits=LIMITS, db=cfg.db, out=cfg.out)
    start = {"fds": fds(), "rss": rss_mb()}
    store = Store(cfg.db)
    t = store.create(cfg.name, cfg.identity(), total(len(cfg.entrants), cfg.rounds),
                     [(e.name, e.label) for e in cfg.entrants])
    causes: Counter[str] = Counter()
    blamed: Counter[tuple[str, str]] = Counter()
    stop = asyncio.Event()
    warm: dict[str, float] = {}
    began = time.monotonic()

    def on_result(p: Pairing, r: MatchResult) -> None:
        causes[str(r.cause)] += 1
        if r.offender is not None:
            blamed[(r.players[r.offender], str(r.cause))] += 1
        n = sum(causes.values())
        if n == max(1, matches // 10):
            warm.update(fds=fds(), rss=rss_mb())
        if n % 100 == 0:
            print(f"  {n} matches, {time.monotonic() - began:.0f} s", flush=True)
        if n >= matches:
            stop.set()

    bots = runner.Bots(cfg.entrants, limits=cfg.limits)
    try:
        entrants = await bots.start()
        from harness.arena.match import play_match

        rep = await runner.run(cfg, store, t, entrants=entrants, play=play_match, stop=stop, crashes=bots.crashes,
                               on_result=on_result)
    finally:
        await bots.close()
    elapsed = time.monotonic() - began
    recorded = store.matches(t.id)
    store.close()
    return {"start": start, "warm": warm, "elapsed": elapsed, "played": rep.played, "recorded": recorded,
            "causes": causes, "blamed": blamed, "restarts": bots.crashes()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--keep", help="write the database and records here instead of a temporary folder")
    args = ap.parse_args()
    mark = f"ARENA_SOAK_MARK={os.getpid()}-{time.time_ns()}"
    os.environ["ARENA_SOAK_MARK"] = mark.partition("=")[2]  # inherited by every bot and its children
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep) if args.keep else Path(tmp)
        print(f"soak: {args.matches} matches, concurrency {args.concurrency}, {len(ENTRANTS)} entrants, "
              f"move 0.1 s, bank 0.3 s, limits {LIMITS.to_dict()}", flush=True)
        m = asyncio.run(soak(args.matches, args.concurrency, out))
    end = {"fds": fds(), "rss": rss_mb()}
    deadline = time.monotonic() + 5
    while (left := marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    start, warm = m["start"], m["warm"]
    recorded = m["recorded"]
    ids = [r["match_id"] for r in recorded]
    print(f"\nplayed {m['played']} matches in {m['elapsed']:.1f} s "
          f"({m['played'] / m['elapsed']:.1f} matches/s); recorded {len(ids)}")
    print("\ncauses:")
    for cause, n in sorted(m["causes"].items(), key=lambda kv: -kv[1]):
        print(f"  {cause:<12} {n:>5}")
    print("\nforfeits by offender:")
    for (name, cause), n in sorted(m["blamed"].items()):
        print(f"  {name:<10} {cause:<12} {n:>5}")
    print(f"\nrelaunches after crashes: {sum(m['restarts'].values())}")
    print(f"\n{'':<14}{'start':>10}{'warm':>10}{'end':>10}")
    print(f"{'open fds':<14}{start['fds']:>10}{warm.get('fds', float('nan')):>10.0f}{end['fds']:>10}")
    print(f"{'RSS MB':<14}{start['rss']:>10.1f}{warm.get('rss', float('nan')):>10.1f}{end['rss']:>10.1f}")
    checks = [
        (f"leftover processes: {len(left)} (must be 0)", not left),
        (f"fd growth start->end: {end['fds'] - start['fds']:+d} (bound <= {FD_BOUND})",
         end["fds"] - start["fds"] <= FD_BOUND),
        (f"RSS growth start->end: {end['rss'] - start['rss']:+.1f} MB (bound <= {RSS_BOUND_MB:g} MB)",
         end["rss"] - start["rss"] <= RSS_BOUND_MB),
        (f"recorded once each: {len(ids)} rows, {len(set(ids))} distinct, {m['played']} played",
         len(ids) == len(set(ids)) == m["played"] >= min(args.matches, 1)),
    ]
    print()
    for text, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {text}")
    if left:
        print(f"leftover pids: {left}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
