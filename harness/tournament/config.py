"""Tournament configuration: a TOML file or command-line flags, checked before anything runs.

A config file looks like::

    name = "demo"            # optional; default: the file's stem
    game = "sixtysix"        # optional; any registered game: sixtysix, schnapsen, three_handed, ...
    partners = "self"        # partnership games only: "self" (an entrant plays both seats of a team)
                             # or "rotate" (individuals; everyone partners everyone at each table)
    rounds = 2               # duplicate round robins
    seed = 66                # optional; without it a secret seed is drawn (nothing a bot sees predicts a deal)
    duplicate = "auto"       # legs on the same deals: "auto" (with the sandbox), "trusted" (own bots), "off"
    schedule = "adaptive"    # optional; default "round_robin" (`rounds` of them). "adaptive" (issue 17): play
                             # where the order is in doubt, stop when every neighbour pair is settled:
    confidence = 0.95        # adaptive: the confidence each neighbour pair needs (default 0.95)
    max_matches = 240        # adaptive: never more matches (default: 20 round robins' worth)
    min_per_pairing = 2      # adaptive: full round robins played first (default 2)
    concurrency = 2          # matches at once; default: cores / the most cpus an entrant declares
    workers = 2              # worker processes sharing them (issue 18); default: number of cores; 1: in process
    pin = true               # each worker and its bots on their own share of the CPUs (default true)
    deals = "hard.txt"       # optional; a deal book (harness.deals): units play its seeds in order, cycling
    db = "results/arena.db"  # optional
    out = "results"          # optional; leaderboards and match records go here

    [time]                   # optional; seconds
    move = 1.0               # per decision
    bank = 10.0              # per match, spent when a decision takes longer than `move`
    hello = 10.0             # start-up limit for each bot's Hello (default 10; 300 for remote bots)

    [rules]                  # optional; any rule option of the game by its spec name
    dealer_rotation = "alternate"

    [limits]                 # optional; per spawned bot, see harness.arena.limits.Limits
    address_space_bytes = 2147483648  # RLIMIT_AS of each bot process (default 2 GiB)
    cpu_s = 5.0              # CPU seconds of the bot's process group per match (default off)
    open_files = 256         # RLIMIT_NOFILE of each bot process (default 256)
    processes = 64           # live processes in the bot's process group (default 64)
    poll_s = 0.1             # how often the watched limits are checked (default 0.1)
    sandbox = "bwrap"        # "bwrap" (bubblewrap) or "none"; default: bwrap where it works
    # 0 or false switches a limit off (not poll_s, not sandbox); a key left out keeps its default.

    [cluster]                # optional (issue 15): play the matches on a Ray cluster (pip install -e '.[ray]')
    engine = "ray"           # "ray" (the default with this table), or "local" (this machine)
    address = "auto"         # "auto" (this machine's cluster), "local" (a private one), "ray://HOST:PORT"
    working_dir = "."        # shipped to every node; the bots' relative commands run there (default ".")
    files = ["bots/"]        # optional: ship only these paths of working_dir (default: all of it)
    excludes = ["data/"]     # not shipped (gitignore patterns; .git, .venv, __pycache__, out and db never are)
    match_cpus = 1           # CPUs one match takes on a node (default: the most an entrant declares, or 1)
    matches = 8              # matches at once across the cluster (default: its CPUs / match_cpus)

    [[entrant]]
    name = "greedy"
    command = "python sample_bots/greedy_bot.py"
    cpus = 1                 # optional: the cores this bot keeps busy while it decides (its search threads);
                             # matches at once here and per Ray node are set so that none is oversubscribed

    [[entrant]]
    name = "alice"
    command = "remote:alice"  # a bot that connects by itself with the token for 'alice'

Every problem is a :class:`ConfigError` with one line naming it; nothing else escapes
:func:`load`, :func:`from_mapping` or :func:`from_flags`, whatever the input (fuzzed in
tests/test_fuzz_config.py).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.arena.limits import Limits
from harness.deals import Book, BookError
from harness.deals import load as load_book
from harness.games import registry
from harness.names import RULE, valid_name

TOP_KEYS = {"name", "game", "partners", "duplicate", "rounds", "seed", "concurrency", "workers", "pin", "db", "out", "time", "rules", "limits", "entrant",
            "schedule", "confidence", "max_matches", "min_per_pairing", "deals", "cluster"}
CLUSTER_KEYS = {"engine", "address", "working_dir", "files", "excludes", "match_cpus", "matches"}
ENGINES = ("local", "ray")
DUPLICATE = ("auto", "trusted", "off")
SCHEDULES = ("round_robin", "adaptive")
ADAPTIVE_KEYS = ("confidence", "max_matches", "min_per_pairing")  # only with schedule = "adaptive"
TIME_KEYS = {"move", "bank", "hello"}
ENTRANT_KEYS = {"name", "command", "cpus"}
# limit name -> (type, lowest allowed value other than 0/false for "off", highest)
LIMIT_KEYS: dict[str, tuple[type, float, float]] = {
    "address_space_bytes": (int, 1, 2**62),
    "cpu_s": (float, 0.001, 86400.0),
    "open_files": (int, 1, 1 << 20),
    "processes": (int, 1, 1 << 16),
    "poll_s": (float, 0.001, 60.0),
}
SANDBOX_CHOICES = ("bwrap", "none")  # [limits] sandbox; left out: bwrap where it works (harness.arena.sandbox)
OFF_WORDS = {"0", "false", "off", "none"}


class ConfigError(ValueError):
    """An invalid tournament configuration; the message is one line (line breaks become spaces)."""

    def __init__(self, message: object) -> None:
        super().__init__(" ".join(str(message).splitlines()))


def show(value: Any, width: int = 40) -> str:
    """A user's value for an error message: one line, control characters escaped, at most ``width``."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        return f"<a {len(str(value))}-digit number>" if value.bit_length() < 10000 else "<a number of over 3000 digits>"
    try:
        text = value if isinstance(value, str) else repr(value)
    except ValueError:  # a huge number somewhere inside
        return f"<a {type(value).__name__} too large to show>"
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass(frozen=True, slots=True)
class EntrantSpec:
    name: str
    command: str | None  # shell-style command line, or None for a remote entrant
    remote: str | None = None  # the remote bot's name, for `remote:NAME`
    cpus: float | None = None  # cores the bot keeps busy while it decides, when it declares them

    @property
    def label(self) -> str:
        return self.command if self.command is not None else f"remote:{self.remote}"


