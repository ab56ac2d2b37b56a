"""Bot errors are visible (issue 14, items 2, 3 and 6): the SDK's fallback after a failed ``act()``
is a legal non-claim action in every game and is reported in ``Reply.error``; the arena counts the
errors per player (records, leaderboards' failure column) or, with ``--strict``, forfeits the bot;
every bot's stdout and stderr go to a bounded log file; ``arena match`` shows new stderr lines
live unless ``--quiet``; a forfeit's detail shows the meaningful stderr lines.

Real bot processes over real gRPC on loopback, real SQLite, the real CLI in a subprocess.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.arena.process import BotLog, BotProcess, stderr_summary
from harness.games import registry
from harness.games.base import turn
from harness.sdk.client import fallback
from arena_util import ROOT, survivors

PY = sys.executable
ERRORBOT = f"python {ROOT / 'tests' / 'bots' / 'errorbot.py'}"
RANDOM = f"python {ROOT / 'sample_bots' / 'random_bot.py'}"
CLI_TIMEOUT = 600  # only a hang guard: nothing here depends on how fast the box is


def _arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "harness.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=CLI_TIMEOUT, env={**os.environ, "COLUMNS": "200"})


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


# ---------------------------------------------------------------------------------------- item 2: the fallback

@pytest.mark.parametrize("game_id", registry.ids())
def test_the_sdk_fallback_is_legal_and_never_a_claim_while_anything_else_is(game_id: str) -> None:
    """Every decision of 30 random matches of every game (at most 2000 decisions each): the fallback is legal; it is a claim only
    when a claim is the one legal action (66-1.17: a claim without 66 loses the deal)."""
    g = registry.get(game_id)
    rules = g.rules({"players": "4"} if "players" in g.rules_map(g.rules()) else {})
    claims_offered = 0
    for seed in range(30):
        rng = random.Random(seed)
        m = g.start(seed, rules)
        for _ in range(2000):  # a match of random play, or its first 2000 decisions
            now = turn(g, m)
            if now is None:
                break
            _, _, legal = now
            got = fallback(legal)
            assert got in legal
            if "claim" in legal:
                claims_offered += 1
                assert got != "claim" or list(legal) == ["claim"], legal
            m = g.apply(m, rng.choice(list(legal)))
    if game_id in ("sixtysix", "schnapsen"):
        assert claims_offered > 0  # the case that matters was met


# --------------------------------------------------------------------- item 3: counted, logged, shown, strict

def test_a_failing_act_is_counted_logged_shown_live_and_the_match_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "results"
    run = _arena("match", ERRORBOT, RANDOM, "--seed", "5", "--no-live", "--move-time", "5", "--out", str(out))
    assert run.returncode == 0, run.stderr
    record = next(out.glob("*.jsonl"))
    lines = _lines(record)
    end = next(d for d in lines if d["type"] == "end")
    assert end["cause"] == "normal"  # play went on
    assert end["errors"][0] > 0 and end["errors"][1] == 0
    # the live view showed the bot's stderr as it came; the summary counts the errors and names the logs
    assert "errorbot| ValueError: errorbot fails on purpose" in run.stdout
    assert f"errorbot {end['errors'][0]}" in run.stdout
    logs = next(d for d in lines if d["type"] == "stderr")["logs"]
    log = Path(logs[0])
    assert log.parent.parent == out / "logs" and f"log of errorbot: {log}" in run.stdout
    text = log.read_text()
    assert "out| errorbot: started (this line is on stdout)" in text  # stdout is kept too
    assert text.count("err| ValueError: errorbot fails on purpose") == end["errors"][0]
    assert text.startswith("== ") and "started" in text.splitlines()[0]
    assert Path(logs[1]).is_file()


def test_quiet_hides_the_stderr_lines_but_keeps_the_log(tmp_path: Path) -> None:
    out = tmp_path / "results"
    run = _arena("match", ERRORBOT, RANDOM, "--seed", "5", "--no-live", "--quiet", "--move-time", "5",
                 "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert "errorbot|" not in run.stdout
    assert "err| ValueError: errorbot fails on purpose" in next((out / "logs").rglob("errorbot.log")).read_text()


def test_strict_makes_a_reported_error_a_forfeit(tmp_path: Path) -> None:
    out = tmp_path / "results"
    run = _arena("match", ERRORBOT, RANDOM, "--seed", "5", "--no-live", "--quiet", "--strict", "--move-time", "5",
                 "--out", str(out))
    assert run.returncode == 0, run.stderr
    end = next(d for d in _lines(next(out.glob("*.jsonl"))) if d["type"] == "end")
    assert (end["cause"], end["offender"]) == ("error", 0) and end["decision_no"] > 1  # at its 4th decision
    assert "errorbot fails on purpose" in end["detail"] and "errors" not in end


def _board(out: Path) -> dict:
    found = sorted(out.rglob("leaderboard.json"))
    assert found, f"no leaderboard.json under {out}"
    return json.loads(found[-1].read_text())


def _failures(doc: dict) -> dict[str, dict[str, int]]:
    rows = doc.get("standings") or doc.get("rows") or doc["entrants"]
    return {r["name"]: r["failures"] for r in rows}


@pytest.mark.parametrize("strict", [False, True], ids=["counted", "strict"])
def test_a_tournament_counts_reported_errors_in_the_failure_column(tmp_path: Path, strict: bool) -> None:
    """Errors are failures of kind ``error``, not forfeits: the matches end normally; with --strict
    each is a forfeit, counted in the same column."""
    out = tmp_path / "results"
    run = _arena("tournament", "--bot", f"err={ERRORBOT}", "--bot", f"rnd={RANDOM}", "--name", "errs",
                 "--rounds", "1", "--move-time", "5", "--concurrency", "1", "--out", str(out),
                 "--db", str(out / "arena.db"), *(["--strict"] if strict else []))
    assert run.returncode == 0, run.stdout + run.stderr
    doc = _board(out)
    fails = _failures(doc)
    matches = doc["matches"]
    if strict:
        assert [m["cause"] for m in matches] == ["error"] * len(matches)
        assert fails["err"]["error"] == len(matches)
    else:
        assert {m["cause"] for m in matches} == {"normal"}
        assert fails["err"]["error"] == sum(m["errors"][m["players"].index("err")] for m in matches) > 0
        assert sum(v for k, v in fails["err"].items() if k != "error") == 0
    assert not any(fails["rnd"].values())
    assert "err| ValueError: errorbot fails on purpose" in (out / "errs" / "logs" / "err.log").read_text()


# ------------------------------------------------------------------------------------------ the log's bound

def test_a_flooding_bot_log_stays_bounded(tmp_path: Path) -> None:
    """8 MB on stdout and stderr: the log and its one older part never exceed twice the cap, and the
    newest lines are kept."""
    cap = 64 * 1024
    code = ("import sys\nfor i in range(40000):\n    print('o' * 100, i)\n    print('e' * 100, i, file=sys.stderr)\n"
            "print('last line', file=sys.stderr)\n")
    script = tmp_path / "flood.py"
    script.write_text(code)
    log = BotLog(tmp_path / "logs" / "flood.log", cap=cap)

    async def main() -> BotProcess:
        p = BotProcess(f"python {script}", {}, log=log)
        await p.start()
        await p.wait_exit(CLI_TIMEOUT)
        await p.stop()
        return p

    p = asyncio.run(main())
    assert p.returncode == 0
    parts = [tmp_path / "logs" / "flood.log", tmp_path / "logs" / "flood.log.1"]
    assert all(x.is_file() and x.stat().st_size <= cap for x in parts)
    text = parts[0].read_text()
    assert "err| last line" in text and "out| " + "o" * 100 + " 39999" in parts[0].read_text() + parts[1].read_text()
    assert survivors([p.pid] if p.pid else []) == []


# ------------------------------------------------------------------------- item 6: the forfeit says why

NODE_STDERR = """node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '@grpc/grpc-js'
Require stack:
- /work/main/sample_bots/node/bot.js
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at Module._load (node:internal/modules/cjs/loader:1051:27)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '/work/main/sample_bots/node/bot.js' ]
}

