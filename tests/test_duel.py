"""``arena duel``: what a duel is per game, its plan of legs, scoring, the SPRT stopping it (in process with
the built-in players, for speed), and real duels of sample bot processes end to end."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from harness.arena.record import verify
from harness.deals import parse
from harness.duel import DuelError, Strategy, Tally, leg_score, legs, sides_of, simulate
from harness.games.registry import get
from harness.sprt import Sprt, llr
from harness.players import greedy_action
from harness.strategies import random_action
from harness.strategies_search import Budget, search_action
from test_tournament import _wait_gone

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
GREEDY = "python sample_bots/greedy_bot.py"
RANDOM = "python sample_bots/random_bot.py"


def rnd(rng: random.Random) -> Strategy:
    return lambda obs: random_action(obs, rng)


def greedy(rng: random.Random) -> Strategy:
    return greedy_action


def search(rng: random.Random) -> Strategy:
    return lambda obs: search_action(obs, rng, Budget(samples=2, endgame_samples=1))


# -- what a duel is ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game, values, sides", [
    ("sixtysix", {}, (0, 1)),
    ("schnapsen", {}, (0, 1)),
    ("four_handed", {}, (0, 1, 0, 1)),  # each bot plays both seats of its team (4H-1)
    ("twenty_two", {"players": 2}, (0, 1)),
])
def test_two_sided_games_have_a_duel(game: str, values: dict, sides: tuple[int, ...]) -> None:
    g = get(game)
    assert sides_of(g, g.rules(values)) == sides


@pytest.mark.parametrize("game, values", [("three_handed", {}), ("twenty_two", {"players": 3})])
def test_games_of_more_sides_have_none(game: str, values: dict) -> None:
    g = get(game)
    with pytest.raises(DuelError, match="a duel is two sides"):
        sides_of(g, g.rules(values))


def test_plan_swaps_seats_and_shares_deals_only_when_told() -> None:
    shared = legs(3, (0, 1, 0, 1), secret=5, shared=True)
    assert [x.match_id for x in shared[:2]] == ["pair-00001-a", "pair-00001-b"]
    assert [x.sides for x in shared[:2]] == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert all(shared[i].seed == shared[i + 1].seed for i in range(0, 6, 2))
    assert len({x.seed for x in shared}) == 3
    apart = legs(3, (0, 1), secret=5, shared=False)
    assert len({x.seed for x in apart}) == 6
    assert legs(3, (0, 1), secret=6, shared=True)[0].seed != shared[0].seed  # the secret keys every seed


def test_plan_from_a_book_plays_its_entries_in_order() -> None:
    book = parse("11\n# skip\n22 hard\n33\n", "b.txt")
    plan = legs(3, (0, 1), secret=5, shared=True, book=book)
    assert [(x.pair, x.seed, x.entry) for x in plan] == [(1, 11, 1), (1, 11, 1), (2, 22, 2), (2, 22, 2),
                                                          (3, 33, 3), (3, 33, 3)]


def test_leg_scores_follow_the_ranks() -> None:
    assert leg_score((0, 1, 0, 1), (0, 1, 0, 1)) == 1.0
    assert leg_score((0, 1, 0, 1), (1, 0, 1, 0)) == 0.0
    assert leg_score((0, 0), (0, 1)) == 0.5
    assert leg_score(None, (0, 1)) is None


def test_tally_counts_pairs_voids_and_decides_once() -> None:
    t = Tally(Sprt(elo0=0, elo1=200))
    assert t.add(1, 0, 1.0) is None and t.add(1, 1, 0.0) == 2  # a win and a loss: the middle cell
    assert t.add(2, 1, None) is None and t.add(2, 0, 1.0) is None  # a leg without a result: void
    assert t.counts == [0, 0, 1, 0, 0] and t.void == [2]
    pair = 3
    while t.decision is None:
        t.add(pair, 0, 1.0)
        t.add(pair, 1, 1.0)
        pair += 1
    assert t.decision == "H1" and t.decided_at == t.pairs
    assert t.sprt is not None and t.llr == pytest.approx(llr(t.counts, t.sprt))


# -- the SPRT stops duels (in process) ----------------------------------------------------------------


def test_identical_deterministic_bots_accept_h0_when_the_llr_says_so() -> None:
    """Greedy against greedy: both legs of a pair mirror each other, so every pair is split (score 1)."""
    spec = Sprt(elo0=0, elo1=50)
    n = 1
    while llr((0, 0, n, 0, 0), spec) > spec.lower:
        n += 1
    t = simulate(greedy, greedy, pairs=1000, sprt=spec, secret=3)
    assert t.decision == "H0" and t.decided_at == n and t.counts == [0, 0, n, 0, 0]


def test_a_random_bot_against_itself_accepts_h0() -> None:
    """Random against random is the same strength: H0 nearly always (alpha = 5% per duel)."""
    spec = Sprt(elo0=0, elo1=100)
    got = [simulate(rnd, rnd, pairs=3000, sprt=spec, secret=s).decision for s in range(6)]
    assert got.count("H0") >= 5, got


def test_search_against_random_accepts_h1_within_a_bounded_number_of_pairs() -> None:
    t = simulate(search, rnd, pairs=1000, sprt=Sprt(elo0=0, elo1=50), secret=1)
    assert t.decision == "H1" and t.decided_at is not None and t.decided_at <= 40
    assert t.estimate().score > 0.9


@pytest.mark.parametrize("game, rules", [("schnapsen", {}), ("four_handed", {}), ("twenty_two", {})])
def test_greedy_beats_random_in_every_two_sided_game(game: str, rules: dict) -> None:
    t = simulate(greedy, rnd, game=game, rules=rules, pairs=12, secret=2)
    assert t.pairs == 12 and t.estimate().score > 0.6, t.counts


# -- the command ----------------------------------------------------------------------------------------


def _duel(tmp: Path, *args: str, mark: str = "duel", timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_TEST_MARK": mark, "PYTHONPATH": str(ROOT)}
    return subprocess.run([PY, "-m", "harness.cli", "duel", *args, "--no-live"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("args, problem", [
    ([GREEDY, RANDOM, "--game", "three_handed"], "a duel is two sides"),
    ([GREEDY, RANDOM, "--sprt", "elo0=5", "elo1=1"], "elo0 must be below elo1"),
    ([GREEDY, RANDOM, "--pairs", "0"], "--pairs must be from 1"),
    ([GREEDY, "no-such-program-xyz"], "not found"),
    ([GREEDY, RANDOM, "--game", "chess"], "unknown game"),
    ([GREEDY, RANDOM, "--limit", "cpu_s=-1"], "cpu_s"),
    ([GREEDY, RANDOM, "--rule", "no_such_rule=1"], "no_such_rule"),
])
def test_bad_input_is_one_line_and_status_2(tmp_path: Path, args: list[str], problem: str) -> None:
    r = _duel(tmp_path, *args, "--out", str(tmp_path / "d"), mark=f"bad-{os.getpid()}")
    assert r.returncode == 2, r.stderr
    assert problem in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "d").exists()


def test_book_problems_are_named_with_their_line(tmp_path: Path) -> None:
    book = tmp_path / "hard.txt"
    book.write_text("# hard deals\n12\nAH TH\n")
    r = _duel(tmp_path, GREEDY, RANDOM, "--deals", str(book), "--out", str(tmp_path / "d"))
    assert r.returncode == 2 and "hard.txt', line 3: 'AH' is not a seed" in r.stderr and "not decks" in r.stderr
    book.write_text("12\n13\n")
    r = _duel(tmp_path, GREEDY, RANDOM, "--deals", str(book), "--pairs", "3", "--out", str(tmp_path / "d"))
    assert r.returncode == 2 and "more than the 2 entries" in r.stderr
    r = _duel(tmp_path, GREEDY, RANDOM, "--deals", str(book), "--seed", "4", "--out", str(tmp_path / "d"))
    assert r.returncode == 2 and "--seed and --deals" in r.stderr


def test_real_duel_end_to_end(tmp_path: Path) -> None:
    """Two sample bot processes, three pairs at once two matches: every record replays, each pair's legs
    share a seed with the seats swapped, duel.json holds the counts, and no process is left."""
    mark = f"duel-e2e-{os.getpid()}"
    out = tmp_path / "d"
    r = _duel(tmp_path, GREEDY, RANDOM, "--pairs", "3", "--concurrency", "2", "--move-time", "2", "--out", str(out),
              mark=mark)
    assert r.returncode == 0, r.stderr
    assert not _wait_gone(mark)
    doc = json.loads((out / "duel.json").read_text())
    assert doc["a"]["name"] == "greedy_bot" and doc["b"]["name"] == "random_bot"
    assert doc["pairs"] + doc["void_pairs"] == 3 and sum(doc["pentanomial"].values()) == doc["pairs"]
    assert doc["sprt"] is None and doc["estimate"]["pairs"] == doc["pairs"]
    assert "pairs 3/3" in r.stdout and "LOS" in r.stdout and "Elo" in r.stdout
    for p in doc["pair_results"]:
        a, b = (verify(p["legs"][leg]["record"]) for leg in "ab")
        assert a.ok and b.ok, (a.divergence, b.divergence)
        assert a.header["players"] == ["greedy_bot", "random_bot"] and b.header["players"] == ["random_bot", "greedy_bot"]
        if "sandboxed" in doc["legs"]:
            assert a.header["seed"] == b.header["seed"]
        assert "book" not in a.header


def test_real_duel_stops_when_the_sprt_accepts_h1(tmp_path: Path) -> None:
    mark = f"duel-sprt-{os.getpid()}"
    out = tmp_path / "d"
    r = _duel(tmp_path, GREEDY, RANDOM, "--pairs", "40", "--concurrency", "2", "--move-time", "2",
              "--sprt", "elo0=0", "elo1=200", "--out", str(out), mark=mark)
    assert r.returncode == 0, r.stderr
    assert not _wait_gone(mark)
    doc = json.loads((out / "duel.json").read_text())
    assert doc["sprt"]["decision"] == "H1" and doc["sprt"]["llr"] >= doc["sprt"]["upper"]
    assert doc["pairs"] == doc["sprt"]["decided_at"] < 40
    assert "H1 accepted" in r.stdout
    records = sorted((out / "records").glob("*.jsonl"))
    assert len(records) < 80  # stopped early; abandoned matches say so in their records
    counted = [p for p in doc["pair_results"] if p["counted"]]
    assert len(counted) == doc["pairs"] and all(p["pair_score"] in (0, 0.5, 1, 1.5, 2) for p in counted)


def test_a_sprt_duel_without_a_decision_exits_1(tmp_path: Path) -> None:
    """With --sprt the exit status is 0 only when H1 is accepted (A is shown stronger), so a script can
    gate on it; the pairs running out before a decision (as H0 accepted) is 1."""
    mark = f"duel-undecided-{os.getpid()}"
    out = tmp_path / "d"
    r = _duel(tmp_path, GREEDY, RANDOM, "--pairs", "1", "--move-time", "2", "--sprt", "elo0=0", "elo1=200",
              "--out", str(out), mark=mark)
    assert r.returncode == 1, r.stdout[-1000:] + r.stderr
    assert json.loads((out / "duel.json").read_text())["sprt"]["decision"] is None
    assert not _wait_gone(mark)


def test_real_duel_from_a_book_names_the_entries(tmp_path: Path) -> None:
    book = tmp_path / "hard.txt"
    book.write_text("# regression deals\n4242 lost-on-close\n\n77\n")
    out = tmp_path / "d"
    r = _duel(tmp_path, GREEDY, GREEDY, "--deals", str(book), "--concurrency", "2", "--move-time", "2",
              "--out", str(out), mark=f"duel-book-{os.getpid()}")
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "duel.json").read_text())
    assert doc["planned_pairs"] == 2 and doc["book"]["entries"] == 2
    seen = {}
    for p in doc["pair_results"]:
        for leg in "ab":
            rep = verify(p["legs"][leg]["record"])
            assert rep.ok
            seen[(p["pair"], leg)] = (rep.header["seed"], rep.header["book"])
    assert seen[(1, "a")] == seen[(1, "b")] == (4242, {"file": str(book), "entry": 1, "line": 2,
                                                       "label": "lost-on-close"})
    assert seen[(2, "b")] == (77, {"file": str(book), "entry": 2, "line": 4})
    # the same deterministic bot on both sides splits every pair: a split is the only result
    assert doc["pentanomial"]["1"] == doc["pairs"] == 2


def test_an_existing_duel_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "d"
    out.mkdir()
    (out / "duel.json").write_text("{}")
    r = _duel(tmp_path, GREEDY, RANDOM, "--pairs", "1", "--out", str(out))
    assert r.returncode == 2 and "already holds a duel" in r.stderr
    assert (out / "duel.json").read_text() == "{}"


def test_ctrl_c_stops_after_the_matches_in_flight_and_keeps_the_summary(tmp_path: Path) -> None:
    import signal
    import time

    mark = f"duel-stop-{os.getpid()}"
    out = tmp_path / "d"
    env = {**os.environ, "ARENA_TEST_MARK": mark, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([PY, "-m", "harness.cli", "duel", GREEDY, RANDOM, "--pairs", "500", "--concurrency", "2",
                             "--move-time", "2", "--out", str(out), "--no-live"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300  # a generous bound on waiting for the first record, not a speed check
        while not any((out / "records").glob("pair-*.jsonl")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert not _wait_gone(mark)
    doc = json.loads((out / "duel.json").read_text())
    assert doc["stopped"] is True and doc["pairs"] < 500
    counted = [p for p in doc["pair_results"] if p["counted"]]
    assert len(counted) == doc["pairs"]
    for p in counted:  # every counted pair has both records, and they verify
        assert all(verify(p["legs"][leg]["record"]).ok for leg in "ab")


def _args(*extra: str) -> object:
    from harness.cli import build_parser

    return build_parser().parse_args(["duel", GREEDY, RANDOM, "--pairs", "4", *extra])


@pytest.mark.parametrize("extra, shared, says", [
    (["--limit", "sandbox=none"], False, "independent deals in every leg"),
    (["--limit", "sandbox=none", "--duplicate", "trusted"], True, "trusted"),
    (["--duplicate", "off"], False, 'duplicate = "off"'),
    (["--seed", "9", "--limit", "sandbox=none", "--duplicate", "trusted"], True, "trusted"),
])
def test_legs_share_deals_only_where_issue_11_allows(extra: list[str], shared: bool, says: str) -> None:
    from harness.duel import _prepare

    duel, _, _ = _prepare(_args(*extra))  # type: ignore[arg-type]
    assert says in duel.policy
    seeds = [(duel.plan[i].seed, duel.plan[i + 1].seed) for i in range(0, len(duel.plan), 2)]
    assert all((a == b) == shared for a, b in seeds)


def test_a_hand_set_seed_reproduces_the_plan_and_a_secret_does_not() -> None:
    from harness.duel import _prepare

    one, _, _ = _prepare(_args("--seed", "9"))  # type: ignore[arg-type]
    two, _, _ = _prepare(_args("--seed", "9"))  # type: ignore[arg-type]
    three, _, _ = _prepare(_args())  # type: ignore[arg-type]
    four, _, _ = _prepare(_args())  # type: ignore[arg-type]
    assert [x.seed for x in one.plan] == [x.seed for x in two.plan]
    assert [x.seed for x in three.plan] != [x.seed for x in four.plan]


@pytest.mark.parametrize("game, seats_a", [("schnapsen", [0]), ("four_handed", [0, 2]), ("twenty_two", [0])])
def test_real_duel_of_every_two_sided_game(tmp_path: Path, game: str, seats_a: list[int]) -> None:
    mark = f"duel-{game}-{os.getpid()}"
    out = tmp_path / "d"
    r = _duel(tmp_path, GREEDY, RANDOM, "--game", game, "--pairs", "1", "--move-time", "2", "--out", str(out),
              mark=mark)
    assert r.returncode == 0, r.stderr
    assert not _wait_gone(mark)
    doc = json.loads((out / "duel.json").read_text())
    assert doc["game"] == game and doc["pairs"] + doc["void_pairs"] == 1
    legs_ = doc["pair_results"][0]["legs"]
    a, b = verify(legs_["a"]["record"]), verify(legs_["b"]["record"])
    assert a.ok and b.ok
    assert [i for i, n in enumerate(a.header["players"]) if n == "greedy_bot"] == seats_a
    assert [i for i, n in enumerate(b.header["players"]) if n == "random_bot"] == seats_a  # seats swapped
