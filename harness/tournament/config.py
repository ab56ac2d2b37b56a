"""Tournament configuration: a TOML file or command-line flags, checked before anything runs.

A config file looks like::

    name = "demo"            # optional; default: the file's stem
    rounds = 2               # duplicate round robins
    seed = 66
    concurrency = 2          # matches at once; default: number of cores
    db = "results/arena.db"  # optional
    out = "results"          # optional; leaderboards and match records go here

    [time]                   # optional; seconds
    move = 1.0               # per decision
    bank = 10.0              # per match, spent when a decision takes longer than `move`

    [rules]                  # optional; any rule option by its spec name
    dealer_rotation = "alternate"

    [[entrant]]
    name = "greedy"
    command = "python sample_bots/greedy_bot.py"

    [[entrant]]
    name = "alice"
    command = "remote:alice"  # a bot that connects by itself with the token for 'alice'

Every problem is a :class:`ConfigError` with one line naming it.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.games.sixtysix.options import Rules

TOP_KEYS = {"name", "rounds", "seed", "concurrency", "db", "out", "time", "rules", "entrant"}
TIME_KEYS = {"move", "bank"}
ENTRANT_KEYS = {"name", "command"}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$")


class ConfigError(ValueError):
    """An invalid tournament configuration; the message is one line."""


@dataclass(frozen=True, slots=True)
class EntrantSpec:
    name: str
    command: str | None  # shell-style command line, or None for a remote entrant
    remote: str | None = None  # the remote bot's name, for `remote:NAME`

    @property
    def label(self) -> str:
        return self.command if self.command is not None else f"remote:{self.remote}"


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str
    entrants: tuple[EntrantSpec, ...]
    rounds: int = 1
    seed: int = 0
    concurrency: int = field(default_factory=lambda: os.cpu_count() or 1)
    move_s: float = 1.0
    bank_s: float = 10.0
    rules: Rules = field(default_factory=Rules)
    db: Path = Path("results/arena.db")
    out: Path = Path("results")

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]

    def identity(self) -> dict[str, Any]:
        """What must not change between a run and its resumption."""
        return {
            "name": self.name,
            "entrants": [[e.name, e.label] for e in self.entrants],
            "rounds": self.rounds,
            "seed": self.seed,
            "time": {"move": self.move_s, "bank": self.bank_s},
            "rules": self.rules.to_dict(),
        }


def load(path: str | Path) -> TournamentConfig:
    """Read and check a TOML config file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file '{path}' not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read config file '{path}': {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config file '{path}' is not valid TOML: {e}") from None
    return from_mapping(data, default_name=path.stem)


def from_mapping(data: Mapping[str, Any], default_name: str = "tournament") -> TournamentConfig:
    """Check a parsed config (the TOML document as a dict)."""
    _no_unknown(data, TOP_KEYS, "config")
    entrants = data.get("entrant")
    if not isinstance(entrants, list) or not entrants:
        raise ConfigError("config has no [[entrant]] tables (need at least two)")
    specs = []
    for i, e in enumerate(entrants, 1):
        if not isinstance(e, Mapping):
            raise ConfigError(f"entrant {i} is not a table")
        _no_unknown(e, ENTRANT_KEYS, f"entrant {i}")
        if "name" not in e:
            raise ConfigError(f"entrant {i} has no name")
        if "command" not in e:
            raise ConfigError(f"entrant '{e['name']}' has no command")
        specs.append(entrant(str(e["name"]), e["command"]))
    time = data.get("time", {})
    if not isinstance(time, Mapping):
        raise ConfigError("'time' must be a table with 'move' and 'bank' in seconds")
    _no_unknown(time, TIME_KEYS, "[time]")
    rules = data.get("rules", {})
    if not isinstance(rules, Mapping):
        raise ConfigError("'rules' must be a table of rule options")
    return build(
        name=data.get("name", default_name),
        entrants=specs,
        rounds=data.get("rounds", 1),
        seed=data.get("seed", 0),
        concurrency=data.get("concurrency"),
        move_s=time.get("move", 1.0),
        bank_s=time.get("bank", 10.0),
        rules=rules,
        db=data.get("db"),
        out=data.get("out"),
    )


def from_flags(
    bots: Sequence[str], *, name: str = "tournament", rounds: int = 1, seed: int = 0,
    concurrency: int | None = None, move_s: float = 1.0, bank_s: float = 10.0,
    rules: Sequence[str] = (), db: str | None = None, out: str | None = None,
) -> TournamentConfig:
    """A config from ``--bot NAME=COMMAND`` flags and the other options."""
    specs = []
    for item in bots:
        bot_name, sep, command = item.partition("=")
        if not sep:
            raise ConfigError(f"--bot '{item}' is not written NAME=COMMAND")
        specs.append(entrant(bot_name.strip(), command.strip()))
    try:
        parsed = Rules.parse(rules)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return build(name=name, entrants=specs, rounds=rounds, seed=seed, concurrency=concurrency,
                 move_s=move_s, bank_s=bank_s, rules=parsed, db=db, out=out)


def entrant(name: str, command: Any) -> EntrantSpec:
    """One entrant from its name and ``command`` (a command line, or ``remote:NAME``)."""
    if not NAME_RE.match(name):
        raise ConfigError(f"bad entrant name '{name}' (letters, digits, _ . + -; at most 40)")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"entrant '{name}' has an empty command")
    command = command.strip()
    if command.startswith("remote:"):
        remote = command.removeprefix("remote:").strip()
        if not NAME_RE.match(remote):
            raise ConfigError(f"entrant '{name}' has a bad remote name '{remote}'")
        return EntrantSpec(name, None, remote)
    return EntrantSpec(name, command)


