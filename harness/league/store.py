"""The league's SQLite file (WAL): the league's game and rules, owners, entrant versions, rounds
and every match with one ``seats`` row per player (entrant, team, rank, score).

One league plays one game with one set of rules, fixed when the database is created and kept
in ``meta`` (:attr:`Store.league`). Secrets are never stored, only their keyed hashes (see
:mod:`harness.league.keys`). A match row and its seats are written when the match starts and
completed when it ends, so a server that dies mid-match leaves rows that the next start marks
INTERRUPTED: nothing recorded is ever lost. A database written before schema version 2 (two
fixed player columns, no game) is refused with one line naming ``arena db upgrade``.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.arena.result import Cause, MatchResult
from harness.games import registry
from harness.league.pairing import pair_key
from harness.sqlite_tx import StoreError, outdated, transaction

OPERATOR = "operator"  # the owner of entrants the league runs from a command
SCHEMA_VERSION = 2

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
  day TEXT NOT NULL, started TEXT NOT NULL, finished TEXT,
  cause TEXT, offender INTEGER, detail TEXT,
  deals INTEGER, decisions INTEGER, record TEXT, duration_s REAL);
CREATE INDEX IF NOT EXISTS matches_day ON matches (day);
CREATE TABLE IF NOT EXISTS seats (
  match_id TEXT NOT NULL REFERENCES matches(match_id), player INTEGER NOT NULL,
  entrant INTEGER NOT NULL REFERENCES entrants(id), team INTEGER NOT NULL,
  rank INTEGER, score INTEGER,  -- NULL until the match ends (rank stays NULL without a result)
  PRIMARY KEY (match_id, player));
CREATE TABLE IF NOT EXISTS bot_errors (  -- errors a bot reported in its replies (Reply.error), play going on
  match_id TEXT NOT NULL, player INTEGER NOT NULL, errors INTEGER NOT NULL,
  PRIMARY KEY (match_id, player));
"""

MATCH_COLUMNS = ("seq", "match_id", "round", "pair_id", "leg", "seed", "day", "started", "finished", "cause",
                 "offender", "detail", "deals", "decisions", "record", "duration_s")


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


@dataclass(frozen=True, slots=True)
class LeagueInfo:
    """What a league plays, fixed at creation: the game id and its rules (``name -> text``)."""

    game: str
    rules: dict[str, str]


