"""The event loop of every command (issue 18): uvloop where installed, ARENA_EVENT_LOOP to choose.

Records and wire bytes are the same on both loops (tests/test_records_identical.py runs every case on
each); here: the choice itself, a bad choice as one line, and a real match on uvloop that starts its
bots without gRPC's fork handlers speaking up.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena_util import ROOT, TESTBOT
from harness import eventloop


def test_the_choice_names_the_loop_and_refuses_what_it_does_not_know(monkeypatch: pytest.MonkeyPatch) -> None:
    assert eventloop.factory("asyncio") is None
    assert eventloop.run(_loop_name(), "asyncio") == "asyncio"
    assert eventloop.run(_loop_name(), "uvloop") == "uvloop"
    monkeypatch.setenv("ARENA_EVENT_LOOP", "asyncio")
    assert eventloop.run(_loop_name()) == "asyncio"
    monkeypatch.setenv("ARENA_EVENT_LOOP", "auto")
    assert eventloop.run(_loop_name()) == "uvloop"  # installed with the project on Linux
    with pytest.raises(ValueError, match="ARENA_EVENT_LOOP must be one of auto, uvloop, asyncio, not 'fast'"):
        eventloop.factory("fast")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if it were not installed
    assert eventloop.factory("auto") is None
    with pytest.raises(ValueError, match="uvloop is not installed"):
        eventloop.factory("uvloop")


async def _loop_name() -> str:
    return eventloop.name(asyncio.get_running_loop())


def _arena(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in ``cwd``; gRPC's fork setting left to the harness (removed from the environment)."""
    base = {k: v for k, v in os.environ.items() if k != "GRPC_ENABLE_FORK_SUPPORT"}
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env={**base, "PYTHONPATH": str(ROOT), **env}, timeout=300)


def test_a_bad_choice_is_one_line_and_status_2(tmp_path: Path) -> None:
    got = _arena(["match", f"{TESTBOT} random", f"{TESTBOT} random", "--seed", "3"], {"ARENA_EVENT_LOOP": "fast"},
                 tmp_path)
    assert got.returncode == 2
    assert got.stderr.strip().splitlines() == ["arena: ARENA_EVENT_LOOP must be one of auto, uvloop, asyncio, not 'fast'"]
    assert not list(tmp_path.iterdir())  # nothing started, nothing written


def test_a_match_on_uvloop_records_what_asyncio_records_and_grpc_stays_quiet(tmp_path: Path) -> None:
    """The same seed and bots give the same record on both loops (timing fields aside); uvloop starts the
    bots with fork(), and gRPC's fork handlers are off, so nothing of theirs reaches stderr."""
    from test_records_identical import zero_timing

    records = {}
    for loop in ("uvloop", "asyncio"):
        out = tmp_path / loop
        got = _arena(["match", f"{TESTBOT} random", f"{TESTBOT} random", "--seed", "5", "--out", str(out), "--no-live"],
                     {"ARENA_EVENT_LOOP": loop}, tmp_path)
        assert got.returncode == 0, got.stderr
        assert "fork" not in got.stderr, got.stderr
        (record,) = out.glob("*.jsonl")
        records[loop] = zero_timing(record.read_text("utf-8")).replace(str(out), "OUT")  # the bots' log paths
    assert records["uvloop"] == records["asyncio"]
    assert records["uvloop"].count("\n") > 3  # a whole match: header, deals, end
