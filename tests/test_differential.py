"""Differential tests: the engine (harness.games.sixtysix) against the independent
reference model in tests/reference/ref66.py (written from RULES-SPEC sections 1, 3.1, 7.1
and Appendix A only), for both games of the family: classic Sixty-Six and Schnapsen.

(a) random decks + random legal play under several policies, each game's default rules and
    every single non-default Appendix A option value: legal actions and summary() are
    compared after every action;
(b) perft from random positions, depths 1..4 (and 5..6 for a few);
(c) the CLI (`python -m harness.cli rules run|perft GAME ...`) against the reference.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # so that `harness` imports under any pytest mode
    sys.path.insert(0, str(REPO))

from harness.games import registry
from harness.games.sixtysix import State, apply, deal, legal_actions, parse_deck, perft, summary
from harness.games.sixtysix.cards import CLASSIC, SCHNAPSEN, Pack
from reference.ref66 import CARDS_OF, GAME_DEFAULTS, GAMES, RefDeal, non_default_values
from reference.ref66 import perft as ref_perft

PACKS: dict[str, Pack] = {"sixtysix": CLASSIC, "schnapsen": SCHNAPSEN}
CONFIGS = {g: [{}] + [{name: v} for name, values in non_default_values(g).items() for v in values] for g in GAMES}
CASES = [(g, cfg) for g in GAMES for cfg in CONFIGS[g]]


def cfg_id(cfg: dict) -> str:
    return "default" if not cfg else ",".join(f"{k}={v}" for k, v in cfg.items())


def random_deck(rng: random.Random, game: str = "sixtysix") -> list[str]:
    cards = list(CARDS_OF[game])
    rng.shuffle(cards)
    return cards


def engine_deal(game: str, cards: list[str], cfg: dict[str, Any]) -> State:
    """The engine's deal as the rules tools build it: the game's pack and preset (section 7.1)."""
    return deal(parse_deck(" ".join(cards), PACKS[game]), registry.get(game).rules(cfg))


def test_registry_and_reference_agree_on_games_and_defaults() -> None:
    """Appendix A: each game's default rules (the Schnapsen column for schnapsen, SCH-3..SCH-11)."""
    assert registry.ids()[:len(GAMES)] == GAMES  # the family first; other games have their own references
    for g in GAMES:
        assert registry.get(g).rules().to_dict() == GAME_DEFAULTS[g]
        assert sorted(parse_deck(" ".join(CARDS_OF[g]), PACKS[g])) == sorted(PACKS[g].cards)


# --------------------------------------------------------------------------- policies
# Each policy gets (rng, sorted legal actions, reference deal) and returns an action.
Policy = Callable[[random.Random, list[str], RefDeal], str]


def _non_claim(legal: list[str]) -> list[str]:
    return [a for a in legal if a != "claim"]


def policy_uniform(rng: random.Random, legal: list[str], ref: RefDeal) -> str:
    return rng.choice(legal)


def policy_claim_66(rng: random.Random, legal: list[str], ref: RefDeal) -> str:
    # claim exactly when the player to act has >= 66 counted points
    if "claim" in legal and ref.counted(ref.actor) >= 66:
        return "claim"
    rest = _non_claim(legal)
    return rng.choice(rest) if rest else "claim"


def policy_sometimes_close(rng: random.Random, legal: list[str], ref: RefDeal) -> str:
    if "claim" in legal:
        if ref.counted(ref.actor) >= 66 and rng.random() < 0.8:
            return "claim"
        if rng.random() < 0.04:  # an occasional false/valid claim (rows 3-5)
            return "claim"
    if "close" in legal and rng.random() < 0.35:
        return "close"
    rest = _non_claim(legal)
    return rng.choice(rest) if rest else "claim"


def policy_never_false_always_draw(rng: random.Random, legal: list[str], ref: RefDeal) -> str:
    if "claim" in legal and ref.counted(ref.actor) >= 66 and rng.random() < 0.5:
        return "claim"  # sometimes delay a valid claim, to reach played-out deals
    if "draw" in legal:
        return "draw"
    rest = [a for a in legal if a not in ("claim", "close")]
    if not rest:
        rest = [a for a in legal if a != "claim"]
    return rng.choice(rest) if rest else "claim"


def policy_declarer(rng: random.Random, legal: list[str], ref: RefDeal) -> str:
    # eagerly exchange and declare marriages (then often close), to stress 66-8 / 66-9 /
    # 66-10 interplay; claim when >= 66, or very rarely falsely.
    if "claim" in legal and (ref.counted(ref.actor) >= 66 or rng.random() < 0.02):
        return "claim"
    special = [a for a in legal if a == "exchange" or a.startswith("marry:")]
    if special and rng.random() < 0.9:
        return rng.choice(special)
    if "close" in legal and rng.random() < 0.25:
        return "close"
    rest = [a for a in legal if a not in ("claim", "close")] or _non_claim(legal)
    return rng.choice(rest) if rest else "claim"


