"""Fuzzing the `arena rules` notation parser for every game of the Sixty-Six family (sixtysix and
schnapsen, section 7): every input ends in JSON or one clear line, never a traceback."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.games.registry import ids
from harness.games.sixtysix.cards import CARD_STR, SCHNAPSEN

DECK = "AH TH KH 9H QS KC QH JC 9D AC TD JD KS AS TS JS KD QD AD 9C QC TC 9S JH"
SCH_CARDS = tuple(CARD_STR[c] for c in SCHNAPSEN.cards)  # SCH-1: no nines
SCH_DECK = "JS KH QH AH TH KC AS TC JD QC JC TS KS QS AD TD KD QD JH AC"
WORDS = list(CARD_STR) + ["marry:C", "marry:H", "marry:X", "exchange", "close", "claim", "draw", "pass",
                          "finish", "", "=", "TH=", "th", "10H", "marry:", "claim claim"]
OPTIONS = ["dealer_rotation", "match_target", "auto_claim", "exchange_rank", "last_trick", "nope", "", "="]
VALUES = ["winner", "alternate", "7", "-1", "true", "maybe", "J", "9", "wins_deal", "", "=", "1e3", "\x00"]

token = st.one_of(st.sampled_from(WORDS), st.text(max_size=6))
deck = st.one_of(
    st.just(DECK),
    st.just(SCH_DECK),
    st.permutations(list(CARD_STR)).map(" ".join),
    st.permutations(list(SCH_CARDS)).map(" ".join),
    st.lists(st.sampled_from(CARD_STR), max_size=26).map(" ".join),
    st.lists(st.sampled_from(SCH_CARDS), min_size=18, max_size=22).map(" ".join),
    st.text(max_size=80),
)
rule = st.one_of(
    st.builds(lambda o, v: f"{o}={v}", st.sampled_from(OPTIONS), st.sampled_from(VALUES)),
    st.text(max_size=20),
)


def call(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(game=st.sampled_from(ids()), deck=deck, actions=st.lists(token, max_size=30),
       rules=st.lists(rule, max_size=3), perft=st.booleans())
def test_rules_cli_never_raises(game: str, deck: str, actions: list[str], rules: list[str], perft: bool) -> None:
    argv = ["rules", "perft" if perft else "run", game, "--deck", deck, "--actions", " ".join(actions)]
    for r in rules:
        argv += ["--rule", r]
    if perft:
        argv += ["--depth", "1"]
    code, out, err = call(argv)
    if code == 0:
        assert err == ""
        value = json.loads(out)
        assert isinstance(value, int if perft else dict)
        if isinstance(value, dict):  # 66-4.4 / SCH-2: the talon holds 12 or 10 cards at the deal
            assert value["talon"] <= (12 if game == "sixtysix" else 10)
    else:
        assert code == 2 and out == ""
        assert err.startswith("arena: ") and err.count("\n") == 1 and "Traceback" not in err
