"""The adaptive schedule (issue 17): honest confidence, a pure schedule, real processes killed and resumed.

* Calibration by simulation: fields of known order (match outcomes drawn from known win rates) and of
  exactly and nearly equal entrants. Of the neighbour pairs reported at >= 95%, at least 95% are the
  right way round; equal entrants run to the cap. TrueSkill's own P(above next), used the same way,
  fails this (so the check can fail).
* The schedule is a pure function of the seed and the results, for all five games (in process).
* `arena tournament --adaptive` with real sample bots over gRPC, SIGKILLed at random moments and
  resumed: the same matches as an uninterrupted run, the same leaderboards, no process left behind.
"""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from harness.games import registry
from harness.rating import Played, p_above, standings
from harness.tournament import adaptive, commands
from harness.tournament import config as cfgmod
from harness.tournament.adaptive import CAP, CONFIDENCE, Field, Scheduler, Settings, plan
from harness.tournament.config import ConfigError
from harness.tournament.local import play, random_strategy
from test_tournament import PY, ROOT, _env, _recorded, _wait_gone

# -- simulation -----------------------------------------------------------------------------------


def _simulate(strength: dict[str, float], seed: int, settings: Settings) -> Scheduler:
    """One adaptive tournament whose matches are coin flips: A beats B with logistic(sA - sB)."""
    rng = random.Random(seed)
    s = Scheduler(Field(tuple(strength), 2, "", seed), settings)
    while rnd := s.next_round():
        results = []
        for p in rnd:
            a, b = p.players
            won = rng.random() < 1 / (1 + math.exp(strength[b] - strength[a]))
            results.append(Played(p.seq, p.match_id, p.pair_id, p.players, (0, 1) if won else (1, 0), (7, 0)))
        s.finish_round(results)
    return s


def _claims(s: Scheduler, truth: list[str], level: float) -> tuple[int, int]:
    """(neighbour pairs reported at >= level, of which the right way round)."""
    reported = [(a, b) for a, b, c in s.state.neighbours() if c >= level]
    return len(reported), sum(truth.index(a) < truth.index(b) for a, b in reported)


def test_the_stated_confidence_is_honest_on_a_field_of_known_order() -> None:
    strength = {"w": 0.0, "x": 0.45, "y": 0.9, "z": 2.4}  # adjacent win rates 61%, 61%, 82%
    truth = sorted(strength, key=lambda n: -strength[n])
    made = right = stopped = 0
    for t in range(40):
        s = _simulate(strength, t, Settings(0.95, 600, 2))
        n, ok = _claims(s, truth, 0.95)
        made, right, stopped = made + n, right + ok, stopped + (s.ended == CONFIDENCE)
    assert made >= 60, made  # it does establish orders
    assert right / made >= 0.95, (right, made)
    assert stopped >= 10  # some tournaments settle every neighbour pair before the cap


def test_equal_entrants_run_to_the_cap_and_claim_no_order() -> None:
    """Exactly equal, and nearly equal (a 51% win rate): the order is not established."""
    for strength in ({"a": 0.0, "b": 0.0}, {"a": 0.04, "b": 0.0}):
        ends = [_simulate(strength, t, Settings(0.95, 100, 2)) for t in range(80)]
        claimed = sum(s.ended != CAP for s in ends)
        assert claimed <= 6, (strength, claimed)  # Ville: at most 5% in expectation
        assert all(len(s.pairings) <= 100 and s.ended in (CAP, CONFIDENCE) for s in ends)


def test_trueskill_p_above_stopping_is_not_honest() -> None:
    """The same stopping rule on TrueSkill's P(above next) claims an order between equal entrants far
    more often than 5%: the reason the adaptive schedule does not use it."""
    claimed = 0
    for t in range(30):
        s = Scheduler(Field(("a", "b"), 2, "", t), Settings(0.95, 120, 2))
        rng = random.Random(t)
        seen = False
        while rnd := s.next_round():
            s.finish_round(Played(p.seq, p.match_id, p.pair_id, p.players, (0, 1) if rng.random() < 0.5 else (1, 0),
                                  (7, 0)) for p in rnd)
            r = s.state.ratings
            seen |= max(p_above(r["a"], r["b"]), p_above(r["b"], r["a"])) >= 0.95
        claimed += seen
    assert claimed / 30 > 0.1, claimed


