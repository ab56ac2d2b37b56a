"""A record damaged on disk is reported clearly, and its healthy part still reads and verifies."""

from __future__ import annotations

import asyncio
import json
from argparse import Namespace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena_util import bot, match, with_arena
from harness.arena import Arena, Cause, Entrant, MatchResult
from harness.arena.commands import cmd_replay
from harness.arena.record import read, read_checked, verify


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("rec")

    async def go(arena: Arena) -> tuple[MatchResult, list[int]]:
        a, b = Entrant("alice", bot("random"), arena=arena), Entrant("bob", bot("random"), arena=arena)
        return await match(arena, a, b, seed=21, record_dir=out)

    r, _ = asyncio.run(with_arena(go))
    assert r.cause is Cause.NORMAL and r.deals >= 3
    return Path(r.record).read_bytes()


def lines_of(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def write(tmp_path: Path, data: bytes) -> Path:
    p = tmp_path / "damaged.jsonl"
    p.write_bytes(data)
    return p


def test_a_record_cut_inside_a_deal_line_reports_it_and_keeps_the_deals_before(record: bytes, tmp_path: Path,
                                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    lines = lines_of(record)
    cut = b"\n".join(lines[:3]) + b"\n" + lines[3][: len(lines[3]) // 2]  # header, deals 1-2, half of deal 3
    p = write(tmp_path, cut)
    rep = verify(p)
    assert not rep.ok and len(rep.deals) == 2 and rep.divergence is not None
    assert rep.divergence.startswith("line 4: truncated JSON (the file ends mid-line")
    assert rep.divergence.endswith("the 2 deals before it verify")
    with pytest.raises(ValueError, match="^line 4: truncated JSON"):
        read(p)
    got, problem = read_checked(p)
    assert problem is not None
    assert [d["type"] for d in got] == ["header", "deal", "deal"] and problem.startswith("line 4:")
    assert cmd_replay(Namespace(file=str(p))) == 1
    cap = capsys.readouterr()
    assert "line 4: truncated JSON" in cap.err and "alice" in cap.out
    assert cap.out.count("Deal 1") == 1 and cap.out.count("Deal 2") == 1 and "Deal 3" not in cap.out


@pytest.mark.parametrize("junk,what", [(b"\x00" * 40, "not JSON"), (b'{"type": "deal", "deal_no": \xff}', "not UTF-8"),
                                       (b"[1, 2]", "not a record line"), (b'{"type": "deal"', "not JSON")])
def test_a_corrupt_line_in_the_middle_is_named_and_nothing_after_it_is_silently_used(
        record: bytes, tmp_path: Path, junk: bytes, what: str) -> None:
    lines = lines_of(record)
    lines[2] = junk
    rep = verify(write(tmp_path, b"\n".join(lines) + b"\n"))
    more = len(lines) - 3
    assert not rep.ok and len(rep.deals) == 1 and rep.divergence is not None
    assert rep.divergence.startswith(f"line 3: {what}")
    assert f"({more} more lines after it not read)" in rep.divergence


def test_a_record_cut_at_a_line_boundary_has_no_end_line(record: bytes, tmp_path: Path) -> None:
    lines = lines_of(record)
    rep = verify(write(tmp_path, b"\n".join(lines[:-2]) + b"\n"))  # without the end and stderr lines
    deals = len(lines) - 3
    assert not rep.ok and len(rep.deals) == deals
    assert rep.divergence == f"no end line after line {deals + 1}: the record is truncated (the {deals} deals in it verify)"


def test_a_lost_stderr_line_is_a_warning_not_a_silent_loss(record: bytes, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    p = write(tmp_path, b"\n".join(lines_of(record)[:-1]) + b"\n")
    rep = verify(p)
    assert rep.ok and rep.warnings and "stderr" in rep.warnings[0]
    assert cmd_replay(Namespace(file=str(p))) == 0
    assert "warning: no stderr line" in capsys.readouterr().err


@settings(max_examples=1000, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_any_truncation_or_byte_damage_is_reported_never_raised(record: bytes, tmp_path_factory: pytest.TempPathFactory,
                                                                 data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(record)), label="cut")
    damaged = bytearray(record[:cut])
    for _ in range(data.draw(st.integers(0, 3), label="flips")):
        if damaged:
            i = data.draw(st.integers(0, len(damaged) - 1))
            damaged[i] = data.draw(st.integers(0, 255))
    p = tmp_path_factory.mktemp("d") / "r.jsonl"
    p.write_bytes(bytes(damaged))
    rep = verify(p)
    full = [json.loads(x) for x in lines_of(record)]
    full_deals = [d for d in full if d["type"] == "deal"]
    if bytes(damaged) == record:
        assert rep.ok
        return
    if not rep.ok:
        assert rep.divergence and "\n" not in rep.divergence
    else:  # only possible when the game lines are intact: the damage hit the stderr line or timing fields
        assert rep.end is not None and len(rep.deals) == len(full_deals)
    for got, want in zip(rep.deals, full_deals):  # every deal reported as verified replays the same game
        assert (got["deal_no"], got["deck"], got["actions"]) == (want["deal_no"], want["deck"], want["actions"])
