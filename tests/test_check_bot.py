"""`arena check-bot` (issue 16): a compliance run against real bot processes over real gRPC.

The sample bots pass every check; each adversary of tests/adversaries/ (the suite of
tests/test_adversaries.py) fails, and the first failing check is the one that catches it; small
bots written here fail the lifecycle checks (SIGTERM, a cut stream, stray children) and the
concurrency check one at a time. Latency is only reported: the limits here are generous, and no
test asserts how long anything took. No bot process survives any run.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena_util import ROOT
from harness.arena import sandbox
from harness.arena.limits import Limits
from harness.checkbot import Options, check_bot
from harness.checkbot_positions import ask, coverage, draw
from harness.checkbot_report import FAIL, PASS, SKIP, Report, table
from harness.games import registry
from harness.wire import arena_pb2 as pb
from harness.wire.codecs import codec
from harness.wire.convert import actions_from_pb

ADVERSARY = f"python {ROOT / 'tests' / 'adversaries' / 'adversary.py'}"
# Generous clock: a check fails on time only against these limits.
QUICK = Options(games=("sixtysix",), decisions=8, move_ms=2000, bank_ms=3000, hello_s=30.0, grace_s=3.0, seed=5,
                limits=Limits(processes=16, poll_s=0.05))


@pytest.fixture
def mark(monkeypatch: pytest.MonkeyPatch) -> str:
    """An environment mark every bot started by this test inherits (see :func:`leftover`)."""
    m = secrets.token_hex(6)
    monkeypatch.setenv("ARENA_TEST_MARK", m)
    return m


def leftover(mark: str) -> list[int]:
    """Live processes that carry this test's environment mark (bots and their children)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            try:
                if f"ARENA_TEST_MARK={mark}".encode() in (d / "environ").read_bytes():
                    if b"State:\tZ" not in (d / "status").read_bytes():
                        pids.append(int(d.name))
            except OSError:
                pass
    return pids


def check(spec: str, opts: Options = QUICK) -> Report:
    return asyncio.run(check_bot(spec, opts))


def statuses(r: Report) -> dict[str, str]:
    return {c.id: c.status for c in r.checks}


# -- the sample bots pass --------------------------------------------------------------------------

# Every decision point of each game (66-5: L D R F E; Schnapsen's exchange on a close is off, so no R;
# three-handed T names trump; Twenty-Two's X is the exchange) and every family of actions.
POINTS = {"sixtysix": ["D", "E", "F", "L", "R"], "schnapsen": ["D", "E", "F", "L"], "three_handed": ["E", "F", "L", "T"],
          "four_handed": ["F", "L"], "twenty_two": ["F", "L", "X"]}
ACTIONS = {"sixtysix": ["card", "claim", "close", "draw", "exchange", "finish", "marry", "pass"],
           "schnapsen": ["card", "claim", "close", "draw", "exchange", "finish", "marry"],
           "three_handed": ["card", "claim", "finish", "marry", "trump"], "four_handed": ["card"],
           "twenty_two": ["card", "cards", "discard", "done"]}


SAMPLES = [
    pytest.param("python sample_bots/random_bot.py", (), 2000, id="random"),
    pytest.param("python sample_bots/greedy_bot.py", (), 2000, id="greedy"),
    pytest.param("python sample_bots/search_bot.py", (), 3000, id="search"),  # stops at half its move limit
    pytest.param("node sample_bots/node/bot.js", (), 2000, id="node",
                 marks=pytest.mark.needs("node-bot")),
]


