"""A match record as the viewer's steps: a pure function of the record's lines, for every registered game.

The record is re-dealt through the game interface (:mod:`harness.games.base`), as ``arena replay`` does,
and every position is seen only through ``game.observe(m, player)``. Each step is the table after one
decision (step 0 of a deal: as dealt). What a step holds, all JSON-able:

``kind``     ``start`` (a deal as dealt), ``action``, ``deal_end`` (the decision that ended the deal; the
             deal's reveal is in its deal entry), ``forfeit`` (the decision a bot forfeited), ``stopped``
             (a match ended without an offender: interrupted), ``stop`` (where a record that does not
             verify stops being followed)
``actor``    the player who decided (None at a start); ``action`` its action; ``legal`` what it could do
``seen``     per player: whether that player's observation shows the action (another player's discard in
             Twenty-Two does not); a seat's view shows an action it cannot see as hidden
``to_act``   the player to act next; ``hands`` each player's cards after the step; ``trick`` the trick on
             the table as ``[player, [cards]]``, the completed one when this step completed it (``done``)
``public``   observation fields every player sees alike; ``private`` per player, the fields that differ
``scores``   match scores by player after the step; ``decision`` the match's decision number
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Sequence
from typing import Any

from harness.arena.record import verify_lines
from harness.games.base import Game, IllegalAction

# Observation fields never shown as facts: drawn elsewhere (hand, trick, legal), the rules (in the header),
# the SDK's clock fields, and logs that grow with every action (every step would repeat them).
SKIP = frozenset({"hand", "trick", "legal", "rules", "move_ms", "bank_ms", "received", "match_id", "history",
                  "trick_winners", "seat", "to_act"})
MAX_DEPTH = 2  # a fact nested deeper than lists of lists (a log of tricks) is left out


_SCALARS = frozenset({str, int, float, bool, type(None)})
_NAMES: dict[type, tuple[str, ...]] = {}  # a dataclass's field names, by class (dataclasses.fields is slow)


def _names(cls: type) -> tuple[str, ...]:
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def plain(value: Any) -> Any:
    """An observation value as JSON-able data: tuples become lists, enums their values.

    >>> plain((("a", 1), None, {2: 2.5}))
    [['a', 1], None, {'2': 2.5}]
    """
    if type(value) in _SCALARS:
        return value
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _SCALARS else plain(v) for v in value]
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: plain(getattr(value, name)) for name in _names(type(value))}
    return str(value)


KEEP = frozenset({"hand", "trick", "leader"})  # skipped as facts but needed to draw the table


def _deeper(value: Any, depth: int) -> bool:
    """Whether a value nests sequences more than ``depth`` deep (stops at the first that does).

    >>> _deeper((1, 2), 1), _deeper(((1,), ()), 1), _deeper(((1,), ()), 2)
    (False, True, False)
    """
    if not isinstance(value, (list, tuple)):
        return False
    return depth <= 0 or any(_deeper(v, depth - 1) for v in value if isinstance(v, (list, tuple)))


_USED: dict[type, tuple[tuple[str, bool], ...]] = {}  # by observation class: (field, kept however deep)


def _used(cls: type) -> tuple[tuple[str, bool], ...]:
    used = _USED.get(cls)
    if used is None:
        names = _names(cls) if dataclasses.is_dataclass(cls) else ()
        used = _USED[cls] = tuple((n, n in KEEP) for n in names if n in KEEP or n not in SKIP)
    return used


_UNSET = object()


def _fields(obs: Any, memo: dict[int, list[Any]] | None = None) -> dict[str, Any]:
    """The fields of an observation the viewer uses, plain (a log nested too deep is left out unread).

    ``memo`` converts each value object once: the players' observations of a position, and of the positions
    that follow, share most of their values (a tuple of totals, the trick). It maps ``id(value)`` to
    ``[value, too deep, plain]``; holding the value keeps the id from being reused, and the plain data it
    gives out is shared, so whoever uses it must not change it (a page only serialises it)."""
    memo = {} if memo is None else memo
    out: dict[str, Any] = {}
    for name, keep in _used(type(obs)):
        value = getattr(obs, name)
        if type(value) in _SCALARS:
            out[name] = value
            continue
        entry = memo.get(id(value))
        if entry is None:
            entry = memo[id(value)] = [value, None, _UNSET]
        if not keep:
            if entry[1] is None:
                entry[1] = _deeper(value, MAX_DEPTH)
            if entry[1]:
                continue
        if entry[2] is _UNSET:
            entry[2] = plain(value)
        out[name] = entry[2]
    return out


def _strings(value: Any) -> Iterator[str]:
    """Every string inside an observation value, latest first in sequences (a log ends with the last action)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in reversed(value):
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for name in _names(type(value)):
            if name not in ("legal", "rules", "hand"):  # its own cards never show another's action
                yield from _strings(getattr(value, name))


