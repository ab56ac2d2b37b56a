"""``arena db upgrade PATH``: migrate a results or league database written with an older schema,
in place, after copying it aside (nothing is lost).

Schema version 1 of both stores kept two fixed player columns (``player0/1``, ``winner``,
``score0/1``) and no game. Version 2 keeps one ``seats`` row per player (entrant, team, rank,
score) and the game: every version-1 match was classic Sixty-Six between two players alone. The
winner column becomes ranks exactly as it says: the winner ranks 0 and the other player 1 (a
forfeit's winner is the player who did not forfeit, so the offender ranks last); no winner means
no result (both ranks NULL). The JSON rows of voided matches are kept as they were written.

The original file is copied to ``PATH.schema1.bak`` first (``.bak.2``, ``.bak.3``, ... when that
name is taken; a backup is never overwritten), then the migration runs in one transaction.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from pathlib import Path

from harness.games import registry
from harness.league import store as league_store
from harness.sqlite_tx import transaction
from harness.tournament import store as results_store

HEADER = b"SQLite format 3\x00"
KINDS = {"results": results_store.SCHEMA_VERSION, "league": league_store.SCHEMA_VERSION}
_V1_TWO_SEATS = {"player0", "player1", "winner", "score0", "score1"}


class UpgradeError(Exception):
    """The file cannot be upgraded (missing, not an arena database, damaged, in use). One line."""


def upgrade(path: str | Path) -> str:
    """Upgrade the database at ``path`` to the current schema; returns one line saying what was done
    (or that it was already current). UpgradeError when it cannot be upgraded."""
    path = Path(path)
    if not path.is_file():
        raise UpgradeError(f"no database at '{path}'")
    with path.open("rb") as f:
        if f.read(len(HEADER)) != HEADER:
            raise UpgradeError(f"'{path}' is not an SQLite database")
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=30)
    except sqlite3.DatabaseError as e:
        raise UpgradeError(f"cannot open '{path}': {e}") from None
    try:
        return _upgrade(db, path)
    except sqlite3.DatabaseError as e:
        raise UpgradeError(f"'{path}' could not be upgraded: {e}; it was left as it was") from None
    finally:
        db.close()


def _upgrade(db: sqlite3.Connection, path: Path) -> str:
    rows = [str(r[0]) for r in db.execute("PRAGMA quick_check(3)")]
    if rows != ["ok"]:
        raise UpgradeError(f"'{path}' is damaged ({'; '.join(rows)[:200]}); not upgrading it")
    kind, found = _identify(db, path)
    current = KINDS[kind]
    if found == current:
        return f"'{path}' ({kind} database) is already at schema version {current}; nothing to do"
    if found > current:
        raise UpgradeError(f"'{path}' was written with schema version {found}, newer than this arena "
                           f"({current}); use a newer arena")
    busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy is not None and busy[0]:
        raise UpgradeError(f"'{path}' is in use by another process; stop it and run the upgrade again")
    backup: Path | None = None
    try:
        with transaction(db):  # holds the write lock from the copy to the commit
            wal = Path(f"{path}-wal")
            if wal.exists() and wal.stat().st_size > 0:  # written since the checkpoint: not all in the file
                raise UpgradeError(f"'{path}' is in use by another process; stop it and run the upgrade again")
            backup = _backup(path, found)
            (_results_v1_to_v2 if kind == "results" else _league_v1_to_v2)(db)
    except BaseException:
        if backup is not None:
            backup.unlink(missing_ok=True)  # the original is unchanged: the copy is not needed
        raise
    return (f"upgraded '{path}' ({kind} database) from schema version {found} to {current}; "
            f"the original is kept in '{backup}'")


def _identify(db: sqlite3.Connection, path: Path) -> tuple[str, int]:
    """(kind, schema version) of an arena database; UpgradeError for any other file."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    kind = "results" if "tournaments" in tables else "league" if "owners" in tables else None
    if kind is None or "meta" not in tables:
        raise UpgradeError(f"'{path}' is not an arena results or league database")
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None and kind == "results":
        raise UpgradeError(f"'{path}' is not an arena results database (no schema version)")
    try:
        found = 1 if row is None else int(row[0])  # the league kept no version before version 2
    except ValueError:
        raise UpgradeError(f"'{path}' has an unreadable schema version {row[0]!r}") from None
    if found == 1:
        columns = {r[1] for r in db.execute("PRAGMA table_info(matches)")}
        if not _V1_TWO_SEATS <= columns:
            raise UpgradeError(f"'{path}' says schema version 1 but its matches table is not version 1's")
    return kind, found


