"""The results database: SQLite in WAL mode, one transaction per finished match.

Tables: ``meta`` (schema version), ``tournaments`` (each with its ``game``), ``entrants``,
``matches`` (each scheduled match at most once, with its cause and a pointer to its JSON-lines
record), ``seats`` (one row per player of a match: entrant, team, rank, score; the rank is NULL
when the match has no result) and ``voided`` (matches taken out of ``matches`` because their
duplicate pair was cut in half by a stop; kept with their seats, never deleted, so nothing
recorded is ever lost).

A database written with schema version 1 (two fixed player columns, no game) is refused with one
line naming ``arena db upgrade`` (:mod:`harness.tournament.upgrade`), which migrates it in place.

Damage on disk is found, not papered over:

* Every open runs ``PRAGMA quick_check``. A damaged file (truncated, overwritten pages, not a
  database) is refused for writing with one line naming the file and the problem. Opened for
  reading with ``damaged_ok=True`` it stays readable: :attr:`Store.damage` says what is wrong,
  and :meth:`Store.matches` falls back to reading row by row, skipping only the rows on damaged
  pages (so a leaderboard shows every match that can still be read).
* After each match is committed the WAL is checkpointed into the main file, so a deleted
  ``-wal`` file loses nothing committed. Before each commit the store checks that its ``-wal``
  file is still the one it opened; if it was deleted or replaced it checkpoints what it holds
  and stops the run with a :class:`StoreError`, instead of writing on into a file nobody else
  can see.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.arena.result import MatchResult
from harness.sqlite_tx import StoreError, outdated, transaction
from harness.tournament.schedule import Pairing

__all__ = ["MATCH_COLUMNS", "SCHEMA", "SCHEMA_VERSION", "Store", "StoreError", "Tournament"]

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    config TEXT NOT NULL,          -- JSON: entrants, rounds, seed, time, rules
    scheduled INTEGER NOT NULL,    -- matches in the schedule
    created TEXT NOT NULL,
    finished TEXT,                 -- set when every scheduled match is recorded
    game TEXT NOT NULL             -- registry id, e.g. sixtysix
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    restarts INTEGER NOT NULL DEFAULT 0,  -- times the process had to be started again after a crash
    PRIMARY KEY (tournament_id, name)
);
CREATE TABLE IF NOT EXISTS matches (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    match_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    pair_id TEXT NOT NULL,
    seed INTEGER NOT NULL,
    cause TEXT NOT NULL,
    offender INTEGER,
    detail TEXT NOT NULL,
    deals INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    duration_s REAL NOT NULL,
    record TEXT,                   -- path of the match's JSON-lines record
    finished TEXT NOT NULL,
    PRIMARY KEY (tournament_id, match_id)
);
CREATE TABLE IF NOT EXISTS seats (
    tournament_id INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    player INTEGER NOT NULL,       -- player index in the match
    entrant TEXT NOT NULL,
    team INTEGER NOT NULL,
    rank INTEGER,                  -- 0 = first, ties share a rank, NULL when the match has no result
    score INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, match_id, player),
    FOREIGN KEY (tournament_id, match_id) REFERENCES matches(tournament_id, match_id)
);
CREATE TABLE IF NOT EXISTS bot_errors (  -- errors a bot reported in its replies (Reply.error), play going on
    tournament_id INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    player INTEGER NOT NULL,       -- player index in the match
    errors INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, match_id, player)
);
CREATE TABLE IF NOT EXISTS voided (
    tournament_id INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    row TEXT NOT NULL,             -- the match row as JSON, with its seats
    voided TEXT NOT NULL,
    PRIMARY KEY (tournament_id, match_id, attempt)
);
"""

MATCH_COLUMNS = ("tournament_id", "match_id", "seq", "pair_id", "seed", "cause", "offender", "detail", "deals",
                 "decisions", "duration_s", "record", "finished")


