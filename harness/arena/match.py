"""The match loop: one match between two entrants over their bot streams.

The loop asks the game whose turn it is and what is legal, sends the observation of that seat,
waits for the reply with the time left, checks it by membership in the legal list and applies
it. Any misbehaviour ends the match at once as a forfeit (a :class:`Fault`), never an exception.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from harness.games.sixtysix.engine import IllegalAction
from harness.games.sixtysix.match import Match, match_apply, player_of, seat_of, start_match
from harness.games.sixtysix.observe import observe
from harness.games.sixtysix.options import Rules

from harness.wire import arena_pb2 as pb
from harness.wire.convert import WireError, action_from_pb, deck_to_pb, encode_request, rules_to_map
from .entrant import Entrant
from .record import Recorder
from .result import Cause, Clock, Fault, MatchResult
from .server import GAME, Session

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


async def play_match(entrants: tuple[Entrant, Entrant], *, match_id: str, seed: int, rules: Rules,
                     clock: Clock = Clock(), record_dir: Path | None = None,
                     on_event: Callable[[Event], None] | None = None, record_path: Path | None = None) -> MatchResult:
    """Play one match to ``rules.match_target``. Returns the result (forfeits included) and writes
    ``record_dir/<match_id>.jsonl`` when ``record_dir`` is given (or ``record_path``). When cancelled, the record is
    written with cause INTERRUPTED, ``on_event`` gets the result, and CancelledError propagates."""
    if record_path is None and record_dir is not None:
        record_path = Path(record_dir) / f"{match_id}.jsonl"
    loop = _Loop(entrants, match_id, seed, rules, clock, on_event)
    try:
        await loop.run(record_path)
    except asyncio.CancelledError:
        loop.finish(None, None, Fault(Cause.INTERRUPTED, "the match was cancelled"), record_path)
        raise
    assert loop.result is not None
    return loop.result


def check_reply(reply: Any, legal: tuple[str, ...]) -> str | Fault:
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
    def __init__(self, entrants: tuple[Entrant, Entrant], match_id: str, seed: int, rules: Rules, clock: Clock,
                 on_event: Callable[[Event], None] | None) -> None:
        self.entrants = entrants
        self.names = (entrants[0].name, entrants[1].name)
        self.match_id, self.seed, self.rules, self.clock = match_id, seed, rules, clock
        self.emit = on_event
        self.t0 = time.monotonic()
        self.m: Match = start_match(seed, rules)
        self.applied = 0  # actions applied so far; decision n is the n-th request of the match
        self.sessions: list[Session] = []
        self.rejoins = [0, 0]
        self.result: MatchResult | None = None
        self.rec = Recorder({"match_id": match_id, "seed": seed, "players": list(self.names),
                             "rules": rules.to_dict(), "clock": clock.to_dict()})

    async def run(self, record_path: Path | None) -> None:
        if self.emit:
            self.emit({"type": "start", "match_id": self.match_id, "players": self.names, "seed": self.seed})
        got = await asyncio.gather(*(e.ensure() for e in self.entrants))
        faults = [(p, g) for p, g in enumerate(got) if isinstance(g, Fault)]
        if len(faults) == 2:
            detail = f"neither bot started: {faults[0][1].detail} / {faults[1][1].detail}"
            self.finish(None, None, Fault(Cause.NO_HELLO, detail), record_path)
            return
        if faults:
            p, fault = faults[0]
            self.finish(1 - p, p, fault, record_path)
            return
        self.sessions = [g for g in got if isinstance(g, Session)]
        try:
            with ExitStack() as meters:
                for e, s in zip(self.entrants, self.sessions):
                    meters.enter_context(e.metered(s))
                await self._play()
        except _Forfeit as f:
            self.finish(1 - f.offender, f.offender, f.fault, record_path)
            self._notify_end()
            return
        self.finish(self.m.winner, None, Fault(Cause.NORMAL, ""), record_path)
        self._notify_end()

    async def _play(self) -> None:
        clock = self.clock
        move_s, grace_s = clock.move_ms / 1000, clock.grace_ms / 1000
        bank = [clock.bank_ms / 1000, clock.bank_ms / 1000]
        for p, s in enumerate(self.sessions):
            s.post(self._match_start(p))
        self._deal_start()
        m = self.m
        while m.winner is None:
            seat = m.state.to_act
            player = player_of(m, seat)
            obs = observe(m.state, seat)
            request = encode_request(self.match_id, m.deal_no, self.applied + 1, obs, clock.move_ms,
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
            action = check_reply(reply, obs.legal)
            if isinstance(action, Fault):
                raise _Forfeit(player, action)
            try:
                nxt = match_apply(m, action)
            except IllegalAction as e:  # pragma: no cover - legal by membership; kept as a guard
                raise _Forfeit(player, Fault(Cause.ILLEGAL, str(e))) from None
            self.rec.action(action, took * 1000)
            self.applied += 1
            if self.emit:
                self.emit({"type": "action", "player": player, "seat": seat, "action": action, "ms": took * 1000,
                           "deal_no": m.deal_no, "decision_no": self.applied, "bank_ms": bank[player] * 1000,
                           "state": nxt.state if len(nxt.results) == len(m.results) else None})
            finished = len(nxt.results) > len(m.results)
            self.m = m = nxt
            if finished:
                self._deal_end()
                if m.winner is None:
                    self._deal_start()

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
        return pb.ArenaMessage(match_start=pb.MatchStart(
            match_id=self.match_id, game=GAME, player=player, players=self.names, rules=rules_to_map(self.rules),
            clock=pb.Clock(move_ms=self.clock.move_ms, bank_ms=self.clock.bank_ms))).SerializeToString()

    def _deal_start_for(self, player: int) -> bytes:
        """The DealStart notice of the current deal for ``player``."""
        m = self.m
        return pb.ArenaMessage(deal_start=pb.DealStart(
            match_id=self.match_id, deal_no=m.deal_no, dealer=m.dealer, seat=seat_of(m, player),
            game_score=m.scores)).SerializeToString()

    def _deal_start(self) -> None:
        m = self.m
        self.rec.begin_deal(m)
        for p, s in enumerate(self.sessions):
            s.post(self._deal_start_for(p))
        if self.emit:
            self.emit({"type": "deal", "deal_no": m.deal_no, "dealer": m.dealer, "scores": m.scores,
                       "state": m.state})

    def _deal_end(self) -> None:
        m = self.m
        r = m.results[-1]
        self.rec.end_deal(r, m.scores)
        data = pb.ArenaMessage(deal_end=pb.DealEnd(
            match_id=self.match_id, deal_no=r.deal_no, tie=r.winner is None, winner=r.winner or 0,
            game_points=r.game_points, row=r.row, reason=r.reason, deck=deck_to_pb(r.deck),
            game_score=m.scores)).SerializeToString()
        for s in self.sessions:
            s.post(data)
        if self.emit:
            self.emit({"type": "deal_end", "result": r, "scores": m.scores, "rules": self.rules})

    def _notify_end(self) -> None:
        r = self.result
        assert r is not None
        data = pb.ArenaMessage(match_end=pb.MatchEnd(
            match_id=self.match_id, has_winner=r.winner is not None, winner=r.winner or 0, game_score=r.scores,
            termination=TERMINATION[r.cause], detail=r.detail)).SerializeToString()
        for s in self.sessions:
            s.post(data)

    def finish(self, winner: int | None, offender: int | None, fault: Fault, record_path: Path | None) -> None:
        """Fix the result, write the record and emit the end event. Called exactly once."""
        if self.result is not None:
            return
        m = self.m
        started = bool(self.rec.deals)
        forfeit_at = self.applied + 1 if started and fault.cause not in (Cause.NORMAL, Cause.INTERRUPTED) else None
        path = record_path
        applied = self.applied
        self.result = MatchResult(
            match_id=self.match_id, seed=self.seed, players=self.names, winner=winner, scores=m.scores,
            cause=fault.cause, offender=offender, detail=fault.detail, deals=len(self.rec.deals),
            decisions=applied, record=None if path is None else str(path),
            duration_s=round(time.monotonic() - self.t0, 6),
        )
        self.rec.end = {"winner": winner, "scores": list(m.scores), "cause": str(fault.cause),
                        "offender": offender, "deal_no": m.deal_no if started else 0,
                        "decision_no": forfeit_at, "detail": fault.detail, "deals": self.result.deals,
                        "decisions": applied, "duration_s": self.result.duration_s}
        self.rec.tails = [e.stderr_tail()[-RECORD_TAIL_CHARS:] for e in self.entrants]
        if path is not None:
            self.rec.write(path)
        if self.emit:
            self.emit({"type": "end", "result": self.result})

