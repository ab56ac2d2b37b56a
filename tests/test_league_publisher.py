"""The league's leaderboard worker (issue 18): a real `arena league serve`, real bot processes over
gRPC on 127.0.0.1, a real SQLite file. The worker writes exactly the files the server would write
itself, never outlives the server, and when it dies the server publishes in its own process."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from test_league import League, Proc, procs, wait_for  # noqa: F401 - procs is a fixture

from harness.leaderboard import files
from harness.league.board import league_board
from harness.league.store import Store
from harness.rating import Model


def _children(pid: int) -> list[int]:
    """Live processes whose parent is ``pid``."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(d.name))
    return out


def _worker(pid: int) -> list[int]:
    """The leaderboard worker among the children of ``pid`` (multiprocessing also starts its resource tracker)."""
    out = []
    for child in _children(pid):
        try:
            if b"spawn_main" in (Path("/proc") / str(child) / "cmdline").read_bytes():
                out.append(child)
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _rounds(out: Path) -> int:
    try:
        return int(json.loads((out / "leaderboard.json").read_text())["tournament"]["league_rounds"])
    except (OSError, ValueError, KeyError):
        return 0


def _two_bots(lg: League, procs: list[Proc]) -> None:
    a = lg.register("alpha")
    b = lg.register("beta", secret=a.owner_secret)
    procs.extend([lg.bot(a.token, "--name", "alpha"), lg.bot(b.token, "--name", "beta")])


def test_the_worker_writes_what_the_server_would_write_itself(tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path, "--round-every", "0.3")
    procs.append(lg.proc)
    _two_bots(lg, procs)
    wait_for("three rounds published", lambda: _rounds(lg.out) >= 3, 90)
    assert lg.stop() == 0
    assert "leaderboard worker failed" not in lg.proc.text()
    written = {name: (lg.out / name).read_text() for name in files.FILES}
    meta = json.loads(written["leaderboard.json"])["tournament"]
    records = sorted((lg.out / "records").glob("*.jsonl"))
    assert records and all(r.with_suffix(".html").exists() for r in records)  # every match has its page
    # The same board built in this process from the same database and written over the worker's
    # files (the pages exist already): byte-identical files.
    store = Store(lg.db)
    try:
        board = league_board(store, title=meta["league"], provisional_below=meta["provisional_below"], model=Model(),
                             extra_meta={"time": meta["time"], "refresh_s": meta["refresh_s"],
                                         "updated": meta["updated"]})
    finally:
        store.close()
    files.write(board, lg.out)
    for name, text in written.items():
        assert (lg.out / name).read_text() == text, name


def test_the_worker_ends_with_the_server_and_when_the_server_is_killed(tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path)
    procs.append(lg.proc)
    workers = wait_for("the leaderboard worker", lambda: _children(lg.proc.p.pid), 30)
    assert _worker(lg.proc.p.pid)
    assert lg.stop() == 0  # SIGTERM to the whole group: the worker ignores it and ends with the server
    wait_for("the worker gone after a graceful stop", lambda: not any(_alive(w) for w in workers), 30)

    lg2 = League(tmp_path / "second")
    procs.append(lg2.proc)
    workers = wait_for("the leaderboard worker", lambda: _children(lg2.proc.p.pid), 30)
    os.kill(lg2.proc.p.pid, signal.SIGKILL)  # the server alone: its worker sees the pipe end
    lg2.proc.p.wait(10)
    wait_for("the worker gone after the server was killed", lambda: not any(_alive(w) for w in workers), 30)


def test_when_the_worker_dies_the_server_publishes_itself(tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path, "--round-every", "0.3", "--pair-cap-per-day", "100000")  # the two bots never run out of rounds
    procs.append(lg.proc)
    _two_bots(lg, procs)
    wait_for("a round published", lambda: _rounds(lg.out) >= 1, 90)
    (worker,) = wait_for("the leaderboard worker", lambda: _worker(lg.proc.p.pid), 30)
    os.kill(worker, signal.SIGKILL)
    lg.proc.wait_line("leaderboard worker failed", 60)
    now = _rounds(lg.out)
    wait_for("rounds published after the worker died", lambda: _rounds(lg.out) >= now + 2, 90)
    assert lg.board().rounds >= now + 2
    assert lg.stop() == 0


def test_met_today_counts_new_matches_on_top_of_what_it_read(tmp_path: Path) -> None:
    """The pair counts kept between rounds equal the counts a fresh read of the same file gives."""
    db = tmp_path / "league.db"
    store = Store(db, "three_handed")
    ids = [store.register("o", n, token_hash=f"h{n}")[0].id for n in ("a", "b", "c", "d")]
    labels = {e.id: e.label for e in store.entrants()}
    r = store.begin_round(3)
    store.start_match("m1", r, "p1", 0, 1, (ids[0], ids[1], ids[2]))
    first = store.met_today(labels)
    assert first == {("o/a@1", "o/b@1"): 1, ("o/a@1", "o/c@1"): 1, ("o/b@1", "o/c@1"): 1}
    store.start_match("m2", r, "p1", 1, 2, (ids[1], ids[2], ids[0]))
    store.start_match("m3", r, "p2", 0, 3, (ids[3], ids[3], ids[0]))  # an entrant on two seats counts too
    later = store.met_today(labels)
    fresh = Store(db)
    try:
        assert later == fresh.met_today(labels)
        assert later[("o/a@1", "o/b@1")] == 2 and later[("o/d@1", "o/d@1")] == 1 and later[("o/a@1", "o/d@1")] == 2
        # entrants left out of ``labels`` (not in the field) are left out of the counts
        assert store.met_today({ids[0]: labels[ids[0]], ids[1]: labels[ids[1]]}) == {("o/a@1", "o/b@1"): 2}
    finally:
        fresh.close()
        store.close()