class Store:
    """The league database. One connection, used from the event loop's thread.

    A new database records ``game`` (default ``sixtysix``) and ``rules`` (default: every option of
    that game at its default, as :meth:`harness.games.base.Game.rules_map` spells them). Opening an
    existing one with a ``game`` or ``rules`` other than its own is refused (StoreError); None
    accepts what it holds.
    """

    def __init__(self, path: str | Path, game: str | None = None, rules: Mapping[str, str] | None = None) -> None:
        self.path = Path(path)
        self._met_day, self._met_seq, self._met_ids = "", 0, Counter[tuple[int, int]]()  # see met_today
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot open the league database '{self.path}': {e}") from None
        self.db.row_factory = sqlite3.Row
        try:
            fresh = self._check_version()
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            if fresh:
                self._create(game or "sixtysix", rules)
            else:  # a league created before bot errors were counted (issue 14): the table is additive
                self.db.execute(SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS bot_errors"):].split(";")[0])
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise StoreError(f"'{self.path}' is not a usable league database: {e}") from None
        except StoreError:
            self.db.close()
            raise
        info = self.league
        if game is not None and game != info.game:
            self.db.close()
            raise StoreError(f"'{self.path}' is a league of {info.game}; it cannot play {game} "
                             f"(one league plays the game it was created with)")
        if rules is not None and dict(rules) != info.rules:
            diff = sorted(k for k in set(rules) | set(info.rules) if rules.get(k) != info.rules.get(k))
            self.db.close()
            raise StoreError(f"'{self.path}' plays {info.game} with other rules ({diff[0]}="
                             f"{info.rules.get(diff[0], '(unset)')}, not {rules.get(diff[0], '(unset)')}); "
                             f"one league keeps the rules it was created with")

    @classmethod
    def reader(cls, path: str | Path) -> Store:
        """A read-only connection to an existing league database (for the leaderboard worker,
        :mod:`harness.league.publisher`); nothing is created or checked."""
        store = cls.__new__(cls)
        store.path = Path(path)
        store._met_day, store._met_seq, store._met_ids = "", 0, Counter()
        store.db = sqlite3.connect(store.path.resolve().as_uri() + "?mode=ro", uri=True, timeout=10.0,
                                   isolation_level=None)
        store.db.row_factory = sqlite3.Row
        return store

    def _check_version(self) -> bool:
        """True for a new (empty) database; StoreError for another kind of file or schema version."""
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return True
        if "owners" not in tables or "meta" not in tables:
            raise StoreError(f"'{self.path}' is not a league database")
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:  # written before the league kept a schema version: version 1
            raise StoreError(outdated(self.path, 1))
        if row[0] != str(SCHEMA_VERSION):
            raise StoreError(f"'{self.path}' was written with schema version {row[0]}; this arena reads "
                             f"league version {SCHEMA_VERSION}")
        return False

    def _create(self, game: str, rules: Mapping[str, str] | None) -> None:
        try:
            g = registry.get(game)
        except ValueError as e:
            raise StoreError(f"cannot create the league '{self.path}': {e}") from None
        chosen = dict(rules) if rules is not None else g.rules_map(g.rules())
        with transaction(self.db):
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    self.db.execute(stmt)
            for key, value in (("schema_version", str(SCHEMA_VERSION)), ("created", now()), ("game", game),
                               ("rules", json.dumps(chosen, sort_keys=True))):  # a racing creator's stay
                self.db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def close(self) -> None:
        self.db.close()

    def _tx(self) -> AbstractContextManager[None]:
        return transaction(self.db)

    @property
    def league(self) -> LeagueInfo:
        """The game and rules this league plays (fixed at creation)."""
        return LeagueInfo(self.meta("game") or "sixtysix", json.loads(self.meta("rules") or "{}"))

    # -- meta ---------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

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
            new = self.entrant(int(cur.lastrowid or 0))
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
            self.db.execute("UPDATE seats SET rank = NULL "
                            "WHERE match_id IN (SELECT match_id FROM matches WHERE finished IS NULL)")
            cur = self.db.execute(
                "UPDATE matches SET finished = ?, cause = ?, detail = ?, offender = NULL "
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
                    players: Sequence[int], teams: Sequence[int] | None = None) -> None:
        """Record a match as it starts: its row and one seat per player (entrant ids by player
        index; ``teams`` by player index, default every player alone)."""
        teams = tuple(range(len(players))) if teams is None else tuple(teams)
        with self._tx():
            self.db.execute(
                "INSERT INTO matches (match_id, round, pair_id, leg, seed, day, started) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (match_id, round_id, pair_id, leg, seed, today(), now()))
            self.db.executemany(
                "INSERT INTO seats (match_id, player, entrant, team) VALUES (?, ?, ?, ?)",
                [(match_id, i, e, teams[i]) for i, e in enumerate(players)])

    def finish_match(self, r: MatchResult) -> None:
        """Complete the match's row and its seats with the result, in one transaction."""
        with self._tx():
            self.db.execute(
                "UPDATE matches SET finished = ?, cause = ?, offender = ?, detail = ?, deals = ?, decisions = ?, "
                "record = ?, duration_s = ? WHERE match_id = ?",
                (now(), str(r.cause), r.offender, r.detail, r.deals, r.decisions, r.record, r.duration_s, r.match_id))
            self.db.executemany(
                "UPDATE seats SET rank = ?, score = ?, team = ? WHERE match_id = ? AND player = ?",
                [(None if r.ranks is None else r.ranks[i], r.scores[i], r.teams[i], r.match_id, i)
                 for i in range(len(r.scores))])
            self.db.executemany("INSERT OR REPLACE INTO bot_errors VALUES (?, ?, ?)",
                                [(r.match_id, i, n) for i, n in enumerate(r.errors) if n])

    def matches(self) -> list[dict[str, Any]]:
        """Every finished match, in start order: its ``matches`` columns plus ``players`` (entrant
        ids), ``ranks`` (None when the match has no result), ``scores`` (0 where none was
        recorded) and ``teams``, lists by player index."""
        rows = [dict(r) for r in self.db.execute("SELECT * FROM matches WHERE finished IS NOT NULL ORDER BY seq")]
        seats: dict[str, list[sqlite3.Row]] = {}
        for s in self.db.execute("SELECT s.* FROM seats s JOIN matches m ON m.match_id = s.match_id "
                                 "WHERE m.finished IS NOT NULL ORDER BY s.match_id, s.player"):
            seats.setdefault(s["match_id"], []).append(s)
        errors: dict[str, dict[int, int]] = {}
        for e in self.db.execute("SELECT match_id, player, errors FROM bot_errors"):
            errors.setdefault(e[0], {})[e[1]] = e[2]
        for r in rows:
            ss = seats.get(r["match_id"], [])
            ranks = [s["rank"] for s in ss]
            r["players"] = [s["entrant"] for s in ss]
            r["ranks"] = None if not ss or any(k is None for k in ranks) else ranks
            r["scores"] = [s["score"] or 0 for s in ss]
            r["teams"] = [s["team"] for s in ss]
            r["errors"] = [errors.get(r["match_id"], {}).get(i, 0) for i in range(len(ss))]
        return rows

    def met_today(self, labels: dict[int, str]) -> Counter[tuple[str, str]]:
        """Matches started today per pair of leaderboard names (every two players of a match).

        The counts by entrant ids are kept between calls and only matches started since the last
        call are read (issue 18: a busy league starts hundreds of thousands of matches a day)."""
        day = today()
        if self._met_day != day:
            self._met_day, self._met_seq, self._met_ids = day, 0, Counter()
        by_match: dict[int, list[int]] = {}
        for seq, entrant in self.db.execute(
                "SELECT m.seq, s.entrant FROM matches m JOIN seats s ON s.match_id = m.match_id "
                "WHERE m.seq > ? AND m.day = ? ORDER BY m.seq, s.player", (self._met_seq, day)):
            by_match.setdefault(seq, []).append(entrant)
        for seq, players in by_match.items():
            for a, b in itertools.combinations(players, 2):
                self._met_ids[(a, b) if a <= b else (b, a)] += 1
            self._met_seq = max(self._met_seq, seq)
        met: Counter[tuple[str, str]] = Counter()
        for (a, b), n in self._met_ids.items():
            if a in labels and b in labels:
                met[pair_key(labels[a], labels[b])] += n
        return met


def _entrant(row: sqlite3.Row) -> EntrantRow:
    return EntrantRow(row["id"], row["owner"], row["name"], row["version"], row["command"], row["created"],
                      row["retired"], row["cwd"])
