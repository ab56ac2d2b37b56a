"""The duel's statistics (harness/sprt.py): the pentanomial GSPRT against hand-computed cases and against
LLRs published by Fishtest, Elo with its interval, LOS, and the parsing of ``--sprt``."""

from __future__ import annotations

import math

import pytest

from harness.sprt import NELO_SCALE, SCORES, Sprt, cell, constrained_mle, elo_to_score, estimate, llr, score_to_elo


def _mean_sd(p: list[float]) -> tuple[float, float]:
    mu = sum(pi * x for pi, x in zip(p, SCORES))
    return mu, math.sqrt(sum(pi * (x - mu) ** 2 for pi, x in zip(p, SCORES)))


def _binary_llr(n: int, q: float, p0: float, p1: float) -> float:
    """The LLR of ``n`` pairs on two cells, a share ``q`` on the first, between two laws on those cells."""
    return n * (q * math.log(p1 / p0) + (1 - q) * math.log((1 - p1) / (1 - p0)))


def test_bounds_are_walds() -> None:
    s = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    assert s.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439)
    assert s.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944439)
    assert Sprt(alpha=0.01, beta=0.1).upper == pytest.approx(math.log(0.9 / 0.01))
    assert (s.decide(2.95), s.decide(-2.95), s.decide(0.0)) == ("H1", "H0", None)


def test_hand_computed_llr_normalized_two_cells() -> None:
    """Pairs scoring only 1/2 and 3/2 (per match 1/4 and 3/4). On two points the constraint
    ``(mean - 1/2)/sd = t`` fixes the law: the weight on 1/4 is ``(1 - t/sqrt(1+t^2))/2`` (solve
    ``1/2 - w = t sqrt(w(1-w))``), so the LLR is a binomial one, computed here by hand."""
    n1, n3 = 30, 50  # 30 pairs of 1/2, 50 of 3/2
    spec = Sprt(elo0=0, elo1=20)

    def weight(elo: float) -> float:
        t = math.sqrt(2) * elo / NELO_SCALE
        return (1 - t / math.sqrt(1 + t * t)) / 2

    w0, w1 = weight(0), weight(20)
    assert w0 == 0.5
    want = _binary_llr(80, 30 / 80, w0, w1)
    q = [0, n1 / 80, 0, n3 / 80, 0]  # no empty-cell counts: the exact constrained likelihoods
    p0, p1 = constrained_mle(q, 0.0), constrained_mle(q, math.sqrt(2) * 20 / NELO_SCALE)
    assert p0[1] == pytest.approx(w0, abs=1e-9) and p1[1] == pytest.approx(w1, abs=1e-9)
    got = 80 * sum(qi * math.log(b / a) for qi, a, b in zip(q, p0, p1) if qi)
    assert got == pytest.approx(want, rel=1e-7)
    # With the 1e-3 counts of the three empty cells (what llr() does) the value moves only a little.
    assert llr((0, n1, 0, n3, 0), spec) == pytest.approx(want, rel=1e-2)


def test_hand_computed_llr_logistic_two_cells() -> None:
    """Pairs of 0 and 2 only, logistic bounds: the mean is the law, so the LLR is Wald's binomial one."""
    spec = Sprt(elo0=0, elo1=35, model="logistic")
    s0, s1 = elo_to_score(0), elo_to_score(35)
    want = _binary_llr(100, 40 / 100, 1 - s0, 1 - s1)  # share 0.4 on the cell 0 (losses)
    assert llr((40, 0, 0, 0, 60), spec) == pytest.approx(want, rel=1e-3)


@pytest.mark.parametrize("counts, elo0, elo1, want", [
    # LLRs shown by Fishtest (tests.stockfishchess.org) for finished tests, nElo bounds, alpha = beta = 0.05
    ((19, 4020, 10316, 4215, 24), -1.75, 0.25, 2.94),
    ((103, 3851, 8316, 3728, 98), 0, 2, -2.03),
    ((291, 10353, 21899, 10175, 306), 0, 2, -3.08),
    ((99, 3323, 8399, 3606, 109), 0, 2, 2.98),
    ((2, 40, 72, 14, 0), 0, 2, -0.36),
    ((45, 8506, 25934, 8883, 57), 0.5, 2.5, 2.94),
    ((105, 19880, 51075, 20005, 108), 0.5, 2.5, -2.94),
    # small samples, where the empty-cell counts matter
    ((0, 0, 0, 0, 10), -1.75, 0.25, 0.08),
    ((0, 2, 4, 6, 10), -1.75, 0.25, 0.13),
])
def test_llr_matches_published_values(counts: tuple[int, ...], elo0: float, elo1: float, want: float) -> None:
    assert llr(counts, Sprt(elo0=elo0, elo1=elo1)) == pytest.approx(want, abs=0.006)


