"""Results storage by player (``seats``), the ``game`` of a tournament or league, and the upgrade of
databases written with schema version 1 (two fixed player columns) by ``arena db upgrade``.

Schema-1 databases are built here with the exact tables the previous version wrote (its SCHEMA
text, below) and rows like the ones it wrote; standings are computed from them with the
conversion that version used, and must be identical after the upgrade.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
import subprocess
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from harness.arena.result import Cause, MatchResult
from harness.games import registry
from harness.league.board import league_board
from harness.league.pairing import pair_key
from harness.league.store import LeagueInfo
from harness.league.store import Store as LeagueStore
from harness.rating import Model, Played, Standings, standings
from harness.sqlite_tx import StoreError
from harness.tournament import publish
from harness.tournament.schedule import Pairing
from harness.tournament.store import Store
from harness.tournament.upgrade import UpgradeError, upgrade

ROOT = Path(__file__).resolve().parents[1]

# The tables schema version 1 wrote (harness/tournament/store.py and harness/league/store.py before
# per-player seats), verbatim.
V1_RESULTS = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, config TEXT NOT NULL, scheduled INTEGER NOT NULL,
    created TEXT NOT NULL, finished TEXT);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), name TEXT NOT NULL, command TEXT NOT NULL,
    restarts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (tournament_id, name));
CREATE TABLE IF NOT EXISTS matches (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), match_id TEXT NOT NULL, seq INTEGER NOT NULL,
    pair_id TEXT NOT NULL, seed INTEGER NOT NULL, player0 TEXT NOT NULL, player1 TEXT NOT NULL, winner INTEGER,
    score0 INTEGER NOT NULL, score1 INTEGER NOT NULL, cause TEXT NOT NULL, offender INTEGER, detail TEXT NOT NULL,
    deals INTEGER NOT NULL, decisions INTEGER NOT NULL, duration_s REAL NOT NULL, record TEXT,
    finished TEXT NOT NULL, PRIMARY KEY (tournament_id, match_id));
CREATE TABLE IF NOT EXISTS voided (
    tournament_id INTEGER NOT NULL, match_id TEXT NOT NULL, attempt INTEGER NOT NULL, row TEXT NOT NULL,
    voided TEXT NOT NULL, PRIMARY KEY (tournament_id, match_id, attempt));
"""

