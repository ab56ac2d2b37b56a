"""Crash safety and data integrity, end to end: `python -m harness.cli tournament ...` as a subprocess,
real sample bots over gRPC on loopback, a real SQLite file.

* SIGKILL at five random moments, resume each time: every scheduled match is recorded exactly once,
  every record the database points to verifies by replay, the leaderboard equals an uninterrupted
  run's, and no bot process is left.
* Damage on disk is reported in one line naming the file and the problem, never a traceback: a
  truncated database, a database page overwritten with random bytes (the rows on healthy pages are
  still shown), the WAL deleted while the tournament runs (nothing committed is lost), and a
  truncated record file. A damaged database is never written into.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from harness.arena.record import verify
from harness.tournament.schedule import round_robin
from test_tournament import BOTS, PY, ROOT, _env, _recorded, _standings, _wait_gone
from test_tournament import _cmd as _tournament_cmd


def _cmd(tmp: Path, *extra: str, rounds: int = 2) -> list[str]:
    """The tournament command, with the default sandbox where bubblewrap works: these tests kill the
    arena at random moments, also while sandboxed bots start (the launcher then kills their whole
    process group, bubblewrap's namespace init included: tests/test_launch.py)."""
    return _tournament_cmd(tmp, *extra, rounds=rounds)


def _rows(db: Path) -> list[dict]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("SELECT * FROM matches ORDER BY seq")]
    finally:
        con.close()


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "harness.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("arena: ") and "Traceback" not in err, err
    return err


