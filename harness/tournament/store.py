"""The results database: SQLite in WAL mode, one transaction per finished match.

Tables: ``meta`` (schema version), ``tournaments``, ``entrants``, ``matches`` (each scheduled match
at most once, with its outcome, cause and a pointer to its JSON-lines record) and ``voided``
(matches taken out of ``matches`` because their duplicate pair was cut in half by a stop; kept,
never deleted, so nothing recorded is ever lost).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.tournament.schedule import Pairing

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    config TEXT NOT NULL,          -- JSON: entrants, rounds, seed, time, rules
    scheduled INTEGER NOT NULL,    -- matches in the schedule
    created TEXT NOT NULL,
    finished TEXT                  -- set when every scheduled match is recorded
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
    player0 TEXT NOT NULL,
    player1 TEXT NOT NULL,
    winner INTEGER,
    score0 INTEGER NOT NULL,
    score1 INTEGER NOT NULL,
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
CREATE TABLE IF NOT EXISTS voided (
    tournament_id INTEGER NOT NULL,
    match_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    row TEXT NOT NULL,             -- the match row as JSON
    voided TEXT NOT NULL,
    PRIMARY KEY (tournament_id, match_id, attempt)
);
"""


class StoreError(Exception):
    """The database cannot be used (wrong schema version, not a database, ...). One line."""


@dataclass(frozen=True, slots=True)
class Tournament:
    id: int
    name: str
    config: dict[str, Any]
    scheduled: int
    created: str
    finished: str | None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    """One open results database."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StoreError(f"no results database at '{self.path}'")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.db.row_factory = sqlite3.Row
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
            raise StoreError(f"'{self.path}' is not a usable results database: {e}") from None

    def _check_version(self) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return
        if "meta" not in tables:
            raise StoreError(f"'{self.path}' is not an arena results database (no schema version)")
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        found = row[0] if row else "none"
        if found != str(SCHEMA_VERSION):
            raise StoreError(
                f"'{self.path}' was written with schema version {found}; this arena reads version "
                f"{SCHEMA_VERSION} (use another --db)"
            )

    def tx(self) -> _Tx:
        return _Tx(self.db)

    def close(self) -> None:
        self.db.close()

    # -- tournaments ---------------------------------------------------------------------

    def create(self, name: str, config: dict[str, Any], scheduled: int,
               entrants: Iterable[tuple[str, str]]) -> Tournament:
        with self.tx():
            cur = self.db.execute(
                "INSERT INTO tournaments (name, config, scheduled, created) VALUES (?, ?, ?, ?)",
                (name, json.dumps(config, sort_keys=True), scheduled, _now()),
            )
            tid = int(cur.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO entrants (tournament_id, name, command) VALUES (?, ?, ?)",
                [(tid, n, c) for n, c in entrants],
            )
        return self.tournament(tid)

    def tournament(self, tid: int | None = None, name: str | None = None) -> Tournament:
        """A tournament by id, else the latest one named ``name``, else the latest one."""
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
        if row is None:
            raise StoreError(missing)
        return Tournament(row["id"], row["name"], json.loads(row["config"]), row["scheduled"],
                          row["created"], row["finished"])

    def finish(self, tid: int) -> None:
        with self.tx():
            self.db.execute("UPDATE tournaments SET finished=? WHERE id=? AND finished IS NULL", (_now(), tid))

    def restarts(self, tid: int) -> dict[str, int]:
        rows = self.db.execute("SELECT name, restarts FROM entrants WHERE tournament_id=?", (tid,))
        return {r["name"]: r["restarts"] for r in rows}

    # -- matches -------------------------------------------------------------------------

    def done(self, tid: int) -> set[str]:
        """Ids of the recorded matches."""
        rows = self.db.execute("SELECT match_id FROM matches WHERE tournament_id=?", (tid,))
        return {r[0] for r in rows}

    def record(self, tid: int, p: Pairing, result: Any, restarts: dict[str, int] | None = None) -> None:
        """Commit one finished match (a ``MatchResult``) and the entrants' restart counts, atomically."""
        with self.tx():
            self.db.execute(
                "INSERT INTO matches VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (tid, p.match_id, p.seq, p.pair_id, p.seed, p.players[0], p.players[1], result.winner,
                 result.scores[0], result.scores[1], str(result.cause), result.offender, result.detail,
                 result.deals, result.decisions, result.duration_s, result.record, _now()),
            )
            for name, n in (restarts or {}).items():
                self.db.execute("UPDATE entrants SET restarts=? WHERE tournament_id=? AND name=?", (n, tid, name))

    def void_half_pairs(self, tid: int) -> list[dict[str, Any]]:
        """Move the matches of duplicate pairs with only one leg recorded to ``voided``.

        Returns the moved rows; the caller renames their record files out of the way.
        """
        with self.tx():
            rows = self.db.execute(
                "SELECT * FROM matches WHERE tournament_id=? AND pair_id IN ("
                " SELECT pair_id FROM matches WHERE tournament_id=? GROUP BY pair_id HAVING COUNT(*) = 1)",
                (tid, tid),
            ).fetchall()
            moved = []
            for r in rows:
                d = dict(r)
                attempt = self.db.execute(
                    "SELECT COUNT(*) FROM voided WHERE tournament_id=? AND match_id=?", (tid, d["match_id"])
                ).fetchone()[0] + 1
                self.db.execute("INSERT INTO voided VALUES (?,?,?,?,?)",
                                (tid, d["match_id"], attempt, json.dumps(d), _now()))
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
        """Every recorded match of a tournament, in schedule order."""
        rows = self.db.execute("SELECT * FROM matches WHERE tournament_id=? ORDER BY seq", (tid,))
        return [dict(r) for r in rows]

    def voided_count(self, tid: int) -> int:
        return self.db.execute("SELECT COUNT(*) FROM voided WHERE tournament_id=?", (tid,)).fetchone()[0]


class _Tx:
    """``with store.tx():`` runs the block in one IMMEDIATE transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
