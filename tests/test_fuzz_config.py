"""Fuzzing the tournament config loader: every input ends in a valid config or one ConfigError line.

Three places: arbitrary text through ``config.loads`` (TOML syntax, nesting, huge numbers), arbitrary
well-formed but wrong documents through ``config.from_mapping`` (what tomllib hands it: wrong types,
unknown keys, nested garbage, huge and non-finite numbers, duplicate names, bad time controls, bad
limits, bad rule options), and a few hundred documents and flag sets through ``arena tournament``
in process, which must exit 2 with exactly one stderr line. Entrant commands in the CLI cases name
a program that does not exist, so a config that is valid still stops, with one line, before any
bot or match starts.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

from harness.cli import main
from harness.games.sixtysix.options import Rules
from harness.tournament import config as cfgmod
from harness.tournament.config import LIMIT_KEYS, TOP_KEYS, ConfigError, TournamentConfig

RULE_NAMES = [f.name for f in dataclasses.fields(Rules)]
NAMES = ["a", "b", "greedy", "x.y+z-1", "", " a", "a b", "-lead", "n" * 41, "é", "a\nb", "remote:a"]
MISSING = "no-such-program-fz"
COMMANDS = [f"{MISSING}", f"{MISSING} --fast", "", "   ", f'{MISSING} "unclosed', "remote:", "remote:bad name"]

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
huge = st.builds(lambda digits, sign: sign * (10**digits + 7), st.integers(19, 5000), st.sampled_from([1, -1]))
number = st.one_of(st.integers(-5, 5000), st.integers(), huge,
                   st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0, 0.0, -0.0, 1e-9, 3601]))
scalar = st.one_of(number, text, st.booleans(), st.sampled_from(["0", "false", "off", "1.5", "nan", "inf",
                                                                  "7", " 3 ", "1e999", "winner", "alternate"]))
garbage = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(text, inner, max_size=3)), max_leaves=8)
value = st.one_of(scalar, garbage)


def base(command: str) -> dict[str, Any]:
    """A valid document, the starting point of every mutated one."""
    return {"name": "t", "rounds": 1, "seed": 0, "time": {"move": 1.0, "bank": 10.0}, "rules": {}, "limits": {},
            "entrant": [{"name": "a", "command": command}, {"name": "b", "command": command}]}


def mutation(commands: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[tuple[Any, ...], Any]]:
    """One (path, new value) change; a value of DELETE removes the key."""
    def at(*path: st.SearchStrategy[Any], values: st.SearchStrategy[Any] = value) -> st.SearchStrategy:
        return st.tuples(st.tuples(*path), st.one_of(values, st.just(DELETE)))

    return st.one_of(
        at(st.sampled_from(sorted(TOP_KEYS)), values=st.one_of(value, st.sampled_from(NAMES))),
        at(text),
        at(st.just("time"), st.sampled_from(["move", "bank"]) | text, values=st.one_of(number, scalar, garbage)),
        at(st.just("rules"), st.sampled_from(RULE_NAMES) | text, values=st.one_of(scalar, garbage)),
        at(st.just("limits"), st.sampled_from(list(LIMIT_KEYS)) | text, values=st.one_of(number, scalar, garbage)),
        at(st.just("entrant"), st.integers(0, 3), st.just("name"), values=st.sampled_from(NAMES) | value),
        at(st.just("entrant"), st.integers(0, 3), st.just("command"), values=commands),
        at(st.just("entrant"), st.integers(0, 3), text | st.just("cmd")),
        at(st.just("entrant"), st.integers(0, 4), values=value),
    )


DELETE = object()


def apply(doc: dict[str, Any], path: tuple[Any, ...], new: Any) -> None:
    """Set (or delete) ``path`` in ``doc``; a path through something that is no longer a table is skipped."""
    node: Any = doc
    for key in path[:-1]:
        if isinstance(node, list):
            if not isinstance(key, int):
                return
            while len(node) <= key:
                node.append({"name": f"e{len(node)}", "command": node[0]["command"] if node and
                             isinstance(node[0], dict) and "command" in node[0] else "x"})
            node = node[key]
        elif isinstance(node, dict):
            node = node.setdefault(key, {})
        else:
            return
    last = path[-1]
    if isinstance(node, dict):
        if new is DELETE:
            node.pop(last, None)
        else:
            node[last] = new
    elif isinstance(node, list) and isinstance(last, int):
        if last < len(node):
            if new is DELETE:
                del node[last]
            else:
                node[last] = new
        elif new is not DELETE:
            node.append(new)


def document(commands: st.SearchStrategy[Any], command: str = "python bot.py") -> st.SearchStrategy[dict]:
    """A valid document changed in one to four places, so every check gets reached."""
    def build(changes: list[tuple[tuple[Any, ...], Any]]) -> dict[str, Any]:
        doc = base(command)
        for path, new in changes:
            apply(doc, path, new)
        return doc

    return st.lists(mutation(commands), min_size=1, max_size=4).map(build)


def one_line(e: ConfigError) -> None:
    message = str(e)
    assert message and message.splitlines() == [message], repr(message)
    assert "Traceback" not in message and len(message) < 400, message


def check_valid(cfg: TournamentConfig) -> None:
    """A config that loads can be stored: its identity is plain, finite JSON."""
    json.dumps(cfg.identity(), allow_nan=False)
    assert len({e.name for e in cfg.entrants}) == len(cfg.entrants) >= 2
    assert cfg.move_s > 0 and math.isfinite(cfg.bank_s)


@settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=document(st.one_of(st.sampled_from(COMMANDS + ["python bot.py", "remote:alice"]), value)))
def test_wrong_documents_end_in_a_config_or_one_line(doc: dict) -> None:
    try:
        cfg = cfgmod.from_mapping(doc)
    except ConfigError as e:
        one_line(e)
        event(str(e).split("'")[0][:30])
    else:
        check_valid(cfg)
        event("valid config")


SNIPPETS = ["[[entrant]]\n", 'name = "a"\n', 'command = "x"\n', "[time]\n", "move = 0.5\n", "[limits]\n",
            "cpu_s = 1\n", "[rules]\n", "match_target = 99\n", "rounds = 9" + "9" * 5000 + "\n",
            "x = " + "[" * 2000 + "]" * 2000 + "\n", "a = {b = {c = 1}}\n", "seed = -1\n", "= 3\n", '"\\u0000" = 1\n']


@settings(max_examples=5_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(parts=st.lists(st.one_of(st.sampled_from(SNIPPETS), st.text(max_size=30)), max_size=12))
def test_arbitrary_text_ends_in_a_config_or_one_line(parts: list[str]) -> None:
    try:
        cfg = cfgmod.loads("".join(parts))
    except ConfigError as e:
        one_line(e)
        event(str(e).split("'")[0][:30])
    else:
        check_valid(cfg)
        event("valid config")


def toml(v: Any) -> str:
    """A value as TOML text (inline tables and arrays), for the CLI cases."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v) if v.bit_length() < 4000 else "9" * 4400
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(toml(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml(x)}" for k, x in v.items()) + "}"