def test_matches_go_to_the_unsettled_neighbours() -> None:
    strength = {"top": 6.0, "mid": 0.1, "low": 0.0}  # top is plain; mid/low is a coin flip
    s = _simulate(strength, 3, Settings(0.95, 200, 2))
    assert s.ended == CAP and len(s.pairings) <= 200
    counts: dict[frozenset[str], int] = {}
    for p in s.pairings:
        counts[frozenset(p.players)] = counts.get(frozenset(p.players), 0) + 1
    top = counts[frozenset(("top", "low"))] + counts[frozenset(("top", "mid"))]
    assert counts[frozenset(("mid", "low"))] > 3 * top, counts


def test_the_allocations_closed_form_update_is_trueskills() -> None:
    """The allocation looks ahead with TrueSkill's two-player update written out (fast); it must be the
    rating's own update (tau = 0, no draws)."""
    env = adaptive.MODEL.env()
    for (m1, s1), (m2, s2) in (((25, 8.333), (25, 8.333)), ((30, 4), (25, 6)), ((20, 1.5), (31, 2.5))):
        (w,), (lo,) = env.rate([(env.create_rating(m1, s1),), (env.create_rating(m2, s2),)], ranks=[0, 1])
        assert adaptive._beat(m1, s1, m2, s2) == pytest.approx((w.mu, w.sigma, lo.mu, lo.sigma), rel=1e-6)


def test_the_look_ahead_is_the_expected_risk_after_trueskills_own_updates() -> None:
    """The gain of a pairing, against the same expectation written with the trueskill package itself:
    every count of wins, spread evenly through the legs, weighted by the binomial chance."""
    env = adaptive.MODEL.env()
    for skills in ({"a": (29.0, 1.2), "b": (28.0, 0.9), "c": (20.0, 3.0)},
                   {"a": (25.0, 8.333), "b": (25.0, 8.333), "c": (25.0, 8.333), "d": (30.0, 2.0)},
                   {"a": (31.0, 2.2), "b": (26.0, 0.8), "c": (27.0, 0.8), "d": (12.0, 4.0)}):
        now = adaptive.order_risk(skills)
        for x, y in (("a", "b"), ("b", "c")):
            for units in (1, 4):
                (mx, sx), (my, sy) = skills[x], skills[y]
                p = adaptive.phi((mx - my) / math.sqrt(2 * adaptive.MODEL.beta**2 + sx**2 + sy**2))
                legs, expected = 2 * units, 0.0
                for w in range(legs + 1):
                    rx, ry = env.create_rating(mx, sx), env.create_rating(my, sy)
                    for i in range(legs):
                        ranks = [0, 1] if (i * w) // legs != ((i + 1) * w) // legs else [1, 0]
                        (rx,), (ry,) = env.rate([(rx,), (ry,)], ranks=ranks)
                    after = {**skills, x: (rx.mu, rx.sigma), y: (ry.mu, ry.sigma)}
                    expected += math.comb(legs, w) * p**w * (1 - p) ** (legs - w) * adaptive.order_risk(after)
                want = (now - expected) / units
                assert adaptive._gain(skills, x, y, units, now) == pytest.approx(want, rel=1e-5, abs=1e-9)


def test_adaptive_rounds_are_one_unit_and_beat_the_neighbour_rounds() -> None:
    """After the warm-up a two-sided field plays one duplicate pair a round, chosen by the expected
    number of mis-ordered neighbours; on a fixed budget it has the order right at least as often as
    playing every unsettled neighbour pair each round (the first version, kept for the benchmark)."""
    strength = {"w": 0.0, "x": 0.45, "y": 0.9, "z": 2.4}
    truth = sorted(strength, key=lambda n: -strength[n])
    right = {"lookahead": 0, "neighbours": 0}
    for allocation in right:
        for t in range(60):
            rng = random.Random(t)
            s = Scheduler(Field(tuple(sorted(strength)), 2, "", t), Settings(0.95, 64, 2), allocation=allocation)
            while rnd := s.next_round():
                if allocation == "lookahead" and s.rounds > 2:
                    assert len(rnd) == 2 and rnd[0].pair_id == rnd[1].pair_id
                results = []
                for p in rnd:
                    a, b = p.players
                    won = rng.random() < 1 / (1 + math.exp(strength[b] - strength[a]))
                    results.append(Played(p.seq, p.match_id, p.pair_id, p.players, (0, 1) if won else (1, 0), (7, 0)))
                s.finish_round(results)
            assert len(s.pairings) <= 64
            right[allocation] += s.state.order() == truth
    assert right["lookahead"] >= right["neighbours"], right


