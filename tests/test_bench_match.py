"""benchmarks/bench_match.py still runs end to end (real bot processes, real gRPC), and its layers
line adds up: floor + Session + notices + game work + the rest is the arena's CPU per decision.
Its figures are measurements, so nothing here judges how fast anything is (issue 18)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER = r"([+-]?\d+)"


def test_bench_match_prints_every_stage_and_the_layers_add_up() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_match.py"), "--rounds", "1", "--matches",
                          "1", "--pings", "40", "--timeouts", "2", "--limit-ms", "20"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout
    for start in ("arena:", "floor unix:", "floor tcp:", "session:", "game work:", "layers:", "timeout overshoot"):
        assert re.search(rf"^{re.escape(start)}", out, re.M), f"no '{start}' line in:\n{out}"
    layers = re.search(rf"^layers: +arena CPU per decision {NUMBER} µs = transport floor {NUMBER} \+ the Session "
                       rf"\(.*?\) {NUMBER} \+ the notices' writes {NUMBER} \+ the game's work {NUMBER} \+ the rest of "
                       rf"the match loop {NUMBER};", out, re.M)
    assert layers, out
    total, *parts = (int(x) for x in layers.groups())
    assert total > 0 and parts[0] > 0
    assert abs(sum(parts) - total) <= len(parts), (total, parts)  # each part is rounded to the µs
    session = re.search(r"^session: .* notices at the match loop's rate \((\d+\.\d+) per decision\)", out, re.M)
    assert session and 0 < float(session.group(1)) < 1, out  # one match: 4 notices + 4 per deal, over ~60 decisions
