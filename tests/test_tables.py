"""Tournaments of table games (issue 12): balanced tables in every seat rotation, partnerships, and
a three-handed tournament of real bot processes killed with SIGKILL and resumed."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from harness.arena.record import verify
from harness.rating import Model, Played, standings
from harness.tournament.config import ConfigError, from_flags
from harness.tournament.runner import schedule
from harness.tournament.schedule import groups, tables
from test_league import League, procs, wait_for  # noqa: F401 - the fixture
from test_tournament import ROOT, _env, _recorded, _wait_gone

PY = sys.executable
RANDOM = f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"


@pytest.mark.parametrize("n,k", [(4, 3), (9, 3), (12, 4), (10, 6), (16, 4), (15, 3), (6, 4), (10, 8)])
def test_every_two_entrants_meet_equally_often_within_one(n: int, k: int) -> None:
    names = [f"e{i}" for i in range(n)]
    for seed in (1, 2):
        g = groups(names, k, seed)
        assert all(len(set(t)) == k for t in g)
        met = Counter(p for t in g for p in itertools.combinations(t, 2))
        counts = [met[p] for p in itertools.combinations(names, 2)]
        assert min(counts) >= 1 and max(counts) - min(counts) <= 1, (n, k, Counter(counts))
        assert g == groups(names, k, seed)  # a pure function of the seed


def test_every_table_is_played_in_all_its_seat_rotations_on_one_seed() -> None:
    ps = list(tables(["A", "B", "C", "D"], 3, 1, 5))
    units: dict[str, list] = {}
    for p in ps:
        units.setdefault(p.pair_id, []).append(p)
    assert len(units) == 4
    for legs in units.values():
        assert len({p.seed for p in legs}) == 1 and len(legs) == 3
        for seat in range(3):  # each entrant sits in each seat once
            assert sorted(p.players[seat] for p in legs) == sorted(legs[0].players)
    assert [p.seq for p in ps] == list(range(len(ps))) and sorted(p.match_id for p in ps) == [p.match_id for p in ps]


def test_partnerships_self_and_rotate() -> None:
    own = list(tables(["A", "B", "C"], 4, 1, 1, partners="self"))
    assert all(p.players[0] == p.players[2] and p.players[1] == p.players[3] for p in own)
    assert len(own) == 6
    rot = list(tables(["A", "B", "C", "D"], 4, 1, 1, partners="rotate"))
    partners = Counter(frozenset((p.players[0], p.players[2])) for p in rot)
    partners.update(frozenset((p.players[1], p.players[3])) for p in rot)
    assert set(partners.values()) == {2} and len(partners) == 6  # everyone partners everyone, both orientations
    with pytest.raises(ConfigError, match="partners"):
        from_flags(["a=x", "b=y"], game="sixtysix", partners="self")
    with pytest.raises(ConfigError, match="at least 3 entrants"):
        from_flags(["a=x", "b=y"], game="three_handed")
    assert from_flags(["a=x", "b=y"], game="four_handed").partners == "self"
    assert len(schedule(from_flags(["a=x", "b=y", "c=z"], game="three_handed", seed=1))) == 3


def test_an_entrant_on_both_seats_of_a_team_is_rated_and_counted_once() -> None:
    m = Model()
    a = Played(0, "m1", "u1", ("A", "B", "A", "B"), (0, 1, 0, 1), (2, 0, 2, 0), teams=(0, 1, 0, 1))
    b = Played(0, "m1", "u1", ("A", "B"), (0, 1), (2, 0))
    sa, sb = standings(m, ["A", "B"], [a]), standings(m, ["A", "B"], [b])
    assert [(r.name, round(r.mu, 6), round(r.sigma, 6), r.played, r.wins, r.points_for, r.points_against)
            for r in sa.rows] == \
           [(r.name, round(r.mu, 6), round(r.sigma, 6), r.played, r.wins, r.points_for, r.points_against)
            for r in sb.rows]


@pytest.mark.parametrize("game,rule,per_entrant", [("three_handed", "match_target=2", 9),
                                                   ("twenty_two", "penalty_limit=10", 4)])
def test_a_table_tournament_survives_sigkill_and_resumes(tmp_path: Path, game: str, rule: str,
                                                         per_entrant: int) -> None:
    """Issues 12 and 13: tables of 3 (three-handed) and of 4 (Twenty-Two) among four entrants."""
    mark = f"t-{game}-{os.getpid()}"
    bots = {"r1": RANDOM, "r2": RANDOM, "r3": RANDOM, "r4": RANDOM}
    args = [PY, "-m", "harness.cli", "tournament", "--game", game, "--name", "t", "--rounds", "1",
            "--seed", "3", "--concurrency", "2", "--rule", rule, "--db", str(tmp_path / "arena.db"),
            "--out", str(tmp_path), "--limit", "sandbox=none"]  # killed at a random moment: see test_crash_safety._cmd
    for name, command in bots.items():
        args += ["--bot", f"{name}={command}"]
    cfg = from_flags([f"{n}={c}" for n, c in bots.items()], game=game, seed=3, rules=[rule],
                     limits=["sandbox=none"])
    scheduled = [p.match_id for p in schedule(cfg)]
    assert len(scheduled) == 4 * per_entrant // cfg.seats  # every entrant at every table it belongs to
    proc = subprocess.Popen(args, cwd=ROOT, env=_env(mark), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for("a few matches", lambda: len(_recorded(tmp_path / "arena.db")) >= 2 or proc.poll() is not None, 180)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not _wait_gone(mark)
    done = subprocess.run([*args, "--resume"], cwd=ROOT, env=_env(mark), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _recorded(tmp_path / "arena.db") == scheduled  # each once, in schedule order, tables whole
    doc = json.loads((tmp_path / "t" / "leaderboard.json").read_text())  # OUT/<name>/ (issue 14)
    rows = doc["standings"]
    assert all(sum(r["places"]) == r["played"] == per_entrant for r in rows)  # every seat of every table
    assert "finished 1st/2nd/" in (tmp_path / "t" / "leaderboard.md").read_text()
    for rec in (tmp_path / "records").rglob("*.jsonl"):
        assert verify(rec).ok, rec
    assert not _wait_gone(mark)


def test_arena_match_with_partners_self_seats_one_bot_per_team(tmp_path: Path) -> None:
    def match(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([PY, "-m", "harness.cli", "match", *args, "--no-live", "--seed", "2", "--out",
                               str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)

    done = match(RANDOM, RANDOM, "--game", "four_handed", "--partners", "self", "--rule", "match_target=2")
    assert done.returncode == 0, done.stderr
    record = next(tmp_path.glob("*.jsonl"))
    from harness.arena.record import read

    header = read(record)[0]
    assert header["game"] == "four_handed" and header["teams"] == [0, 1, 0, 1]
    assert header["players"][0] == header["players"][2] != header["players"][1] == header["players"][3]
    assert verify(record).ok
    for args in ((RANDOM, RANDOM, "--partners", "self"), (RANDOM, RANDOM, RANDOM, "--game", "four_handed",
                                                          "--partners", "self")):
        bad = match(*args)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr


@pytest.mark.parametrize("game,bots,rule", [("three_handed", 3, "match_target=2"), ("four_handed", 2, "match_target=2"),
                                           ("twenty_two", 4, "penalty_limit=10")])
def test_a_league_forms_tables_of_its_game(tmp_path: Path, procs: list, game: str, bots: int, rule: str) -> None:
    """Issue 12: the league forms tables (or teams, partners "self") from the connected entrants
    and plays each table in every seat rotation, each on deals of its own (issue 11)."""
    lg = League(tmp_path, "--game", game, "--rule", rule)
    procs.append(lg.proc)
    for i in range(bots):
        procs.append(lg.bot(lg.register(f"b{i}", owner=f"o{i}").token))
    wait_for("a whole table", lambda: lg.board().matches >= bots, 120)
    assert lg.stop() == 0
    from harness.arena.record import read

    records = sorted((tmp_path / "out" / "records").glob("r1-1*.jsonl"))
    assert len(records) == bots
    headers = [read(r)[0] for r in records]
    assert all(h["game"] == game for h in headers)
    seatings = [tuple(h["players"]) for h in headers]
    assert len(set(seatings)) == bots and len({frozenset(s) for s in seatings}) == 1  # every rotation, one table
    assert len({read(r)[0]["seed"] for r in records}) == bots  # issue 11: no leg repeats another's deals


def test_rotating_partners_get_a_table_of_results_with_each_partner() -> None:
    from harness.leaderboard import Board, markdown, page

    # A B C D rotate partnerships: A wins with everyone, so every row of A reads 100%.
    played = []
    for i, seating in enumerate(tables(["A", "B", "C", "D"], 4, 1, 1, partners="rotate")):
        a_team = seating.players.index("A") % 2
        ranks = tuple(0 if s % 2 == a_team else 1 for s in range(4))
        played.append(Played(i, seating.match_id, seating.pair_id, seating.players, ranks,
                             tuple(1 - r for r in ranks), teams=(0, 1, 0, 1)))
    s = standings(Model(), ["A", "B", "C", "D"], played)
    assert all(s.partners[("A", b)].rate == 1.0 and s.partners[("A", b)].games == 2 for b in "BCD")
    assert s.partners[("B", "C")].rate == 0.0
    board = Board("t", s, {"game": "four_handed"}, tuple(played))
    assert "## With each partner" in markdown.render(board)
    assert 'id="partners"' in page.render(board)
