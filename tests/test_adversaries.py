"""Hostile bots, as real processes over real gRPC: each is a recorded forfeit with the right cause,
its opponent wins unblamed, a concurrent normal match is untouched, and none of its processes
survive.

Cause mapping (the adversary is player 1 in every case):

    never connects / never says Hello / wrong protocol version   NO_HELLO
    hangs on a decision / slow until the bank is gone             TIMEOUT
    illegal action                                                 ILLEGAL
    undecodable action (bad enum numbers, unknown text)            INVALID
    wrong request id / reply about another request (spy)           INVALID
    message over Arena.max_message_bytes                           INVALID
    flood of unsolicited messages                                  INVALID
    exits / killed by a signal / forks and exits                   CRASH
    address-space limit hit (MemoryError) / CPU or process limit   CRASH
    megabytes of output, then exits                                CRASH (only a bounded tail kept)
    breaking out of the sandbox (reads the database, another bot's   CRASH ("blocked: ..."; the bot exits 1
    files or $HOME; writes outside /tmp; TCP to the host's loopback)        when its attempt fails)
    leaves a setsid child                                          CRASH (the child dies with the bot)
    forks until the process limit (also in new sessions)           CRASH (process limit)

Bots run in the sandbox wherever bubblewrap works (``Limits.sandbox`` auto); the tests that need it
skip, saying why, where it does not (and fail in CI, which installs it: the ``needs`` mark).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import socket
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from arena_util import ROOT, bot, groups
from harness.arena import Arena, Cause, Clock, Entrant, MatchResult, play_match, sandbox
from harness.arena.limits import GiB, Limits
from harness.arena.match import RECORD_TAIL_CHARS
from harness.arena.process import TAIL_BYTES, BotProcess, group_members
from harness.arena.record import read, verify
from harness.games.sixtysix.options import Rules
from harness.wire import arena_pb2 as pb

ADVERSARY = f"python {ROOT / 'tests' / 'adversaries' / 'adversary.py'}"
FAST = Clock(move_ms=1000, bank_ms=2000, grace_ms=10)
TEST_LIMITS = Limits(address_space_bytes=1 * GiB, open_files=256, processes=16, poll_s=0.05)


@dataclass
class Run:
    adv: MatchResult
    normal: MatchResult
    adv_groups: list[int]  # process groups the adversary ever had
    left_after_match: list[int]  # its live processes right after its match, before any stop
    left: list[int]  # live processes of every bot after the run
    entrant: Entrant
    stderr_tail_bytes: int
    extra: dict[str, object] = field(default_factory=dict)


def run(tmp_path: Path, command: str, *, clock: Clock = FAST, limits: Limits = TEST_LIMITS,
        rules: Rules = Rules(), hello_s: float = 30.0) -> Run:
    """The adversary (player 1) against a fair bot, concurrently with a normal match, in one arena.
    ``hello_s`` is short only where saying Hello is what is tested (a busy machine starts bots slowly)."""

    async def go() -> Run:
        arena = Arena(hello_read_s=max(1.0, hello_s))
        await arena.start("127.0.0.1:0")
        good = Entrant("good", bot("random"), arena=arena)
        adv = Entrant("adv", command, arena=arena, hello_s=hello_s, stop_grace_s=0.3, limits=limits)
        n1, n2 = Entrant("n1", bot("random"), arena=arena), Entrant("n2", bot("random"), arena=arena)
        everyone = (good, adv, n1, n2)
        adv_groups: list[int] = []
        try:
            async def adversary_match() -> tuple[MatchResult, list[int]]:
                r = await play_match((good, adv), match_id="adv", seed=5, rules=rules, clock=clock,
                                     record_dir=tmp_path)
                pgid = adv.process.pid if adv.process is not None else None
                return r, ([] if pgid is None else group_members(pgid))

            (r, left_now), normal = await asyncio.gather(
                adversary_match(),
                play_match((n1, n2), match_id="normal", seed=6, rules=rules, clock=FAST, record_dir=tmp_path))
            if adv.process is not None and adv.process.pid is not None:
                adv_groups.append(adv.process.pid)
            tail = len(adv.process._tail) if adv.process is not None else 0
        finally:
            await asyncio.gather(*(e.stop() for e in everyone))
            await arena.stop()
        pgids = groups(*everyone)
        left = [p for g in pgids for p in group_members(g)]
        return Run(r, normal, adv_groups, left_now, left, adv, tail)

    return asyncio.run(go())


def check(run_: Run, cause: Cause, detail: str) -> dict:
    """The three promises: the exact cause against the adversary, nobody else affected, no survivors."""
    r, n = run_.adv, run_.normal
    assert (r.cause, r.offender, r.winner) == (cause, 1, 0), r
    assert detail in r.detail, r.detail
    assert r.record is not None and n.record is not None
    end = next(d for d in read(r.record) if d["type"] == "end")
    assert (end["cause"], end["offender"], end["ranks"], end["detail"]) == (str(cause), 1, [0, 1], r.detail)
    assert verify(r.record).ok, verify(r.record).divergence
    assert n.cause is Cause.NORMAL and n.offender is None and n.winner is not None, n
    assert verify(n.record).ok
    assert run_.left == [], f"processes survived: {run_.left}"
    return end


CASES = [
    # (id, adversary args, cause, detail, clock)
    ("1-never-connects", "noconnect", Cause.NO_HELLO, "no Hello within 1 s", FAST),
    ("2-never-says-hello", "nohello", Cause.NO_HELLO, "no Hello within 1 s", FAST),
    ("3-wrong-protocol-version", "badversion", Cause.NO_HELLO, "protocol_version 1 is not supported", FAST),
    ("4-hangs", "hang", Cause.TIMEOUT, "no reply within 210 ms", Clock(move_ms=100, bank_ms=100, grace_ms=10)),
    ("6-illegal", "illegal", Cause.ILLEGAL, "is not legal", FAST),
    ("7-bad-kind", "badaction kind", Cause.INVALID, "malformed action: bad action kind value 42", FAST),
    ("7-bad-rank", "badaction rank", Cause.INVALID, "malformed action: card has a bad rank value 14", FAST),
    ("7-bad-suit", "badaction suit", Cause.INVALID, "malformed action: bad suit value 7", FAST),
    ("7-unknown-text", "badaction text", Cause.INVALID, "malformed action: the action text has 65 characters (at most 64)", FAST),
    ("7-unknown-text-is-illegal", "badaction unknown", Cause.ILLEGAL, "'bogus' is not legal", FAST),
    ("7-binary-text", "badaction utf8", Cause.INVALID, "is not an action", FAST),
    ("8-wrong-request-id", "wrongid", Cause.INVALID, "wrong request id", FAST),
    ("9-oversized-message", "oversize 100000", Cause.INVALID, "over the 65536-byte limit", FAST),
    ("10-flood", "flood", Cause.INVALID, "unsolicited reply", FAST),
    ("11-exits", "exit", Cause.CRASH, "exited with status 9", FAST),
    ("12-killed-by-signal", "signal", Cause.CRASH, "killed by SIGSEGV", FAST),
]


@pytest.mark.parametrize("args,cause,detail,clock", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_adversary_forfeits_with_its_cause(tmp_path: Path, args: str, cause: Cause, detail: str,
                                           clock: Clock) -> None:
    # 1 s for Hello only where never saying it is the point: a busy machine may take longer to start a bot
    silent = detail.startswith("no Hello within")
    end = check(run(tmp_path, f"{ADVERSARY} {args}", clock=clock, hello_s=1.0 if silent else 30.0),
                cause, detail)
    if cause is Cause.NO_HELLO:
        assert (end["deal_no"], end["decision_no"]) == (0, None)
    else:
        assert end["decision_no"] >= 2  # it played fair at decision 1, then misbehaved


def test_5_slow_on_every_move_until_the_bank_runs_out(tmp_path: Path) -> None:
    clock = Clock(move_ms=40, bank_ms=200, grace_ms=10)
    r = run(tmp_path, f"{ADVERSARY} slow 0.08", clock=clock)
    check(r, Cause.TIMEOUT, "no reply within")
    assert r.adv.record is not None
    deals = [d for d in read(r.adv.record) if d["type"] == "deal"]
    slow = [ms for d in deals for ms in d["ms"] if ms > clock.move_ms]
    assert 2 <= len(slow) <= 8  # each move cost ~40 ms of the bank until it was gone


def test_13_forks_children_then_exits_and_the_whole_group_goes_at_once(tmp_path: Path) -> None:
    r = run(tmp_path, f"{ADVERSARY} forkexit")
    check(r, Cause.CRASH, "exited with status 4")
    assert r.left_after_match == []  # the children were killed when the crash was seen, not at shutdown


def test_14_memory_hog_hits_the_configured_address_space_limit(tmp_path: Path) -> None:
    limits = Limits(address_space_bytes=768 << 20, processes=16)
    r = run(tmp_path, f"{ADVERSARY} memhog", limits=limits)
    check(r, Cause.CRASH, "MemoryError")  # the machine has far more memory: the limit stopped it


def test_15_cpu_spinner_is_killed_at_the_per_match_cpu_limit(tmp_path: Path) -> None:
    limits = Limits(cpu_s=0.5, processes=16, poll_s=0.05)
    r = run(tmp_path, f"{ADVERSARY} cpuspin", limits=limits)
    check(r, Cause.CRASH, "CPU limit:")
    assert "killed by SIGKILL" in r.adv.detail and r.adv.duration_s < 5


def test_16_megabytes_of_output_keep_only_a_bounded_tail(tmp_path: Path) -> None:
    r = run(tmp_path, f"{ADVERSARY} chatter --at=4")
    check(r, Cause.CRASH, "exited with status 7; stderr: chatter 3 done")
    assert r.stderr_tail_bytes <= TAIL_BYTES and r.adv.record is not None
    tails = next(d for d in read(r.adv.record) if d["type"] == "stderr")["tails"]
    assert len(tails[1]) <= RECORD_TAIL_CHARS and tails[1].endswith("chatter 3 done\n")


def test_17_spy_gets_nothing_of_another_match(tmp_path: Path) -> None:
    dump = tmp_path / "spy.dump"  # written by the bot: outside a sandbox, which would keep it private
    r = run(tmp_path, f"{ADVERSARY} spy --dump={dump}", limits=replace(TEST_LIMITS, sandbox="none"))
    check(r, Cause.INVALID, "wrong request id")
    lines = dump.read_text().splitlines()
    notes = [x[2:] for x in lines if x.startswith("# ")]
    got = [pb.ArenaMessage.FromString(bytes.fromhex(x)) for x in lines if not x.startswith("#")]
    assert any(m.WhichOneof("kind") == "request" for m in got)
    # a second stream with its used token, or with a guessed one, is refused and receives nothing
    assert [n for n in notes if n.startswith("probe")] == [n for n in notes if n.endswith("UNAUTHENTICATED")]
    assert len([n for n in notes if n.startswith("probe")]) == 2
    ids = set()
    for m in got:
        kind = m.WhichOneof("kind")
        inner = getattr(m, kind)
        if getattr(inner, "match_id", ""):
            ids.add(inner.match_id)
        assert b"normal" not in m.SerializeToString()
    assert len(ids) == 1  # one opaque match id, its own: nothing about match "normal"
    normal_decks = {tuple((c.suit, c.rank) for c in m.deal_end.deck) for m in got if m.WhichOneof("kind") == "deal_end"}
    assert len(normal_decks) <= r.adv.deals  # only its own deals' reveals, if any


def test_18_process_limit_kills_a_fork_bomb(tmp_path: Path) -> None:
    limits = Limits(processes=8, poll_s=0.05)
    r = run(tmp_path, f"{ADVERSARY} forkbomb", limits=limits)
    check(r, Cause.CRASH, "process limit:")


def test_limits_are_applied_to_the_bot_process(tmp_path: Path) -> None:
    code = ("import resource, sys; print(resource.getrlimit(resource.RLIMIT_AS), "
            "resource.getrlimit(resource.RLIMIT_NOFILE), file=sys.stderr)")

    async def go() -> str:
        p = BotProcess(f'python -c "{code}"', {}, limits=Limits(address_space_bytes=GiB, open_files=99))
        await p.start()
        await p.wait_exit(10)
        await p.stop(0.1)
        return p.stderr_tail()

    assert asyncio.run(go()).strip() == f"({GiB}, {GiB}) (99, 99)"


def test_a_missing_program_is_still_an_oserror_at_start() -> None:
    async def go() -> None:
        await BotProcess("no-such-program-here --x", {}, limits=Limits()).start()

    with pytest.raises(OSError, match="not found"):
        asyncio.run(go())


@pytest.mark.parametrize("kw", [{"open_files": 0}, {"cpu_s": 0}, {"processes": -1}, {"address_space_bytes": 1.5}])
def test_bad_limits_are_refused_in_one_line(kw: dict) -> None:
    with pytest.raises(ValueError, match="limit"):
        Limits(**kw)


# -- breaking out (issue 11): the sandbox stops each attempt, the match records it -----------------


@pytest.fixture
def outside() -> Iterator[Path]:
    """A scratch directory outside /tmp (which the sandbox hides anyway), so that what hides a path
    there is the arena's own rule and not the private /tmp."""
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else str(ROOT)
    d = Path(tempfile.mkdtemp(prefix="arena-test-", dir=base))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def blocked(run_: Run, what: str) -> str:
    """The adversary's attempt failed: a CRASH whose detail is its ``blocked: ...`` line."""
    check(run_, Cause.CRASH, f"exited with status 1; stderr: blocked: {what}")
    assert "BREACH" not in run_.adv.detail
    return run_.adv.detail