Node.js v20.20.2
"""


def test_the_summary_finds_the_error_line_not_the_version_banner() -> None:
    got = stderr_summary(NODE_STDERR)
    assert got.startswith("Error: Cannot find module '@grpc/grpc-js'") and "Node.js" not in got
    assert stderr_summary("Traceback (most recent call last):\n  File \"x.py\", line 1\n    import grpc\n"
                          "ModuleNotFoundError: No module named 'grpc'\n") == "ModuleNotFoundError: No module named 'grpc'"


@pytest.mark.needs("node")
def test_the_node_bot_without_its_packages_forfeits_with_the_missing_module(tmp_path: Path) -> None:
    """The Node.js sample bot copied where its packages are not: the forfeit names the missing
    module, not only ``Node.js v20...``."""
    bot = tmp_path / "nodebot"
    bot.mkdir()
    shutil.copy(ROOT / "sample_bots" / "node" / "bot.js", bot / "bot.js")
    shutil.copytree(ROOT / "proto", bot / "proto")
    out = tmp_path / "results"
    run = _arena("match", f"node {bot / 'bot.js'}", RANDOM, "--seed", "1", "--no-live", "--quiet", "--out", str(out))
    assert run.returncode == 0, run.stderr
    end = next(d for d in _lines(next(out.glob("*.jsonl"))) if d["type"] == "end")
    assert end["cause"] in ("no_hello", "crash") and end["offender"] == 0
    assert "Cannot find module" in end["detail"], end["detail"]


def test_a_league_counts_reported_errors_in_its_failure_column(tmp_path: Path) -> None:
    """The league's store keeps each match's errors per player (an additive table, created in a
    league database that predates it), and its board counts them as ``error`` failures."""
    import sqlite3

    from harness.arena.result import Cause, MatchResult
    from harness.league.board import league_board
    from harness.league.store import Store

    path = tmp_path / "league.db"
    store = Store(path)
    a, _ = store.register("alice", "a", owner_secret_hash="x")
    b, _ = store.register("bob", "b", owner_secret_hash="y")
    store.close()
    db = sqlite3.connect(path)  # as a league written before this change: no bot_errors table
    db.execute("DROP TABLE bot_errors")
    db.commit()
    db.close()
    store = Store(path)
    rnd = store.begin_round(1)
    store.start_match("r1-0a", rnd, "r1-0", 0, 5, (a.id, b.id), (0, 1))
    store.finish_match(MatchResult("r1-0a", 5, "sixtysix", (a.label, b.label), (0, 1), (7, 0), (0, 1), Cause.NORMAL,
                                   None, "", 3, 50, None, 1.0, errors=(2, 0)))
    assert store.matches()[0]["errors"] == [2, 0]
    rows = {r.name: r.failures for r in league_board(store, title="t", provisional_below=0).standings.rows}
    store.close()
    assert rows[a.label]["error"] == 2 and sum(rows[a.label].values()) == 2 and not any(rows[b.label].values())
