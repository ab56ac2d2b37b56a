"""Worker processes for local tournaments (issue 18): harness/tournament/executor.py and worker.py.

* The writer records units in schedule order whatever order they come back in, and submits a lost unit
  again (a small executor that hands results back reversed: the runner's reorder buffer alone).
* `arena tournament --workers 2` gives the leaderboard of `--workers 1`, field by field, with real sample
  bots: a duplicate round robin (sandboxed, one bot process per leg index), three-handed tables, an
  adaptive schedule and a deal book.
* SIGKILL of the arena mid-run leaves no worker and no bot; `--resume` finishes it with the leaderboard
  of an uninterrupted run. Ctrl-C stops with whole units only. A worker killed mid-run costs only its
  units in flight, which the other worker plays.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness.arena.record import verify
from harness.arena.result import Cause, MatchResult
from harness.tournament import config as cfgmod
from harness.tournament import runner
from harness.tournament.executor import Job, Unit, UnitResult, workers_for
from harness.tournament.schedule import round_robin
from harness.tournament.store import Store
from test_tournament import PY, ROOT, _env, _leftover, _recorded, _wait_gone

RANDOM = "python sample_bots/random_bot.py"
GREEDY = "python sample_bots/greedy_bot.py"
BOTS = {"random": RANDOM, "greedy": GREEDY, "random2": RANDOM, "greedy2": GREEDY}


# -- the writer alone --------------------------------------------------------------------------------


class Reversed:
    """An executor that plays nothing itself: it answers each batch of units in reverse order and loses
    the first submission of one unit (as a worker that died would)."""

    def __init__(self, lose: int) -> None:
        self.capacity = 4
        self.lose = lose
        self.waiting: list[Unit] = []
        self.submitted: list[int] = []
        self.lost_once = False

    async def start(self, job: Job) -> None:
        pass

    def submit(self, unit: Unit) -> None:
        self.submitted.append(unit.index)
        self.waiting.append(unit)

    async def next_result(self) -> UnitResult:
        unit = self.waiting.pop()  # the latest first
        if unit.index == self.lose and not self.lost_once:
            self.lost_once = True
            return UnitResult(unit.index, lost=True)
        return UnitResult(unit.index, tuple(_result(p) for p in unit.legs), worker="w")

    def stop(self) -> None:
        pass

    def cancel(self) -> None:
        pass

    def crashes(self) -> dict[str, int]:
        return {}

    def usage(self) -> dict[str, int]:
        return {}

    async def close(self) -> None:
        pass


def _result(p: Any) -> MatchResult:
    return MatchResult(p.match_id, p.seed, "sixtysix", p.players, (0, 1), (7, 0), (0, 1), Cause.NORMAL, None, "",
                       1, 10, None, 0.0)


def test_units_coming_back_out_of_order_are_recorded_in_schedule_order(tmp_path: Path) -> None:
    cfg = cfgmod.from_flags([f"{n}={RANDOM}" for n in "abcd"], rounds=2, seed=3, db=str(tmp_path / "a.db"),
                            out=str(tmp_path), limits=["sandbox=none"])
    store = Store(cfg.db)
    order: list[str] = []
    try:
        t = store.create(cfg.name, cfg.identity(), len(runner.schedule(cfg)), [(e.name, e.label) for e in cfg.entrants])
        ex = Reversed(lose=2)
        rep = asyncio.run(runner.run(cfg, store, t, stop=asyncio.Event(), executor=ex,
                                     on_result=lambda p, r: order.append(p.match_id)))
        scheduled = [p.match_id for p in runner.schedule(cfg)]
        assert rep.played == len(scheduled) and rep.pending == 0
        assert order == scheduled  # recorded in schedule order, legs together
        assert [r["match_id"] for r in sorted(store.matches(t.id), key=lambda r: r["seq"])] == scheduled
        assert Counter(ex.submitted)[2] == 2 and ex.submitted.count(0) == 1  # the lost unit went out again
    finally:
        store.close()


def test_a_failure_of_the_harness_inside_a_unit_is_raised_by_the_writer(tmp_path: Path) -> None:
    """Not a hang and not a forfeit: an exception while playing a unit (a bug) reaches the caller, naming the unit."""
    cfg = cfgmod.from_flags(["a=x", "b=y"], rounds=1, seed=3, db=str(tmp_path / "a.db"), out=str(tmp_path),
                            concurrency=1, limits=["sandbox=none"])
    store = Store(cfg.db)

    async def broken(*_: Any, **__: Any) -> MatchResult:
        raise KeyError("no such seat")

    try:
        t = store.create(cfg.name, cfg.identity(), 2, [(e.name, e.label) for e in cfg.entrants])
        with pytest.raises(RuntimeError, match="unit 001-01-01: KeyError: 'no such seat' at test_workers.py"):
            asyncio.run(runner.run(cfg, store, t, entrants={"a": None, "b": None}, play=broken, stop=asyncio.Event()))
        assert store.matches(t.id) == []
    finally:
        store.close()


def test_how_many_workers_a_run_uses() -> None:
    assert workers_for(2, 2, remote=False) == 2
    assert workers_for(8, 3, remote=False) == 3  # at most one per match at once
    assert workers_for(2, 2, remote=True) == 1  # remote bots dial this process's arena
    assert workers_for(1, 4, remote=False) == 1


def test_workers_key_and_flag_are_checked(tmp_path: Path) -> None:
    conf = tmp_path / "w.toml"
    conf.write_text('workers = 3\n[[entrant]]\nname = "a"\ncommand = "x"\n[[entrant]]\nname = "b"\ncommand = "y"\n')
    assert cfgmod.load(conf).workers == 3
    assert "workers" not in cfgmod.load(conf).identity()  # a run may resume with other workers
    with pytest.raises(cfgmod.ConfigError, match="bad workers '0'"):
        cfgmod.from_flags(["a=x", "b=y"], workers=0)
    r = subprocess.run([PY, "-m", "harness.cli", "tournament", "--bot", f"a={RANDOM}", "--bot", f"b={RANDOM}",
                        "--workers", "zero"], cwd=ROOT, capture_output=True, text=True, env=_env("flag"))
    assert r.returncode == 2 and "--workers" in r.stderr


# -- real bots, the command as a subprocess -----------------------------------------------------------


def _cmd(out: Path, *extra: str, workers: int, bots: dict[str, str] = BOTS, name: str = "w") -> list[str]:
    args = [PY, "-m", "harness.cli", "tournament", "--name", name, "--seed", "42", "--concurrency", "2",
            "--workers", str(workers), "--move-time", "2", "--time-bank", "20", "--db", str(out / "arena.db"),
            "--out", str(out)]
    for n, command in bots.items():
        args += ["--bot", f"{n}={command}"]
    return [*args, *extra]


def _board(out: Path, name: str = "w") -> dict:
    doc = json.loads((out / name / "leaderboard.json").read_text())
    keep = {k: doc[k] for k in ("standings", "crosstable", "history", "matches", "rating") if k in doc}
    if "adaptive" in doc.get("tournament", {}):
        keep["adaptive"] = doc["tournament"]["adaptive"]
    return keep


def _run(out: Path, *extra: str, workers: int, mark: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    out.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(_cmd(out, *extra, workers=workers, **kw), cwd=ROOT, env=_env(mark), capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    return r


def _whole_units(db: Path) -> bool:
    """Every unit recorded has all its legs (two: duplicate pairs)."""
    con = sqlite3.connect(db)
    try:
        return all(n == 2 for _, n in con.execute("SELECT pair_id, COUNT(*) FROM matches GROUP BY pair_id"))
    finally:
        con.close()


CASES = {
    "round_robin": ((*(), "--rounds", "2"), BOTS),
    "three_handed": (("--game", "three_handed", "--rounds", "1", "--limit", "sandbox=none", "--duplicate", "trusted"),
                     BOTS),
    "adaptive": (("--adaptive", "--max-matches", "24", "--min-per-pairing", "1", "--limit", "sandbox=none",
                  "--duplicate", "trusted"), BOTS),
}


@pytest.mark.parametrize("case", list(CASES))
def test_two_workers_give_the_leaderboard_of_one_process(tmp_path: Path, case: str) -> None:
    extra, bots = CASES[case]
    mark = f"same-{case}-{os.getpid()}"
    one = _run(tmp_path / "one", *extra, workers=1, mark=mark, bots=bots)
    two = _run(tmp_path / "two", *extra, workers=2, mark=mark, bots=bots)
    assert "worker processes" not in one.stdout and "2 worker processes" in two.stdout
    assert _board(tmp_path / "two") == _board(tmp_path / "one")
    assert _recorded(tmp_path / "two" / "arena.db") == _recorded(tmp_path / "one" / "arena.db")
    assert len(list((tmp_path / "two" / "w" / "logs").glob("worker-*"))) == 2  # each worker's bots log apart
    assert not _wait_gone(mark)


def test_a_deal_book_plays_the_same_with_workers(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("# three deals\n11\n22\n33\n")
    mark = f"book-{os.getpid()}"
    bots = {"g": GREEDY, "r": RANDOM, "s": RANDOM}
    extra = ("--deals", str(book), "--limit", "sandbox=none")
    _run(tmp_path / "one", *extra, workers=1, mark=mark, bots=bots)
    _run(tmp_path / "two", *extra, workers=2, mark=mark, bots=bots)
    assert _board(tmp_path / "two") == _board(tmp_path / "one")
    assert not _wait_gone(mark)


def _ppid(pid: int) -> int:
    """The parent of ``pid`` (OSError when it is gone)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _workers_of(pid: int) -> list[int]:
    """The worker processes whose parent is ``pid``."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent = _ppid(int(d.name))
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if parent == pid and b"harness.tournament.worker" in cmd:
                out.append(int(d.name))
    return out


def _wait_recorded(db: Path, n: int, proc: subprocess.Popen[bytes]) -> None:
    while proc.poll() is None and len(_recorded(db)) < n:
        time.sleep(0.02)


def test_sigkill_mid_run_leaves_nothing_and_resume_gives_an_uninterrupted_run(tmp_path: Path) -> None:
    mark = f"kill-{os.getpid()}"
    _run(tmp_path / "clean", "--rounds", "2", workers=1, mark=mark)
    killed = tmp_path / "killed"
    killed.mkdir()
    proc = subprocess.Popen(_cmd(killed, "--rounds", "2", workers=2), cwd=ROOT, env=_env(mark),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _wait_recorded(killed / "arena.db", 5, proc)
    assert proc.poll() is None, "the run ended before it could be killed"
    workers = _workers_of(proc.pid)
    assert len(workers) == 2
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert not _wait_gone(mark), "a worker or a bot outlived the killed arena"
    assert 5 <= len(_recorded(killed / "arena.db")) < 24
    _run(killed, "--rounds", "2", "--resume", workers=2, mark=mark)
    con = sqlite3.connect(killed / "arena.db")
    try:
        records = [r[0] for r in con.execute("SELECT record FROM matches")]
    finally:
        con.close()
    assert all(verify(r).ok for r in records)
    assert _recorded(killed / "arena.db") == [p.match_id for p in round_robin(list(BOTS), 2, 42)]
    assert _board(killed) == _board(tmp_path / "clean")
    assert not _wait_gone(mark)


def test_ctrl_c_stops_with_whole_units_and_resume_finishes(tmp_path: Path) -> None:
    mark = f"int-{os.getpid()}"
    out = tmp_path / "stopped"
    out.mkdir()
    proc = subprocess.Popen(_cmd(out, "--rounds", "3", workers=2), cwd=ROOT, env=_env(mark),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_recorded(out / "arena.db", 4, proc)
    assert proc.poll() is None, "the run ended before Ctrl-C"
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=300)
    assert proc.returncode == 130, stdout.decode()[-1000:]
    assert b"--resume" in stdout
    assert _whole_units(out / "arena.db") and len(_recorded(out / "arena.db")) < 36
    assert not _wait_gone(mark)
    _run(out, "--rounds", "3", "--resume", workers=2, mark=mark)
    assert _recorded(out / "arena.db") == [p.match_id for p in round_robin(list(BOTS), 3, 42)]
    assert not _wait_gone(mark)


def test_a_worker_killed_mid_run_costs_only_its_units_in_flight(tmp_path: Path) -> None:
    mark = f"lost-{os.getpid()}"
    _run(tmp_path / "clean", "--rounds", "2", workers=1, mark=mark)
    out = tmp_path / "lost"
    out.mkdir()
    proc = subprocess.Popen(_cmd(out, "--rounds", "2", workers=2), cwd=ROOT, env=_env(mark),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_recorded(out / "arena.db", 3, proc)
    workers = _workers_of(proc.pid)
    assert proc.poll() is None and len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr.decode()
    assert _recorded(out / "arena.db") == [p.match_id for p in round_robin(list(BOTS), 2, 42)]
    assert _board(out) == _board(tmp_path / "clean")  # nothing lost, nothing counted twice
    assert not _wait_gone(mark)


def test_the_live_view_shows_the_workers_and_their_matches(tmp_path: Path) -> None:
    from rich.console import Console

    from harness.tournament import commands

    cfg = cfgmod.from_flags([f"{n}={RANDOM}" for n in "ab"], rounds=1, seed=3, db=str(tmp_path / "a.db"),
                            out=str(tmp_path), limits=["sandbox=none"])
    store = Store(cfg.db)
    try:
        t = store.create(cfg.name, cfg.identity(), 2, [(e.name, e.label) for e in cfg.entrants])

        class Two:
            def usage(self) -> dict[str, int]:
                return {"w1 (pid 11)": 4, "w2 (pid 12)": 3}

        view = commands._View(store, t, 0)
        view.workers = Two()
        console = Console(width=160, record=True)
        console.print(view.render())
        assert "2 worker processes: w1 (pid 11) 4 matches, w2 (pid 12) 3 matches" in console.export_text()
    finally:
        store.close()


@pytest.mark.needs("sandbox")
def test_a_worker_keeps_the_out_and_db_directories_private_from_its_bots(tmp_path: Path) -> None:
    """Issue 11 in worker processes: the arena's --out and database directories are empty for sandboxed
    bots in a worker too (a fresh process: the Job carries them). Outside /tmp, which the sandbox hides
    anyway, so that only the arena's own rule can hide them."""
    import shutil
    import tempfile

    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else str(ROOT)
    outside = Path(tempfile.mkdtemp(prefix="arena-test-", dir=base))
    try:
        db = outside / "db" / "arena.db"
        spy = f"python tests/adversaries/adversary.py readfile {db}"
        r = subprocess.run(_cmd(outside / "out", workers=2, bots={"spy": spy, "random": RANDOM}) +
                           ["--db", str(db)], cwd=ROOT, env=_env(f"private-{os.getpid()}"), capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stdout[-1000:] + r.stderr
        con = sqlite3.connect(db)
        try:
            details = [d for (d,) in con.execute("SELECT detail FROM matches")]
        finally:
            con.close()
        assert len(details) == 2 and all(f"blocked: read {db}" in d for d in details), details  # not BREACH
    finally:
        shutil.rmtree(outside, ignore_errors=True)


# -- pinning (issue 18: a match's hand-offs on one core) ---------------------------------------------------


def _ancestry(pid: int) -> list[int]:
    """``pid`` and its parents, nearest first."""
    chain = [pid]
    while pid > 1:
        try:
            pid = _ppid(pid)
        except OSError:
            break
        chain.append(pid)
    return chain


def _started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pin: bool, mark: str) -> tuple[list[str], dict[int, set[int]]]:
    """Start two real workers with their bots; their labels, and the affinity of every process they
    started (workers, launchers, bots) by the worker it descends from."""
    from harness.tournament.executor import Workers

    monkeypatch.setenv("ARENA_TEST_MARK", mark)
    cfg = cfgmod.from_flags([f"{n}={RANDOM}" for n in "ab"], rounds=1, seed=3, db=str(tmp_path / "a.db"),
                            out=str(tmp_path), limits=["sandbox=none"], concurrency=2, workers=2)
    store = Store(cfg.db)

    async def go() -> tuple[list[str], dict[int, set[int]]]:
        ex = Workers(2, 2, pin=pin)
        try:
            t = store.create(cfg.name, cfg.identity(), 2, [(e.name, e.label) for e in cfg.entrants])
            await ex.start(runner.job_of(cfg, t))
            workers = set(_workers_of(os.getpid()))
            assert len(workers) == 2
            seen: dict[int, set[int]] = {}
            for pid in _leftover(mark):
                worker = next((p for p in _ancestry(pid) if p in workers), None)
                assert worker is not None, f"process {pid} is not a worker's"
                seen.setdefault(worker, set()).update(os.sched_getaffinity(pid))
                assert os.sched_getaffinity(pid) == os.sched_getaffinity(worker)
            assert set(seen) == workers and len(_leftover(mark)) >= 2 * 3  # each worker, a launcher and a bot each
            return ex.labels(), seen
        finally:
            await ex.close()
            store.close()

    return asyncio.run(go())


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning needs two CPUs")
def test_each_worker_and_its_bots_run_on_their_own_share_of_the_cpus(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    mark = f"pin-{os.getpid()}"
    labels, seen = _started(tmp_path, monkeypatch, True, mark)
    shares = list(seen.values())
    assert len(shares) == 2 and not shares[0] & shares[1]  # disjoint
    assert shares[0] | shares[1] == os.sched_getaffinity(0)  # and every CPU used
    assert all(", cpu" in label for label in labels), labels  # the live view says where each runs
    assert not _wait_gone(mark)

    mark = f"nopin-{os.getpid()}"
    labels, seen = _started(tmp_path / "free", monkeypatch, False, mark)
    assert all(share == os.sched_getaffinity(0) for share in seen.values())
    assert not any(", cpu" in label for label in labels)
    assert not _wait_gone(mark)


def test_a_refused_pinning_is_a_reason_and_leaves_the_cpus_as_they_were() -> None:
    from harness.lifeline import pin

    before = os.sched_getaffinity(0)
    assert pin(frozenset({10**6})) is not None
    assert os.sched_getaffinity(0) == before


def test_pin_key_and_flag(tmp_path: Path) -> None:
    from harness.cli import build_parser
    from harness.tournament.commands import config_from_args, resume_command

    conf = tmp_path / "p.toml"
    body = '[[entrant]]\nname = "a"\ncommand = "x"\n[[entrant]]\nname = "b"\ncommand = "y"\n'
    conf.write_text("pin = false\n" + body)
    assert cfgmod.load(conf).pin is False and "pin" not in cfgmod.load(conf).identity()
    conf.write_text(body)
    assert cfgmod.load(conf).pin is True
    conf.write_text('pin = "yes"\n' + body)
    with pytest.raises(cfgmod.ConfigError, match="bad value 'yes' for 'pin'"):
        cfgmod.load(conf)
    conf.write_text(body)
    args = build_parser().parse_args(["tournament", str(conf), "--no-pin"])
    assert config_from_args(args).pin is False and "--no-pin" in resume_command(args)
    args = build_parser().parse_args(["tournament", "--bot", "a=x", "--bot", "b=y", "--no-pin"])
    assert config_from_args(args).pin is False
    args = build_parser().parse_args(["tournament", "--bot", "a=x", "--bot", "b=y"])
    assert config_from_args(args).pin is True and "pin" not in resume_command(args)