def build(
    *, name: Any, entrants: Sequence[EntrantSpec], rounds: Any, seed: Any, concurrency: Any,
    move_s: Any, bank_s: Any, rules: Rules | Mapping[str, Any], db: Any, out: Any,
) -> TournamentConfig:
    """Check every value and make the config."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ConfigError(f"bad tournament name '{name}' (letters, digits, _ . + -; at most 40)")
    if len(entrants) < 2:
        raise ConfigError(f"a tournament needs at least two entrants (got {len(entrants)})")
    seen: set[str] = set()
    for e in entrants:
        if e.name in seen:
            raise ConfigError(f"duplicate entrant name '{e.name}'")
        seen.add(e.name)
    rounds = _int("rounds", rounds, 1, 999)
    seed = _int("seed", seed, 0, 2**63 - 1)
    concurrency = (os.cpu_count() or 1) if concurrency is None else _int("concurrency", concurrency, 1, 256)
    move_s = _seconds("time.move", move_s, positive=True)
    bank_s = _seconds("time.bank", bank_s, positive=False)
    if not isinstance(rules, Rules):
        try:
            rules = Rules.from_mapping(rules)
        except ValueError as e:
            raise ConfigError(str(e)) from None
    out_dir = Path(out) if out else Path("results")
    return TournamentConfig(
        name=name, entrants=tuple(entrants), rounds=rounds, seed=seed, concurrency=concurrency,
        move_s=move_s, bank_s=bank_s, rules=rules,
        db=Path(db) if db else out_dir / "arena.db", out=out_dir,
    )


def _no_unknown(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            raise ConfigError(f"unknown key '{key}' in {where} (allowed: {', '.join(sorted(allowed))})")


def _int(what: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value))
        except ValueError:
            raise ConfigError(f"bad {what} '{value}' (expected a whole number)") from None
    if not lo <= value <= hi:
        raise ConfigError(f"bad {what} '{value}' (expected {lo} to {hi})")
    return value


def _seconds(what: str, value: Any, positive: bool) -> float:
    try:
        if isinstance(value, bool):
            raise ValueError
        seconds = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"bad time control: {what} '{value}' is not a number of seconds") from None
    if seconds != seconds or seconds > 3600 or seconds < 0 or (positive and seconds == 0):
        bound = "more than 0" if positive else "0 or more"
        raise ConfigError(f"bad time control: {what} '{value}' (expected {bound} and at most 3600 seconds)")
    return seconds