def _has_tournament(db: Path) -> bool:
    if not db.exists():
        return False
    con = sqlite3.connect(db, timeout=30)
    try:
        return con.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] > 0
    except sqlite3.OperationalError:
        return False
    finally:
        con.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sigkill_at_five_random_moments_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    seed = int(os.environ.get("CRASH_SEED") or random.randrange(1 << 30))
    rng = random.Random(seed)
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    clean.mkdir()
    killed.mkdir()
    mark = f"kill-{os.getpid()}"
    rounds = 4
    ref = subprocess.run(_cmd(clean, rounds=rounds), cwd=ROOT, env=_env(mark), capture_output=True, text=True,
                         timeout=300)
    assert ref.returncode == 0, ref.stderr
    scheduled = [p.match_id for p in round_robin(list(BOTS), rounds, 42)]
    assert _recorded(clean / "arena.db") == scheduled

    kills = 0
    for attempt in range(5):
        # --resume of a name the database does not have is refused (issue 14): a run killed before it
        # recorded its tournament is started again without it
        extra = ("--resume",) if _has_tournament(killed / "arena.db") else ()
        start = len(_recorded(killed / "arena.db"))
        proc = subprocess.Popen(_cmd(killed, *extra, rounds=rounds), cwd=ROOT, env=_env(mark),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        left = len(scheduled) - start
        target = start + rng.randrange(0, max(1, left // 3))  # 0: killed while starting up or mid-match
        while proc.poll() is None and len(_recorded(killed / "arena.db")) < target:
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.1))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        assert proc.returncode in (0, -signal.SIGKILL), f"attempt {attempt + 1}: {err} (rng seed {seed})"
        assert not _wait_gone(mark), f"bots outlived the killed tournament (rng seed {seed})"
    assert kills == 5, f"the run finished before the 5th kill (rng seed {seed})"
    final = subprocess.run(_cmd(killed, "--resume", rounds=rounds), cwd=ROOT, env=_env(mark), capture_output=True,
                           text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    rows = _rows(killed / "arena.db")
    assert [r["match_id"] for r in rows] == scheduled, f"rng seed {seed}"  # every scheduled match exactly once
    for r in rows:
        rep = verify(r["record"])
        assert rep.ok, f"{r['record']}: {rep.divergence} (rng seed {seed})"
    assert _standings(killed) == _standings(clean), f"rng seed {seed}"
    assert not _wait_gone(mark)
    board = _cli("leaderboard", "--db", str(killed / "arena.db"), "--out", str(killed / "board"))
    assert board.returncode == 0 and board.stderr == "", board.stderr  # nothing damaged anywhere


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A finished two-round tournament of the four sample bots in ``tmp_path``."""
    done = subprocess.run(_cmd(tmp_path, rounds=2), cwd=ROOT, env=_env(f"played-{os.getpid()}"),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "arena.db-wal").exists()  # checkpointed and closed
    return tmp_path


def _refuses_to_resume(out: Path) -> str:
    db = out / "arena.db"
    before = _digest(db)
    r = subprocess.run(_cmd(out, "--resume", rounds=2), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == "", r
    assert _digest(db) == before  # not written into
    return _one_line(r.stderr)


def test_truncated_database_is_reported_and_never_written_into(played: Path) -> None:
    db = played / "arena.db"
    size = db.stat().st_size
    with open(db, "r+b") as f:
        f.truncate(size // 2)
    board = _cli("leaderboard", "--db", str(db), "--out", str(played / "board"))
    assert board.returncode != 0 and "Traceback" not in board.stderr
    first = board.stderr.splitlines()[0]
    assert str(db) in first and ("malformed" in first or "not a database" in first), board.stderr
    err = _refuses_to_resume(played)
    assert str(db) in err and "malformed" in err and "refusing to write" in err


def _match_pages(db: Path) -> list[int]:
    """Numbers of the table b-tree leaf pages (type byte 0x0D) that hold match rows."""
    data = db.read_bytes()
    size = int.from_bytes(data[16:18], "big")
    pages = [data[i: i + size] for i in range(0, len(data), size)]
    return [n for n, page in enumerate(pages, 1) if n > 1 and page[0] == 0x0D and b".jsonl" in page]


def test_overwritten_page_is_reported_and_the_healthy_rows_are_still_shown(played: Path) -> None:
    db = played / "arena.db"
    clean_rows = {r["match_id"]: r for r in _rows(db)}
    clean_scores: dict[str, list[int]] = {}
    con = sqlite3.connect(db)
    for mid, score in con.execute("SELECT match_id, score FROM seats ORDER BY match_id, player"):
        clean_scores.setdefault(mid, []).append(score)
    con.close()
    leaves = _match_pages(db)
    assert len(leaves) >= 2, "the matches should span several pages for this test to mean something"
    page = leaves[len(leaves) // 2]
    size = int.from_bytes(db.read_bytes()[16:18], "big")
    with open(db, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(random.Random(page).randbytes(size))
    board = _cli("leaderboard", "--db", str(db), "--out", str(played / "board"))
    assert board.returncode == 1 and "Traceback" not in board.stderr, board.stderr
    first = _one_line(board.stderr)
    assert first.startswith(f"arena: {db}: database disk image is malformed") and "could still be read" in first
    doc = json.loads((played / "board" / "e2e" / "leaderboard.json").read_text())  # OUT/<name>/ (issue 14)
    shown = {m["match_id"]: m for m in doc["matches"]}
    assert 0 < len(shown) < len(clean_rows), len(shown)  # the healthy part, and only it
    for mid, m in shown.items():
        assert m["scores"] == clean_scores[mid]
    assert doc["tournament"]["recorded"] == len(shown) and doc["tournament"]["damage"] == [first[7:-1]]
    _refuses_to_resume(played)


def test_wal_deleted_mid_run_stops_with_a_report_and_loses_nothing(tmp_path: Path) -> None:
    mark = f"wal-{os.getpid()}"
    db, wal = tmp_path / "arena.db", tmp_path / "arena.db-wal"
    proc = subprocess.Popen(_cmd(tmp_path, rounds=12), cwd=ROOT, env=_env(mark), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    while proc.poll() is None and len(_recorded(db)) < 5:
        time.sleep(0.01)
    seen = _recorded(db)
    wal.unlink()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert str(wal) in _one_line(err) and "deleted or replaced" in err and "--resume" in err
    assert not _wait_gone(mark)
    after = _recorded(db)
    assert set(seen) <= set(after) and len(set(after)) == len(after)  # nothing committed was lost
    scheduled = [p.match_id for p in round_robin(list(BOTS), 12, 42)]
    assert len(after) < len(scheduled)
    again = subprocess.run(_cmd(tmp_path, "--resume", rounds=12), cwd=ROOT, env=_env(mark), capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    rows = _rows(db)
    assert [r["match_id"] for r in rows] == scheduled
    assert all(verify(r["record"]).ok for r in rows)
    assert not _wait_gone(mark)


def test_truncated_record_is_reported_by_leaderboard_and_replay(played: Path) -> None:
    rows = _rows(played / "arena.db")
    victim = Path(rows[len(rows) // 2]["record"])
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2])
    before = _standings(played)
    board = _cli("leaderboard", "--db", str(played / "arena.db"), "--out", str(played))
    assert board.returncode == 1
    line = _one_line(board.stderr)
    assert line.startswith(f"arena: {victim}: record of match {rows[len(rows) // 2]['match_id']} is damaged")
    assert "truncated" in line
    assert _standings(played) == before  # the ratings come from the database, unchanged
    replay = _cli("replay", str(victim))
    assert replay.returncode == 1 and str(victim) in replay.stderr and "truncated" in replay.stderr
    assert all(verify(r["record"]).ok for r in rows if Path(r["record"]) != victim)
