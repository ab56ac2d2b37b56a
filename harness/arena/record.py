"""Match records as JSON lines, and their verification by replay, for every registered game.

A record is deterministic (same seed and same decisions give the same bytes) except for the
timing fields: ``ms`` in a deal line (milliseconds each action took, measured at the arena),
``duration_s`` in the end line, and the ``stderr`` line (bot output). :func:`deterministic`
drops exactly those.

Lines, in order (version 2):
  {"type": "header", "version": 2, "match_id", "seed", "game", "players", "teams", "rules", "clock"[, "book"]}
  {"type": "deal", "deal_no", <the game's deal fields>, "actions", "ms", "result"}   one per deal begun
  {"type": "end", "ranks", "scores", "cause", "offender", "deal_no", "decision_no", "detail",
   "deals", "decisions", "duration_s"[, "errors": [per player]]}
  {"type": "stderr", "tails": [tail of each player][, "logs": [each player's log file or null]]}
The game's deal fields are :attr:`harness.games.base.DealStart.record` (Sixty-Six: ``dealer``,
``deck``); ``result`` is null for a deal cut short by a forfeit, else
:attr:`harness.games.base.DealEnd.record` (Sixty-Six: ``winner``, ``game_points``, ``row``,
``reason``, ``scores``). ``ranks`` is null when the match has no result. ``errors`` (only when a
bot reported one: replies whose ``error`` said its code failed, the match played on) counts them. Version 1 records (Sixty-Six
only, ``winner`` instead of ``ranks`` in the end line) still verify. ``book`` (only for a match played from
a deal book, :mod:`harness.deals`) names the entry: ``{"file", "entry", "line"[, "label"]}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.games.base import DealEnd, DealStart, Game, IllegalAction, forfeit_outcome
from harness.games.registry import get as get_game

VERSION = 2
TIMING_KEYS = ("ms", "duration_s")
NO_END = "no end line"


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Recorder:
    """Builds a record in memory; the match loop appends one action at a time."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.header = {"type": "header", "version": VERSION, **header}
        self.deals: list[dict[str, Any]] = []
        self.end: dict[str, Any] | None = None
        self.tails: list[str] = [""] * len(self.header.get("players", ()))
        self.logs: list[str | None] = []  # each player's log file (stdout and stderr); none: not written

    def begin_deal(self, d: DealStart) -> None:
        self.actions: list[str] = []
        self.ms: list[float] = []
        self.deals.append({"type": "deal", "deal_no": d.deal_no, **d.record, "actions": self.actions, "ms": self.ms,
                           "result": None})

    def action(self, action: str, ms: float) -> None:
        self.actions.append(action)
        self.ms.append(round(ms, 3))

    def end_deal(self, end: DealEnd) -> None:
        self.deals[-1]["result"] = end.record

    def lines(self) -> list[str]:
        out = [self.header, *self.deals]
        if self.end is not None:
            out.append({"type": "end", **self.end})
        out.append({"type": "stderr", "tails": self.tails, **({"logs": self.logs} if any(self.logs) else {})})
        return [dumps(o) for o in out]

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text("\n".join(self.lines()) + "\n", encoding="utf-8")
        tmp.replace(path)


def read(path: Path | str) -> list[dict[str, Any]]:
    """The record's lines as dicts; ValueError naming the first line that is damaged."""
    lines, problem = read_checked(path)
    if problem is not None:
        raise ValueError(problem)
    return lines


def read_checked(path: Path | str) -> tuple[list[dict[str, Any]], str | None]:
    """The lines up to the first damaged one, and what is wrong with it (None when nothing is).

    A damaged line is one that is not UTF-8, not JSON (``truncated`` when the file ends inside
    it), or not an object with a ``type``. Lines after it are not read; the problem says how many.
    OSError when the file cannot be read at all.
    """
    raw = Path(path).read_bytes()
    chunks = raw.split(b"\n")
    ends_mid_line = chunks[-1].strip() != b""
    if not ends_mid_line:
        chunks.pop()
    out: list[dict[str, Any]] = []
    for i, chunk in enumerate(chunks, 1):
        if not chunk.strip():
            continue
        problem = _line_problem(chunk, last=ends_mid_line and i == len(chunks))
        if isinstance(problem, str):
            rest = sum(1 for c in chunks[i:] if c.strip())
            more = f" ({rest} more line{'s' if rest != 1 else ''} after it not read)" if rest else ""
            return out, f"line {i}: {problem}{more}"
        out.append(problem)
    return out, None


def _line_problem(chunk: bytes, last: bool) -> dict[str, Any] | str:
    """The line as a dict, or a short description of what is wrong with it."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 (bad byte at column {e.start + 1})"
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        if last:
            return f"truncated JSON (the file ends mid-line, {len(chunk)} bytes into it)"
        return f"not JSON: {e.msg} at column {e.colno}"
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        return "not a record line (a JSON object with a type)"
    return obj


def deterministic(lines: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The record without its timing fields and stderr line: equal for equal seeds and decisions."""
    return [{k: v for k, v in d.items() if k not in TIMING_KEYS} for d in lines if d.get("type") != "stderr"]


@dataclass
class VerifyReport:
    """The outcome of re-playing a record. ``divergence`` is the first mismatch, None when it verifies."""

    ok: bool
    divergence: str | None
    header: dict[str, Any] = field(default_factory=dict)
    game: Game[Any, Any, Any] | None = None
    rules: Any = None
    deals: list[dict[str, Any]] = field(default_factory=list)  # the deal lines replayed without divergence
    end: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)  # damage that does not affect the game (stderr line)


