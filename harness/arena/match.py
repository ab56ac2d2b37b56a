"""The match loop: one match of any registered game between its entrants over their bot streams.

The loop asks the game (:mod:`harness.games.base`) whose turn it is and what is legal, sends the
observation of that player through the game's wire codec, waits for the reply with the time left,
checks it by membership in the legal list and applies it. Any misbehaviour ends the match at once
as a forfeit (a :class:`Fault`), never an exception: the offender's team ranks last.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from harness.games.base import Game, IllegalAction, Outcome, forfeit_outcome, turn
from harness.games.registry import get as get_game
from harness.wire import arena_pb2 as pb
from harness.wire import notices
from harness.wire.codecs import codec as get_codec
from harness.wire.convert import WireError, action_from_pb
from .entrant import Player
from .record import Recorder
from .result import Cause, Clock, Fault, MatchResult
from .server import Session, plays

__all__ = ["Cause", "Clock", "MatchResult", "check_reply", "play_match"]

RECORD_TAIL_CHARS = 4096
MAX_REJOINS = 3  # reconnections allowed per player per match, for entrants that support rejoin()
TERMINATION = {c: getattr(pb, f"TERMINATION_{c.name}") for c in Cause}
Event = dict[str, Any]


class _Forfeit(Exception):
    """Internal: unwinds the loop to the single place that records a forfeit."""

    def __init__(self, offender: int, fault: Fault) -> None:
        self.offender = offender
        self.fault = fault


async def play_match(entrants: Sequence[Player], *, match_id: str, seed: int, game: str = "sixtysix",
                     rules: Any = None, clock: Clock = Clock(), record_dir: Path | None = None,
                     on_event: Callable[[Event], None] | None = None, record_path: Path | None = None,
                     strict: bool = False, book: Mapping[str, Any] | None = None) -> MatchResult:
    """Play one match of ``game`` (default rules when ``rules`` is None; a mapping of options is
    parsed by the game). A Reply that reports an error of the bot (``Reply.error``: its SDK answered
    for a failed ``act()``) is counted in ``MatchResult.errors`` and play goes on; with ``strict`` it is
    a forfeit (cause ERROR). Returns the result (forfeits included) and writes
    ``record_dir/<match_id>.jsonl`` when ``record_dir`` is given (or ``record_path``). When cancelled, the record is
    written with cause INTERRUPTED, ``on_event`` gets the result, and CancelledError propagates. ``book``
    (a deal book's entry, :mod:`harness.deals`) goes into the record's header; without it the header has no
    such field."""
    if record_path is None and record_dir is not None:
        record_path = Path(record_dir) / f"{match_id}.jsonl"
    g = get_game(game)
    if rules is None or isinstance(rules, Mapping):
        rules = g.rules(rules or {})
    if len(entrants) != g.players(rules):
        raise ValueError(f"{g.title} seats {g.players(rules)} players, got {len(entrants)} entrants")
    loop = _Loop(tuple(entrants), match_id, seed, g, rules, clock, on_event, strict, book)
    try:
        await loop.run(record_path)
    except asyncio.CancelledError:
        loop.finish(None, Fault(Cause.INTERRUPTED, "the match was cancelled"), record_path)
        raise
    assert loop.result is not None
    return loop.result


def check_reply(reply: Any, legal: Sequence[str]) -> str | Fault:
    """The legal action a Reply names, or the Fault: INVALID when it does not name an action,
    ILLEGAL when the action is not in ``legal``."""
    if not reply.HasField("action"):
        return Fault(Cause.INVALID, "reply without an action")
    try:
        action = action_from_pb(reply.action)
    except WireError as e:
        return Fault(Cause.INVALID, f"malformed action: {e}")
    if action not in legal:
        return Fault(Cause.ILLEGAL, f"'{action}' is not legal (legal: {' '.join(legal)})")
    return action


class _Loop:
    def __init__(self, entrants: tuple[Player, ...], match_id: str, seed: int, game: Game[Any, Any, Any], rules: Any,
                 clock: Clock, on_event: Callable[[Event], None] | None, strict: bool = False,
                 book: Mapping[str, Any] | None = None) -> None:
        self.entrants = entrants
        self.names = tuple(e.name for e in entrants)
        self.match_id, self.seed, self.game, self.rules, self.clock = match_id, seed, game, rules, clock
        # What the bots are told the match is called: random, so that it reveals nothing (no seed, no
        # schedule position, no relation between the legs of a table). Records keep ``match_id``.
        self.wire_id = "m" + secrets.token_hex(8)
        self.codec = get_codec(game.id)
        self.teams = game.teams(rules)
        self.emit = on_event
        self.t0 = time.monotonic()
        self.m: Any = game.start(seed, rules)
        self.applied = 0  # actions applied so far; decision n is the n-th request of the match
        self.deal_no = 0  # the deal being played
        self.sessions: list[Session] = []
        self.rejoins = [0] * len(entrants)
        self.strict = strict
        self.errors = [0] * len(entrants)  # replies that reported an error of the bot (Reply.error)
        self.result: MatchResult | None = None
        self.rules_map = game.rules_map(rules)  # once per match: the header and every MatchStart carry it
        self.rec = Recorder({"match_id": match_id, "seed": seed, "game": game.id, "players": list(self.names),
                             "teams": list(self.teams), "rules": dict(self.rules_map), "clock": clock.to_dict(),
                             **({"book": dict(book)} if book else {})})  # the deal book's entry (harness.deals)

    async def run(self, record_path: Path | None) -> None:
        if self.emit:
            self.emit({"type": "start", "match_id": self.match_id, "wire_id": self.wire_id, "players": self.names,
                       "seed": self.seed, "game": self.game.id})
        got = await asyncio.gather(*(e.ensure() for e in self.entrants))
        got = [plays(g, self.game.id) or g if isinstance(g, Session) else g for g in got]
        faults = [(p, g) for p, g in enumerate(got) if isinstance(g, Fault)]
        if faults and len(faults) == len(got):
            detail = "no bot started: " + " / ".join(f.detail for _, f in faults)
            self.finish(None, Fault(Cause.NO_HELLO, detail), record_path)
            return
        if faults:
            p, fault = faults[0]
            self.finish(None if fault.cause is Cause.INTERRUPTED else p, fault, record_path)  # stopped: nobody lost
            return
        self.sessions = [g for g in got if isinstance(g, Session)]
        try:
            with ExitStack() as meters:
                for e, s in zip(self.entrants, self.sessions):
                    meters.enter_context(e.metered(s))
                await self._play()
        except _Forfeit as f:
            self.finish(f.offender, f.fault, record_path)
            self._notify_end()
            bad = self.sessions[f.offender]
            if bad.violated:  # a protocol violation: tell the bot why, then end its stream
                await bad.goodbye(f"forfeit ({f.fault.cause}): {f.fault.detail}", wait_s=0.5)
            return
        self.finish(None, Fault(Cause.NORMAL, ""), record_path)
        self._notify_end()

    async def _play(self) -> None:
        clock, g, codec = self.clock, self.game, self.codec
        move_s, grace_s = clock.move_ms / 1000, clock.grace_ms / 1000
        bank = [clock.bank_ms / 1000] * len(self.entrants)
        for p, s in enumerate(self.sessions):
            s.post(self._match_start(p))
        self._deal_start()
        m = self.m
        step = getattr(g, "turn", None) or (lambda m: turn(g, m))  # a game's own turn(), as base.turn uses it
        done = g.deals_done(m)
        while (now := step(m)) is not None:
            player, obs, legal = now
            deal_no = self.deal_no
            request = codec.encode_request(self.wire_id, deal_no, self.applied + 1, obs, legal, clock.move_ms,
                                           int(bank[player] * 1000))
            reply, took = await self.sessions[player].decide(request, move_s + bank[player] + grace_s)
            if isinstance(reply, Fault):
                if reply.cause is Cause.DISCONNECT:
                    back = await self._rejoin(player, reply)
                    if back is None:
                        continue  # the same decision, asked again of the new session
                    reply = back
                if reply.cause is Cause.TIMEOUT:
                    reply = Fault(Cause.TIMEOUT, f"{reply.detail} (move {clock.move_ms} ms + bank "
                                                 f"{bank[player] * 1000:.0f} ms + grace {clock.grace_ms} ms)")
                raise _Forfeit(player, await self.entrants[player].explain(reply, self.sessions[player]))
            if took > move_s:
                bank[player] = max(0.0, bank[player] - (took - move_s))
            action = check_reply(reply, legal)
            if isinstance(action, Fault):
                raise _Forfeit(player, action)
            if reply.error:
                self._bot_error(player, reply.error)
            try:
                nxt = g.apply(m, action)
            except IllegalAction as e:  # pragma: no cover - legal by membership; kept as a guard
                raise _Forfeit(player, Fault(Cause.ILLEGAL, str(e))) from None
            self.rec.action(action, took * 1000)
            self.applied += 1
            was, done = done, g.deals_done(nxt)
            finished = done > was
            if self.emit:
                self.emit({"type": "action", "player": player, "action": action, "ms": took * 1000,
                           "deal_no": deal_no, "decision_no": self.applied, "bank_ms": bank[player] * 1000,
                           "match": None if finished else nxt})
            self.m = m = nxt
            if finished:
                self._deal_end()
                if g.outcome(m) is None:
                    self._deal_start()

    def _bot_error(self, player: int, error: str) -> None:
        """A reply that says the bot's own code failed: counted, or with ``strict`` a forfeit."""
        detail = " ".join(error.split())[:200]
        if self.strict:
            raise _Forfeit(player, Fault(Cause.ERROR, f"the bot reported an error (strict): {detail}"))
        self.errors[player] += 1
        if self.emit:
            self.emit({"type": "bot_error", "player": player, "decision_no": self.applied + 1, "detail": detail})

    async def _rejoin(self, player: int, fault: Fault) -> Fault | None:
        """After a lost stream, let an entrant with ``rejoin(fault) -> Session | Fault`` (a league bot)
        come back within its grace. Returns None when it did (the new session has been told the match
        and the deal), else the fault to forfeit with. The wait is not charged to the bank."""
        rejoin = getattr(self.entrants[player], "rejoin", None)
        if rejoin is None:
            return fault
        if self.rejoins[player] >= MAX_REJOINS:
            return Fault(fault.cause, f"{fault.detail} (already reconnected {MAX_REJOINS} times in this match)")
        got = await rejoin(fault)
        if isinstance(got, Fault):
            return got
        self.rejoins[player] += 1
        self.sessions[player] = got
        got.post(self._match_start(player))
        got.post(self._deal_start_for(player))
        if self.emit:
            self.emit({"type": "rejoin", "player": player, "decision_no": self.applied + 1})
        return None

    def _match_start(self, player: int) -> bytes:
        """The MatchStart notice for ``player``."""
        return notices.match_start(self.wire_id, self.game.id, player, self.names, self.teams,
                                   self.rules_map, self.clock.move_ms, self.clock.bank_ms)

    def _deal_start_for(self, player: int) -> bytes:
        """The DealStart notice of the current deal for ``player``."""
        return notices.deal_start(self.wire_id, self.game.deal(self.m), player, self.game.scores(self.m))

    def _deal_start(self) -> None:
        d = self.game.deal(self.m)
        self.deal_no = d.deal_no
        self.rec.begin_deal(d)
        for p, s in enumerate(self.sessions):
            s.post(self._deal_start_for(p))
        if self.emit:
            self.emit({"type": "deal", "deal_no": d.deal_no, "dealer": d.dealer, "seats": d.seats,
                       "scores": self.game.scores(self.m), "match": self.m})

    def _deal_end(self) -> None:
        end = self.game.deal_end(self.m)
        self.rec.end_deal(end)
        data = notices.deal_end(self.wire_id, end, self.codec)
        for s in self.sessions:
            s.post(data)
        if self.emit:
            self.emit({"type": "deal_end", "end": end, "scores": end.scores, "rules": self.rules,
                       "record": self.rec.deals[-1]})

    def _notify_end(self) -> None:
        r = self.result
        assert r is not None
        data = notices.match_end(self.wire_id, r.ranks, r.scores, r.teams, TERMINATION[r.cause], r.detail)
        for s in self.sessions:
            s.post(data)

    def finish(self, offender: int | None, fault: Fault, record_path: Path | None) -> None:
        """Fix the result, write the record and emit the end event. Called exactly once.

        ``offender`` is the player who forfeits (None when nobody does)."""
        if self.result is not None:
            return
        g, m = self.game, self.m
        scores = g.scores(m)
        outcome: Outcome | None
        if fault.cause is Cause.NORMAL:
            outcome = g.outcome(m)
        elif offender is not None:
            outcome = forfeit_outcome(offender, scores, self.teams)
        else:
            outcome = None
        started = bool(self.rec.deals)
        forfeit_at = self.applied + 1 if started and fault.cause not in (Cause.NORMAL, Cause.INTERRUPTED) else None
        path = record_path
        applied = self.applied
        ranks = None if outcome is None else outcome.ranks
        self.result = MatchResult(
            match_id=self.match_id, seed=self.seed, game=g.id, players=self.names, ranks=ranks, scores=scores,
            teams=self.teams, cause=fault.cause, offender=offender, detail=fault.detail, deals=len(self.rec.deals),
            decisions=applied, record=None if path is None else str(path),
            duration_s=round(time.monotonic() - self.t0, 6),
            errors=tuple(self.errors) if any(self.errors) else (),
            logs=tuple(getattr(e, "log_path", None) for e in self.entrants),
        )
        self.rec.end = {"ranks": None if ranks is None else list(ranks), "scores": list(scores),
                        "cause": str(fault.cause), "offender": offender,
                        "deal_no": self.deal_no if started else 0, "decision_no": forfeit_at,
                        "detail": fault.detail, "deals": self.result.deals, "decisions": applied,
                        "duration_s": self.result.duration_s}
        if any(self.errors):
            self.rec.end["errors"] = list(self.errors)
        self.rec.tails = [e.stderr_tail()[-RECORD_TAIL_CHARS:] for e in self.entrants]
        self.rec.logs = list(self.result.logs)
        if path is not None:
            self.rec.write(path)
        if self.emit:
            self.emit({"type": "end", "result": self.result})