@dataclass(frozen=True, slots=True)
class Cluster:
    """Where the matches run when not on this machine (issue 15): a Ray cluster."""

    address: str = "auto"  # "auto", "local", "ray://HOST:PORT" or HOST:PORT
    working_dir: Path = Path(".")  # shipped to every node (Ray's runtime environment); bots run there
    excludes: tuple[str, ...] = ()  # gitignore patterns left out of the shipment, besides the fixed ones
    files: tuple[str, ...] = ()  # when given, only these paths of working_dir are shipped
    match_cpus: float | None = None  # CPUs one match reserves on its node; None: what the bots declare, or 1
    matches: int | None = None  # matches at once; None: the cluster's CPUs / match_cpus


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str
    entrants: tuple[EntrantSpec, ...]
    rounds: int = 1
    seed: int | None = None  # None: a secret is drawn when the tournament is created (issue 11)
    concurrency: int = field(default_factory=lambda: os.cpu_count() or 1)
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)  # worker processes; not part of identity()
    pin: bool = True  # workers pinned to their share of the CPUs (harness.lifeline.cpu_sets); not part of identity()
    move_s: float = 1.0
    bank_s: float = 10.0
    rules: Any = None  # the game's rule set (its defaults when built through build())
    limits: Limits = field(default_factory=Limits)
    db: Path = Path("results/arena.db")
    out: Path = Path("results")
    game: str = "sixtysix"
    partners: str = ""  # "self" or "rotate" for a partnership game, else ""
    duplicate: str = "auto"  # legs on the same deals: auto (with the sandbox), trusted, off
    seed_set: bool = False  # the seed was set by hand (reproducible, and predictable: warned about)
    schedule: str = "round_robin"  # or "adaptive" (harness.tournament.adaptive)
    confidence: float = 0.95  # adaptive: what each neighbour pair needs
    max_matches: int = 0  # adaptive: the cap (build() sets the default)
    min_per_pairing: int = 2  # adaptive: full round robins first
    hello_s: float | None = None  # start-up limit for Hello; None: 10 s for commands, 300 s for remote bots
    book: Book | None = None  # a deal book (`deals = "FILE"`): units play its seeds in order (harness.deals)
    cluster: Cluster | None = None  # a Ray cluster plays the matches (issue 15); not part of identity()

    @property
    def seats(self) -> int:
        """Seats at one table of this game and rules."""
        return registry.get(self.game).players(self.rules)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]

    def identity(self) -> dict[str, Any]:
        """What must not change between a run and its resumption."""
        return {
            "name": self.name,
            "game": self.game,
            **({"partners": self.partners} if self.partners else {}),
            "entrants": [[e.name, e.label] for e in self.entrants],
            "rounds": self.rounds,
            "seed": self.seed,
            **({"duplicate": self.duplicate} if self.duplicate != "auto" else {}),
            **({"schedule": self.schedule, "confidence": self.confidence, "max_matches": self.max_matches,
                "min_per_pairing": self.min_per_pairing} if self.schedule == "adaptive" else {}),
            "time": {"move": self.move_s, "bank": self.bank_s},
            "rules": registry.get(self.game).rules_map(self.rules),
            "limits": self.limits.to_dict(),
            **({"deals": self.book.identity()} if self.book is not None else {}),
        }


