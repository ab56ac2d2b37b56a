"""TrueSkill folding, standings and the statistics the leaderboard shows."""

import json
import math
import random
from typing import Any

import pytest
import trueskill

from harness.leaderboard import Board, feed
from harness.rating import Model, Played, p_above, rate, standings, two_player, update, wilson, win_probability
from harness.tournament.local import Strategy, greedy_strategy, play_schedule, random_strategy
from harness.tournament.schedule import Pairing, round_robin


def _pair(players: tuple[str, ...]) -> tuple[str, str]:
    a, b = players
    return a, b


def _random_results(names: list[str], rounds: int = 2, seed: int = 0) -> list[Played]:
    rng = random.Random(seed)
    out: list[Played] = []
    for p in round_robin(names, rounds, seed):
        w = rng.randrange(2)
        scores = [rng.randrange(7), rng.randrange(7)]
        scores[w] = 7
        out.append(two_player(p.seq, p.match_id, p.pair_id, _pair(p.players), w, (scores[0], scores[1])))
    return out


def test_winner_rises_loser_falls_and_draws_are_impossible() -> None:
    env = Model().env()
    assert env.draw_probability == 0
    ratings = {"a": env.create_rating(), "b": env.create_rating()}
    update(env, ratings, two_player(0, "m", "p", ("a", "b"), 1, (3, 7)))
    assert ratings["b"].mu > 25 > ratings["a"].mu
    assert ratings["a"].sigma < 25 / 3 and ratings["b"].sigma < 25 / 3


def test_standings_do_not_depend_on_completion_order() -> None:
    names = ["w", "x", "y", "z"]
    results = _random_results(names, rounds=3)
    first = standings(Model(), names, results)
    for k in range(5):
        shuffled = results[:]
        random.Random(k).shuffle(shuffled)
        again = standings(Model(), names, shuffled)
        assert again.rows == first.rows and again.history == first.history and again.cross == first.cross


def test_fold_order_is_the_schedule_order_not_the_list_order() -> None:
    # Online TrueSkill depends on update order; folding by seq fixes it.
    a = two_player(0, "m0", "p0", ("x", "y"), 0, (7, 0))
    b = two_player(1, "m1", "p1", ("x", "y"), 1, (0, 7))
    s1 = standings(Model(), ["x", "y"], [a, b])
    swapped = [Played(1, a.match_id, a.pair_id, a.players, a.ranks, a.scores),
               Played(0, b.match_id, b.pair_id, b.players, b.ranks, b.scores)]
    s2 = standings(Model(), ["x", "y"], swapped)
    mu1 = {r.name: r.mu for r in s1.rows}
    mu2 = {r.name: r.mu for r in s2.rows}
    assert mu1["y"] > mu1["x"] and mu2["x"] > mu2["y"]  # the later win weighs more