def sees(obs: Any, action: str) -> bool:
    """Whether an observation shows ``action``: the action itself, or every card it names, is in it."""
    missing = set(_cards_of(action))
    for text in _strings(obs):
        if text == action:
            return True
        missing.difference_update(text.replace(":", "+").split("+"))
        if not missing:
            return True
    return False


def _trick(fields: dict[str, Any], seats: Sequence[int]) -> list[list[Any]]:
    """The current trick as ``[player, [cards]]``, whatever shape the game gives it: bare cards (the
    leader's), ``(seat, card)`` or ``(seat, cards)``."""
    out: list[list[Any]] = []
    leader = fields.get("leader")
    for i, item in enumerate(fields.get("trick") or []):
        if isinstance(item, str):
            seat = (leader + i) % len(seats) if isinstance(leader, int) else None
            cards = [item]
        elif isinstance(item, list) and len(item) == 2:
            seat, cards = item[0], item[1] if isinstance(item[1], list) else [item[1]]
        else:
            continue
        player = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else None
        out.append([player, [str(c) for c in cards]])
    return out


def _cards_of(action: str) -> list[str]:
    """The cards an action names (``TD+TH`` -> both, ``discard:4H`` -> ``4H``, ``claim`` -> itself)."""
    return action.split(":", 1)[-1].split("+")


class _Table:
    """The match being re-dealt, and the steps taken so far."""

    def __init__(self, game: Game[Any, Any, Any], m: Any, players: int) -> None:
        self.game, self.m, self.n = game, m, players
        self.steps: list[dict[str, Any]] = []
        self.decision = 0
        self.memo: dict[int, list[Any]] = {}  # observation values as plain data (see _fields)

    def look(self) -> tuple[list[Any], list[int]]:
        """Every player's observation now, and the player in each deal seat."""
        return [self.game.observe(self.m, p) for p in range(self.n)], list(self.game.deal(self.m).seats)

    def snapshot(self, kind: str, **extra: Any) -> dict[str, Any]:
        """The table now as a step."""
        raw, seats = self.look()
        obs = [_fields(o, self.memo) for o in raw]
        facts = [{k: v for k, v in o.items() if k not in SKIP} for o in obs]
        keys = [k for k in facts[0] if all(k in f for f in facts)] if facts else []
        public = {k: facts[0][k] for k in keys if all(f[k] == facts[0][k] for f in facts)}
        private = [{k: v for k, v in f.items() if k not in public} for f in facts]
        seat_of = {p: s for s, p in enumerate(seats)}
        trick = next((_trick(o, seats) for o in obs if o.get("trick")), [])
        return {"kind": kind, "decision": self.decision, "actor": None, "action": None, "legal": [],
                "seen": [True] * self.n, "to_act": self.game.to_act(self.m),
                "hands": [list(o.get("hand") or []) for o in obs],
                "seats": [seat_of.get(p) for p in range(self.n)], "trick": trick, "done": False,
                "public": public, "private": private, "scores": list(self.game.scores(self.m)),
                "_trick": trick, "_obs": raw} | extra


