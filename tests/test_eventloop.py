"""The event loop of every command (issue 18): uvloop where installed, ARENA_EVENT_LOOP to choose; and
gRPC's I/O on the completion queue's poller thread (harness/__init__.py), GRPC_EXPERIMENTS to choose.

Records and wire bytes are the same on both loops (tests/test_records_identical.py runs every case on
each); here: the choice itself, a bad choice as one line, a real match on uvloop that starts its
bots without gRPC's fork handlers speaking up, a real match on gRPC's own I/O defaults against ours,
and a bot that starts although the collector would run in uvloop's forked child (eventloop.spawn).
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

GRPC_SETTINGS = ("GRPC_ENABLE_FORK_SUPPORT", "GRPC_EXPERIMENTS")  # what harness/__init__.py sets by default


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
    """``arena ARGS`` in ``cwd``; gRPC's settings left to the harness (removed from the environment)."""
    base = {k: v for k, v in os.environ.items() if k not in GRPC_SETTINGS}
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


def test_grpc_io_settings_are_defaults_an_explicit_environment_overrides() -> None:
    """The harness asks gRPC for poller-thread I/O unless the environment already says something (an
    empty GRPC_EXPERIMENTS means gRPC's own defaults), and the gRPC installed knows both switches: an
    experiment it does not know would be one "Unknown experiment" line on every command's stderr."""
    code = ("import harness, os, grpc; s = grpc.aio.server(); s.add_insecure_port('127.0.0.1:0'); "
            "grpc.insecure_channel('127.0.0.1:1').close(); print(repr(os.environ['GRPC_EXPERIMENTS']))")
    base = {k: v for k, v in os.environ.items() if k not in GRPC_SETTINGS}
    for env, want in (({}, "'-event_engine_listener,-event_engine_client'"), ({"GRPC_EXPERIMENTS": ""}, "''"),
                      ({"GRPC_EXPERIMENTS": "-event_engine_client"}, "'-event_engine_client'")):
        got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                             env={**base, "PYTHONPATH": str(ROOT), **env})
        assert got.returncode == 0, got.stderr
        assert got.stdout.strip() == want
        assert "experiment" not in got.stderr.lower(), got.stderr


def test_a_match_on_grpc_default_io_records_what_the_poller_io_records(tmp_path: Path) -> None:
    """The I/O setting changes which gRPC thread touches the sockets, nothing a bot or a record sees."""
    from test_records_identical import zero_timing

    records = {}
    for name, env in (("poller", {}), ("grpc-default", {"GRPC_EXPERIMENTS": ""})):
        out = tmp_path / name
        got = _arena(["match", f"{TESTBOT} random", f"{TESTBOT} random", "--seed", "8", "--out", str(out), "--no-live"],
                     env, tmp_path)
        assert got.returncode == 0, got.stderr
        assert "experiment" not in got.stderr.lower(), got.stderr
        (record,) = out.glob("*.jsonl")
        records[name] = zero_timing(record.read_text("utf-8")).replace(str(out), "OUT")
    assert records["poller"] == records["grpc-default"]
    assert records["poller"].count("\n") > 3


FORK_PROBE = '''
import asyncio, os, sys
import harness
import grpc
from harness import eventloop
from harness.arena.process import BotProcess


def churn():
    """In the child, after the fork: allocate enough for the collector to run, as any handler may."""
    keep = [[] for _ in range(200_000)]
    del keep


async def main(how):
    server = grpc.aio.server()
    server.add_insecure_port("127.0.0.1:0")
    await server.start()
    await server.stop(0)
    cycle = [server]
    cycle.append(cycle)
    del server, cycle  # a stopped server in a reference cycle: only the collector frees it
    os.register_at_fork(after_in_child=churn)
    print("spawning", flush=True)
    if how == "bot":
        bot = BotProcess(f"{sys.executable} -c pass", {})
        await bot.start()
        code = await bot.wait_exit(60)
    else:
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
        code = await proc.wait()
    print("exited", code, "collector", "on" if __import__("gc").isenabled() else "off", flush=True)


eventloop.run(main(sys.argv[1]), "uvloop")
'''


def _fork_probe(tmp_path: Path, how: str, wait_s: float) -> str | None:
    """Run the probe in its own process group; its output, or None when it did not finish in
    ``wait_s`` (then the group, the probe and its forked child, is killed)."""
    script = tmp_path / "fork_probe.py"
    script.write_text(FORK_PROBE)
    proc = subprocess.Popen([sys.executable, str(script), how], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        out, _ = proc.communicate(timeout=wait_s)
        return out
    except subprocess.TimeoutExpired:
        return None
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait()


def test_a_bot_starts_even_when_the_collector_would_run_in_the_forked_child(tmp_path: Path) -> None:
    """uvloop runs Python's after-fork handlers in the child before the exec; a collection there
    finalized a stopped gRPC server left in a cycle, whose shutdown loops forever waiting for a poller
    thread the child does not have, and the parent's spawn waited for that child's exec: the arena hung
    (found in bench_tournament.py). BotProcess starts bots through eventloop.spawn, which keeps the
    collector paused across the fork, and turns it back on after. The control, asyncio's own
    create_subprocess_exec on uvloop, still hangs: the probe reproduces the hazard."""
    out = _fork_probe(tmp_path, "bot", 120)
    assert out is not None and "exited 0 collector on" in out, out
    assert _fork_probe(tmp_path, "plain", 5) is None, "the control no longer hangs: gRPC or uvloop changed"


def test_spawn_leaves_the_collector_as_it_found_it() -> None:
    import gc

    async def run() -> tuple[bool, bool]:
        during = []

        async def one() -> None:
            proc = await eventloop.spawn(sys.executable, "-c", "pass")
            during.append(gc.isenabled())
            await proc.wait()

        await asyncio.gather(one(), one(), one())  # overlapping spawns
        return gc.isenabled(), any(during)

    assert gc.isenabled()
    assert eventloop.run(run(), "uvloop")[0] is True
    gc.disable()
    try:
        assert eventloop.run(run(), "uvloop") == (False, False)  # paused before: still paused after
    finally:
        gc.enable()