@pytest.mark.parametrize("spec,games,move_ms", SAMPLES)
def test_sample_bots_pass_every_check(mark: str, spec: str, games: tuple[str, ...], move_ms: int) -> None:
    opts = replace(QUICK, games=games, decisions=14, move_ms=move_ms, limits=Limits())
    r = check(spec, opts)
    assert r.ok, [(c.id, c.detail) for c in r.checks if c.status != PASS]
    assert set(statuses(r).values()) == {PASS}
    listed = r.hello["games"]
    assert [c.id for c in r.checks if c.id.startswith("decisions:")] == [f"decisions:{g}" for g in listed]
    for g in listed:  # every kind of decision point reached by random play was asked
        row = r.get(f"decisions:{g}")
        assert row.data["answered"] >= 14
        assert row.data["points"] == POINTS[g]
    assert r.get("concurrency").data["at_once"] == min(r.hello["max_concurrent"], 64)
    assert r.hello["max_concurrent"] > 1 or spec.endswith("random_bot.py")  # random answers on its loop, one at a time
    assert r.get("strays").data["launches"] == 3  # decisions + Goodbye on one, SIGTERM, the cut stream
    assert leftover(mark) == []


# -- each adversary fails with the check that catches it -------------------------------------------


@pytest.fixture(scope="module")
def private_file() -> Iterator[Path]:
    """A file in a directory the arena keeps private from sandboxed bots (as a tournament's database)."""
    base = Path("/var/tmp" if os.access("/var/tmp", os.W_OK) else ROOT) / f"arena-cb-{secrets.token_hex(4)}"
    base.mkdir()
    (base / "secret.db").write_text("hunter2")
    sandbox.keep_private(base)
    yield base / "secret.db"
    shutil.rmtree(base, ignore_errors=True)


TIGHT = replace(QUICK, move_ms=400, bank_ms=600, grace_s=1.0)
# 2 s for Hello only where never saying it is the point: a busy machine can take longer to start a bot
NO_HELLO = replace(TIGHT, hello_s=2.0)
ADVERSARIES = [
    # (id, adversary arguments, the check that catches it, a piece of its detail, options); of the bad
    # actions (all the same path, the arena's check_reply) one that does not decode and one that is illegal
    ("never-connects", "noconnect", "hello", "no Hello within 2 s", NO_HELLO),
    ("never-says-hello", "nohello", "hello", "no Hello within 2 s", NO_HELLO),
    ("wrong-protocol-version", "badversion", "protocol", "protocol_version 1 is not supported", TIGHT),
    ("hangs", "hang", "decisions:sixtysix", "timeout: no reply within 1010 ms", TIGHT),
    ("slow", "slow 0.6", "latency", "over the 400 ms move limit", replace(TIGHT, bank_ms=5000)),
    ("illegal", "illegal", "decisions:sixtysix", "illegal: '", QUICK),
    ("bad-kind", "badaction kind", "decisions:sixtysix", "malformed action: bad action kind value 42", QUICK),
    ("unknown-text", "badaction unknown", "decisions:sixtysix", "illegal: 'bogus' is not legal", QUICK),
    ("wrong-request-id", "wrongid", "request_ids", "wrong request id", QUICK),
    ("oversized", "oversize 100000", "decisions:sixtysix", "over the 65536-byte limit", QUICK),
    ("flood", "flood", "request_ids", "unsolicited reply", QUICK),
    ("spy", "spy", "request_ids", "wrong request id", replace(QUICK, limits=replace(QUICK.limits, sandbox="none"))),
    ("exits", "exit", "decisions:sixtysix", "crash: exited with status 9", QUICK),
    ("killed-by-signal", "signal", "decisions:sixtysix", "crash: killed by SIGSEGV", QUICK),
    ("forks-and-exits", "forkexit", "decisions:sixtysix", "crash: exited with status 4", QUICK),
    ("memory-hog", "memhog", "decisions:sixtysix", "MemoryError",
     replace(QUICK, limits=replace(QUICK.limits, address_space_bytes=768 << 20))),
    ("cpu-spinner", "cpuspin", "decisions:sixtysix", "CPU limit:",
     replace(QUICK, decisions=100, limits=replace(QUICK.limits, cpu_s=0.3))),
    ("fork-bomb", "forkbomb", "decisions:sixtysix", "process limit:",
     replace(QUICK, limits=replace(QUICK.limits, processes=8))),
    ("chatter", "chatter --at=4", "decisions:sixtysix", "exited with status 7", QUICK),
    # in the sandbox only: without it a setsid child escapes, and the write succeeds
    ("setsid-child", "setsid cb-setsid-{mark}", "decisions:sixtysix", "exited with status 5", QUICK),
    ("writes-outside-tmp", "writefile {root}/tests/adversaries/pwned-{mark}", "decisions:sixtysix",
     "exited with status 1; stderr: blocked: write", QUICK),
]
IN_SANDBOX = {"setsid-child", "writes-outside-tmp"}
needs_sandbox = pytest.mark.needs("sandbox")