def steps(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole match as the viewer shows it (see the module docstring); never raises for a bad record:
    ``problem`` says where it stops being followed."""
    rep = verify_lines(lines)
    header = lines[0] if lines and lines[0].get("type") == "header" else {}
    players = [str(p) for p in header.get("players") or []]
    game = rep.game
    end = next((d for d in lines if d.get("type") == "end"), None)
    out: dict[str, Any] = {
        "match_id": str(header.get("match_id", "")), "seed": header.get("seed"), "game": str(header.get("game", "")),
        "title": game.title if game is not None else str(header.get("game", "?")), "players": players,
        "teams": list(header.get("teams") or range(len(players))), "rule_changes": [], "deals": [], "steps": [],
        "end": None if end is None else {k: end.get(k) for k in ("cause", "offender", "detail", "ranks", "scores",
                                                                  "deal_no", "decision_no", "deals", "decisions")},
        "problem": None if rep.ok else rep.divergence, "stderr": [],
    }
    tails = next((d.get("tails") for d in lines if d.get("type") == "stderr"), None)
    if isinstance(tails, list):
        out["stderr"] = [str(t) for t in tails]
    if game is None:
        return out
    out["rule_changes"] = game.rules_changes(rep.rules)
    n = game.players(rep.rules)  # the game seats them; a damaged header may name more or fewer
    out["players"] = players = (players + [f"player {p}" for p in range(len(players), n)])[:n]
    t = _Table(game, game.start(int(header["seed"]), rep.rules), n)
    for line in (d for d in lines[1:] if d.get("type") == "deal"):
        if not _deal(t, out, line):
            break
    if end is not None and end.get("cause") not in (None, "normal") and out["problem"] is None:
        off = end.get("offender")
        last = t.snapshot("forfeit") if game.outcome(t.m) is None else dict(t.steps[-1]) if t.steps else None
        if last is not None:
            known = isinstance(off, int)
            last.update(deal=len(out["deals"]) - 1 if out["deals"] else None, action=None,
                        kind="forfeit" if known else "stopped", actor=off if known else None,
                        decision=end.get("decision_no") or t.decision + 1, done=False)
            if isinstance(off, int) and game.to_act(t.m) == off:
                last["legal"] = list(game.legal(t.m))
            t.steps.append(last)
    for s in t.steps:
        s.pop("_trick", None)
        s.pop("_obs", None)
    out["steps"] = t.steps
    return out


def _deal(t: _Table, out: dict[str, Any], line: dict[str, Any]) -> bool:
    """Re-deal one deal line into steps; False where the record stops being followed."""
    g = t.game
    start = g.deal(t.m)
    if g.outcome(t.m) is not None or line.get("deal_no") != start.deal_no:
        return False
    index = len(out["deals"])
    entry: dict[str, Any] = {"deal_no": start.deal_no, "dealer": start.dealer, "seats": list(start.seats),
                             "step": len(t.steps), "result": line.get("result"), "reveal": None}
    out["deals"].append(entry)
    before = t.snapshot("start", deal=index)
    t.steps.append(before)
    done = g.deals_done(t.m)
    for a in line.get("actions") or []:
        actor, legal = g.to_act(t.m), list(g.legal(t.m))
        if actor is None:  # the match is over, yet the record goes on
            t.steps.append(dict(before, kind="stop", deal=index, action=str(a), actor=None, legal=[]))
            return False
        try:
            t.m = g.apply(t.m, str(a))
        except (IllegalAction, TypeError, ValueError, AttributeError):
            t.steps.append(dict(before, kind="stop", deal=index, action=str(a), actor=actor, legal=legal))
            return False
        t.decision += 1
        cards = _cards_of(str(a))
        shown = [list(tr) for tr in before["_trick"]]
        if g.deals_done(t.m) > done:  # the deal is over: the match has moved on; draw the deal's last table
            e = g.deal_end(t.m)
            entry["reveal"] = {"deck": list(e.deck), "points": list(e.points), "scores": list(e.scores),
                               "record": e.record}
            hands = [[c for c in h if not (p == actor and c in cards)] for p, h in enumerate(before["hands"])]
            played = hands[actor] != before["hands"][actor]
            step = dict(before, kind="deal_end", hands=hands, scores=list(e.scores), to_act=None, seen=[True] * t.n,
                        trick=shown + [[actor, cards]] if played else shown, done=played and bool(shown))
        else:
            step = t.snapshot("action")
            if len(step["trick"]) <= len(shown) and shown and any(c in before["hands"][actor] for c in cards):
                step["trick"], step["done"] = shown + [[actor, cards]], True  # the step completed the trick
            step["seen"] = [p == actor or sees(o, str(a)) for p, o in enumerate(step["_obs"])]
        step.update(deal=index, actor=actor, action=str(a), legal=legal, decision=t.decision)
        t.steps.append(step)
        before = step
        if g.deals_done(t.m) > done:
            return True
    return True