def load(path: str | Path) -> TournamentConfig:
    """Read and check a TOML config file."""
    path = Path(path)
    where = show(str(path), 80)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file '{where}' not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read config file '{where}': {e}") from None
    return loads(text, default_name=path.stem, where=f"config file '{where}'")


def loads(text: str, default_name: str = "tournament", where: str = "the config") -> TournamentConfig:
    """Parse and check a config from TOML text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{where} is not valid TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{where} nests arrays or tables too deeply") from None
    except ValueError:  # tomllib lets int()'s digit limit through
        raise ConfigError(f"{where} is not valid TOML: a number in it has more than 4300 digits") from None
    return from_mapping(data, default_name=default_name)


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
        if not isinstance(e["name"], str):
            raise ConfigError(f"entrant {i} has a name that is not a string ({show(e['name'])})")
        if "command" not in e:
            raise ConfigError(f"entrant '{show(e['name'])}' has no command")
        specs.append(entrant(e["name"], e["command"], e.get("cpus")))
    time = _table(data, "time", "'time' must be a table with 'move' and 'bank' in seconds")
    _no_unknown(time, TIME_KEYS, "[time]")
    rules = _table(data, "rules", "'rules' must be a table of rule options")
    limits = _table(data, "limits", "'limits' must be a table of resource limits")
    if data.get("schedule") == "adaptive" and "rounds" in data:
        raise ConfigError("'rounds' is for round robins; an adaptive schedule plays until 'confidence' or "
                          "'max_matches'")
    return build(
        name=data.get("name", default_name),
        game=data.get("game", "sixtysix"),
        partners=data.get("partners"),
        entrants=specs,
        rounds=data.get("rounds", 1),
        seed=data.get("seed"),
        duplicate=data.get("duplicate", "auto"),
        concurrency=data.get("concurrency"),
        workers=data.get("workers"),
        pin=data.get("pin", True),
        move_s=time.get("move", 1.0),
        bank_s=time.get("bank", 10.0),
        hello_s=time.get("hello"),
        rules=rules,
        limits=limits,
        db=data.get("db"),
        out=data.get("out"),
        schedule=data.get("schedule", "round_robin"),
        **{k: data[k] for k in ADAPTIVE_KEYS if k in data},
        deals=data.get("deals"),
        cluster=cluster_of(_table(data, "cluster", "'cluster' must be a table (engine, address, ...)")),
    )


def from_flags(
    bots: Sequence[str], *, name: str = "tournament", game: str = "sixtysix", rounds: int = 1, seed: int | None = None,
    concurrency: int | None = None, move_s: float = 1.0, bank_s: float = 10.0,
    rules: Sequence[str] = (), limits: Sequence[str] = (), db: str | None = None, out: str | None = None,
    partners: str | None = None, duplicate: str = "auto", hello_s: float | None = None,
    schedule: str = "round_robin", confidence: Any = None, max_matches: Any = None, min_per_pairing: Any = None,
    deals: str | None = None, workers: int | None = None, cluster: Cluster | None = None, pin: bool = True,
) -> TournamentConfig:
    """A config from ``--bot NAME=COMMAND`` flags, ``--limit NAME=VALUE`` flags and the other options."""
    specs = []
    for item in bots:
        bot_name, sep, command = item.partition("=")
        if not sep:
            raise ConfigError(f"--bot '{show(item)}' is not written NAME=COMMAND")
        specs.append(entrant(bot_name.strip(), command.strip()))
    parsed: dict[str, str] = {}
    for item in rules:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"rule option '{show(item)}' is not written name=value")
        parsed[key.strip()] = value.strip()
    given: dict[str, str] = {}
    for item in limits:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--limit '{show(item)}' is not written NAME=VALUE")
        given[key.strip()] = value.strip()
    return build(name=name, game=game, partners=partners, duplicate=duplicate, entrants=specs, rounds=rounds, seed=seed, concurrency=concurrency,
                 move_s=move_s, bank_s=bank_s, rules=parsed, limits=given, db=db, out=out, hello_s=hello_s,
                 schedule=schedule, confidence=confidence, max_matches=max_matches, min_per_pairing=min_per_pairing,
                 deals=deals, workers=workers, cluster=cluster, pin=pin)


def entrant(name: str, command: Any, cpus: Any = None) -> EntrantSpec:
    """One entrant from its name and ``command`` (a command line, or ``remote:NAME``), and the ``cpus`` its bot
    declares (the cores it keeps busy while it decides: a multi-threaded search declares its threads)."""
    if not valid_name(name):
        raise ConfigError(f"bad entrant name '{show(name)}' (letters, digits, _ . + -; at most 40)")
    if not isinstance(command, str):
        raise ConfigError(f"entrant '{name}' has a command that is not a string ({show(command)})")
    if not command.strip():
        raise ConfigError(f"entrant '{name}' has an empty command")
    if "\x00" in command:
        raise ConfigError(f"entrant '{name}' has a NUL character in its command")
    command = command.strip()
    if command.startswith("remote:"):
        remote = command.removeprefix("remote:").strip()
        if not valid_name(remote):
            raise ConfigError(f"entrant '{name}': bad remote bot name '{show(remote)}' ({RULE})")
        if cpus is not None:
            raise ConfigError(f"entrant '{name}' is a remote bot: 'cpus' is for bots this arena starts")
        return EntrantSpec(name, None, remote)
    return EntrantSpec(name, command, cpus=_cpus(f"entrant '{name}' cpus", cpus))


def match_cpus(entrants: Sequence[EntrantSpec]) -> float:
    """The cores one match keeps busy: it runs one decision at a time, so the most any of its bots declares (or 1)."""
    return max([1.0, *(e.cpus for e in entrants if e.cpus is not None)])


def _cpus(what: str, value: Any) -> float | None:
    """A number of CPUs (0.01 to 1024), or None when not given."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not 0.01 <= value <= 1024):
        raise ConfigError(f"bad value '{show(value)}' for {what} (expected a number from 0.01 to 1024)")
    return None if value is None else float(value)