def verify(path: Path | str) -> VerifyReport:
    """Re-deal from the record, re-apply every action and check each outcome and the final line.

    A damaged file still verifies as far as it is readable: ``deals`` holds the deals before the
    damage that replay correctly, and ``divergence`` names the damaged line.
    """
    try:
        lines, damage = read_checked(path)
    except OSError as e:
        return VerifyReport(False, f"unreadable record: {e.strerror or e}")
    rep = verify_lines(lines)
    if damage is not None:
        rep.ok = False
        if rep.divergence is None or rep.divergence.startswith(NO_END):
            n = len(rep.deals)
            rep.divergence = f"{damage}; the {n} deal{'s' if n != 1 else ''} before it verify"
        else:
            rep.divergence = f"{rep.divergence}; also {damage}"
    elif rep.ok and not any(d.get("type") == "stderr" for d in lines):
        rep.warnings.append("no stderr line after the end line: the bots' output tails are missing (truncated?)")
    return rep


class _Replay:
    """A match being re-played from its record."""

    def __init__(self, game: Game[Any, Any, Any], m: Any) -> None:
        self.game, self.m = game, m


def verify_lines(lines: list[dict[str, Any]]) -> VerifyReport:
    if not lines or lines[0].get("type") != "header":
        return VerifyReport(False, "line 1: no header")
    header = lines[0]
    rep = VerifyReport(False, None, header=header)
    try:
        game = get_game(str(header.get("game", "sixtysix")))
        rules = game.rules(header["rules"])
        r = _Replay(game, game.start(int(header["seed"]), rules))
    except (KeyError, TypeError, ValueError) as e:
        rep.divergence = f"header: bad game, seed or rules: {e}"
        return rep
    rep.game, rep.rules = game, rules
    deals = [d for d in lines[1:] if d.get("type") == "deal"]
    ends = [d for d in lines[1:] if d.get("type") == "end"]
    decisions = 0
    for d in deals:
        try:
            err, decisions = _check_deal(d, r, decisions)
        except (TypeError, ValueError, KeyError, AttributeError) as e:
            err = f"deal {game.deal(r.m).deal_no}: malformed deal line ({type(e).__name__}: {e})"
        if err:
            rep.divergence = err
            return rep
        rep.deals.append(d)
    if not ends:
        n = len(rep.deals)
        rep.divergence = f"{NO_END} after line {len(lines)}: the record is truncated (the {n} deal{'s' if n != 1 else ''} in it verify)"
        return rep
    if len(ends) != 1:
        rep.divergence = f"expected one end line, found {len(ends)}"
        return rep
    rep.end = end = ends[0]
    try:
        err = _check_end(end, r, decisions, len(deals), header)
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        err = f"end: malformed end line ({type(e).__name__}: {e})"
    rep.divergence = err
    rep.ok = err is None
    return rep


def _check_deal(d: dict[str, Any], r: _Replay, decisions: int) -> tuple[str | None, int]:
    g = r.game
    n = d.get("deal_no")
    where = f"deal {n}"
    current = g.deal(r.m)
    if g.outcome(r.m) is not None:
        return f"{where}: the match was already over after deal {current.deal_no}", decisions
    if n != current.deal_no:
        return f"deal {current.deal_no}: record says deal_no {n}", decisions
    for key, want in current.record.items():
        if d.get(key) != want:
            return f"{where}: {key} differs from the replay's {json.dumps(want)} (record: {json.dumps(d.get(key))})", decisions
    done = g.deals_done(r.m)
    actions = d.get("actions", [])
    for i, a in enumerate(actions, 1):
        decisions += 1
        if g.deals_done(r.m) > done:
            return f"{where}, action {i} (decision {decisions}): the deal was already over", decisions
        try:
            r.m = g.apply(r.m, a)
        except (IllegalAction, TypeError, AttributeError) as e:
            return f"{where}, action {i} (decision {decisions}): '{a}' is illegal: {e}", decisions
    finished = g.deals_done(r.m) > done
    if d.get("result") is None:
        if finished:
            return f"{where}: the deal ended after its last action but the record has no result", decisions
        return None, decisions
    if not finished:
        return f"{where}: the record has a result but the deal is not over after {len(actions)} actions", decisions
    want = g.deal_end(r.m).record
    if d["result"] != want:
        return f"{where}: result {dumps(d['result'])} differs from the replay's {dumps(want)}", decisions
    return None, decisions


def _check_end(end: dict[str, Any], r: _Replay, decisions: int, deals: int, header: dict[str, Any]) -> str | None:
    g, m = r.game, r.m
    cause = end.get("cause")
    scores = list(g.scores(m))
    players = len(header.get("players") or ())
    got = {k: end.get(k) for k in ("scores", "deals", "decisions")}
    want: dict[str, Any] = {"scores": scores, "deals": deals, "decisions": decisions}
    outcome = g.outcome(m)
    teams = tuple(header.get("teams") or range(players))
    v1 = header.get("version") == 1
    if cause == "normal":
        if outcome is None:
            return f"end: cause normal but the match is not over (scores {scores})"
        ranks: list[int] | None = list(outcome.ranks)
    elif outcome is not None:
        return f"end: cause {cause} but the match was over with ranks {list(outcome.ranks)}"
    elif cause in ("interrupted", "no_hello") and end.get("offender") is None:
        ranks = None
    elif not isinstance(end.get("offender"), int) or not 0 <= end["offender"] < players:
        return f"end: cause {cause} without an offender"
    else:
        ranks = list(forfeit_outcome(end["offender"], scores, teams).ranks)
    if v1:
        want["winner"] = None if ranks is None else ranks.index(0)
        got["winner"] = end.get("winner")
    else:
        want["ranks"] = ranks
        got["ranks"] = end.get("ranks")
    for k in want:
        if got[k] != want[k]:
            return f"end: {k} is {got[k]}, replay gives {want[k]}"
    return None
