"""The league's SQLite file (WAL): owners, entrant versions, rounds and every match.

Secrets are never stored, only their keyed hashes (see :mod:`harness.league.keys`). A match
row is written when the match starts and completed when it ends, so a server that dies mid-match
leaves a row that the next start marks INTERRUPTED: nothing recorded is ever lost.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.arena.result import Cause, MatchResult
from harness.league.pairing import pair_key

OPERATOR = "operator"  # the owner of entrants the league runs from a command

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS owners (
  owner TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
  id INTEGER PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,
  command TEXT, cwd TEXT, token_hash TEXT UNIQUE, created TEXT NOT NULL, retired TEXT,
  UNIQUE (owner, name, version));
CREATE TABLE IF NOT EXISTS rounds (
  id INTEGER PRIMARY KEY, started TEXT NOT NULL, finished TEXT, pairs INTEGER NOT NULL,
  matches INTEGER NOT NULL DEFAULT 0, interrupted INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS matches (
  seq INTEGER PRIMARY KEY, match_id TEXT UNIQUE NOT NULL, round INTEGER NOT NULL REFERENCES rounds(id),
  pair_id TEXT NOT NULL, leg INTEGER NOT NULL, seed INTEGER NOT NULL,
  player0 INTEGER NOT NULL REFERENCES entrants(id), player1 INTEGER NOT NULL REFERENCES entrants(id),
  day TEXT NOT NULL, started TEXT NOT NULL, finished TEXT,
  winner INTEGER, score0 INTEGER, score1 INTEGER, cause TEXT, offender INTEGER, detail TEXT,
  deals INTEGER, decisions INTEGER, record TEXT, duration_s REAL);
CREATE INDEX IF NOT EXISTS matches_day ON matches (day);
"""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


@dataclass(frozen=True, slots=True)
class EntrantRow:
    """One entrant version."""

    id: int
    owner: str
    name: str
    version: int
    command: str | None
    created: str
    retired: str | None
    cwd: str | None = None  # where an operator entrant's command runs

    @property
    def label(self) -> str:
        """The leaderboard name: ``owner/name@version``."""
        return f"{self.owner}/{self.name}@{self.version}"

    @property
    def operator(self) -> bool:
        return self.command is not None