def build(
    *, name: Any, entrants: Sequence[EntrantSpec], rounds: Any, seed: Any, concurrency: Any,
    move_s: Any, bank_s: Any, rules: Mapping[str, Any], db: Any, out: Any, game: Any = "sixtysix",
    partners: Any = None, duplicate: Any = "auto",
    limits: Limits | Mapping[str, Any] | None = None, hello_s: Any = None,
    schedule: Any = "round_robin", confidence: Any = None, max_matches: Any = None, min_per_pairing: Any = None,
    deals: Any = None, workers: Any = None, cluster: Cluster | None = None, pin: Any = True,
) -> TournamentConfig:
    """Check every value and make the config. ``deals``: a deal book's path (or a loaded :class:`Book`)."""
    if not isinstance(name, str) or not valid_name(name):
        raise ConfigError(f"bad tournament name '{show(name)}' (letters, digits, _ . + -; at most 40)")
    if not isinstance(game, str) or game not in registry.ids():
        raise ConfigError(f"unknown game '{show(game)}' (games: {', '.join(registry.ids())})")
    if len(entrants) < 2:
        raise ConfigError(f"a tournament needs at least two entrants (got {len(entrants)})")
    seen: set[str] = set()
    for e in entrants:
        if e.name in seen:
            raise ConfigError(f"duplicate entrant name '{e.name}'")
        seen.add(e.name)
    rounds = _int("rounds", rounds, 1, 999)
    seed_set = seed is not None
    seed = None if seed is None else _int("seed", seed, 0, 2**63 - 1)
    if duplicate not in DUPLICATE:
        raise ConfigError(f"bad value '{show(duplicate)}' for 'duplicate' (expected one of: {', '.join(DUPLICATE)})")
    need = match_cpus(entrants)
    cores = max(1, int((os.cpu_count() or 1) // need))  # matches at once that do not oversubscribe this machine
    concurrency = cores if concurrency is None else _int("concurrency", concurrency, 1, 256)
    workers = cores if workers is None else _int("workers", workers, 1, 256)
    if not isinstance(pin, bool):
        raise ConfigError(f"bad value '{show(pin)}' for 'pin' (expected true or false)")
    move_s = _seconds("time.move", move_s, positive=True)
    bank_s = _seconds("time.bank", bank_s, positive=False)
    hello_s = None if hello_s is None else _seconds("time.hello", hello_s, positive=True)
    parsed_rules = rules_of(rules, game)
    g = registry.get(game)
    teams = g.teams(parsed_rules)
    team_game = len(set(teams)) < len(teams)
    if partners is not None and not team_game:
        raise ConfigError(f"'partners' is for partnership games; {game} has none")
    if team_game:
        partners = "self" if partners is None else partners
        if partners not in ("self", "rotate"):
            raise ConfigError(f"bad value '{show(partners)}' for 'partners' (expected self or rotate)")
    seats = g.players(parsed_rules)
    needed = seats // 2 if partners == "self" else seats
    if len(entrants) < needed:
        raise ConfigError(f"a tournament of {game} needs at least {needed} entrants (got {len(entrants)})")
    if cluster is not None and any(e.remote is not None for e in entrants):
        raise ConfigError("a remote entrant dials this machine's arena: it cannot play on a Ray cluster "
                          "([cluster] or --ray)")
    if cluster is not None and cluster.match_cpus is None:  # issue 15: a node is not oversubscribed either
        cluster = replace(cluster, match_cpus=need)
    if not isinstance(limits, Limits):
        limits = limits_of(limits or {})
    out_dir = _path("out", out) or Path("results")
    adaptive = _adaptive(schedule, confidence, max_matches, min_per_pairing, len(entrants), seats, partners or "")
    return TournamentConfig(
        name=name, entrants=tuple(entrants), rounds=rounds, seed=seed, concurrency=concurrency, workers=workers, pin=pin,
        move_s=move_s, bank_s=bank_s, rules=parsed_rules, limits=limits,
        db=_path("db", db) or out_dir / "arena.db", out=out_dir, game=game, partners=partners or "",
        duplicate=duplicate, seed_set=seed_set, hello_s=hello_s, **adaptive, book=_book(deals), cluster=cluster,
    )


def cluster_of(values: Mapping[str, Any]) -> Cluster | None:
    """The ``[cluster]`` table (issue 15); None when it is absent or says ``engine = "local"``."""
    _no_unknown(values, CLUSTER_KEYS, "[cluster]")
    if not values:
        return None
    engine = values.get("engine", "ray")  # a [cluster] table without an engine means Ray
    if engine not in ENGINES:
        raise ConfigError(f"bad value '{show(engine)}' for cluster engine (expected one of: {', '.join(ENGINES)})")
    if engine == "local":
        extra = sorted(set(values) - {"engine"})
        if extra:
            raise ConfigError(f"[cluster] {extra[0]} is for engine = \"ray\" (the engine is local)")
        return None
    excludes = values.get("excludes", [])
    if not isinstance(excludes, list) or not all(isinstance(x, str) and x.strip() and "\x00" not in x for x in excludes):
        raise ConfigError(f"bad value '{show(excludes)}' for cluster excludes (expected a list of path patterns)")
    cpus = _cpus("cluster match_cpus", values.get("match_cpus"))  # None: what the entrants declare (build)
    files = values.get("files", [])
    if not isinstance(files, list) or not all(isinstance(x, str) and x.strip() and "\x00" not in x for x in files):
        raise ConfigError(f"bad value '{show(files)}' for cluster files (expected a list of paths in working_dir)")
    matches = values.get("matches")
    return Cluster(address=ray_address(values.get("address", "auto")),
                   working_dir=_path("cluster working_dir", values.get("working_dir", ".")) or Path("."),
                   excludes=tuple(x.strip() for x in excludes), match_cpus=cpus,
                   matches=None if matches is None else _int("cluster matches", matches, 1, 100_000),
                   files=tuple(x.strip() for x in files))


def ray_address(value: Any) -> str:
    """A Ray address as ``--ray`` and ``[cluster] address`` take it: auto, local, ray://HOST:PORT or HOST:PORT."""
    if not isinstance(value, str) or not value.strip() or any(c.isspace() or not c.isprintable() for c in value.strip()):
        raise ConfigError(f"bad Ray address '{show(value)}' (expected auto, local, ray://HOST:PORT or HOST:PORT)")
    value = value.strip()
    if value in ("auto", "local"):
        return value
    host, sep, port = value.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"bad Ray address '{show(value)}' (expected auto, local, ray://HOST:PORT or HOST:PORT)")
    return value


def _book(deals: Any) -> Book | None:
    """The deal book of ``deals`` (a path), loaded; ConfigError names its problem in one line."""
    if deals is None or isinstance(deals, Book):
        return deals
    if not isinstance(deals, str) or not deals.strip():
        raise ConfigError(f"bad value '{show(deals)}' for 'deals' (expected the path of a deal book)")
    try:
        return load_book(deals)
    except BookError as e:
        raise ConfigError(str(e)) from None


def _adaptive(schedule: Any, confidence: Any, max_matches: Any, min_per_pairing: Any, entrants: int, seats: int,
              partners: str) -> dict[str, Any]:
    """The schedule settings (issue 17); the adaptive ones only with ``schedule = "adaptive"``."""
    if schedule not in SCHEDULES:
        raise ConfigError(f"bad value '{show(schedule)}' for 'schedule' (expected one of: {', '.join(SCHEDULES)})")
    given = {"confidence": confidence, "max_matches": max_matches, "min_per_pairing": min_per_pairing}
    if schedule != "adaptive":
        for key, value in given.items():
            if value is not None:
                raise ConfigError(f"'{key}' is for schedule = \"adaptive\" (the schedule is {schedule})")
        return {}
    from harness.tournament.adaptive import default_max_matches

    if confidence is None:
        confidence = 0.95
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, str)):
        raise ConfigError(f"bad confidence '{show(confidence)}' (expected a number above 0.5 and below 1)")
    try:
        level = float(confidence)
    except (ValueError, OverflowError):
        raise ConfigError(f"bad confidence '{show(confidence)}' (expected a number above 0.5 and below 1)") from None
    if not 0.5 < level < 1:  # NaN fails this too
        raise ConfigError(f"bad confidence '{show(confidence)}' (expected a number above 0.5 and below 1)")
    cap = default_max_matches(entrants, seats, partners) if max_matches is None else \
        _int("max_matches", max_matches, 1, 1_000_000)
    least = _int("min_per_pairing", 2 if min_per_pairing is None else min_per_pairing, 0, 100)
    return {"schedule": "adaptive", "confidence": level, "max_matches": cap, "min_per_pairing": least}