V1_LEAGUE = """
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

# (players, ranks, scores, cause, offender): wins, losses, a normal match without a result, and
# forfeits (the offender ranks last, as the winner column of schema 1 says).
GAMES: list[tuple[tuple[str, str], tuple[int, int] | None, tuple[int, int], str, int | None]] = [
    (("a", "b"), (0, 1), (7, 3), "normal", None),
    (("b", "a"), (0, 1), (7, 0), "normal", None),
    (("a", "c"), (1, 0), (2, 7), "normal", None),
    (("c", "a"), (1, 0), (5, 7), "normal", None),
    (("b", "c"), None, (0, 0), "normal", None),
    (("c", "b"), (1, 0), (1, 0), "timeout", 0),
    (("a", "b"), (0, 1), (7, 6), "normal", None),
    (("b", "a"), (1, 0), (3, 7), "normal", None),
    (("a", "c"), (0, 1), (7, 1), "crash", 1),
]

# TrueSkill (mu, sigma) after GAMES, computed by the pre-change code (harness/rating.py at commit
# 07b7497, through its two_player conversion). Two-player ratings must never move.
TODAY = {
    "a": (29.875300050647496, 3.929382240757733),
    "b": (23.76003423069748, 4.34040670604647),
    "c": (20.252986298378982, 4.8309064688563845),
}

RULES = {"match_target": 3, "marriage_in_phase2": True}  # a config's rules as schema 1 stored them
CONFIG: dict[str, Any] = {
    "name": "t", "entrants": [["a", "python a.py"], ["b", "python b.py"], ["c", "python c.py"]],
    "rounds": 1, "seed": 4, "time": {"move": 1.0, "bank": 10.0}, "rules": RULES}


def _one_line(text: str) -> str:
    lines = text.splitlines()
    assert len(lines) == 1, text
    return lines[0]


def _winner(ranks: tuple[int, int] | None) -> int | None:
    return None if ranks is None else ranks.index(0)


def _pairing(i: int, players: tuple[str, str]) -> Pairing:
    return Pairing(seq=i, round=1, slot=i // 2 + 1, table=1, leg=i % 2, seed=1000 + i // 2, players=players)


def _result(p: Pairing, ranks: tuple[int, ...] | None, scores: tuple[int, ...], cause: str,
            offender: int | None, record: str | None = None, detail: str = "") -> MatchResult:
    return MatchResult(p.match_id, p.seed, "sixtysix", p.players, ranks, scores, (0, 1), Cause(cause), offender,
                       detail, 3, 40, record, 0.5)


def _old_played(row: dict[str, Any], label: Any = str) -> Played:
    """A schema-1 row as the rating saw it before the upgrade (rating.two_player, written out)."""
    w = row["winner"]
    ranks = None if w is None else ((0, 1) if w == 0 else (1, 0))
    return Played(row["seq"], row["match_id"], row["pair_id"], (label(row["player0"]), label(row["player1"])),
                  ranks, (row["score0"] or 0, row["score1"] or 0), row["cause"], row["offender"])


def _same_standings(after: Standings, before: Standings) -> None:
    assert len(after.rows) == len(before.rows)
    for a, b in zip(after.rows, before.rows):
        for f in dataclasses.fields(b):
            assert getattr(a, f.name) == getattr(b, f.name), (b.name, f.name)
    assert after.cross == before.cross and after.history == before.history and after.matches == before.matches
    assert after == before


def _rows(db: Path, sql: str) -> list[dict[str, Any]]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute(sql)]
    finally:
        con.close()


def _v1_results(path: Path) -> None:
    """A results database as schema version 1 wrote it: one tournament of GAMES and a voided match."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(V1_RESULTS)
    con.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    con.execute("INSERT INTO tournaments (name, config, scheduled, created) VALUES ('t', ?, 10, '2026-01-01')",
                (json.dumps(CONFIG, sort_keys=True),))
    con.executemany("INSERT INTO entrants (tournament_id, name, command, restarts) VALUES (1, ?, ?, ?)",
                    [(n, c, i) for i, (n, c) in enumerate(CONFIG["entrants"])])
    for i, (players, ranks, scores, cause, offender) in enumerate(GAMES):
        p = _pairing(i, players)
        con.execute("INSERT INTO matches VALUES (1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (p.match_id, p.seq, p.pair_id, p.seed, *players, _winner(ranks), *scores, cause, offender,
                     "", 3, 40, 0.5, f"records/{p.match_id}.jsonl", "2026-01-01"))
    old = {"match_id": "001-09-01-a", "player0": "a", "player1": "b", "winner": 1, "score0": 2, "score1": 7}
    con.execute("INSERT INTO voided VALUES (1, '001-09-01-a', 1, ?, '2026-01-01')", (json.dumps(old),))
    con.commit()
    con.close()


def _today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


