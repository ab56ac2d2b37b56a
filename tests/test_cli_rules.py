"""`arena rules run/perft`: JSON output, perft counts, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness.cli import main
from harness.games.sixtysix import deal, parse_deck, perft

DECK = "AH TH KH 9H QS KC QH JC 9D AC TD JD KS AS TS JS KD QD AD 9C QC TC 9S JH"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_prints_the_position(capsys) -> None:
    code, out, err = run(capsys, "rules", "run", "sixtysix", "--deck", DECK, "--actions", "AH 9H")
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "to_act": 0, "legal": ["claim", "close", "draw"], "points": [11, 0], "tricks": [1, 0],
        "talon": 12, "over": False, "winner": None, "game_points": 0,
    }


def test_run_a_finished_deal(capsys) -> None:
    code, out, _ = run(capsys, "rules", "run", "sixtysix", "--deck", DECK, "--actions", "AH 9H claim")
    assert json.loads(out) == {
        "to_act": None, "legal": [], "points": [11, 0], "tricks": [1, 0], "talon": 12, "over": True,
        "winner": 1, "game_points": 2,  # 66-13.1 row 5: a false claim gives the opponent 2
    }


def test_rule_options_change_the_result(capsys) -> None:
    _, out, _ = run(capsys, "rules", "run", "sixtysix", "--deck", DECK, "--actions", "AH 9H claim",
                    "--rule", "false_claim_points=two_or_three")
    assert json.loads(out)["game_points"] == 3  # T58 alternative: B had no trick


def test_perft_counts(capsys) -> None:
    code, out, _ = run(capsys, "rules", "perft", "sixtysix", "--deck", DECK, "--depth", "3")
    assert code == 0 and int(out) == perft(deal(parse_deck(DECK)), 3)
    _, out, _ = run(capsys, "rules", "perft", "sixtysix", "--deck", DECK, "--actions", "AH 9H claim", "--depth", "4")
    assert int(out) == 1  # an ended deal is one leaf


@pytest.mark.parametrize(
    "argv, token",
    [
        (["--deck", DECK.replace("AH", "XH")], "'XH'"),
        (["--deck", DECK.replace("JH", "AH")], "'AH'"),
        (["--deck", DECK.rsplit(" ", 1)[0]], "23 cards"),
        (["--deck", DECK, "--actions", "AH jump"], "'jump'"),
        (["--deck", DECK, "--actions", "AH AH"], "'AH'"),
        (["--deck", DECK, "--actions", "AH 9H claim draw"], "'draw'"),
        (["--deck", DECK, "--rule", "nonsense=1"], "'nonsense'"),
        (["--deck", DECK, "--rule", "dealer_rotation=sometimes"], "'sometimes'"),
        (["--deck", DECK, "--rule", "match_target=seven"], "'seven'"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, argv, token) -> None:
    for cmd in (["rules", "run", "sixtysix"], ["rules", "perft", "sixtysix", "--depth", "2"]):
        code, out, err = run(capsys, *cmd, *argv)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and token in err


def test_unknown_game_and_missing_deck(capsys) -> None:
    code, out, err = run(capsys, "rules", "run", "schafkopf", "--deck", DECK)
    assert code == 2 and out == "" and "'schafkopf'" in err and err.count("\n") == 1
    code, out, err = run(capsys, "rules", "run", "sixtysix")
    assert code == 2 and out == "" and "--deck" in err and err.count("\n") == 1


def test_console_script_runs() -> None:
    p = subprocess.run([sys.executable, "-m", "harness.cli", "rules", "run", "sixtysix", "--deck", DECK],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and json.loads(p.stdout)["to_act"] == 0