@pytest.mark.parametrize("args,caught_by,detail,opts", [
    pytest.param(*a[1:], id=a[0], marks=[needs_sandbox] if a[0] in IN_SANDBOX else []) for a in ADVERSARIES])
def test_each_adversary_fails_with_the_check_that_catches_it(mark: str, args: str, caught_by: str, detail: str,
                                                             opts: Options) -> None:
    r = check(f"{ADVERSARY} {args.format(mark=mark, root=ROOT)}", opts)
    first = r.first_failure
    assert first is not None and first.id == caught_by, [(c.id, c.status, c.detail) for c in r.checks]
    assert detail in first.detail, first.detail
    assert not r.ok
    if caught_by in ("hello", "protocol"):  # no session: nothing else could run
        assert {c.status for c in r.checks if c.id not in ("hello", "protocol")} == {SKIP}
    if caught_by == "request_ids":
        assert r.get("decisions:sixtysix").status == SKIP  # stopped there, and said why
    assert leftover(mark) == []
    assert not (ROOT / "tests" / "adversaries" / f"pwned-{mark}").exists()


def test_a_fair_adversary_passes(mark: str) -> None:
    r = check(f"{ADVERSARY} random", QUICK)  # plays fair; declares 64 at once and answers them all
    assert r.ok, r.first_failure
    assert r.get("concurrency").data["at_once"] == 64


@needs_sandbox
def test_reading_a_private_file_is_a_crash_in_the_sandbox(mark: str, private_file: Path) -> None:
    r = check(f"{ADVERSARY} readfile {private_file}", QUICK)
    assert r.first_failure is not None and r.first_failure.id == "decisions:sixtysix"
    assert "exited with status 1; stderr: blocked: read" in r.first_failure.detail
    assert leftover(mark) == []


# -- the lifecycle checks and concurrency, with small bots written here -----------------------------


LIFECYCLE_BOT = '''
import os, queue, signal, subprocess, sys, threading, time
sys.path.insert(0, {root!r})
import grpc
from harness.wire import arena_pb2 as pb

MODE = sys.argv[1]
SLEEPER = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"


def main():
    if MODE == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE == "child":  # a helper that ignores SIGTERM and is never stopped
        subprocess.Popen([sys.executable, "-c", SLEEPER], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = queue.Queue()
    newest = []
    lock = threading.Lock()

    def outgoing():
        while (item := out.get()) is not None:
            yield item

    def reply(req):
        return pb.BotMessage(reply=pb.Reply(request_id=req.request_id, action=req.legal[0])).SerializeToString()

    def answer_newest():  # a bot that answers only the newest of the requests waiting
        while True:
            time.sleep(0.05)
            with lock:
                req = newest[-1] if newest else None
                newest.clear()
            if req is not None:
                out.put(reply(req))

    if MODE == "newest":
        threading.Thread(target=answer_newest, daemon=True).start()
    out.put(pb.BotMessage(hello=pb.Hello(name=MODE, protocol_version=2, games=["sixtysix"], max_concurrent=4,
                                         token=os.environ["ARENA_TOKEN"])).SerializeToString())
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    call = channel.stream_stream("/arena.v1.BotArena/Play", request_serializer=None, response_deserializer=None)
    try:
        for data in call(outgoing()):
            msg = pb.ArenaMessage.FromString(data)
            kind = msg.WhichOneof("kind")
            if kind == "goodbye":
                break
            if kind == "request" and MODE == "newest":
                with lock:
                    newest.append(msg.request)
            elif kind == "request":
                out.put(reply(msg.request))
    except grpc.RpcError:
        if MODE == "stay-on-drop":  # keeps running with nothing to do
            time.sleep(600)
    out.put(None)
    channel.close()


main()
'''