def test_a_fold_asked_again_with_more_matches_rates_only_the_new_ones_and_equals_a_fresh_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 18: the live view and the league ask for the board after every few matches."""
    import harness.rating as rating

    names = ["w", "x", "y", "z"]
    results = _random_results(names, rounds=4, seed=3)
    calls: list[int] = []
    real = trueskill.TrueSkill.rate

    def counting(self: trueskill.TrueSkill, g: Any, ranks: Any = None, **kw: Any) -> Any:
        calls.append(1)
        return real(self, g, ranks=ranks, **kw)

    monkeypatch.setattr(trueskill.TrueSkill, "rate", counting)
    rating._FOLDS.clear()
    for k, rated in ((5, 5), (17, 12), (17, 0), (len(results), len(results) - 17)):
        before = len(calls)
        grown = standings(Model(), names, results[:k])
        assert len(calls) - before == rated
    rating._FOLDS.clear()
    fresh = standings(Model(), names, results)
    assert grown.rows == fresh.rows and grown.history == fresh.history
    # a fold whose first matches differ (a replayed match, another order) starts over
    changed = [two_player(0, "other", "other", ("w", "x"), 1, (0, 7))] + results[1:]
    before = len(calls)
    standings(Model(), names, changed)
    assert len(calls) - before == len(results)
    # and what it returned before is not changed by what it was asked after
    assert standings(Model(), names, results).history == fresh.history


def test_multiplayer_and_team_outcomes_use_the_same_rate_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[list[int], list[int]]] = []
    real = trueskill.TrueSkill.rate

    def spy(self: trueskill.TrueSkill, groups: Any, ranks: Any = None, **kw: Any) -> Any:
        calls.append(([len(g) for g in groups], list(ranks)))
        return real(self, groups, ranks=ranks, **kw)

    monkeypatch.setattr(trueskill.TrueSkill, "rate", spy)
    env = Model().env()
    ratings = {n: env.create_rating() for n in "abcd"}
    update(env, ratings, Played(0, "ffa", "ffa", ("a", "b", "c"), (2, 0, 1), (0, 0, 0)))
    assert ratings["b"].mu > ratings["c"].mu > ratings["a"].mu
    ratings = {n: env.create_rating() for n in "abcd"}
    update(env, ratings, Played(1, "teams", "teams", ("a", "b", "c", "d"), (1, 0, 1, 0), (0, 0, 0, 0),
                                teams=(0, 1, 0, 1)))
    assert ratings["b"].mu == ratings["d"].mu > 25 > ratings["a"].mu == ratings["c"].mu
    update(env, ratings, two_player(2, "m", "m", ("a", "b"), 0, (7, 1)))
    assert calls == [([1, 1, 1], [2, 0, 1]), ([2, 2], [1, 0]), ([1, 1], [0, 1])]


def test_p_above_is_the_skill_difference_form() -> None:
    a, b = trueskill.Rating(30, 2), trueskill.Rating(26, 1.5)
    z = 4 / math.sqrt(2**2 + 1.5**2)
    assert p_above(a, b) == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))))
    assert p_above(a, b) + p_above(b, a) == pytest.approx(1)
    m = Model()
    assert 0.5 < win_probability(m, a, b) < p_above(a, b)  # a single match is noisier than the skills


def test_wilson_interval() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-4)


def test_counts_pairs_failures_points_and_crosstable() -> None:
    ps = list(round_robin(["a", "b"], 2, seed=0))
    results = [
        two_player(ps[0].seq, ps[0].match_id, ps[0].pair_id, _pair(ps[0].players), 0, (7, 2)),  # a wins
        two_player(ps[1].seq, ps[1].match_id, ps[1].pair_id, _pair(ps[1].players), 1, (3, 7)),  # a wins
        two_player(ps[2].seq, ps[2].match_id, ps[2].pair_id, _pair(ps[2].players), 0, (7, 5)),  # a wins
        two_player(ps[3].seq, ps[3].match_id, ps[3].pair_id, _pair(ps[3].players), 0, (1, 0), "timeout", 1),  # b wins
    ]
    assert ps[3].players == ("b", "a")
    s = standings(Model(), ["a", "b"], results)
    ra, rb = {r.name: r for r in s.rows}["a"], {r.name: r for r in s.rows}["b"]
    assert s.order == ["a", "b"]
    assert (ra.played, ra.wins, rb.wins) == (4, 3, 1)
    assert (ra.points_for, ra.points_against) == (7 + 7 + 7 + 0, 2 + 3 + 5 + 1)
    assert (ra.pairs_won, ra.pairs_split, ra.pairs_lost) == (1, 1, 0)
    assert (rb.pairs_won, rb.pairs_split, rb.pairs_lost) == (0, 1, 1)
    assert ra.failures == {"timeout": 1, "illegal": 0, "crash": 0, "disconnect": 0, "no_hello": 0, "error": 0}
    assert s.cross[("a", "b")].wins == 3 and s.cross[("b", "a")].wins == 1 and s.cross[("a", "b")].games == 4
    assert ra.p_above is not None and 0.5 < ra.p_above < 1 and rb.p_above is None
    assert ra.score == pytest.approx(ra.mu - 3 * ra.sigma)


def test_json_leaderboard_recomputes_the_same_standings() -> None:
    names = ["w", "x", "y", "z"]
    results = _random_results(names, rounds=2, seed=3)
    s = standings(Model(), names, results)
    meta = {"entrants": [{"name": n} for n in names]}
    doc = json.loads(feed.render(Board("t", s, meta, tuple(results))))
    again = feed.recompute(doc)
    assert again.rows == s.rows and again.cross == s.cross


def test_the_stronger_sample_strategy_ranks_above_the_weaker() -> None:
    names = ["random", "greedy"]
    pairings = list(round_robin(names, 5, seed=11))

    def make(name: str, p: Pairing) -> Strategy:
        return greedy_strategy() if name == "greedy" else random_strategy(p.seq)

    results = play_schedule(pairings, make)
    s = standings(Model(), names, results)
    assert s.order == ["greedy", "random"]
    top = s.rows[0].p_above
    assert top is not None and top > 0.9