POLICIES = {
    "uniform": policy_uniform,
    "claim66": policy_claim_66,
    "sometimes_close": policy_sometimes_close,
    "never_false_always_draw": policy_never_false_always_draw,
    "declarer": policy_declarer,
}

DEALS_PER_POLICY = 150  # x 5 policies = 750 deals per option configuration


def play_and_compare(game: str, cards: list[str], cfg: dict[str, Any], policy: Policy,
                     rng: random.Random) -> dict[str, Any] | None:
    """Play one deal on both models; return None or a mismatch description."""
    state = engine_deal(game, cards, cfg)
    ref = RefDeal(cards, cfg, game)
    actions: list[str] = []
    while True:
        eng_legal = sorted(legal_actions(state))
        ref_legal = ref.legal()
        eng_sum = summary(state)
        ref_sum = ref.summary()
        if eng_legal != ref_legal or eng_sum != ref_sum:
            return {
                "game": game,
                "deck": " ".join(cards),
                "actions": " ".join(actions),
                "rules": cfg,
                "engine": eng_sum,
                "engine_legal": eng_legal,
                "reference": ref_sum,
            }
        if ref.over:
            return None
        action = policy(rng, ref_legal, ref)
        actions.append(action)
        state = apply(state, action)
        ref.act(action)


@pytest.mark.parametrize("policy_name", list(POLICIES))
@pytest.mark.parametrize("game, cfg", CASES, ids=[f"{g}-{cfg_id(c)}" for g, c in CASES])
def test_random_play_matches_reference(game: str, cfg: dict[str, Any], policy_name: str) -> None:
    # the classic seeds are those of the single-game version of this test
    prefix = "" if game == "sixtysix" else game
    seed = sum(map(ord, prefix + cfg_id(cfg) + policy_name)) * 7919
    rng = random.Random(seed)
    policy = POLICIES[policy_name]
    for _ in range(DEALS_PER_POLICY):
        cards = random_deck(rng, game)
        mismatch = play_and_compare(game, cards, cfg, policy, rng)
        assert mismatch is None, json.dumps(mismatch, indent=1)


@pytest.mark.parametrize(
    "game, cfgs, expected",
    [
        ("sixtysix", ({}, {"beaten_closer_points": "as_failed_close"}), {1, 2, 3, 4, 5, 6, 7, 8}),
        # SCH-9: a played-out unclosed deal always has a winner, so row 8 needs bonus10
        ("schnapsen", ({},), {1, 2, 3, 4, 5, 6, 7}),
        ("schnapsen", ({"last_trick": "bonus10"},), {1, 2, 3, 4, 5, 6, 7, 8}),
    ],
)
def test_reference_reaches_all_scoring_rows(game: str, cfgs: tuple[dict[str, str], ...], expected: set[int]) -> None:
    """Sanity check of the test itself: the policies exercise every scoring row."""
    rows = set()
    rng = random.Random(99)
    for cfg in cfgs:
        for policy in POLICIES.values():
            for _ in range(150 if game == "sixtysix" else 300):
                ref = RefDeal(random_deck(rng, game), cfg, game)
                while not ref.over:
                    ref.act(policy(rng, ref.legal(), ref))
                rows.add(ref.row)
    assert rows == expected


def test_policies_reach_marriage_after_close_in_schnapsen() -> None:
    """Sanity check: the differential games above do contain a close followed by a marriage in the
    same turn (66-5.1, section 7.1), the behaviour that changed with marriage_in_phase2."""
    rng = random.Random(5)
    seen = 0
    for _ in range(300):
        ref = RefDeal(random_deck(rng, "schnapsen"), None, "schnapsen")
        prev = None
        while not ref.over:
            a = policy_declarer(rng, ref.legal(), ref)
            if prev == "close" and a.startswith("marry:"):
                seen += 1
            prev = a
            ref.act(a)
    assert seen > 0


# --------------------------------------------------------------------------- perft


def random_position(rng: random.Random, cfg: dict[str, Any], max_prefix: int,
                    game: str = "sixtysix") -> tuple[list[str], list[str], State, RefDeal]:
    cards = random_deck(rng, game)
    state = engine_deal(game, cards, cfg)
    ref = RefDeal(cards, cfg, game)
    actions = []
    for _ in range(rng.randrange(max_prefix + 1)):
        if ref.over:
            break
        legal = [a for a in ref.legal() if a not in ("claim", "finish")] or ref.legal()
        a = rng.choice(legal)
        actions.append(a)
        state = apply(state, a)
        ref.act(a)
    return cards, actions, state, ref