def call(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_refused(code: int, out: str, err: str) -> None:
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith("arena: ") and err.count("\n") == 1 and err.endswith("\n"), err


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=document(st.one_of(st.sampled_from(COMMANDS), number, st.booleans()), command=MISSING))
def test_cli_config_file_exits_2_with_one_line(doc: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.toml"
        path.write_text("\n".join(f"{json.dumps(k)} = {toml(v)}" for k, v in doc.items()), encoding="utf-8")
        assert_refused(*call(["tournament", str(path), "--db", f"{tmp}/a.db", "--out", tmp]))


flag = st.one_of(st.sampled_from(["0", "off", "1", "2.5", "-1", "nan", "1e999", "x", ""]), text)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(limits=st.lists(st.builds("{}={}".format, st.one_of(st.sampled_from(list(LIMIT_KEYS)), text), flag)
                       | text, max_size=3),
       rules=st.lists(st.builds("{}={}".format, st.sampled_from(RULE_NAMES), flag) | text, max_size=2),
       move=st.sampled_from(["0", "-1", "0.5", "nan", "inf", "1e9"]))
def test_cli_flags_exit_2_with_one_line(limits: list[str], rules: list[str], move: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["tournament", "--bot", f"a={MISSING}", "--bot", f"b={MISSING}", "--move-time", move,
                "--db", f"{tmp}/a.db", "--out", tmp]
        for item in limits:
            argv.append(f"--limit={item}")
        for item in rules:
            argv.append(f"--rule={item}")
        assert_refused(*call(argv))


def test_limits_table_and_flags_reach_the_config() -> None:
    base = '[[entrant]]\nname = "a"\ncommand = "x"\n[[entrant]]\nname = "b"\ncommand = "y"\n'
    cfg = cfgmod.loads(base + "[limits]\ncpu_s = 2.5\nprocesses = false\nopen_files = 0\n")
    assert (cfg.limits.cpu_s, cfg.limits.processes, cfg.limits.open_files) == (2.5, None, None)
    assert cfg.limits.address_space_bytes == 2 << 30 and cfg.identity()["limits"]["cpu_s"] == 2.5
    flags = cfgmod.from_flags(["a=x", "b=y"], limits=["address_space_bytes=1000000000", "poll_s=0.5"])
    assert (flags.limits.address_space_bytes, flags.limits.poll_s) == (10**9, 0.5)
    for bad, message in [("cpu_s = 'soon'", "bad limit cpu_s 'soon'"), ("poll_s = 0", "poll_s '0' (it cannot be off"),
                         ("pids = 3", "unknown key 'pids' in [limits]"), ("open_files = 1.5", "expected a whole")]:
        try:
            cfgmod.loads(base + "[limits]\n" + bad + "\n")
        except ConfigError as e:
            assert message in str(e), str(e)
        else:
            raise AssertionError(f"{bad} was accepted")
