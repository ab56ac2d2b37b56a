"""Hidden information end to end, over more than 10,000 decision points of real matches.

Three capture bots (tests/adversaries/adversary.py random --dump) play round-robin matches,
several at once, in one arena; each writes the exact bytes of every message it receives. Then
for every DecisionRequest captured:

* the bytes equal the request rebuilt from the match record with the cards hidden from that
  seat (the opponent's unknown cards and the face-down talon) randomly reassigned: what a seat
  is sent cannot depend on what it may not know, and carries nothing beyond observe();
* it went to the player whose turn it was, in a match that bot plays.

And every deal-end reveal (DealEnd, with the whole deck) went to that match's two players only:
the third bot, connected to the same arena and busy with other matches, never receives one.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections import Counter, defaultdict
from pathlib import Path

from arena_util import ROOT
from harness.arena import Arena, Cause, Clock, Entrant, Limits, MatchResult, play_match
from harness.arena.record import read
from harness.games.sixtysix.cards import CARD_INDEX
from harness.games.sixtysix.engine import State
from harness.games.sixtysix.match import Match, match_apply, player_of, start_match
from harness.games.sixtysix.observe import observe
from harness.games.sixtysix.options import Rules
from harness.wire import arena_pb2 as pb
from harness.wire.convert import fill_action, observation_to_pb

ADVERSARY = f"python {ROOT / 'tests' / 'adversaries' / 'adversary.py'}"
TARGET = 10_000
CLOCK = Clock(move_ms=2000, bank_ms=5000)
BOTS = ("A", "B", "C")


wire: dict[str, str] = {}  # the opaque id each match had on the wire -> its match id


def play_all(tmp: Path) -> tuple[list[MatchResult], dict[str, Path]]:
    """Round-robin batches (4 matches at once) until the decisions played pass TARGET."""
    dumps = {n: tmp / f"{n}.dump" for n in BOTS}

    async def go() -> list[MatchResult]:
        arena = Arena()
        await arena.start("127.0.0.1:0")
        ents = {n: Entrant(n, f"{ADVERSARY} random --dump={dumps[n]}", arena=arena,  # the capture is a file the
                           limits=Limits(sandbox="none")) for n in BOTS}  # bot writes: outside the sandbox
        gate = asyncio.Semaphore(4)
        results: list[MatchResult] = []

        def on_event(ev: dict) -> None:
            if ev["type"] == "start":
                wire[ev["wire_id"]] = ev["match_id"]

        async def one(k: int, a: str, b: str) -> None:
            async with gate:
                results.append(await play_match((ents[a], ents[b]), match_id=f"m{k}-{a}{b}", seed=1000 + k,
                                                rules=Rules(), clock=CLOCK, record_dir=tmp, on_event=on_event))

        pairs = itertools.cycle([("A", "B"), ("B", "C"), ("C", "A"), ("B", "A"), ("C", "B"), ("A", "C")])
        k = 0
        try:
            while sum(r.decisions for r in results) < TARGET:
                batch = [(k + j, *next(pairs)) for j in range(12)]
                k += 12
                await asyncio.gather(*(one(*x) for x in batch))
        finally:
            await asyncio.gather(*(e.stop() for e in ents.values()))
            await arena.stop()
        return results

    return asyncio.run(go()), dumps


def decision_states(record: str) -> dict[int, Match]:
    """The match before each decision (1-based), replayed from the record."""
    lines = read(record)
    header = lines[0]
    m = start_match(header["seed"], Rules.from_mapping(header["rules"]))
    out = {}
    n = 0
    for d in (x for x in lines if x["type"] == "deal"):
        for a in d["actions"]:
            n += 1
            out[n] = m
            m = match_apply(m, a)
    return out


def hidden_from(s: State, seat: int) -> list[int]:
    """Cards ``seat`` cannot know: not in its hand, not played, not shown, not face up."""
    obs = observe(s, seat)
    seen = {*obs.hand, *obs.trick, *obs.opponent_known, *(a for _, a in s.history if a in CARD_INDEX)}
    if obs.trump_card is not None:
        seen.add(obs.trump_card)
    if obs.last_drawn is not None:
        seen.add(obs.last_drawn)
    known = {CARD_INDEX[c] for c in seen} | {s.deck[12], s.bottom}
    return [c for c in range(24) if c not in known]


def reassign(s: State, hidden: list[int], rng: random.Random) -> State:
    """The same deal with the ``hidden`` cards shuffled among their places (deck and hands)."""
    perm = dict(zip(hidden, rng.sample(hidden, len(hidden))))
    deck = tuple(perm.get(c, c) for c in s.deck)

    def remap(mask: int) -> int:
        return sum(1 << perm.get(c, c) for c in range(24) if mask >> c & 1)

    return s._replace(deck=deck, hands=(remap(s.hands[0]), remap(s.hands[1])))


def rebuild(captured: pb.DecisionRequest, s: State, seat: int) -> bytes:
    """The request the match loop would send for state ``s`` (request id and clock as captured)."""
    msg = pb.ArenaMessage()
    req = msg.request
    req.request_id = captured.request_id
    req.match_id = captured.match_id
    req.deal_no = captured.deal_no
    req.decision_no = captured.decision_no
    req.clock.CopyFrom(captured.clock)
    obs = observe(s, seat)
    for a in obs.legal:
        fill_action(req.legal.add(), a)
    req.sixtysix.CopyFrom(observation_to_pb(obs))
    return msg.SerializeToString()


def test_observations_hide_what_they_must_and_reveals_reach_only_the_players(tmp_path: Path) -> None:
    results, dumps = play_all(tmp_path)
    assert all(r.cause is Cause.NORMAL for r in results), [r for r in results if r.cause is not Cause.NORMAL]
    by_id = {r.match_id: r for r in results}
    rng = random.Random(66)
    checked = shuffled = visible = 0
    reveals: dict[str, Counter[str]] = defaultdict(Counter)
    for name in BOTS:
        raw = [bytes.fromhex(x) for x in dumps[name].read_text().split() if not x.startswith("#")]
        mine = {mid for mid, r in by_id.items() if name in r.players}
        states: dict[str, dict[int, Match]] = {}
        for data in raw:
            msg = pb.ArenaMessage.FromString(data)
            kind = msg.WhichOneof("kind")
            body = getattr(msg, kind)
            if hasattr(body, "match_id"):
                assert wire[body.match_id] in mine, (name, kind, body.match_id)  # nothing of other matches
                assert body.match_id not in by_id  # opaque: not the match's own id
            if kind == "deal_end":
                reveals[wire[body.match_id]][name] += 1
            if kind != "request":
                continue
            req = msg.request
            mid = wire[req.match_id]
            r = by_id[mid]
            assert r.record is not None
            if mid not in states:
                states[mid] = decision_states(r.record)
            m = states[mid][req.decision_no]
            seat = m.state.to_act
            assert r.players[player_of(m, seat)] == name  # asked only on its own turn
            assert req.deal_no == m.deal_no
            assert data == rebuild(req, m.state, seat)  # exactly observe(), nothing more
            hidden = hidden_from(m.state, seat)
            for _ in range(2):
                other = reassign(m.state, hidden, rng)
                shuffled += other != m.state
                assert rebuild(req, other, seat) == data, (req.match_id, req.decision_no, hidden)
                # the control: the same reassignment is visible to the opponent, who holds those cards
                visible += rebuild(req, other, 1 - seat) != rebuild(req, m.state, 1 - seat)
            checked += 1
    assert checked >= TARGET, checked
    assert shuffled >= checked  # most reassignments really moved hidden cards
    assert visible >= checked // 2  # and a leaking encoder would have been caught: the check has teeth
    for r in results:
        assert r.record is not None
        finished = sum(1 for d in read(r.record) if d["type"] == "deal" and d["result"] is not None)
        assert dict(reveals[r.match_id]) == {r.players[0]: finished, r.players[1]: finished}, r.match_id