PERFT_CASES = list(range(20))


@pytest.mark.parametrize("case", PERFT_CASES)
@pytest.mark.parametrize("game", GAMES)
def test_perft_matches_reference(game: str, case: int) -> None:
    rng = random.Random(1000 + case + (0 if game == "sixtysix" else 500))
    configs = CONFIGS[game]
    cfg = configs[(case * 5) % len(configs)]
    cards, actions, state, ref = random_position(rng, cfg, 30 if game == "sixtysix" else 24, game)
    max_depth = 6 if case in (3, 11) else (5 if case in (0, 7, 15) else 4)
    for d in range(1, max_depth + 1):
        assert perft(state, d) == ref_perft(ref, d), (
            f"{game} depth {d}; deck={' '.join(cards)!r} actions={' '.join(actions)!r} rules={cfg}"
        )


# --------------------------------------------------------------------------- CLI

def _rule_args(cfg: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for k, v in cfg.items():
        val = str(v).lower() if isinstance(v, bool) else str(v)
        out += ["--rule", f"{k}={val}"]
    return out


def _cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("game", GAMES)
def test_cli_matches_reference(game: str) -> None:
    rng = random.Random(4242 if game == "sixtysix" else 2424)
    configs = CONFIGS[game]
    for i in range(6):
        cfg = configs[(i * 7) % len(configs)]
        cards, actions, _state, ref = random_position(rng, cfg, 25 if game == "sixtysix" else 20, game)
        args = ["rules", "run", game, "--deck", " ".join(cards)]
        if actions:
            args += ["--actions", " ".join(actions)]
        args += _rule_args(cfg)
        proc = _cli(args)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == ref.summary(), (cards, actions, cfg)

        depth = 3
        pargs = ["rules", "perft", game, "--deck", " ".join(cards)]
        if actions:
            pargs += ["--actions", " ".join(actions)]
        pargs += _rule_args(cfg) + ["--depth", str(depth)]
        proc = _cli(pargs)
        assert proc.returncode == 0, proc.stderr
        assert int(proc.stdout.strip()) == ref_perft(ref, depth), (cards, actions, cfg)


# --------------------------------------------------------------------------- spec scenarios
# A few section-5 scenarios with full deals, checked on BOTH models.  They anchor the
# reference to the spec authors' expected results, so that agreement in (a)/(b) means
# something.


def deck_from_listing(a_hand: str, b_hand: str, talon: str) -> list[str]:
    """Section-5 listing (hands, talon top -> bottom with the trump card last) -> deck (66-4.2)."""
    a, b, t = a_hand.split(), b_hand.split(), talon.split()
    return a[0:3] + b[0:3] + a[3:6] + b[3:6] + [t[-1]] + t[:-1]


def both(cards: list[str], actions: list[str], cfg: dict[str, Any] | None = None,
         game: str = "sixtysix") -> tuple[State, RefDeal]:
    cfg = cfg or {}
    state = engine_deal(game, cards, cfg)
    ref = RefDeal(cards, cfg, game)
    for a in actions:
        state = apply(state, a)
        ref.act(a)
    assert summary(state) == ref.summary()
    return state, ref


T22 = deck_from_listing("AH TH KH QH JC 9D", "9H QS KC AC TD JD", "AS TS JS KD QD AD 9C QC TC 9S JH KS")
T23 = deck_from_listing("9S QS AH TH JC 9D", "9H QH KC AC TD JD", "AS TS JS KD QD AD 9C QC TC KH JH KS")
T30 = deck_from_listing("AS TS QS QH JC 9D", "9S JS KC AC TD JD", "AH TH KH KD QD AD 9C QC TC 9H JH KS")
T42 = deck_from_listing("KH QH 9S JC 9D TC", "AH 9H KC AC TD JD", "AS TS JS KD QD AD 9C QC QS TH JH KS")


def test_scenario_T22_close_before_draw() -> None:
    _, ref = both(T22, ["AH", "9H", "close"])
    s = ref.summary()
    assert s["to_act"] == 0 and s["talon"] == 12 and s["points"] == [11, 0]
    assert len(ref.hands[0]) == 5 and len(ref.hands[1]) == 5
    assert "marry:H" not in s["legal"]  # talon closed (66-9.3); no point R (9S in talon)


def test_scenarios_T23_to_T25_T37_exchange_marriage_close() -> None:
    _, ref = both(T23, [])
    assert "exchange" not in ref.legal()  # T23
    _, ref = both(T23, ["AH", "9H"])
    assert "exchange" not in ref.legal()  # T24 default
    _, ref = both(T23, ["AH", "9H"], {"exchange_before_draw": True})
    assert "exchange" in ref.legal()  # T24 option
    _, ref = both(T23, ["AH", "9H", "draw", "exchange"])  # T25
    assert "KS" in ref.hands[0] and ref.talon[-1] == "9S" and len(ref.talon) == 10
    _, ref = both(T23, ["AH", "9H", "draw", "exchange", "marry:S", "close", "QS"])  # T37
    assert ref.legal() == ["TS"]
    _, ref = both(T23, ["AH", "9H", "draw", "exchange", "marry:S", "close", "QS", "TS"])
    assert ref.summary()["points"] == [51, 13]


def test_scenarios_T30_to_T33_point_R() -> None:
    _, ref = both(T30, ["close"])
    assert ref.legal() == ["exchange", "pass"] and ref.to_act == 1  # T30
    _, ref = both(T30, ["close", "exchange", "AS"])  # T31
    assert ref.legal() == ["JS", "KS"]
    _, ref = both(T30, ["close", "pass"])  # T32
    assert "exchange" not in ref.legal() and ref.to_act == 0
    _, ref = both(T30, ["close"], {"exchange_on_opponent_close": "requires_trick"})  # T33
    assert ref.to_act == 0 and "exchange" not in ref.legal()


def test_scenarios_T42_T43_pending_marriage() -> None:
    _, ref = both(T42, ["marry:H", "QH", "AH"])
    assert ref.summary()["points"] == [0, 14]  # T42
    _, ref = both(T42, ["marry:H", "QH", "AH", "draw", "9H", "9S"])
    assert ref.summary()["points"] == [20, 14]  # T43


def test_point_R_respects_exchange_min_talon() -> None:
    # The winner of trick 6 closes at D (talon = 2) while the opponent holds 9S:
    # point R by default (66-8.3), none with exchange_min_talon = 4 (1.17 comment, 66-8.5).
    cards = "KD 9H 9S AS AC 9D TD KH QC QS AD KC KS JD TS JH TC 9C TH QD JC QH AH JS".split()
    prefix = "9H QS draw JD TD draw KH KC draw QC TC draw TH KD draw AC 9C".split()
    _, ref = both(cards, prefix)
    closer = ref.actor
    assert ref.point == "D" and len(ref.talon) == 2 and "9S" in ref.hands[1 - closer]
    _, ref = both(cards, prefix + ["close"])
    assert ref.point == "R" and ref.legal() == ["exchange", "pass"]
    _, ref = both(cards, prefix + ["close"], {"exchange_min_talon": 4})
    assert ref.point == "L" and ref.to_act == closer


def test_marriage_after_close_in_the_same_turn() -> None:
    """66-5.1 / section 7.1: with marriage_in_phase2 a marriage may follow a close in the same turn;
    without it (classic default, 66-9.3, T38) it may not.  Checked on both models.

    Classic deal T22 (A holds KH QH): A wins trick 1 and closes at point D.  Schnapsen deal
    (SCH-2): A holds KH QH, closes at the first lead (close_before_first_trick) and marries."""
    _, ref = both(T22, ["AH", "9H", "close"])
    assert "marry:H" not in ref.legal()
    _, ref = both(T22, ["AH", "9H", "close"], {"marriage_in_phase2": True})
    assert "marry:H" in ref.legal()
    _, ref = both(T22, ["AH", "9H", "close", "marry:H"], {"marriage_in_phase2": True})
    assert ref.legal() == ["KH", "QH", "claim"] and ref.summary()["points"] == [31, 0]
    # Schnapsen: A = KH QH AC | TC JD, B = AH TH KC | QC JC, trump card JS, talon d[11..19]
    sch = "KH QH AC AH TH KC JS TC JD QC JC AS TS KS QS AD TD KD QD JH".split()
    _, ref = both(sch, ["close"], None, "schnapsen")
    assert ref.legal() == ["AC", "JD", "KH", "QH", "TC", "claim", "marry:H"]
    _, ref = both(sch, ["close", "marry:H"], None, "schnapsen")
    assert ref.legal() == ["KH", "QH", "claim"] and ref.summary()["points"] == [0, 0]  # pending (66-9.5)
    _, ref = both(sch, ["close"], {"marriage_in_phase2": False}, "schnapsen")
    assert "marry:H" not in ref.legal()