def test_larger_fields_play_disjoint_pairings_each_round() -> None:
    """Six entrants or more: a look-ahead round holds several duplicate pairs, no entrant in two."""
    strength = {n: 0.3 * i for i, n in enumerate("abcdef")}
    s = _simulate(strength, 5, Settings(0.95, 120, 1))
    later = [p for p in s.pairings if p.round > 1]
    assert later and len(s.pairings) <= 120
    for r in {p.round for p in later}:
        players = [n for p in later if p.round == r and p.leg == 0 for n in p.players]
        assert len(players) <= 2 * adaptive.units_per_round(6) and len(players) == len(set(players))
    assert any(sum(p.round == r for p in later) == 4 for r in {p.round for p in later})


# -- a pure schedule, every game ------------------------------------------------------------------


GAMES = [("sixtysix", ""), ("schnapsen", ""), ("three_handed", ""), ("four_handed", "self"),
         ("four_handed", "rotate"), ("twenty_two", "")]


def _in_process(game: str, partners: str, seed: int, cap: int) -> tuple[Scheduler, list[Played]]:
    g = registry.get(game)
    seats = g.players(g.rules({}))
    names = ("a", "b", "c", "d", "e")
    s = Scheduler(Field(names, seats, partners, seed), Settings(0.95, cap, 1))
    played: list[Played] = []
    while rnd := s.next_round():
        got = []
        for p in rnd:
            o = play(p.seed + p.leg, [random_strategy(p.seed * 31 + i + len(n)) for i, n in enumerate(p.players)],
                     None, game)
            got.append(Played(p.seq, p.match_id, p.pair_id, p.players, o.ranks, o.scores, teams=o.teams))
        s.finish_round(got)
        played += got
    return s, played