class Store:
    """The league database. One connection, used from the event loop's thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)
        if self.meta("created") is None:
            self.set_meta("created", now())

    def close(self) -> None:
        self.db.close()

    def _tx(self) -> Any:
        return _Tx(self.db)

    # -- meta ---------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- owners and entrants -------------------------------------------------------------

    def owner_secret_hash(self, owner: str) -> str | None:
        row = self.db.execute("SELECT secret_hash FROM owners WHERE owner = ?", (owner,)).fetchone()
        return None if row is None else row[0]

    def register(self, owner: str, name: str, *, token_hash: str | None = None, command: str | None = None,
                 cwd: str | None = None, owner_secret_hash: str | None = None) -> tuple[EntrantRow, EntrantRow | None]:
        """Add a new version of ``owner/name`` (retiring the active one); creates the owner when
        ``owner_secret_hash`` is given. Returns (the new version, the one it retired)."""
        with self._tx():
            if owner_secret_hash is not None:
                self.db.execute("INSERT INTO owners (owner, secret_hash, created) VALUES (?, ?, ?)",
                                (owner, owner_secret_hash, now()))
            old = self.active(owner, name)
            if old is not None:
                self.db.execute("UPDATE entrants SET retired = ? WHERE id = ?", (now(), old.id))
            version = self.db.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM entrants WHERE owner = ? AND name = ?",
                                      (owner, name)).fetchone()[0]
            cur = self.db.execute(
                "INSERT INTO entrants (owner, name, version, command, cwd, token_hash, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", (owner, name, version, command, cwd, token_hash, now()))
            new = self.entrant(cur.lastrowid)
        assert new is not None
        return new, old

    def retire(self, entrant_id: int) -> None:
        self.db.execute("UPDATE entrants SET retired = ? WHERE id = ? AND retired IS NULL", (now(), entrant_id))

    def entrant(self, entrant_id: int) -> EntrantRow | None:
        row = self.db.execute("SELECT * FROM entrants WHERE id = ?", (entrant_id,)).fetchone()
        return None if row is None else _entrant(row)

    def active(self, owner: str, name: str) -> EntrantRow | None:
        row = self.db.execute("SELECT * FROM entrants WHERE owner = ? AND name = ? AND retired IS NULL",
                              (owner, name)).fetchone()
        return None if row is None else _entrant(row)

    def by_token(self, token_hash: str) -> EntrantRow | None:
        """The active entrant whose token hashes to ``token_hash``."""
        row = self.db.execute("SELECT * FROM entrants WHERE token_hash = ? AND retired IS NULL",
                              (token_hash,)).fetchone()
        return None if row is None else _entrant(row)

    def entrants(self, include_retired: bool = True) -> list[EntrantRow]:
        sql = "SELECT * FROM entrants" + ("" if include_retired else " WHERE retired IS NULL") + " ORDER BY id"
        return [_entrant(r) for r in self.db.execute(sql)]

    # -- rounds and matches --------------------------------------------------------------

    def recover(self) -> int:
        """Mark matches left unfinished by a server that died as INTERRUPTED; returns how many."""
        with self._tx():
            cur = self.db.execute(
                "UPDATE matches SET finished = ?, cause = ?, detail = ?, winner = NULL, offender = NULL "
                "WHERE finished IS NULL", (now(), str(Cause.INTERRUPTED), "the league server stopped during the match"))
            self.db.execute("UPDATE rounds SET finished = ? WHERE finished IS NULL", (now(),))
        return cur.rowcount

    def begin_round(self, pairs: int) -> int:
        cur = self.db.execute("INSERT INTO rounds (started, pairs) VALUES (?, ?)", (now(), pairs))
        assert cur.lastrowid is not None
        return cur.lastrowid

    def end_round(self, round_id: int) -> None:
        self.db.execute(
            "UPDATE rounds SET finished = ?, "
            "matches = (SELECT COUNT(*) FROM matches WHERE round = rounds.id AND cause != 'interrupted'), "
            "interrupted = (SELECT COUNT(*) FROM matches WHERE round = rounds.id AND cause = 'interrupted') "
            "WHERE id = ?", (now(), round_id))

    def rounds(self) -> int:
        """Rounds that played at least one match to its end."""
        return self.db.execute("SELECT COUNT(*) FROM rounds WHERE matches > 0").fetchone()[0]

    def start_match(self, match_id: str, round_id: int, pair_id: str, leg: int, seed: int,
                    players: tuple[int, int]) -> None:
        self.db.execute(
            "INSERT INTO matches (match_id, round, pair_id, leg, seed, player0, player1, day, started) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (match_id, round_id, pair_id, leg, seed, *players, today(), now()))

    def finish_match(self, r: MatchResult) -> None:
        """Complete the match's row with its result (one statement, so one transaction)."""
        self.db.execute(
            "UPDATE matches SET finished = ?, winner = ?, score0 = ?, score1 = ?, cause = ?, offender = ?, detail = ?, "
            "deals = ?, decisions = ?, record = ?, duration_s = ? WHERE match_id = ?",
            (now(), r.winner, r.scores[0], r.scores[1], str(r.cause), r.offender, r.detail, r.deals, r.decisions,
             r.record, r.duration_s, r.match_id))

    def matches(self) -> list[dict[str, Any]]:
        """Every finished match, in start order, with player ids."""
        return [dict(r) for r in self.db.execute("SELECT * FROM matches WHERE finished IS NOT NULL ORDER BY seq")]

    def met_today(self, labels: dict[int, str]) -> Counter[tuple[str, str]]:
        """Matches started today per pair of leaderboard names."""
        met: Counter[tuple[str, str]] = Counter()
        for a, b, n in self.db.execute("SELECT player0, player1, COUNT(*) FROM matches WHERE day = ? "
                                       "GROUP BY player0, player1", (today(),)):
            if a in labels and b in labels:
                met[pair_key(labels[a], labels[b])] += n
        return met


class _Tx:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an exception."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: Any, *_: Any) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _entrant(row: sqlite3.Row) -> EntrantRow:
    return EntrantRow(row["id"], row["owner"], row["name"], row["version"], row["command"], row["created"],
                      row["retired"], row["cwd"])
