"""Match page speed: how long :func:`harness.viewer.page.render` takes for one match of each game, and the
page's size. The matches are played in process by uniformly random legal actions (claims declined while
anything else is legal, except in three_handed, as in bench_engine.py) and recorded as the arena
records them.

``--pages N`` (issue 18): what a tournament's end does, :func:`harness.viewer.files.ensure_pages` over N
record files of each game (copies of 20 matches), drawn in this process (``jobs=1``) and by one drawer
process per core (at least 2), alternated ``--repeat`` times; prints the medians of wall time.

    python benchmarks/bench_viewer.py [--game G] [--matches N] [--pages N [--repeat R]]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.arena.record import Recorder  # noqa: E402
from harness.games.registry import get, ids  # noqa: E402
from harness.lifeline import cores  # noqa: E402
from harness.viewer import files  # noqa: E402
from harness.viewer.page import render  # noqa: E402


def record(game_id: str, seed: int) -> list[dict[str, Any]]:
    """One random match of ``game_id`` as record lines."""
    game = get(game_id)
    rules = game.rules()
    m = game.start(seed, rules)
    n = game.players(rules)
    rec = Recorder({"match_id": f"bench-{seed}", "seed": seed, "game": game_id, "players": [f"p{i}" for i in range(n)],
                    "teams": list(game.teams(rules)), "rules": game.rules_map(rules), "clock": {}})
    rng = random.Random(seed)
    rec.begin_deal(game.deal(m))
    while game.to_act(m) is not None:
        legal = game.legal(m)
        choice = [a for a in legal if a != "claim" or game_id == "three_handed"] or list(legal)
        done = game.deals_done(m)
        a = rng.choice(choice)
        m = game.apply(m, a)
        rec.action(a, 0.0)
        if game.deals_done(m) > done:
            rec.end_deal(game.deal_end(m))
            if game.outcome(m) is None:
                rec.begin_deal(game.deal(m))
    o = game.outcome(m)
    assert o is not None
    rec.end = {"ranks": list(o.ranks), "scores": list(o.scores), "cause": "normal", "offender": None,
               "deal_no": game.deal(m).deal_no, "decision_no": None, "detail": "", "deals": game.deals_done(m),
               "decisions": 0, "duration_s": 0.0}
    return [json.loads(line) for line in rec.lines()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", help="a game (default: every registered game)")
    ap.add_argument("--matches", type=int, default=5, help="matches per game (default 5)")
    ap.add_argument("--pages", type=int, default=0, help="also time ensure_pages over N records of each game")
    ap.add_argument("--repeat", type=int, default=3, help="alternated runs of --pages (default 3)")
    args = ap.parse_args()
    if args.pages:
        for game_id in args.game or ids():
            pages(game_id, args.pages, args.repeat)
        return
    for game_id in args.game or ids():
        times, sizes, steps = [], [], []
        for seed in range(args.matches):
            lines = record(game_id, seed)
            t = time.perf_counter()
            html = render(lines)
            times.append(time.perf_counter() - t)
            sizes.append(len(html.encode()))
            steps.append(sum(len(d["actions"]) + 1 for d in lines if d["type"] == "deal"))
        print(f"{game_id:13s} median {1000 * statistics.median(times):6.1f} ms a page · "
              f"{statistics.median(steps):5.0f} steps · {statistics.median(sizes) / 1024:6.1f} KiB")


def pages(game_id: str, n: int, repeat: int) -> None:
    """Part 2: ``n`` stale pages of ``game_id`` drawn here against on every core."""
    base = ["".join(json.dumps(x) + "\n" for x in record(game_id, seed)) for seed in range(20)]
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        recs = {}
        for k in range(n):
            path = Path(tmp) / f"m{k}.jsonl"
            path.write_text(base[k % len(base)])
            recs[f"m{k}"] = path
        size = sum(p.stat().st_size for p in recs.values())
        took: dict[int, list[float]] = {1: [], max(2, cores()): []}
        for _ in range(repeat):
            for jobs in took:
                for p in Path(tmp).glob("*.html"):
                    p.unlink()
                t = time.perf_counter()
                assert len(files.ensure_pages(recs, jobs=jobs)) == n
                took[jobs].append(time.perf_counter() - t)
    one, many = (statistics.median(took[j]) for j in took)
    drawers = min(max(2, cores()), size // files.DRAWER_BYTES)
    print(f"{game_id:13s} {n} pages ({size / 1024:.0f} KiB of records): in this process {one:.2f} s, "
          f"{drawers} drawer processes {many:.2f} s ({one / many:.2f}x), medians of {repeat}", flush=True)


if __name__ == "__main__":
    main()