def test_llr_is_antisymmetric_and_zero_without_pairs() -> None:
    spec = Sprt(elo0=-5, elo1=5)
    counts = (3, 10, 30, 15, 7)
    assert llr(counts, spec) == pytest.approx(-llr(tuple(reversed(counts)), spec), abs=1e-9)
    assert llr((0, 0, 0, 0, 0), spec) == 0.0
    assert llr((5, 5, 5, 5, 5), spec) == pytest.approx(0.0, abs=1e-9)  # symmetric data, symmetric bounds


def test_constrained_mle_meets_its_constraint() -> None:
    q = [0.05, 0.2, 0.45, 0.22, 0.08]
    for t in (-0.3, 0.0, 0.1, 0.4):
        p = constrained_mle(q, t)
        mu, sd = _mean_sd(p)
        assert sum(p) == pytest.approx(1.0)
        assert (mu - 0.5) / sd == pytest.approx(t, abs=1e-8)
    p = constrained_mle(q, 0.0, ref=0.6)
    assert _mean_sd(p)[0] == pytest.approx(0.6, abs=1e-9)


def test_llr_grows_with_evidence() -> None:
    spec = Sprt(elo0=0, elo1=10)
    assert llr((1, 2, 10, 4, 3), spec) < llr((2, 4, 20, 8, 6), spec) < llr((4, 8, 40, 16, 12), spec)


def test_cell_of_a_pair() -> None:
    assert [cell(p) for p in ((0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (1, 0.5), (1, 1))] == [0, 1, 2, 2, 3, 4]
    with pytest.raises(ValueError):
        cell((1, 2))


def test_estimate_elo_interval_and_los() -> None:
    e = estimate((10, 0, 40, 0, 50))  # per-match scores 0, 1/2, 1 with 10%, 40%, 50%
    mu = 0.7
    sd = math.sqrt(0.1 * 0.49 + 0.4 * 0.04 + 0.5 * 0.09)
    se = sd / math.sqrt(100)
    assert e.score == pytest.approx(mu)
    assert e.elo == pytest.approx(-400 * math.log10(1 / mu - 1))
    assert e.elo_low == pytest.approx(score_to_elo(mu - 1.959964 * se), rel=1e-5)
    assert e.elo_high == pytest.approx(score_to_elo(mu + 1.959964 * se), rel=1e-5)
    assert e.los == pytest.approx(0.5 * (1 + math.erf((mu - 0.5) / se / math.sqrt(2))))
    assert e.nelo == pytest.approx((mu - 0.5) / (math.sqrt(2) * sd) * 800 / math.log(10))
    assert estimate((0, 0, 7, 0, 0)).elo == 0.0 and estimate((0, 0, 7, 0, 0)).los == 0.5
    allwins = estimate((0, 0, 0, 0, 4))
    assert allwins.elo == math.inf and allwins.to_dict()["elo"] is None and allwins.los == 1.0


@pytest.mark.parametrize("words, problem", [
    (["elo0=10", "elo1=0"], "elo0 must be below elo1"),
    (["alpha=0"], "alpha and beta"),
    (["alpha=0.6", "beta=0.5"], "alpha and beta"),
    (["elo1=ten"], "is not a number"),
    (["elo1=nan"], "not a finite number"),
    (["bogus=1"], "is not one of"),
    (["elo1=5", "elo1=6"], "twice"),
    (["model=bayes"], "unknown model"),
])
def test_bad_sprt_words(words: list[str], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Sprt.parse(words)


def test_sprt_words() -> None:
    assert Sprt.parse(["elo0=0", "elo1=5", "alpha=0.1", "beta=0.2"]) == Sprt(0, 5, 0.1, 0.2)
    assert Sprt.parse(["elo0=-1.75 elo1=0.25"]) == Sprt(-1.75, 0.25)
    assert Sprt.parse([]) == Sprt() and Sprt.parse(["model=logistic"]).model == "logistic"
