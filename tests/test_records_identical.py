"""Records and wire bytes stay identical through changes of the arena's match loop (issue 18).

The fixtures in tests/fixtures/records/ were written by the arena as it was before the per-decision
work of issue 18 (``python tests/test_records_identical.py --write`` rewrites them: only do that
on purpose). Each case plays real bot processes over real gRPC and compares:

* the record, byte for byte, after the timing fields (``ms``, ``duration_s``: measured at the
  arena, never deterministic) are set to zero in place;
* every message each bot received, byte for byte, after the random wire match id is replaced by
  a fixed one of the same length, and so is the Welcome's session id; a MatchStart is compared in
  deterministic serialization, its rules map's order on the wire being that of string hashing (tests/bots/wiredump_bot.py writes them).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arena_util import ROOT, TESTBOT  # noqa: E402
from harness import eventloop  # noqa: E402
from harness.arena import Arena, Entrant, play_match  # noqa: E402
from harness.arena.limits import Limits  # noqa: E402
from harness.arena.record import dumps  # noqa: E402
from harness.games.registry import get as get_game  # noqa: E402
from harness.wire import arena_pb2 as pb  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "records"
DUMPBOT = f"python {ROOT / 'tests' / 'bots' / 'wiredump_bot.py'}"
NO_SANDBOX = Limits(sandbox="none")  # the dump files are written outside the bot's sandbox
# (name, game, seed, entrant commands or None for wire-dump bots on every seat)
CASES = [
    ("sixtysix-7", "sixtysix", 7, None),
    ("schnapsen-8", "schnapsen", 8, None),
    ("three_handed-9", "three_handed", 9, None),
    ("four_handed-10", "four_handed", 10, None),
    ("twenty_two-11", "twenty_two", 11, None),
    ("sixtysix-random-12", "sixtysix", 12, [f"{TESTBOT} random", f"{TESTBOT} random"]),
    ("sixtysix-illegal-13", "sixtysix", 13, [f"{TESTBOT} random", f"{TESTBOT} illegal 9"]),
    ("schnapsen-wrongid-14", "schnapsen", 14, [f"{TESTBOT} wrongid 5", f"{TESTBOT} random"]),
]
# the random wire match id ("m" + 16 hex digits, length byte 0x11) and session id (16 hex digits, in Welcome)
RANDOM_IDS = re.compile(rb"(?<=\x11m)[0-9a-f]{16}|(?<=\x10)[0-9a-f]{16}")


def zero_timing(text: str) -> str:
    """The record with ``ms`` lists and ``duration_s`` set to zero, every other byte kept."""
    out = []
    for line in text.splitlines():
        d = json.loads(line)
        if "ms" in d:
            d["ms"] = [0] * len(d["ms"])
        if "duration_s" in d:
            d["duration_s"] = 0
        out.append(dumps(d))
    return "\n".join(out) + "\n"


def normalised_wire(path: Path) -> list[str]:
    """The hex lines of a wire dump with the random match id replaced."""
    if not path.exists():
        return []
    return [RANDOM_IDS.sub(b"0" * 16, _canonical(bytes.fromhex(x))).hex() for x in path.read_text().split()]


def _canonical(data: bytes) -> bytes:
    """A MatchStart in deterministic serialization (the order of a protobuf map's entries on the wire
    follows string hashing, which differs between processes); any other message as it came."""
    msg = pb.ArenaMessage.FromString(data)
    return msg.SerializeToString(deterministic=True) if msg.WhichOneof("kind") == "match_start" else data


async def _play(name: str, game: str, seed: int, commands: list[str] | None, out: Path) -> tuple[str, list[list[str]]]:
    g = get_game(game)
    n = g.players(g.rules())
    dumps_ = [out / f"{name}.p{p}.wire" for p in range(n)]
    cmds = commands or [f"{DUMPBOT} {dumps_[p]}" for p in range(n)]
    arena = Arena()
    await arena.start()
    try:
        entrants = [Entrant(f"bot{p}", cmds[p], arena=arena, limits=NO_SANDBOX) for p in range(n)]
        try:
            await play_match(entrants, match_id=name, seed=seed, game=game, record_dir=out)
        finally:
            await asyncio.gather(*(e.stop() for e in entrants))
    finally:
        await arena.stop()
    return zero_timing((out / f"{name}.jsonl").read_text("utf-8")), [normalised_wire(d) for d in dumps_]


def write_fixtures(out: Path) -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, game, seed, commands in CASES:
        record, wires = asyncio.run(_play(name, game, seed, commands, out))
        (FIXTURES / f"{name}.jsonl").write_text(record, "utf-8")
        if commands is None:
            (FIXTURES / f"{name}.wire").write_text(
                "".join(f"# player {p}\n" + "".join(x + "\n" for x in w) for p, w in enumerate(wires)))


def read_wire_fixture(path: Path) -> list[list[str]]:
    players: list[list[str]] = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            players.append([])
        else:
            players[-1].append(line)
    return players


@pytest.mark.parametrize("loop", eventloop.CHOICES[1:])
@pytest.mark.parametrize("name,game,seed,commands", CASES, ids=[c[0] for c in CASES])
def test_record_and_wire_bytes_match_the_fixture(tmp_path: Path, name: str, game: str, seed: int,
                                                 commands: list[str] | None, loop: str) -> None:
    """On either event loop (issue 18: the commands run on uvloop where it is installed)."""
    record, wires = eventloop.run(_play(name, game, seed, commands, tmp_path), loop)
    assert record == (FIXTURES / f"{name}.jsonl").read_text("utf-8")
    if commands is None:
        expected = read_wire_fixture(FIXTURES / f"{name}.wire")
        assert len(wires) == len(expected)
        for got, want in zip(wires, expected):
            assert len(got) > 10  # a whole match of notices and requests
            assert got == want


def test_zero_timing_keeps_everything_else() -> None:
    line = dumps({"type": "deal", "deal_no": 1, "actions": ["QH"], "ms": [1.25], "result": None})
    end = dumps({"type": "end", "detail": "ms", "duration_s": 0.5})
    assert zero_timing(line + "\n" + end + "\n") == (
        '{"type":"deal","deal_no":1,"actions":["QH"],"ms":[0],"result":null}\n'
        '{"type":"end","detail":"ms","duration_s":0}\n')


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        write_fixtures(Path(tmp))
    print(f"wrote {len(CASES)} records to {FIXTURES}")