@pytest.mark.parametrize("game,partners", GAMES)
def test_the_schedule_is_a_pure_function_of_the_seed_and_the_results(game: str, partners: str) -> None:
    s, played = _in_process(game, partners, 11, 60)
    assert s.ended in (CAP, CONFIDENCE) and 0 < len(played) <= 60
    f, settings = s.field, s.settings
    whole = plan(f, settings, played)
    assert whole.pairings == s.pairings and whole.ended == s.ended
    legs = adaptive.unit_legs(f)
    assert set(whole.legs.values()) == {legs}  # every unit whole: both seatings, or every rotation
    for cut in (0, 1, len(played) // 2, len(played) - 1):  # a resume after any number of recorded matches
        part = plan(f, settings, played[:cut])
        assert part.ended == adaptive.RUNNING
        assert part.pairings == s.pairings[:len(part.pairings)] and len(part.pairings) > cut
    again, played_again = _in_process(game, partners, 11, 60)  # a rerun: the same matches
    assert again.pairings == s.pairings and played_again == played
    seats = {len(p.players) for p in s.pairings}
    assert seats == {registry.get(game).players(registry.get(game).rules({}))}


@pytest.mark.parametrize("game,partners", [("sixtysix", ""), ("three_handed", ""), ("four_handed", "rotate")])
def test_the_order_the_schedule_and_the_benchmark_judge_is_the_leaderboards(game: str, partners: str) -> None:
    """benchmarks/bench_tournament.py --adaptive judges "order right" by ``State.order()``; it must be the
    order the leaderboard shows (:func:`harness.rating.standings` with the adaptive model, as
    harness/tournament/publish.py builds it): μ − 3σ, not μ, after every round."""
    s, played = _in_process(game, partners, 4, 45)
    assert played
    cut = 0
    for r in sorted({p.round for p in s.pairings}):
        cut += sum(p.round == r for p in s.pairings)
        part = plan(s.field, s.settings, played[:cut])
        shown = standings(adaptive.MODEL, list(s.field.names), played[:cut]).order
        assert part.state.order() == shown
        env = adaptive.MODEL.env()
        by_conservative = sorted(shown, key=lambda n: (-env.expose(part.state.ratings[n]), n))
        assert shown == by_conservative


# -- config and command line ----------------------------------------------------------------------


def _toml(extra: str) -> str:
    return (f'name = "a"\nseed = 1\n{extra}\n[[entrant]]\nname = "x"\ncommand = "python sample_bots/random_bot.py"\n'
            '[[entrant]]\nname = "y"\ncommand = "python sample_bots/random_bot.py"\n')


def test_config_keys_and_their_defaults() -> None:
    c = cfgmod.loads(_toml('schedule = "adaptive"'))
    assert (c.schedule, c.confidence, c.min_per_pairing) == ("adaptive", 0.95, 2)
    assert c.max_matches == adaptive.DEFAULT_CAP_ROUNDS * 2
    ident = c.identity()
    assert ident["schedule"] == "adaptive" and ident["max_matches"] == 40
    assert "schedule" not in cfgmod.loads(_toml("")).identity()  # a round robin's identity is unchanged
    c = cfgmod.loads(_toml('schedule = "adaptive"\nconfidence = 0.99\nmax_matches = 30\nmin_per_pairing = 0'))
    assert (c.confidence, c.max_matches, c.min_per_pairing) == (0.99, 30, 0)


@pytest.mark.parametrize("extra,message", [
    ('schedule = "swiss"', "bad value 'swiss' for 'schedule'"),
    ("confidence = 0.9", "'confidence' is for schedule = \"adaptive\""),
    ('schedule = "adaptive"\nconfidence = 1.0', "bad confidence '1.0'"),
    ('schedule = "adaptive"\nconfidence = 0.5', "bad confidence '0.5'"),
    ('schedule = "adaptive"\nconfidence = nan', "bad confidence 'nan'"),
    ('schedule = "adaptive"\nconfidence = "high"', "bad confidence 'high'"),
    ('schedule = "adaptive"\nmax_matches = 0', "bad max_matches '0'"),
    ('schedule = "adaptive"\nmin_per_pairing = -1', "bad min_per_pairing '-1'"),
    ('schedule = "adaptive"\nrounds = 3', "'rounds' is for round robins"),
])
def test_bad_adaptive_config_is_one_line(extra: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        cfgmod.loads(_toml(extra))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_cli_flags_need_adaptive_and_are_one_line_errors(tmp_path: Path) -> None:
    base = [PY, "-m", "harness.cli", "tournament", "--bot", "x=python sample_bots/random_bot.py",
            "--bot", "y=python sample_bots/random_bot.py", "--db", str(tmp_path / "a.db"), "--out", str(tmp_path)]
    for extra, message in ((["--confidence", "0.9"], "--confidence works only with --adaptive"),
                           (["--adaptive", "--rounds", "2"], "--rounds is for round robins"),
                           (["--adaptive", "--confidence", "2"], "bad confidence '2.0'")):
        r = subprocess.run([*base, *extra], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert not (tmp_path / "a.db").exists()


# -- real processes, SIGKILL and resume ------------------------------------------------------------


BOTS = {"random": "python sample_bots/random_bot.py", "greedy": "python sample_bots/greedy_bot.py",
        "random2": "python sample_bots/random_bot.py", "greedy2": "python sample_bots/greedy_bot.py"}
CAP_MATCHES = 40


def _cmd(out: Path, *extra: str) -> list[str]:
    args = [PY, "-m", "harness.cli", "tournament", "--name", "ad", "--adaptive", "--max-matches", str(CAP_MATCHES),
            "--seed", "42", "--concurrency", "2", "--move-time", "2", "--time-bank", "20", "--db",
            str(out / "arena.db"), "--out", str(out), "--limit", "sandbox=none", "--duplicate", "trusted"]
    for name, command in BOTS.items():
        args += ["--bot", f"{name}={command}"]
    return [*args, *extra]


def _players(db: Path) -> list[tuple[str, str]]:
    import sqlite3

    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT m.match_id, group_concat(s.entrant, ',') FROM matches m JOIN seats s "
                           "ON s.match_id = m.match_id AND s.tournament_id = m.tournament_id "
                           "GROUP BY m.match_id ORDER BY m.seq").fetchall()
        return [(r[0], r[1]) for r in rows]
    finally:
        con.close()


def _board(out: Path) -> dict:
    doc = json.loads((out / "ad" / "leaderboard.json").read_text())
    return {k: doc[k] for k in ("standings", "crosstable", "matches")} | {"adaptive": doc["tournament"]["adaptive"]}


def test_sigkill_then_resume_continues_identically_and_the_boards_say_how_it_ended(tmp_path: Path) -> None:
    seed = int(os.environ.get("CRASH_SEED") or random.randrange(1 << 30))
    rng = random.Random(seed)
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    clean.mkdir()
    killed.mkdir()
    mark = f"adaptive-{os.getpid()}"
    ref = subprocess.run(_cmd(clean), cwd=ROOT, env=_env(mark), capture_output=True, text=True, timeout=600)
    assert ref.returncode == 0, ref.stderr
    reference = _players(clean / "arena.db")
    assert 24 < len(reference) <= CAP_MATCHES  # past the two warm-up round robins, never past the cap
    kills = 0
    for attempt in range(3):
        start = len(_recorded(killed / "arena.db"))
        proc = subprocess.Popen(_cmd(killed, *(("--resume",) if attempt else ())), cwd=ROOT, env=_env(mark),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # in the warm-up (24 matches: two round robins of 12), then twice in the adaptive rounds
        target = (rng.randrange(1, 12), rng.randrange(25, 31), start + rng.randrange(1, 4))[attempt]
        while proc.poll() is None and len(_recorded(killed / "arena.db")) < target:
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.1))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        assert proc.returncode in (0, -signal.SIGKILL), f"{proc.stderr.read().decode() if proc.stderr else ''} (seed {seed})"
        assert not _wait_gone(mark), f"bots outlived the killed tournament (rng seed {seed})"
    assert kills == 3, f"the run finished too early (rng seed {seed})"
    final = subprocess.run(_cmd(killed, "--resume"), cwd=ROOT, env=_env(mark), capture_output=True, text=True,
                           timeout=600)
    assert final.returncode == 0, final.stderr
    assert _players(killed / "arena.db") == reference, f"rng seed {seed}"  # the same matches, the same seats
    assert _board(killed) == _board(clean), f"rng seed {seed}"
    assert not _wait_gone(mark)

    a = _board(clean)["adaptive"]
    # greedy and greedy2 (and random and random2) are the same bot: their order is never established.
    assert a["ended"] == CAP and "not established" in a["line"], a
    order = [r["name"] for r in _board(clean)["standings"]]
    assert [(n["above"], n["below"]) for n in a["neighbours"]] == list(zip(order, order[1:]))
    assert sum(p["matches"] for p in a["pairings"]) == len(reference)
    for n in a["neighbours"]:
        if {n["above"], n["below"]} in ({"greedy", "greedy2"}, {"random", "random2"}):
            assert n["p_right"] < 0.95
    md = (clean / "ad" / "leaderboard.md").read_text()
    assert "## Adaptive schedule" in md and "ended at the cap" in md and "Matches per pairing" in md
    html = (clean / "ad" / "leaderboard.html").read_text()
    assert 'id="adaptive" data-ended="cap"' in html and "P(order right)" in html
    from test_leaderboard_html import _chromium
    from tools import CHROMIUM

    if CHROMIUM or os.environ.get("CI"):  # the page as a real browser builds it: the panel, no requests
        dom, requests = _chromium(clean / "ad" / "leaderboard.html", tmp_path, "adaptive")
        assert 'id="adaptive" data-ended="cap"' in dom and dom.count("data-above=") == 3 and not requests
    assert "adaptive schedule" in ref.stdout and "ended at the cap" in ref.stdout
    again = subprocess.run(_cmd(clean, "--resume"), cwd=ROOT, env=_env(mark), capture_output=True, text=True,
                           timeout=120)  # a finished adaptive tournament: resuming plays nothing
    assert again.returncode == 0 and _players(clean / "arena.db") == reference, again.stderr


def test_resume_with_another_confidence_is_refused() -> None:
    cfg = cfgmod.loads(_toml('schedule = "adaptive"'))
    stored = json.loads(json.dumps(cfg.identity()))
    other = cfgmod.loads(_toml('schedule = "adaptive"\nconfidence = 0.99'))
    with pytest.raises(ConfigError, match="its confidence differ"):
        commands.check_same(stored, other)
    commands.check_same(stored, cfg)