def rules_of(values: Mapping[str, Any], game: str = "sixtysix") -> Any:
    """The game's rules from the ``[rules]`` table; values are strings, whole numbers or true/false."""
    for key, value in values.items():
        if isinstance(value, (Mapping, list, tuple)) or (isinstance(value, float) and not value.is_integer()) or \
                (isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**63) or \
                not isinstance(value, (str, int, float)):
            raise ConfigError(f"bad value '{show(value)}' for rule option '{show(key)}' "
                              "(expected a string, a whole number or true/false)")
    try:
        return registry.get(game).rules(values)
    except (ValueError, TypeError, OverflowError) as e:
        raise ConfigError(str(e)) from None


def limits_of(values: Mapping[str, Any]) -> Limits:
    """:class:`Limits` from the ``[limits]`` table (or ``--limit`` flags as strings).

    A key left out keeps the default of :class:`Limits`; 0 or false (or "off"/"none" from a flag)
    switches that limit off, except ``poll_s``, which must be more than 0.
    """
    _no_unknown(values, set(LIMIT_KEYS) | {"sandbox"}, "[limits]")
    chosen = Limits().to_dict()
    for key, raw in values.items():
        if key == "sandbox":
            if not isinstance(raw, str) or raw.strip().lower() not in SANDBOX_CHOICES:
                raise ConfigError(f"bad limit sandbox '{show(raw)}' (expected one of: {', '.join(SANDBOX_CHOICES)})")
            chosen[key] = raw.strip().lower()
            continue
        chosen[key] = _limit(key, raw)
    try:
        return Limits(**chosen)
    except (ValueError, TypeError) as e:
        raise ConfigError(str(e)) from None


