"""`arena rules run/perft` for sixtysix and schnapsen (section 7, 7.1): JSON output, perft counts,
the Schnapsen pack and preset, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness.cli import main
from harness.games import registry
from harness.games.sixtysix import deal, parse_deck, perft
from harness.games.sixtysix.cards import SCHNAPSEN

DECK = "AH TH KH 9H QS KC QH JC 9D AC TD JD KS AS TS JS KD QD AD 9C QC TC 9S JH"
# SCH-2: A (non-dealer) = JS KH QH + TC JD, B = AH TH KC + QC JC, trump card AS (d[6]),
# talon TS KS QS AD TD KD QD JH AC (top first), then AS.
SCH_DECK = "JS KH QH AH TH KC AS TC JD QC JC TS KS QS AD TD KD QD JH AC"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_prints_the_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "run", "sixtysix", "--deck", DECK, "--actions", "AH 9H")
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "to_act": 0, "legal": ["claim", "close", "draw"], "points": [11, 0], "tricks": [1, 0],
        "talon": 12, "over": False, "winner": None, "game_points": 0,
    }


def test_run_a_finished_deal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "run", "sixtysix", "--deck", DECK, "--actions", "AH 9H claim")
    assert json.loads(out) == {
        "to_act": None, "legal": [], "points": [11, 0], "tricks": [1, 0], "talon": 12, "over": True,
        "winner": 1, "game_points": 2,  # 66-13.1 row 5: a false claim gives the opponent 2
    }


def test_rule_options_change_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules", "run", "sixtysix", "--deck", DECK, "--actions", "AH 9H claim",
                    "--rule", "false_claim_points=two_or_three")
    assert json.loads(out)["game_points"] == 3  # T58 alternative: B had no trick


def test_perft_counts(capsys: pytest.CaptureFixture[str]) -> None:
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
def test_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str], argv: list[str], token: str) -> None:
    for cmd in (["rules", "run", "sixtysix"], ["rules", "perft", "sixtysix", "--depth", "2"]):
        code, out, err = run(capsys, *cmd, *argv)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and token in err


def test_unknown_game_and_missing_deck(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "run", "schafkopf", "--deck", DECK)
    assert code == 2 and out == "" and "'schafkopf'" in err and err.count("\n") == 1
    code, out, err = run(capsys, "rules", "run", "sixtysix")
    assert code == 2 and out == "" and "--deck" in err and err.count("\n") == 1


def test_schnapsen_run_uses_the_pack_and_the_preset(capsys: pytest.CaptureFixture[str]) -> None:
    """SCH-2 deal (talon 10); SCH-5 trump-jack exchange at the first lead without a trick."""
    code, out, err = run(capsys, "rules", "run", "schnapsen", "--deck", SCH_DECK)
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "to_act": 0, "legal": ["JD", "JS", "KH", "QH", "TC", "claim", "close", "exchange", "marry:H"],
        "points": [0, 0], "tricks": [0, 0], "talon": 10, "over": False, "winner": None, "game_points": 0,
    }
    _, out, _ = run(capsys, "rules", "run", "schnapsen", "--deck", SCH_DECK, "--rule", "exchange_requires_trick=true")
    assert "exchange" not in json.loads(out)["legal"]  # an option still overrides the preset (7.1)


def test_schnapsen_close_only_after_drawing(capsys: pytest.CaptureFixture[str]) -> None:
    """SCH-7: B wins KH with AH and may not close before drawing; close_before_draw=true allows it."""
    _, out, _ = run(capsys, "rules", "run", "schnapsen", "--deck", SCH_DECK, "--actions", "KH AH")
    assert json.loads(out) == {
        "to_act": 1, "legal": ["claim", "draw"], "points": [0, 15], "tricks": [0, 1], "talon": 10,
        "over": False, "winner": None, "game_points": 0,
    }
    _, out, _ = run(capsys, "rules", "run", "schnapsen", "--deck", SCH_DECK, "--actions", "KH AH",
                    "--rule", "close_before_draw=true")
    assert json.loads(out)["legal"] == ["claim", "close", "draw"]
    _, out, _ = run(capsys, "rules", "run", "schnapsen", "--deck", SCH_DECK, "--actions", "KH AH draw")
    summary = json.loads(out)  # B drew TS, A drew KS: talon 8; B holds KC QC
    assert summary["talon"] == 8
    assert summary["legal"] == ["JC", "KC", "QC", "TH", "TS", "claim", "close", "marry:C"]


def test_schnapsen_marriage_after_close_and_false_claim(capsys: pytest.CaptureFixture[str]) -> None:
    """Section 7.1: a marriage may follow a close in the same turn; SCH-11: a false claim against a
    trickless opponent pays 3 (and 2 with false_claim_points=flat2)."""
    _, out, _ = run(capsys, "rules", "run", "schnapsen", "--deck", SCH_DECK, "--actions", "close marry:H")
    assert json.loads(out)["legal"] == ["KH", "QH", "claim"]
    _, out, _ = run(capsys, "rules", "run", "schnapsen", "--deck", SCH_DECK, "--actions", "claim")
    assert json.loads(out)["winner"] == 1 and json.loads(out)["game_points"] == 3
    _, out, _ = run(capsys, "rules", "run", "schnapsen", "--deck", SCH_DECK, "--actions", "claim",
                    "--rule", "false_claim_points=flat2")
    assert json.loads(out)["game_points"] == 2


def test_schnapsen_perft(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "perft", "schnapsen", "--deck", SCH_DECK, "--depth", "3")
    expected = perft(deal(parse_deck(SCH_DECK, SCHNAPSEN), registry.get("schnapsen").rules()), 3)
    assert code == 0 and err == "" and int(out) == expected
    classic_rules = perft(deal(parse_deck(SCH_DECK, SCHNAPSEN)), 3)
    assert expected != classic_rules  # the preset applies (no exchange at the first lead without it)


@pytest.mark.parametrize(
    "argv, token",
    [
        (["--deck", SCH_DECK.replace("JH", "9H")], "'9H'"),  # SCH-1: no nines
        (["--deck", DECK], "'9H'"),  # a 24-card deck: its first nine is the bad token
        (["--deck", SCH_DECK.rsplit(" ", 1)[0]], "19 cards"),
        (["--deck", SCH_DECK.replace("JH", "AH")], "'AH'"),
        (["--deck", SCH_DECK.replace("JH", "XH")], "'XH'"),
        (["--deck", SCH_DECK, "--actions", "9S"], "'9S'"),
        (["--deck", SCH_DECK, "--actions", "KH AH close"], "'close'"),  # SCH-7: not at point D
        (["--deck", SCH_DECK, "--rule", "exchange_rank=Q"], "'Q'"),
        (["--deck", SCH_DECK, "--rule", "last_trick"], "'last_trick'"),
        (["--deck", SCH_DECK, "--rule", "three_handed=true"], "'three_handed'"),
    ],
)
def test_schnapsen_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str], argv: list[str], token: str) -> None:
    for cmd in (["rules", "run", "schnapsen"], ["rules", "perft", "schnapsen", "--depth", "2"]):
        code, out, err = run(capsys, *cmd, *argv)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and token in err


def test_a_schnapsen_deck_is_not_a_sixtysix_deck(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "run", "sixtysix", "--deck", SCH_DECK)
    assert code == 2 and out == "" and "20 cards" in err and err.count("\n") == 1


def test_console_script_runs() -> None:
    for game, deck in (("sixtysix", DECK), ("schnapsen", SCH_DECK)):
        p = subprocess.run([sys.executable, "-m", "harness.cli", "rules", "run", game, "--deck", deck],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and json.loads(p.stdout)["to_act"] == 0