def secret_db(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("create table keys (secret text)")
        db.execute("insert into keys values ('hunter2')")
    return path


@pytest.mark.needs("sandbox")
def test_19_reading_the_database_fails(tmp_path: Path, outside: Path) -> None:
    db = secret_db(outside / "db" / "arena.db")
    sandbox.keep_private(db.parent)  # what `arena tournament` and the league do with their db's directory
    detail = blocked(run(tmp_path, f"{ADVERSARY} readfile {db}"), f"read {db}")
    assert "FileNotFoundError" in detail  # the directory is empty in the sandbox


@pytest.mark.needs("sandbox")
def test_20_reading_home_fails(tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("secret")
    monkeypatch.setenv("HOME", str(home))
    detail = blocked(run(tmp_path, f"{ADVERSARY} readfile {home / '.ssh' / 'id_ed25519'}"), "read")
    assert "FileNotFoundError" in detail


@pytest.mark.needs("sandbox")
def test_21_reading_another_bots_directory_fails(tmp_path: Path) -> None:
    other = ROOT / "tests" / "bots" / "testbot.py"  # the opponent's own file
    assert other.exists()
    detail = blocked(run(tmp_path, f"{ADVERSARY} readfile {other}"), f"read {other}")
    assert "FileNotFoundError" in detail


@pytest.mark.needs("sandbox")
@pytest.mark.parametrize("where", ["own-directory", "out-directory", "home"])
def test_22_writing_outside_tmp_fails(tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch,
                                      where: str) -> None:
    out = outside / "results"
    out.mkdir()
    sandbox.keep_private(out)  # what `arena match --out` and `arena tournament` do
    monkeypatch.setenv("HOME", str(outside / "home"))
    (outside / "home").mkdir()
    name = f"pwned-{secrets.token_hex(4)}"
    target = {"own-directory": ROOT / "tests" / "adversaries" / name, "out-directory": out / name,
              "home": outside / "home" / name}[where]
    detail = blocked(run(tmp_path, f"{ADVERSARY} writefile {target}"), f"write {target}")
    assert "Read-only file system" in detail and not target.exists()


@pytest.mark.needs("sandbox")
def test_23_tcp_to_the_hosts_loopback_fails(tmp_path: Path) -> None:
    with socket.socket() as listener:  # a real listener on the host's loopback
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        detail = blocked(run(tmp_path, f"{ADVERSARY} tcp {port}"), f"tcp 127.0.0.1:{port}")
    assert "ConnectionRefusedError" in detail or "Network is unreachable" in detail


def marked(mark: str) -> list[int]:
    """Live processes whose command line contains ``mark`` (read from the host's /proc)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and mark.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))
        except OSError:
            continue
    return found


@pytest.mark.needs("sandbox")
def test_24_a_setsid_child_dies_with_the_bot(tmp_path: Path) -> None:
    mark = f"adv-setsid-{secrets.token_hex(6)}"
    r = run(tmp_path, f"{ADVERSARY} setsid {mark}")
    check(r, Cause.CRASH, "exited with status 5")
    assert r.left_after_match == [] and marked(mark) == []  # gone when the crash was seen, not at shutdown


@pytest.mark.needs("sandbox")
def test_25_a_fork_bomb_in_new_sessions_hits_the_process_limit(tmp_path: Path) -> None:
    r = run(tmp_path, f"{ADVERSARY} forkbomb setsid", limits=replace(TEST_LIMITS, processes=8))
    check(r, Cause.CRASH, "process limit:")
    assert "(limit 8)" in r.adv.detail


@pytest.mark.needs("sandbox")
def test_26_tmp_is_private_and_vanishes(tmp_path: Path) -> None:
    target = f"/tmp/arena-adv-{secrets.token_hex(4)}"
    r = run(tmp_path, f"{ADVERSARY} writefile {target}")
    check(r, Cause.CRASH, f"exited with status 66; stderr: BREACH: write {target}")  # /tmp is writable inside...
    assert not os.path.exists(target)  # ...and private: nothing reached the host's /tmp