def _backup(path: Path, version: int) -> Path:
    """Copy ``path`` byte for byte to a backup name that does not exist yet; returns it."""
    base = f"{path}.schema{version}.bak"
    for n in range(1, 10_000):
        target = Path(base if n == 1 else f"{base}.{n}")
        try:
            out = target.open("xb")
        except FileExistsError:
            continue
        with out, path.open("rb") as src:
            while chunk := src.read(1 << 20):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        return target
    raise UpgradeError(f"too many backups of '{path}' already; remove some")


def _create(db: sqlite3.Connection, schema: str) -> None:
    for stmt in schema.split(";"):
        if stmt.strip():
            db.execute(stmt)


def _seats_select(keys: str) -> str:
    """Seat rows ``keys..., player, entrant, team, rank, score`` for players 0 and 1 of every match
    of a version-1 table renamed ``matches_v1``: the winner ranks 0, the other 1, none: NULL."""
    return (
        f"SELECT {keys}, p.player, CASE p.player WHEN 0 THEN m.player0 ELSE m.player1 END, p.player, "
        "CASE WHEN m.winner IS NULL THEN NULL WHEN m.winner = p.player THEN 0 ELSE 1 END, "
        "CASE p.player WHEN 0 THEN m.score0 ELSE m.score1 END "
        "FROM matches_v1 m JOIN (SELECT 0 AS player UNION ALL SELECT 1) p ORDER BY m.rowid, p.player"
    )


def _results_v1_to_v2(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE tournaments ADD COLUMN game TEXT NOT NULL DEFAULT 'sixtysix'")
    db.execute("ALTER TABLE matches RENAME TO matches_v1")
    _create(db, results_store.SCHEMA)
    cols = ", ".join(results_store.MATCH_COLUMNS)
    db.execute(f"INSERT INTO matches (rowid, {cols}) SELECT rowid, {cols} FROM matches_v1 ORDER BY rowid")
    db.execute("INSERT INTO seats (tournament_id, match_id, player, entrant, team, rank, score) "
               + _seats_select("m.tournament_id, m.match_id"))
    db.execute("DROP TABLE matches_v1")
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(results_store.SCHEMA_VERSION),))


def _league_v1_to_v2(db: sqlite3.Connection) -> None:
    db.execute("DROP INDEX IF EXISTS matches_day")  # it would follow the renamed table
    db.execute("ALTER TABLE matches RENAME TO matches_v1")
    _create(db, league_store.SCHEMA)
    cols = ", ".join(league_store.MATCH_COLUMNS)
    db.execute(f"INSERT INTO matches ({cols}) SELECT {cols} FROM matches_v1 ORDER BY seq")
    db.execute("INSERT INTO seats (match_id, player, entrant, team, rank, score) "
               + _seats_select("m.match_id"))
    db.execute("DROP TABLE matches_v1")
    game = registry.get("sixtysix")  # every version-1 league played classic Sixty-Six at its defaults
    for key, value in (("schema_version", str(league_store.SCHEMA_VERSION)), ("game", game.id),
                       ("rules", json.dumps(game.rules_map(game.rules()), sort_keys=True))):
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def cmd_upgrade(args: argparse.Namespace) -> int:
    """``arena db upgrade PATH``: 0 when upgraded or already current, 2 with one line otherwise."""
    try:
        print(upgrade(args.path))
    except UpgradeError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    return 0