def _limit(key: str, raw: Any) -> int | float | None:
    kind, lo, hi = LIMIT_KEYS[key]
    unit = "a whole number" if kind is int else "a number of seconds"
    off = raw is False or (isinstance(raw, str) and raw.strip().lower() in OFF_WORDS) or \
        (type(raw) in (int, float) and raw == 0)
    if off:
        if key == "poll_s":
            raise ConfigError(f"bad limit poll_s '{show(raw)}' (it cannot be off; expected {lo:g} to {hi:g} seconds)")
        return None
    try:
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            raise ValueError
        value: int | float = int(raw) if kind is int and not isinstance(raw, float) else float(raw)
        if kind is int and isinstance(value, float):
            raise ValueError
    except (ValueError, OverflowError):
        raise ConfigError(f"bad limit {key} '{show(raw)}' (expected {unit}, or 0/false for off)") from None
    if not lo <= value <= hi:  # NaN fails this too
        raise ConfigError(f"bad limit {key} '{show(raw)}' (expected {lo:g} to {hi:g}, or 0/false for off)")
    return value


def _table(data: Mapping[str, Any], key: str, problem: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise ConfigError(problem)
    return value


def _path(what: str, value: Any) -> Path | None:
    """A db/out path: a non-empty string (or Path) without NUL; None when not given."""
    if value is None or value == "":
        return None
    if not isinstance(value, (str, Path)) or "\x00" in str(value):
        raise ConfigError(f"bad {what} path '{show(value)}' (expected a file system path as a string)")
    return Path(value)


def _no_unknown(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            from harness.games.options import suggestion  # issue 14: the nearest key, in the same line

            near = suggestion(str(key), sorted(allowed))
            hint = f"did you mean '{near}'? " if near else ""
            raise ConfigError(f"unknown key '{show(key)}' in {where} ({hint}allowed: {', '.join(sorted(allowed))})")


def _int(what: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            if not isinstance(value, (str, float)):
                raise ValueError
            value = int(str(value))
        except ValueError:
            raise ConfigError(f"bad {what} '{show(value)}' (expected a whole number)") from None
    if not lo <= value <= hi:
        raise ConfigError(f"bad {what} '{show(value)}' (expected {lo} to {hi})")
    return value


def _seconds(what: str, value: Any, positive: bool) -> float:
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError
        seconds = float(value)
    except (ValueError, OverflowError):
        raise ConfigError(f"bad time control: {what} '{show(value)}' is not a number of seconds") from None
    if seconds != seconds or seconds > 3600 or seconds < 0 or (positive and seconds == 0):
        bound = "more than 0" if positive else "0 or more"
        raise ConfigError(f"bad time control: {what} '{show(value)}' (expected {bound} and at most 3600 seconds)")
    return seconds