def _v1_league(path: Path) -> None:
    """A league database as the league wrote it before it kept a schema version."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(V1_LEAGUE)
    con.execute("INSERT INTO meta VALUES ('created', '2026-01-01T00:00:00+00:00')")
    con.execute("INSERT INTO owners VALUES ('o', 'h', '2026-01-01')")
    con.executemany("INSERT INTO entrants (id, owner, name, version, token_hash, created, retired) "
                    "VALUES (?, 'o', ?, ?, ?, '2026-01-01', ?)",
                    [(1, "a", 1, "t1", "2026-01-02"), (2, "b", 1, "t2", None), (3, "c", 1, "t3", None),
                     (4, "a", 2, "t4", None)])
    con.execute("INSERT INTO rounds (id, started, finished, pairs, matches) VALUES (1, 'x', 'y', 4, 9)")
    ids = {"a": 1, "b": 2, "c": 3}
    for i, (players, ranks, scores, cause, offender) in enumerate(GAMES):
        day = _today() if i < 4 else "2026-01-01"
        con.execute("INSERT INTO matches (match_id, round, pair_id, leg, seed, player0, player1, day, started, "
                    "finished, winner, score0, score1, cause, offender, detail, deals, decisions, record, duration_s) "
                    "VALUES (?, 1, ?, ?, 7, ?, ?, ?, 's', 'f', ?, ?, ?, ?, ?, '', 3, 40, NULL, 0.5)",
                    (f"r1-{i}", f"r1-{i // 2}", i % 2, ids[players[0]], ids[players[1]], day, _winner(ranks),
                     *scores, cause, offender))
    # an interrupted match (kept, never rated), one the retired version won, and one a dead server left open
    con.execute("INSERT INTO matches (match_id, round, pair_id, leg, seed, player0, player1, day, started, finished, "
                "winner, score0, score1, cause, offender, detail, deals, decisions, duration_s) "
                "VALUES ('r1-x', 1, 'r1-x', 0, 7, 2, 3, ?, 's', 'f', NULL, 2, 1, 'interrupted', NULL, 'stop', 1, 9, 1)",
                (_today(),))
    con.execute("INSERT INTO matches (match_id, round, pair_id, leg, seed, player0, player1, day, started, finished, "
                "winner, score0, score1, cause, offender, detail, deals, decisions, duration_s) "
                "VALUES ('r1-y', 1, 'r1-y', 0, 7, 4, 1, '2026-01-01', 's', 'f', 1, 3, 7, 'normal', NULL, '', 4, 50, 1)")
    con.execute("INSERT INTO matches (match_id, round, pair_id, leg, seed, player0, player1, day, started) "
                "VALUES ('r1-z', 1, 'r1-z', 0, 7, 4, 2, ?, 's')", (_today(),))
    con.commit()
    con.close()


# -- ratings -------------------------------------------------------------------------------------


def test_two_player_ratings_keep_todays_numbers(tmp_path: Path) -> None:
    played = [Played(i, f"m{i}", f"p{i // 2}", players, ranks, scores, cause, offender)
              for i, (players, ranks, scores, cause, offender) in enumerate(GAMES)]
    direct = standings(Model(), ["a", "b", "c"], played)
    store = Store(tmp_path / "a.db")
    t = store.create("t", CONFIG, len(GAMES), CONFIG["entrants"], game="sixtysix")
    for i, (players, ranks, scores, cause, offender) in enumerate(GAMES):
        p = _pairing(i, players)
        store.record(t.id, p, _result(p, ranks, scores, cause, offender))
    stored = publish.board(store, store.tournament(t.id)).standings
    store.close()
    for st in (direct, stored):
        got = {r.name: (r.mu, r.sigma) for r in st.rows}
        for name, (mu, sigma) in TODAY.items():
            assert got[name][0] == pytest.approx(mu, rel=1e-12, abs=0)
            assert got[name][1] == pytest.approx(sigma, rel=1e-12, abs=0)
        assert st.order == ["a", "b", "c"]
        assert {r.name: (r.played, r.wins) for r in st.rows} == {"a": (7, 5), "b": (6, 2), "c": (5, 1)}
        assert {r.name: r.failures["timeout"] + r.failures["crash"] for r in st.rows} == {"a": 0, "b": 0, "c": 2}
    _same_standings(stored, direct)


# -- the results store ---------------------------------------------------------------------------


def test_record_writes_one_seat_per_player_and_reads_them_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.db")
    t = store.create("t", CONFIG | {"game": "schnapsen"}, 4, CONFIG["entrants"])
    assert t.game == "schnapsen" == store.tournament(t.id).game  # from the config when not given
    p0, p1 = _pairing(0, ("a", "b")), _pairing(1, ("b", "a"))
    store.record(t.id, p0, _result(p0, (1, 0), (2, 7), "illegal", 0, detail="bad card"))
    store.record(t.id, p1, _result(p1, None, (0, 0), "normal", None))
    rows = store.matches(t.id)
    assert [(r["match_id"], r["players"], r["ranks"], r["scores"], r["teams"]) for r in rows] == [
        (p0.match_id, ["a", "b"], [1, 0], [2, 7], [0, 1]), (p1.match_id, ["b", "a"], None, [0, 0], [0, 1])]
    assert rows[0]["cause"] == "illegal" and rows[0]["offender"] == 0 and rows[0]["detail"] == "bad card"
    assert not {"player0", "winner", "score0"} & set(rows[0])
    b = publish.board(store, store.tournament(t.id))
    assert b.meta["game"] == "schnapsen" and b.meta["game_title"] == "Schnapsen"
    assert b.meta["rule_changes"] == ["match_target=3"]  # marriage_in_phase2=true is Schnapsen's default
    store.close()


def test_a_match_and_its_seats_are_one_transaction(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    store = Store(db)
    t = store.create("t", CONFIG, 2, CONFIG["entrants"])
    p = _pairing(0, ("a", "b"))
    con = sqlite3.connect(db)  # a stray seat row that makes the second seat insert fail
    con.execute("INSERT INTO seats VALUES (?, ?, 1, 'x', 1, 0, 0)", (t.id, p.match_id))
    con.commit()
    con.close()
    with pytest.raises(sqlite3.IntegrityError):
        store.record(t.id, p, _result(p, (0, 1), (7, 0), "normal", None))
    assert store.done(t.id) == set() and store.matches(t.id) == []  # the match row was rolled back too
    store.close()


def test_voiding_a_half_pair_moves_its_seats_and_keeps_everything(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.db")
    t = store.create("t", CONFIG, 4, CONFIG["entrants"])
    ps = [_pairing(i, pl) for i, pl in enumerate([("a", "b"), ("b", "a"), ("a", "c")])]
    for p, ranks in zip(ps, [(0, 1), (1, 0), (1, 0)]):
        store.record(t.id, p, _result(p, ranks, (7, 2) if ranks[0] == 0 else (2, 7), "normal", None, "r.jsonl"))
    moved = store.void_half_pairs(t.id)
    assert [(d["match_id"], d["players"], d["ranks"], d["scores"], d["attempt"]) for d in moved] == [
        (ps[2].match_id, ["a", "c"], [1, 0], [2, 7], 1)]
    assert [r["match_id"] for r in store.matches(t.id)] == [ps[0].match_id, ps[1].match_id]
    assert store.db.execute("SELECT COUNT(*) FROM seats WHERE match_id = ?", (ps[2].match_id,)).fetchone()[0] == 0
    kept = json.loads(store.db.execute("SELECT row FROM voided").fetchone()[0])
    assert kept == {k: v for k, v in moved[0].items() if k != "attempt"}
    store.close()


def _match_pages(db: Path) -> list[int]:
    """Numbers of the table b-tree leaf pages (type byte 0x0D) that hold match rows."""
    data = db.read_bytes()
    size = int.from_bytes(data[16:18], "big")
    pages = [data[i: i + size] for i in range(0, len(data), size)]
    return [n for n, page in enumerate(pages, 1) if n > 1 and page[0] == 0x0D and b".jsonl" in page]


def test_a_damaged_database_still_shows_every_match_that_can_be_read(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    store = Store(db)
    t = store.create("t", CONFIG, 200, CONFIG["entrants"])
    rng = random.Random(5)
    written = {}
    for i in range(120):
        p = _pairing(i, ("a", "b") if i % 2 == 0 else ("b", "a"))
        ranks = (0, 1) if rng.random() < 0.5 else (1, 0)
        scores = (rng.randrange(8), rng.randrange(8))
        store.record(t.id, p, _result(p, ranks, scores, "normal", None, f"records/{p.match_id}.jsonl", "x" * 60))
        written[p.match_id] = (list(p.players), list(ranks), list(scores))
    store.close()
    leaves = _match_pages(db)
    assert len(leaves) >= 3, "the matches should span several pages for this test to mean something"
    page = leaves[len(leaves) // 2]
    size = int.from_bytes(db.read_bytes()[16:18], "big")
    with open(db, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(random.Random(page).randbytes(size))
    with pytest.raises(StoreError, match="refusing to write into a damaged database"):
        Store(db)
    damaged = Store(db, create=False, damaged_ok=True)
    assert damaged.damage is not None
    rows = damaged.matches(t.id)
    damaged.close()
    assert 0 < len(rows) < len(written)
    assert [r["seq"] for r in rows] == sorted(r["seq"] for r in rows)
    for r in rows:
        assert (r["players"], r["ranks"], r["scores"]) == written[r["match_id"]]


# -- schema version 1 ---------------------------------------------------------------------------


def test_a_schema_1_database_is_refused_with_one_line(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    _v1_results(db)
    before = db.read_bytes()
    line = f"'{db}' was written with schema version 1; upgrade it in place with: arena db upgrade {db} (a backup is kept)"
    with pytest.raises(StoreError) as e:
        Store(db)
    assert str(e.value) == line
    with pytest.raises(StoreError) as e:
        Store(db, create=False, damaged_ok=True)
    assert str(e.value) == line
    league = tmp_path / "league.db"
    _v1_league(league)
    with pytest.raises(StoreError) as e:
        LeagueStore(league)
    assert str(e.value) == line.replace(str(db), str(league))
    assert db.read_bytes() == before  # refused, not touched


def test_upgrade_keeps_every_row_and_the_standings(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _v1_results(db)
    original = db.read_bytes()
    old_rows = _rows(db, "SELECT * FROM matches ORDER BY seq")
    before = standings(Model(), ["a", "b", "c"], [_old_played(r) for r in old_rows])

    message = upgrade(db)
    assert message == (f"upgraded '{db}' (results database) from schema version 1 to 2; "
                       f"the original is kept in '{db}.schema1.bak'")
    assert Path(f"{db}.schema1.bak").read_bytes() == original

    store = Store(db)
    t = store.tournament()
    assert t.game == "sixtysix" and t.config == CONFIG and store.restarts(t.id) == {"a": 0, "b": 1, "c": 2}
    new_rows = store.matches(t.id)
    assert len(new_rows) == len(old_rows)
    for old, new in zip(old_rows, new_rows):
        assert new["players"] == [old["player0"], old["player1"]] and new["scores"] == [old["score0"], old["score1"]]
        assert new["ranks"] == (None if old["winner"] is None else [int(old["winner"] != 0), int(old["winner"] != 1)])
        assert new["teams"] == [0, 1]
        for k in ("match_id", "seq", "pair_id", "seed", "cause", "offender", "detail", "deals", "decisions",
                  "duration_s", "record", "finished"):
            assert new[k] == old[k], k
    b = publish.board(store, t)
    _same_standings(b.standings, before)
    assert b.meta["game"] == "sixtysix" and b.meta["game_title"] == registry.get("sixtysix").title
    assert b.meta["rule_changes"] == ["match_target=3", "marriage_in_phase2=true"] and b.meta["voided"] == 1
    assert json.loads(store.db.execute("SELECT row FROM voided").fetchone()[0])["player0"] == "a"  # kept as written
    p = _pairing(20, ("c", "a"))  # and it goes on recording
    store.record(t.id, p, _result(p, (0, 1), (7, 0), "normal", None))
    assert store.matches(t.id)[-1]["players"] == ["c", "a"]
    store.close()

    assert upgrade(db) == f"'{db}' (results database) is already at schema version 2; nothing to do"
    assert not Path(f"{db}.schema1.bak.2").exists()


def test_an_existing_backup_is_never_overwritten(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _v1_results(db)
    original = db.read_bytes()
    taken = Path(f"{db}.schema1.bak")
    taken.write_bytes(b"an older backup")
    assert upgrade(db).endswith(f"the original is kept in '{db}.schema1.bak.2'")
    assert taken.read_bytes() == b"an older backup" and Path(f"{db}.schema1.bak.2").read_bytes() == original


def test_league_upgrade_keeps_its_matches_and_standings_and_fixes_its_game(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    _v1_league(db)
    original = db.read_bytes()
    labels = {r["id"]: f"{r['owner']}/{r['name']}@{r['version']}" for r in _rows(db, "SELECT * FROM entrants")}
    old_rows = _rows(db, "SELECT * FROM matches ORDER BY seq")
    finished = [r for r in old_rows if r["finished"] is not None]
    before = standings(Model(), [labels[i] for i in sorted(labels)],
                       [_old_played(r, labels.__getitem__) for r in finished if r["cause"] != "interrupted"])
    met_before: Counter[tuple[str, str]] = Counter(
        pair_key(labels[r["player0"]], labels[r["player1"]]) for r in old_rows if r["day"] == _today())

    assert upgrade(db) == (f"upgraded '{db}' (league database) from schema version 1 to 2; "
                           f"the original is kept in '{db}.schema1.bak'")
    assert Path(f"{db}.schema1.bak").read_bytes() == original

    store = LeagueStore(db)
    g = registry.get("sixtysix")
    assert store.league == LeagueInfo("sixtysix", g.rules_map(g.rules()))
    assert store.meta("created") == "2026-01-01T00:00:00+00:00"
    rows = store.matches()
    assert [r["match_id"] for r in rows] == [r["match_id"] for r in finished]
    for old, new in zip(finished, rows):
        assert new["players"] == [old["player0"], old["player1"]] and new["seq"] == old["seq"]
        assert new["ranks"] == (None if old["winner"] is None else [int(old["winner"] != 0), int(old["winner"] != 1)])
    b = league_board(store, title="L", provisional_below=3)
    _same_standings(b.standings, before)
    assert b.meta["game_title"] == g.title and b.meta["rule_changes"] == [] and b.meta["interrupted"] == 1
    assert store.met_today(labels) == met_before
    assert store.recover() == 1  # the match a dead server left open is still found and closed
    assert store.matches()[-1]["match_id"] == "r1-z" and store.matches()[-1]["ranks"] is None
    store.close()
    assert upgrade(db) == f"'{db}' (league database) is already at schema version 2; nothing to do"


def test_a_league_keeps_the_game_and_rules_it_was_created_with(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    s = registry.get("schnapsen")
    rules = s.rules_map(s.rules({"match_target": "3"}))
    store = LeagueStore(db, game="schnapsen", rules=rules)
    assert store.league == LeagueInfo("schnapsen", rules)
    a, _ = store.register("o", "a", token_hash="t1", owner_secret_hash="h")
    b, _ = store.register("o", "b", token_hash="t2")
    rid = store.begin_round(1)
    store.start_match("r1-1a", rid, "r1-1", 0, 9, (a.id, b.id))
    store.finish_match(MatchResult("r1-1a", 9, "schnapsen", ("o/a@1", "o/b@1"), (1, 0), (2, 7), (0, 1), Cause.NORMAL,
                                   None, "", 3, 40, None, 0.5))
    store.start_match("r1-1b", rid, "r1-1", 1, 9, (b.id, a.id))
    assert store.recover() == 1
    store.end_round(rid)
    rows = store.matches()
    assert [(r["players"], r["ranks"], r["scores"], r["cause"]) for r in rows] == [
        ([a.id, b.id], [1, 0], [2, 7], "normal"), ([b.id, a.id], None, [0, 0], "interrupted")]
    assert store.met_today({a.id: a.label, b.id: b.label}) == {pair_key(a.label, b.label): 2}
    board = league_board(store, title="L", provisional_below=3)
    assert board.meta["game"] == "schnapsen" and board.meta["rule_changes"] == ["match_target=3"]
    assert board.standings.rows[0].name == b.label and board.standings.matches == 1
    store.close()

    LeagueStore(db).close()  # None accepts what is stored
    LeagueStore(db, game="schnapsen", rules=rules).close()
    with pytest.raises(StoreError) as e:
        LeagueStore(db, game="sixtysix")
    assert _one_line(str(e.value)) == (f"'{db}' is a league of schnapsen; it cannot play sixtysix "
                                       f"(one league plays the game it was created with)")
    with pytest.raises(StoreError, match="with other rules \\(match_target=3, not 5\\)"):
        LeagueStore(db, rules=rules | {"match_target": "5"})
    with pytest.raises(StoreError, match="unknown game 'chess'"):
        LeagueStore(tmp_path / "other.db", game="chess")


def test_upgrade_refuses_what_it_cannot_upgrade(tmp_path: Path) -> None:
    with pytest.raises(UpgradeError, match="^no database at"):
        upgrade(tmp_path / "missing.db")
    text = tmp_path / "notes.db"
    text.write_text("hello, not sqlite " * 100)
    with pytest.raises(UpgradeError, match="is not an SQLite database$"):
        upgrade(text)
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE stuff (x)")
    con.commit()
    con.close()
    with pytest.raises(UpgradeError, match="is not an arena results or league database$"):
        upgrade(other)
    newer = tmp_path / "newer.db"
    Store(newer).close()
    con = sqlite3.connect(newer)
    con.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    with pytest.raises(UpgradeError, match="schema version 9, newer than this arena"):
        upgrade(newer)
    assert list(tmp_path.glob("*.bak*")) == []


# -- the command ---------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_arena_db_upgrade_exit_codes(tmp_path: Path) -> None:
    db, league = tmp_path / "arena.db", tmp_path / "league.db"
    _v1_results(db)
    _v1_league(league)
    for path, kind in ((db, "results"), (league, "league")):
        done = _cli("db", "upgrade", str(path))
        assert done.returncode == 0 and done.stderr == "", done
        assert _one_line(done.stdout).startswith(f"upgraded '{path}' ({kind} database) from schema version 1 to 2")
        again = _cli("db", "upgrade", str(path))
        assert again.returncode == 0 and _one_line(again.stdout).endswith("nothing to do"), again
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    for path, says in ((tmp_path / "missing.db", "no database at"), (junk, "is not an SQLite database")):
        bad = _cli("db", "upgrade", str(path))
        assert bad.returncode == 2 and bad.stdout == "", bad
        assert says in _one_line(bad.stderr) and "Traceback" not in bad.stderr
