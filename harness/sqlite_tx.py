"""What the two SQLite stores (tournament results, league) share: one transaction helper, one
error type and the one line that refuses a database written with an older schema."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class StoreError(Exception):
    """The database cannot be used (wrong schema version, not a database, ...). One line."""


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """``with transaction(db):`` runs the block in one IMMEDIATE transaction (rolled back when the
    block raises). ``db`` must be in autocommit mode (``isolation_level=None``).

    >>> db = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = db.execute("CREATE TABLE t (x)")
    >>> try:
    ...     with transaction(db):
    ...         _ = db.execute("INSERT INTO t VALUES (1)")
    ...         raise KeyError("stop")
    ... except KeyError:
    ...     pass
    >>> db.execute("SELECT COUNT(*) FROM t").fetchone()[0]
    0
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def outdated(path: str | Path, found: int) -> str:
    """The one line refusing a database written with an older schema version."""
    return (f"'{path}' was written with schema version {found}; upgrade it in place with: "
            f"arena db upgrade {path} (a backup is kept)")