@pytest.fixture
def lifecycle_bot(tmp_path: Path) -> str:
    path = tmp_path / "lifecycle_bot.py"
    path.write_text(LIFECYCLE_BOT.format(root=str(ROOT)))
    return f"python {path}"


LIFECYCLE = [
    ("ignore-sigterm", "sigterm", "still running 1 s after SIGTERM"),
    ("stay-on-drop", "dropped", "still running 1 s after the stream was cut"),
    ("newest", "concurrency", "timeout: no reply within"),
]


@pytest.mark.parametrize("mode,caught_by,detail", LIFECYCLE, ids=[c[0] for c in LIFECYCLE])
def test_lifecycle_and_concurrency_failures(mark: str, lifecycle_bot: str, mode: str, caught_by: str,
                                            detail: str) -> None:
    r = check(f"{lifecycle_bot} {mode}", replace(QUICK, move_ms=500, bank_ms=500, grace_s=1.0))
    assert r.failed() == [caught_by], [(c.id, c.status, c.detail) for c in r.checks]
    assert detail in r.get(caught_by).detail
    assert leftover(mark) == []


def test_a_child_that_outlives_the_bot_is_a_stray(mark: str, lifecycle_bot: str) -> None:
    opts = replace(QUICK, grace_s=1.0, limits=replace(QUICK.limits, sandbox="none"))
    r = check(f"{lifecycle_bot} child", opts)
    assert r.failed() == ["strays"], [(c.id, c.status, c.detail) for c in r.checks]
    assert r.get("strays").detail.startswith("after Goodbye: 1 of its processes outlived it: pid ")
    assert "signal.signal(signal.SIGTERM" in r.get("strays").detail  # its command line names it
    assert r.get("goodbye").status == PASS  # the bot itself did end
    assert leftover(mark) == []  # the arena killed the helper in the end


@needs_sandbox
def test_in_the_sandbox_no_child_outlives_the_bot(mark: str, lifecycle_bot: str) -> None:
    r = check(f"{lifecycle_bot} child", replace(QUICK, grace_s=1.0, limits=replace(QUICK.limits, sandbox="bwrap")))
    assert r.ok, r.first_failure
    assert leftover(mark) == []


# -- games, remote bots, the command line -------------------------------------------------------------


def test_a_game_the_bot_does_not_list_fails_the_games_check(mark: str) -> None:
    r = check("python sample_bots/search_bot.py", replace(QUICK, games=("schnapsen", "three_handed")))
    assert r.failed() == ["games"]
    assert r.get("games").detail.startswith("does not list three_handed (lists sixtysix schnapsen)")
    assert r.get("decisions:three_handed").status == SKIP and r.get("decisions:schnapsen").status == PASS
    assert leftover(mark) == []