@dataclass(frozen=True, slots=True)
class Tournament:
    id: int
    name: str
    config: dict[str, Any]
    scheduled: int
    created: str
    finished: str | None
    game: str = "sixtysix"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    """One open results database."""

    def __init__(self, path: str | Path, create: bool = True, damaged_ok: bool = False) -> None:
        self.path = Path(path)
        self.damage: str | None = None  # what quick_check found wrong, when opened with damaged_ok
        self._wal: tuple[int, int] | None = None  # (device, inode) of the -wal file this store writes
        if not create and not self.path.exists():
            raise StoreError(f"no results database at '{self.path}'")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"'{self.path}' is not a usable results database: {e}") from None
        try:
            self.db.row_factory = sqlite3.Row
            problem = self._health()
            if problem == "file is not a database":
                raise sqlite3.DatabaseError(problem)
            if problem is not None:
                if not damaged_ok:
                    self.db.close()
                    raise StoreError(f"{self.path}: {problem}; refusing to write into a damaged database "
                                     f"(read what is left with: arena leaderboard --db {self.path})")
                self.damage = problem
                try:
                    self._check_version()
                except sqlite3.DatabaseError:
                    pass  # unreadable schema: read what can be read
                return
            self._check_version()
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            with self.tx():
                for stmt in SCHEMA.split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                self.db.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                )
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise StoreError(f"'{self.path}' is not a usable results database: {e}") from None
        except StoreError:
            self.db.close()
            raise
        self._wal = self._wal_id()

    def _health(self) -> str | None:
        """None when ``PRAGMA quick_check`` passes, else one line saying what is wrong."""
        try:
            rows = [str(r[0]) for r in self.db.execute("PRAGMA quick_check(3)")]
        except sqlite3.DatabaseError as e:
            return str(e)
        if rows == ["ok"]:
            return None
        return "database disk image is malformed (quick_check: " + "; ".join(rows)[:200] + ")"

    def _wal_id(self) -> tuple[int, int] | None:
        try:
            st = Path(f"{self.path}-wal").stat()
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _check_wal(self) -> None:
        """StoreError when the -wal file this store writes was deleted or replaced under it."""
        if self._wal is None:
            self._wal = self._wal_id()
            return
        if self._wal_id() == self._wal:
            return
        try:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # still reads the deleted file through its handle
            saved = "every match recorded so far was checkpointed into it"
        except sqlite3.DatabaseError as e:
            saved = f"checkpointing what it held failed: {e}"
        raise StoreError(f"{self.path}-wal (its write-ahead log) was deleted or replaced while the tournament "
                         f"ran; {saved}; stopped before writing more (resume with --resume)")

    def _check_version(self) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return
        if "meta" not in tables:
            raise StoreError(f"'{self.path}' is not an arena results database (no schema version)")
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        found = row[0] if row else "none"
        if found == "1":
            raise StoreError(outdated(self.path, 1))
        if found != str(SCHEMA_VERSION):
            raise StoreError(
                f"'{self.path}' was written with schema version {found}; this arena reads version "
                f"{SCHEMA_VERSION} (use another --db)"
            )

    def tx(self) -> AbstractContextManager[None]:
        """``with store.tx():`` runs the block in one IMMEDIATE transaction."""
        return transaction(self.db)

    def close(self) -> None:
        self.db.close()

    # -- tournaments ---------------------------------------------------------------------

    def create(self, name: str, config: dict[str, Any], scheduled: int,
               entrants: Iterable[tuple[str, str]], game: str | None = None) -> Tournament:
        """A new tournament of ``game`` (default: the config's ``game``, else ``sixtysix``)."""
        game = game or str(config.get("game") or "sixtysix")
        with self.tx():
            cur = self.db.execute(
                "INSERT INTO tournaments (name, config, scheduled, created, game) VALUES (?, ?, ?, ?, ?)",
                (name, json.dumps(config, sort_keys=True), scheduled, _now(), game),
            )
            tid = int(cur.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO entrants (tournament_id, name, command) VALUES (?, ?, ?)",
                [(tid, n, c) for n, c in entrants],
            )
        return self.tournament(tid)

    def named(self, name: str) -> Tournament | None:
        """The latest tournament named ``name``, or None when there is none yet."""
        try:
            row, _ = self._tournament_row(None, name)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: {e} (reading its tournaments)") from None
        return None if row is None else self.tournament(row["id"])

    def tournament(self, tid: int | None = None, name: str | None = None) -> Tournament:
        """A tournament by id, else the latest one named ``name``, else the latest one."""
        try:
            row, missing = self._tournament_row(tid, name)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: {e} (reading its tournaments)") from None
        if row is None:
            raise StoreError(missing)
        try:
            config = json.loads(row["config"])
        except (TypeError, ValueError) as e:
            raise StoreError(f"{self.path}: tournament {row['id']} has a damaged config ({e})") from None
        return Tournament(row["id"], row["name"], config, row["scheduled"], row["created"], row["finished"],
                          row["game"])

    def _tournament_row(self, tid: int | None, name: str | None) -> tuple[Any, str]:
        if tid is not None:
            row = self.db.execute("SELECT * FROM tournaments WHERE id=?", (tid,)).fetchone()
            missing = f"no tournament {tid} in '{self.path}'"
        elif name is not None:
            row = self.db.execute(
                "SELECT * FROM tournaments WHERE name=? ORDER BY id DESC LIMIT 1", (name,)
            ).fetchone()
            missing = f"no tournament named '{name}' in '{self.path}'"
        else:
            row = self.db.execute("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
            missing = f"no tournament in '{self.path}'"
        return row, missing

    def summaries(self) -> list[tuple[Tournament, int, str | None]]:
        """Every tournament, oldest first, with its recorded matches and when the last one finished."""
        try:
            rows = self.db.execute(
                "SELECT t.id, COUNT(m.match_id) AS n, MAX(m.finished) AS last FROM tournaments t "
                "LEFT JOIN matches m ON m.tournament_id = t.id GROUP BY t.id ORDER BY t.id").fetchall()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: {e} (reading its tournaments)") from None
        return [(self.tournament(r["id"]), r["n"], r["last"]) for r in rows]

    def set_scheduled(self, tid: int, scheduled: int) -> None:
        """Set how many matches a tournament schedules (an adaptive one knows when it ends, issue 17)."""
        with self.tx():
            self.db.execute("UPDATE tournaments SET scheduled=? WHERE id=?", (scheduled, tid))

    def discard_unplayed(self, tid: int) -> bool:
        """Delete tournament ``tid`` if no match of it was ever recorded (nor voided): a run whose bots
        could not start leaves nothing behind. Returns whether it was deleted."""
        with self.tx():
            for table in ("matches", "voided"):
                if self.db.execute(f"SELECT 1 FROM {table} WHERE tournament_id=? LIMIT 1", (tid,)).fetchone():
                    return False
            self.db.execute("DELETE FROM entrants WHERE tournament_id=?", (tid,))
            self.db.execute("DELETE FROM tournaments WHERE id=?", (tid,))
        return True

    def finish(self, tid: int) -> None:
        with self.tx():
            self.db.execute("UPDATE tournaments SET finished=? WHERE id=? AND finished IS NULL", (_now(), tid))

    def restarts(self, tid: int) -> dict[str, int]:
        try:
            rows = self.db.execute("SELECT name, restarts FROM entrants WHERE tournament_id=?", (tid,))
            return {r["name"]: r["restarts"] for r in rows}
        except sqlite3.DatabaseError as e:
            if self.damage is None:
                raise StoreError(f"{self.path}: {e} (reading the entrants)") from None
            return {}

    # -- matches -------------------------------------------------------------------------

    def done(self, tid: int) -> set[str]:
        """Ids of the recorded matches."""
        rows = self.db.execute("SELECT match_id FROM matches WHERE tournament_id=?", (tid,))
        return {r[0] for r in rows}

    def record(self, tid: int, p: Pairing, result: MatchResult, restarts: dict[str, int] | None = None) -> None:
        """Commit one finished match (its row and one seat row per player) and the entrants' restart
        counts, atomically, then checkpoint the WAL into the main file."""
        if len(result.scores) != len(p.players) or len(result.teams) != len(p.players):
            raise ValueError(f"match {p.match_id}: {len(p.players)} players but scores {result.scores} "
                             f"and teams {result.teams}")
        self._check_wal()
        with self.tx():
            self.db.execute(
                f"INSERT INTO matches ({', '.join(MATCH_COLUMNS)}) VALUES ({', '.join('?' * len(MATCH_COLUMNS))})",
                (tid, p.match_id, p.seq, p.pair_id, p.seed, str(result.cause), result.offender, result.detail,
                 result.deals, result.decisions, result.duration_s, result.record, _now()),
            )
            self.db.executemany(
                "INSERT INTO seats (tournament_id, match_id, player, entrant, team, rank, score) "
                "VALUES (?,?,?,?,?,?,?)",
                [(tid, p.match_id, i, name, result.teams[i], None if result.ranks is None else result.ranks[i],
                  result.scores[i]) for i, name in enumerate(p.players)],
            )
            self.db.executemany("INSERT OR REPLACE INTO bot_errors VALUES (?,?,?,?)",
                                [(tid, p.match_id, i, n) for i, n in enumerate(result.errors) if n])
            for name, n in (restarts or {}).items():
                self.db.execute("UPDATE entrants SET restarts=? WHERE tournament_id=? AND name=?", (n, tid, name))
        self.db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def void_half_pairs(self, tid: int, legs: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
        """Move the matches of units (duplicate pairs, tables) with some but not all legs recorded (and
        their seats) to ``voided``; ``legs`` gives each unit's legs (default: 2, duplicate pairs).

        Returns the moved rows (as :meth:`matches` gives them); the caller renames their record
        files out of the way.
        """
        with self.tx():
            half = {r[0] for r in self.db.execute(
                "SELECT pair_id, COUNT(*) FROM matches WHERE tournament_id=? GROUP BY pair_id", (tid,))
                if r[1] < (legs or {}).get(r[0], 2)}
            moved = []
            for d in self.matches(tid):
                if d["pair_id"] not in half:
                    continue
                attempt = self.db.execute(
                    "SELECT COUNT(*) FROM voided WHERE tournament_id=? AND match_id=?", (tid, d["match_id"])
                ).fetchone()[0] + 1
                self.db.execute("INSERT INTO voided VALUES (?,?,?,?,?)",
                                (tid, d["match_id"], attempt, json.dumps(d), _now()))
                self.db.execute("DELETE FROM seats WHERE tournament_id=? AND match_id=?", (tid, d["match_id"]))
                self.db.execute("DELETE FROM bot_errors WHERE tournament_id=? AND match_id=?", (tid, d["match_id"]))
                self.db.execute("DELETE FROM matches WHERE tournament_id=? AND match_id=?", (tid, d["match_id"]))
                moved.append(d | {"attempt": attempt})
        return moved

    def set_voided_record(self, tid: int, match_id: str, attempt: int, record: str) -> None:
        with self.tx():
            row = self.db.execute(
                "SELECT row FROM voided WHERE tournament_id=? AND match_id=? AND attempt=?",
                (tid, match_id, attempt),
            ).fetchone()
            d = json.loads(row[0]) | {"record": record}
            self.db.execute("UPDATE voided SET row=? WHERE tournament_id=? AND match_id=? AND attempt=?",
                            (json.dumps(d), tid, match_id, attempt))

    def matches(self, tid: int) -> list[dict[str, Any]]:
        """Every recorded match of a tournament, in schedule order (in a damaged database: every one
        that can still be read, row by row): its ``matches`` columns plus ``players``, ``ranks``
        (None when the match has no result), ``scores`` and ``teams``, lists by player index."""
        try:
            rows = [dict(r) for r in self.db.execute(
                "SELECT * FROM matches WHERE tournament_id=? ORDER BY seq", (tid,))]
            seats = [dict(r) for r in self.db.execute(
                "SELECT * FROM seats WHERE tournament_id=? ORDER BY match_id, player", (tid,))]
            errors: dict[str, dict[int, int]] = {}
            for r in self.db.execute("SELECT match_id, player, errors FROM bot_errors WHERE tournament_id=?", (tid,)):
                errors.setdefault(r[0], {})[r[1]] = r[2]
            return [m | {"errors": [errors.get(m["match_id"], {}).get(i, 0) for i in range(len(m["players"]))]}
                    for m in _assemble(rows, seats)]
        except sqlite3.DatabaseError as e:
            if self.damage is None:
                raise StoreError(f"{self.path}: {e} (reading the matches)") from None
        return self._salvage(tid)

    def _salvage(self, tid: int) -> list[dict[str, Any]]:
        """The matches readable one rowid at a time; a match whose row or any of whose seat rows is
        on a damaged page is skipped."""
        try:
            t = self.tournament(tid)
            scheduled, seats_per_match = t.scheduled, max(2, len(t.config.get("entrants", ())))
        except (StoreError, TypeError, AttributeError):
            scheduled, seats_per_match = 10_000, 8
        inserts = 4 * scheduled + 100  # rowids never exceed the inserts, voided ones included
        rows = self._readable("matches", tid, inserts)
        seats = self._readable("seats", tid, inserts * seats_per_match)
        seats.sort(key=lambda s: s["player"])
        counts = Counter(s["match_id"] for s in seats)
        # every match of a tournament seats as many players, so a match with fewer seat rows lost some
        return _assemble(sorted(rows, key=lambda r: r["seq"]), seats, max(counts.values(), default=0))

    def _readable(self, table: str, tid: int, last_rowid: int) -> list[dict[str, Any]]:
        found = []
        for rowid in range(1, last_rowid + 1):
            try:
                row = self.db.execute(f"SELECT * FROM {table} WHERE rowid=?", (rowid,)).fetchone()
            except sqlite3.DatabaseError:
                continue
            if row is not None and row["tournament_id"] == tid:
                found.append(dict(row))
        return found

    def voided_count(self, tid: int) -> int:
        try:
            return self.db.execute("SELECT COUNT(*) FROM voided WHERE tournament_id=?", (tid,)).fetchone()[0]
        except sqlite3.DatabaseError as e:
            if self.damage is None:
                raise StoreError(f"{self.path}: {e} (reading the voided matches)") from None
            return 0



def _assemble(rows: list[dict[str, Any]], seats: list[dict[str, Any]], players: int = 0) -> list[dict[str, Any]]:
    """Match rows with their seats folded in as per-player lists; a match with a gap in its seats, or
    fewer than ``players`` of them (rows lost to damage), is left out. ``seats`` must be in player
    order within each match."""
    by_match: dict[str, list[dict[str, Any]]] = {}
    for s in seats:
        by_match.setdefault(s["match_id"], []).append(s)
    out = []
    for r in rows:
        ss = by_match.get(r["match_id"], [])
        if len(ss) < max(players, 1) or [s["player"] for s in ss] != list(range(len(ss))):
            continue
        ranks = [s["rank"] for s in ss]
        out.append(r | {
            "players": [s["entrant"] for s in ss],
            "ranks": None if any(k is None for k in ranks) else ranks,
            "scores": [s["score"] for s in ss],
            "teams": [s["team"] for s in ss],
        })
    return out
