"""Issue 14 item 11, help and discovery: every flag's help states its default (checked over the whole
argparse tree, so flags added later stay honest), `--db` names its real default, `arena rules options`
lists each game's options from the game itself, and a mistyped option, key or game gets the nearest
name in one line."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cli import build_parser
from harness.games.registry import get, ids

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SWITCHES = (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction,
            argparse._CountAction, argparse._VersionAction, argparse.BooleanOptionalAction)
DECKS = {"sixtysix": "AH TH KH QH JH 9H AS TS KS QS JS 9S AD TD KD QD JD 9D AC TC KC QC JC 9C",
         "schnapsen": "AH TH KH QH JH AS TS KS QS JS AD TD KD QD JD AC TC KC QC JC"}


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "harness.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def optionals(p: argparse.ArgumentParser, path: tuple[str, ...] = ("arena",)) -> Iterator[tuple[str, argparse.Action]]:
    """Every optional argument of every (sub)command, with the command's words."""
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from optionals(sub, (*path, name))
        elif a.option_strings and not isinstance(a, argparse._HelpAction):
            yield " ".join(path), a


def shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def help_problem(a: argparse.Action) -> str | None:
    """What is missing from one optional argument's help, or None."""
    text = a.help or ""
    if not text or text == argparse.SUPPRESS:
        return "no help"
    if isinstance(a, SWITCHES):
        return None  # a switch: off unless given
    if a.required:
        return None if "required" in text else "required, but the help does not say so"
    if isinstance(a, (argparse._AppendAction, argparse._ExtendAction)):
        return None if "repeatable" in text else "repeatable, but the help does not say so"
    if "default" not in text:
        return "the help does not state the default"
    if a.default not in (None, "") and not isinstance(a.default, bool) and shown(a.default) not in text:
        return f"the default is {a.default!r}, but the help does not name it"
    return None


def test_every_flag_states_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in [v for v in os.environ if v.startswith("ARENA_")]:  # defaults read from the environment
        monkeypatch.delenv(var)
    found = list(optionals(build_parser()))
    assert len(found) > 60 and any(cmd == "arena league retire" for cmd, _ in found)  # the walk sees everything
    problems = [f"{cmd} {'/'.join(a.option_strings)}: {why}" for cmd, a in found if (why := help_problem(a))]
    assert problems == []


def test_the_help_check_catches_a_flag_without_its_default() -> None:
    p = argparse.ArgumentParser()
    bad = [p.add_argument("--move-time", type=float, default=1.0, help="limit per decision"),
           p.add_argument("--seed", type=int, default=66, help="match seed (default: random)"),
           p.add_argument("--rule", action="append", help="a rule option"),
           p.add_argument("--depth", type=int, required=True),
           p.add_argument("--out", help="folder")]
    assert [help_problem(a) is not None for a in bad] == [True] * 5
    good = p.add_argument("--time-bank", type=float, default=10.0, help="bank (default 10)")
    assert help_problem(good) is None


def test_db_names_its_default_under_out(tmp_path: Path) -> None:
    from harness.tournament.commands import config_from_args

    p = build_parser()
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices["tournament"]
    db_help = next(a.help or "" for a in sub._actions if "--db" in a.option_strings)
    assert "--out" in db_help and "arena.db" in db_help
    args = p.parse_args(["tournament", "--bot", "a=python a.py", "--bot", "b=python b.py", "--out", str(tmp_path)])
    assert config_from_args(args).db == tmp_path / "arena.db"  # what the help says
    args = p.parse_args(["tournament", "--bot", "a=python a.py", "--bot", "b=python b.py"])
    assert config_from_args(args).db == Path("results/arena.db")


def _listing(text: str) -> dict[str, dict[str, tuple[str, str]]]:
    """``arena rules options`` output as game -> option -> (default, values)."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    game = ""
    for line in text.splitlines():
        if m := re.match(r"(\w+) \(.+\): \d+ rule options?, ", line):
            game = m.group(1)
            out[game] = {}
        elif line.startswith("  ") and not line.lstrip().startswith("option "):
            name, default, values = re.split(r"\s{2,}", line.strip(), maxsplit=2)
            out[game][name] = (default, values)
    return out


def test_rules_options_lists_every_option_of_every_game() -> None:
    r = arena("rules", "options")
    assert r.returncode == 0, r.stderr
    listing = _listing(r.stdout)
    assert list(listing) == list(ids())  # all five games
    for gid, options in listing.items():
        game = get(gid)
        defaults = game.rules_map(game.rules())
        assert {k: v[0] for k, v in options.items()} == defaults, gid  # every option, with the game's default
        for name, (default, values) in options.items():
            if m := re.fullmatch(r"(\d+) to (\d+)", values):
                lo, hi = int(m.group(1)), int(m.group(2))
                assert lo <= int(default) <= hi
                for ok in (lo, hi):
                    game.rules({name: str(ok)})
                for bad in (lo - 1, hi + 1):
                    with pytest.raises(ValueError):
                        game.rules({name: str(bad)})
            else:
                listed = values.removeprefix("only ").split(", ")
                assert default in listed, (gid, name)
                for v in listed:
                    game.rules({name: v})  # each value shown is one the game takes
    assert listing["schnapsen"]["exchange_rank"] == ("J", "9, J")  # the preset's default, not Sixty-Six's
    assert listing["four_handed"]["trump_ten_bonus"] == ("false", "false")  # true is refused by the game
    one = arena("rules", "options", "three_handed")
    assert one.returncode == 0 and list(_listing(one.stdout)) == ["three_handed"]


@pytest.mark.parametrize("gid, typo, near", [
    ("sixtysix", "dealer_rotaton", "dealer_rotation"), ("schnapsen", "marriage_in_phase_2", "marriage_in_phase2"),
    ("three_handed", "3h_grades", "3h_grade"), ("four_handed", "packs", "pack"),
    ("twenty_two", "penalty_limt", "penalty_limit")])
def test_an_unknown_rule_option_suggests_the_nearest(gid: str, typo: str, near: str) -> None:
    extra = ["--players", "4"] if gid == "twenty_two" else []
    deck = DECKS.get(gid, DECKS["sixtysix"])
    r = arena("rules", "run", gid, "--deck", deck, "--rule", f"{typo}=1", *extra)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and f"unknown rule option '{typo}'" in r.stderr
    assert f"did you mean '{near}'?" in r.stderr


def test_unknown_config_keys_and_games_suggest_the_nearest(tmp_path: Path) -> None:
    bot = "python sample_bots/random_bot.py"
    entrants = f'[[entrant]]\nname = "a"\ncommand = "{bot}"\n[[entrant]]\nname = "b"\ncommand = "{bot}"\n'
    for body, line in (("rouns = 2\n", "unknown key 'rouns' in config (did you mean 'rounds'?"),
                       ("[time]\nmove_time = 1\n", "unknown key 'move_time' in [time] (did you mean 'move'?"),
                       ("[rules]\nmatch_targt = 3\n", "unknown rule option 'match_targt': did you mean 'match_target'?")):
        cfg = tmp_path / "t.toml"
        cfg.write_text('name = "t"\n' + entrants + body if body.startswith("[") else 'name = "t"\n' + body + entrants)
        r = arena("tournament", str(cfg), "--db", str(tmp_path / "x.db"), "--out", str(tmp_path / "out"))
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and line in r.stderr, r.stderr
        assert not (tmp_path / "x.db").exists()  # refused before anything is written
    r = arena("rules", "options", "schnapen")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "did you mean 'schnapsen'?" in r.stderr