def test_a_remote_bot_is_checked_over_its_own_connection(mark: str) -> None:
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str, address: str, token: str) -> None:
        env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": token}
        started.append(subprocess.Popen([sys.executable, str(ROOT / "sample_bots" / "greedy_bot.py")], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    try:
        r = check("remote:mine", replace(QUICK, on_remote=start))
        assert r.ok, r.first_failure
        assert statuses(r)["goodbye"] == PASS and "closed its stream" in r.get("goodbye").detail
        assert {statuses(r)[k] for k in ("sigterm", "dropped", "strays")} == {SKIP}
        assert started[0].wait(30) == 0  # it ended by itself after the Goodbye
    finally:
        for p in started:
            p.kill()
            p.wait()
    assert leftover(mark) == []


def arena(*args: str, mark: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_TEST_MARK": mark}
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_command_prints_json_and_exits_0_only_when_every_check_passes(mark: str) -> None:
    ok = arena("check-bot", "python sample_bots/random_bot.py", "--game", "twenty_two", "--decisions", "6",
               "--seed", "9", "--json", mark=mark)
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["ok"] is True and doc["first_failure"] is None and doc["seed"] == 9
    assert [c["check"] for c in doc["checks"]] == [
        "hello", "protocol", "games", "decisions:twenty_two", "request_ids", "latency", "concurrency", "goodbye",
        "sigterm", "dropped", "strays"]
    bad = arena("check-bot", f"{ADVERSARY} illegal", "--game", "sixtysix", "--decisions", "4", mark=mark)
    assert bad.returncode == 1
    assert "first failure: decisions: sixtysix: decision" in " ".join(bad.stdout.split())
    assert leftover(mark) == []


@pytest.mark.parametrize("args,message", [
    (["python sample_bots/random_bot.py", "--game", "chess"], "unknown game 'chess'"),
    (["python sample_bots/random_bot.py", "--decisions", "0"], "--decisions must be at least 1"),
    (["python sample_bots/random_bot.py", "--move-time", "0"], "--move-time and --grace must be > 0"),
    (["remote:bad name"], "bad remote bot name 'bad name'"),
    (["no-such-program-here --x"], "cannot start 'no-such-program-here --x'"),
    (["python sample_bots/random_bot.py", "--limit", "cpu_s=lots"], "bad limit cpu_s 'lots'"),
])
def test_bad_input_is_one_line_and_status_2(mark: str, args: list[str], message: str) -> None:
    got = arena("check-bot", *args, mark=mark)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.count("\n") == 1 and message in got.stderr, got.stderr
    assert leftover(mark) == []


# -- the positions asked ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", registry.ids())
def test_positions_cover_every_kind_and_are_asked_as_the_arena_asks(game: str) -> None:
    g = registry.get(game)
    rules = g.rules()
    drawn = draw(game, rules, 10, random.Random(3))
    assert coverage(drawn) == (POINTS[game], ACTIONS[game])  # every decision point, every family of actions
    assert len(drawn) >= 10 and len({id(p) for p in drawn}) == len(drawn)
    assert drawn[0].actions == 0  # a match's first decision comes first
    c = codec(game)
    for p in drawn:
        a = ask(p, rules, "me", 1500, 7000)
        start, deal = (pb.ArenaMessage.FromString(n) for n in a.notices)
        assert (start.match_start.match_id, start.match_start.game, start.match_start.player) == (a.wire_id, game, p.player)
        assert deal.deal_start.deal_no == g.deal(p.match).deal_no
        req = pb.DecisionRequest.FromString(a.request)
        assert (req.request_id, req.match_id, req.decision_no) == (0, a.wire_id, p.actions + 1)
        assert (req.clock.move_ms, req.clock.bank_ms) == (1500, 7000)
        assert actions_from_pb(req.legal) == p.legal
        assert c.decode_request(req, rules) == g.observe(p.match, p.player)  # the seat's view, and only it
        end = pb.ArenaMessage.FromString(a.end).match_end
        assert (end.match_id, list(end.ranks), end.termination) == (a.wire_id, [], pb.TERMINATION_INTERRUPTED)


def test_the_table_names_the_first_failure() -> None:
    from rich.console import Console

    r = Report("python bot.py", 3, [])
    from harness.checkbot_report import Check

    r.checks = [Check("hello", "Hello within the limit", PASS, "after 9 ms"),
                Check("latency", "latency against the move limit", FAIL, "p99 1200 ms over the limit"),
                Check("strays", "no stray processes", FAIL, "pid 7 outlived it")]
    console = Console(record=True, width=120)
    console.print(table(r))
    text = console.export_text()
    assert "FAIL" in text and "PASS" in text
    assert text.strip().splitlines()[-1] == "first failure: latency against the move limit: p99 1200 ms over the limit"
