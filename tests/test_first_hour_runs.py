"""Issue 14, the first hour of a new user: items 1, 7, 8, 10 and `arena tournament --dry-run` (11).

Everything runs `python -m harness.cli ...` as a real process: real bot processes over gRPC on
loopback, a real remote bot started by hand with the address and token the arena prints, real SQLite
files, SIGINT sent once, a real league server, a real busy port. Waits are event-based (a line
printed, a row recorded) under generous limits; no assertion depends on how fast the machine is.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

from test_tournament import _env, _wait_gone
from test_tournament import _recorded as recorded

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
RANDOM = "python sample_bots/random_bot.py"
GREEDY = "python sample_bots/greedy_bot.py"
LONG = 600.0  # generous limit for a whole run on a busy machine


def arena(*args: str, mark: str = "none", timeout: float = LONG) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "harness.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=_env(mark))


def one_line(stderr: str) -> str:
    assert stderr.count("\n") == 1 and stderr.startswith("arena: ") and "Traceback" not in stderr, stderr
    return stderr.strip()


def wait_for(what: str, check: Callable[[], bool], timeout: float = LONG) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.05)


class Lines:
    """A process's stdout, read line by line on a thread, for waiting on a line without blocking."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        assert proc.stdout is not None
        stream = proc.stdout
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._q.put(line)
        self._q.put(None)

    def until(self, pattern: str, timeout: float = LONG) -> re.Match[str]:
        end = time.monotonic() + timeout
        while True:
            try:
                line = self._q.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r}; seen: {self.seen[-10:]}") from None
            if line is None:
                raise AssertionError(f"output ended before a line matching {pattern!r}; seen: {self.seen[-10:]}")
            self.seen.append(line)
            if (m := re.search(pattern, line)) is not None:
                return m


def causes(db: Path) -> dict[str, str]:
    con = sqlite3.connect(db, timeout=30)
    try:
        return dict(con.execute("SELECT match_id, cause FROM matches"))
    finally:
        con.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_config(path: Path, name: str, entrants: dict[str, str], **time_: float) -> Path:
    lines = [f'name = "{name}"', "rounds = 1", "concurrency = 1", "[time]", "move = 2.0", "bank = 20.0"]
    lines += [f"{k} = {v}" for k, v in time_.items()]
    lines += ["[limits]", 'sandbox = "none"']
    for n, c in entrants.items():
        lines += ["[[entrant]]", f'name = "{n}"', f'command = "{c}"']
    path.write_text("\n".join(lines) + "\n")
    return path


# -- item 1: remote entrants in a tournament -------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("listen", [False, True])
def test_a_remote_entrant_is_told_its_address_and_token_and_plays_with_them(tmp_path: Path, listen: bool) -> None:
    """The README's config with `remote:alice`: the arena prints the address and token at the start;
    a bot started by hand with them plays every match of alice (none is a forfeit). With --listen, the
    arena listens (and the line says) where it was told."""
    mark = f"remote-{os.getpid()}"
    cfg = write_config(tmp_path / "club.toml", "club", {"greedy": GREEDY, "alice": "remote:alice"}, hello=300)
    where = f"127.0.0.1:{_free_port()}" if listen else None
    proc = subprocess.Popen([PY, "-m", "harness.cli", "tournament", str(cfg), "--db", str(tmp_path / "arena.db"),
                             "--out", str(tmp_path), *(["--listen", where] if where else [])], cwd=ROOT,
                            env=_env(mark), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bot = None
    try:
        m = Lines(proc).until(r"remote entrant alice: start it with ARENA_ADDRESS=(\S+) ARENA_TOKEN=(\S+) "
                              r"\(each match waits 300 s for it\)")
        assert where is None or m.group(1) == where
        bot = subprocess.Popen([PY, "sample_bots/random_bot.py"], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               env={**_env(mark), "ARENA_ADDRESS": m.group(1), "ARENA_TOKEN": m.group(2)})
        assert proc.wait(timeout=LONG) == 0, proc.stderr.read() if proc.stderr else ""
        assert bot.wait(timeout=LONG) == 0  # told Goodbye at the end
    finally:
        for p in (proc, bot):
            if p is not None and p.poll() is None:
                p.kill()
    doc = json.loads((tmp_path / "club" / "leaderboard.json").read_text())
    alice = next(r for r in doc["standings"] if r["name"] == "alice")
    assert alice["played"] == 2 and not any(alice["failures"].values()), alice
    assert set(causes(tmp_path / "arena.db").values()) == {"normal"}
    assert not _wait_gone(mark)


def test_listen_is_checked_in_one_line(tmp_path: Path) -> None:
    bots = ["--bot", f"g={GREEDY}", "--db", str(tmp_path / "a.db"), "--out", str(tmp_path)]
    alone = arena("tournament", *bots, "--bot", f"r={RANDOM}", "--listen", "127.0.0.1:5")
    assert alone.returncode == 2 and "--listen is for remote entrants" in one_line(alone.stderr)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = arena("tournament", *bots, "--bot", "a=remote:alice", "--listen", f"127.0.0.1:{port}")
    assert busy.returncode == 2 and one_line(busy.stderr) == f"arena: port {port} is in use"
    assert not (tmp_path / "a.db").exists() or recorded(tmp_path / "a.db") == []


HELLO = 15  # the wait for the absent remote bot; also the command bot's start-up limit, so not tiny


@pytest.mark.parametrize("how", ["config", "flag"])
def test_a_remote_bot_that_never_connects_is_no_hello_after_the_hello_time(tmp_path: Path, how: str) -> None:
    """`[time] hello` (or `--hello-time`, which overrides it) bounds the wait; the absence is
    `no_hello`, never `crash`."""
    mark = f"absent-{how}-{os.getpid()}"
    cfg = write_config(tmp_path / "club.toml", "club", {"greedy": GREEDY, "alice": "remote:alice"},
                       hello=HELLO if how == "config" else 3600)
    flags = ["--hello-time", str(HELLO)] if how == "flag" else []
    r = arena("tournament", str(cfg), *flags, "--db", str(tmp_path / "arena.db"), "--out", str(tmp_path), mark=mark)
    assert r.returncode == 0, r.stderr
    assert "remote entrant alice: start it with ARENA_ADDRESS=127.0.0.1:" in r.stdout
    assert f"(each match waits {HELLO} s for it)" in r.stdout
    assert set(causes(tmp_path / "arena.db").values()) == {"no_hello"}
    doc = json.loads((tmp_path / "club" / "leaderboard.json").read_text())
    alice = next(row for row in doc["standings"] if row["name"] == "alice")
    assert alice["failures"]["no_hello"] == 2 and alice["failures"]["crash"] == 0, alice["failures"]
    assert "no_hello 2" in r.stdout
    assert not _wait_gone(mark)


def test_one_sigint_stops_a_tournament_waiting_for_a_remote_bot_and_keeps_what_was_recorded(tmp_path: Path) -> None:
    """alice never connects and each match would wait an hour for her; after the two matches without
    her are recorded, one SIGINT stops the run: one line with the resume command, exit 130, the two
    matches kept, no bot left behind; the stopped tournament is listed and a re-run is refused."""
    mark = f"sigint-{os.getpid()}"
    cfg = write_config(tmp_path / "club.toml", "club", {"alice": "remote:alice", "a": RANDOM, "b": GREEDY},
                       hello=3600)
    db = tmp_path / "arena.db"
    proc = subprocess.Popen([PY, "-m", "harness.cli", "tournament", str(cfg), "--db", str(db), "--out",
                             str(tmp_path)], cwd=ROOT, env=_env(mark), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = Lines(proc)
        lines.until(r"remote entrant alice: start it with ARENA_ADDRESS=\S+ ARENA_TOKEN=\S+")
        wait_for("the two matches without alice", lambda: len(recorded(db)) >= 2 or proc.poll() is not None)
        assert proc.poll() is None
        kept = recorded(db)
        proc.send_signal(signal.SIGINT)
        lines.until(r"stopped with 4 matches to play; resume with:")
        lines.until(r"arena tournament .*club\.toml .*--resume")
        assert proc.wait(timeout=LONG) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    assert kept == recorded(db) and len(kept) == 2  # nothing recorded was lost, nothing half-played added
    assert set(causes(db).values()) == {"normal"}
    assert not _wait_gone(mark)
    listing = arena("tournaments", "--db", str(db))
    assert listing.returncode == 0 and re.search(r"club\s+sixtysix\s+stopped\s+2/6", listing.stdout), listing.stdout
    again = arena("tournament", str(cfg), "--db", str(db), "--out", str(tmp_path))
    assert again.returncode == 2 and again.stdout == ""
    assert "was stopped with 2 of 6 matches played; continue it with --resume" in one_line(again.stderr)


# -- item 7: results are never overwritten or duplicated -------------------------------------------


def test_each_tournament_has_its_own_leaderboards_and_a_name_is_used_once(tmp_path: Path) -> None:
    db, out = tmp_path / "arena.db", tmp_path / "results"
    base = ["--bot", f"r={RANDOM}", "--bot", f"g={GREEDY}", "--limit", "sandbox=none", "--db", str(db),
            "--out", str(out)]
    for name in ("one", "two"):
        r = arena("tournament", *base, "--name", name)
        assert r.returncode == 0, r.stderr
        assert f"{out / name / 'leaderboard.html'}" in r.stdout
    assert not (out / "leaderboard.json").exists()
    for name in ("one", "two"):
        assert json.loads((out / name / "leaderboard.json").read_text())["tournament"]["name"] == name
    before = digest(db), digest(out / "one" / "leaderboard.json")
    # a finished config run again: refused, nothing written, says what to do instead
    again = arena("tournament", *base, "--name", "one")
    assert again.returncode == 2 and again.stdout == ""
    line = one_line(again.stderr)
    assert "tournament 'one'" in line and "is finished (2 matches" in line and "another name" in line
    # --resume of a name that is not there: refused
    unknown = arena("tournament", *base, "--name", "three", "--resume")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert "no tournament named 'three'" in one_line(unknown.stderr) and "without --resume" in unknown.stderr
    assert (digest(db), digest(out / "one" / "leaderboard.json")) == before
    # the listing
    listing = arena("tournaments", "--db", str(db))
    assert listing.returncode == 0, listing.stderr
    for tid, name in ((1, "one"), (2, "two")):
        assert re.search(rf"\b{tid}\s+{name}\s+sixtysix\s+finished\s+2/2\s+\d{{4}}-\d\d-\d\d \d\d:\d\d", listing.stdout)
    # --tournament takes a name or an id, and names an unknown one in one line
    by_name = arena("leaderboard", "--db", str(db), "--out", str(tmp_path / "again"), "--tournament", "two")
    assert by_name.returncode == 0, by_name.stderr
    assert json.loads((tmp_path / "again" / "two" / "leaderboard.json").read_text())["tournament"]["name"] == "two"
    by_id = arena("leaderboard", "--db", str(db), "--out", str(tmp_path / "again"), "--tournament", "1")
    assert by_id.returncode == 0 and (tmp_path / "again" / "one" / "leaderboard.json").exists()
    missing = arena("leaderboard", "--db", str(db), "--tournament", "club2")
    assert missing.returncode == 2 and "no tournament named 'club2'" in one_line(missing.stderr)
    empty = arena("tournaments", "--db", str(tmp_path / "none.db"))
    assert empty.returncode == 2 and "no results database" in one_line(empty.stderr)


def test_two_matches_of_the_same_bots_and_seed_at_once_keep_both_records(tmp_path: Path) -> None:
    mark = f"records-{os.getpid()}"
    cmd = [PY, "-m", "harness.cli", "match", RANDOM, GREEDY, "--seed", "5", "--out", str(tmp_path), "--no-live"]
    procs = [subprocess.Popen(cmd, cwd=ROOT, env=_env(mark), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=LONG) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    from harness.arena.record import verify

    paths = sorted(tmp_path.glob("*.jsonl"))
    assert [p.name for p in paths] == ["random_bot-vs-greedy_bot-s5.2.jsonl", "random_bot-vs-greedy_bot-s5.jsonl"]
    assert all(verify(p).ok for p in paths)
    shown = sorted(next(str(p) for p in paths if f"record:{p}" in "".join(o.split())) for o, _ in outs)
    assert shown == [str(p) for p in paths], outs  # each run names its own record
    assert not _wait_gone(mark)


# -- item 8: a busy port, a second league server ---------------------------------------------------


@pytest.fixture
def busy_port() -> Iterator[int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    yield s.getsockname()[1]
    s.close()


def test_a_port_in_use_is_one_line(tmp_path: Path, busy_port: int) -> None:
    listen = f"127.0.0.1:{busy_port}"
    match = arena("match", RANDOM, GREEDY, "--listen", listen, "--out", str(tmp_path / "m"))
    assert match.returncode == 2 and match.stdout == ""
    assert one_line(match.stderr) == f"arena: port {busy_port} is in use"
    assert not (tmp_path / "m").exists()
    league = arena("league", "serve", "--listen", listen, "--db", str(tmp_path / "league.db"), "--out",
                   str(tmp_path / "lg"))
    assert league.returncode == 2 and league.stdout == ""
    assert one_line(league.stderr) == f"arena: port {busy_port} is in use"


def test_a_second_league_server_on_the_same_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    first = subprocess.Popen([PY, "-m", "harness.cli", "league", "serve", "--listen", "127.0.0.1:0", "--db", str(db),
                              "--out", str(tmp_path / "lg"), "--round-every", "3600"], cwd=ROOT, env=_env("lg1"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        Lines(first).until(r"listening on 127\.0\.0\.1:\d+")
        before = digest(db)
        second = arena("league", "serve", "--listen", "127.0.0.1:0", "--db", str(db), "--out", str(tmp_path / "lg2"))
        assert second.returncode == 2 and second.stdout == ""
        line = one_line(second.stderr)
        assert f"league database '{db}' is already being served by process {first.pid}" in line, line
        assert digest(db) == before and not (tmp_path / "lg2").exists()
        assert first.poll() is None  # the first one serves on
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=LONG)
    # once the first has stopped, the database can be served again
    third = subprocess.Popen([PY, "-m", "harness.cli", "league", "serve", "--listen", "127.0.0.1:0", "--db", str(db),
                              "--out", str(tmp_path / "lg")], cwd=ROOT, env=_env("lg3"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        Lines(third).until(r"listening on 127\.0\.0\.1:\d+")
    finally:
        third.send_signal(signal.SIGTERM)
        assert third.wait(timeout=LONG) == 0


# -- item 10: one preflight for match, tournament and league add -----------------------------------

BAD = [
    ("remote:bad name", "bad remote bot name 'bad name'"),
    ("pythn sample_bots/random_bot.py", "cannot start 'pythn sample_bots/random_bot.py': 'pythn' not found"),
    ("python sample_bots/no_such_bot.py", "cannot start 'python sample_bots/no_such_bot.py': no file "
                                          "'sample_bots/no_such_bot.py'"),
    ("node sample_bots/node/missing.js", "no file 'sample_bots/node/missing.js'"),
]


# league add takes commands only (remote bots register themselves): no remote case for it
PREFLIGHT = [pytest.param(command, spec, problem, id=f"{command.replace(' ', '-')}-{name}",
                          marks=[pytest.mark.needs("node")] if spec.startswith("node") else [])
             for command in ("match", "tournament", "league add")
             for name, (spec, problem) in zip(["remote-name", "typo", "no-script", "no-node-script"], BAD)
             if not (command == "league add" and spec.startswith("remote:"))]


@pytest.mark.parametrize("command,spec,problem", PREFLIGHT)
def test_one_preflight_refuses_a_bad_bot_before_anything_starts(tmp_path: Path, command: str, spec: str,
                                                                problem: str) -> None:
    out = tmp_path / "out"
    if command == "match":
        r = arena("match", RANDOM, spec, "--out", str(out), "--no-live")
    elif command == "tournament":
        r = arena("tournament", "--bot", f"r={RANDOM}", "--bot", f"x={spec}", "--db", str(out / "arena.db"),
                  "--out", str(out))
    else:
        r = arena("league", "add", "--db", str(out / "league.db"), "--name", "x", "--command", spec)
    assert r.returncode == 2 and r.stdout == "", r
    assert problem in one_line(r.stderr)
    assert not out.exists()  # no record, no database: nothing started


@pytest.mark.parametrize("command", ["match", "tournament", "league add"])
def test_one_preflight_refuses_a_bad_name(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    if command == "match":  # names come from the commands; a remote bot's name is checked
        r = arena("match", RANDOM, "remote:../x", "--out", str(out), "--no-live")
    elif command == "tournament":
        r = arena("tournament", "--bot", f"r={RANDOM}", "--bot", f"a b={RANDOM}", "--db", str(out / "arena.db"),
                  "--out", str(out))
    else:
        r = arena("league", "add", "--db", str(out / "league.db"), "--name", "a b", "--command", RANDOM)
    assert r.returncode == 2 and r.stdout == "" and "name" in one_line(r.stderr), r
    assert not out.exists()


# -- item 11: tournament --dry-run -----------------------------------------------------------------


def test_dry_run_starts_each_bot_once_and_plays_nothing(tmp_path: Path) -> None:
    mark = f"dry-{os.getpid()}"
    out = tmp_path / "results"
    cfg = write_config(tmp_path / "club.toml", "club", {
        "random": RANDOM, "greedy": GREEDY, "quits": "python -c 'raise SystemExit(3)'", "alice": "remote:alice"})
    r = arena("tournament", str(cfg), "--dry-run", "--db", str(out / "arena.db"), "--out", str(out), mark=mark)
    assert r.returncode == 1, r
    assert "config ok: 'club', Sixty-Six, 4 entrants, 12 matches" in r.stdout
    assert re.search(r"^  random: ok$", r.stdout, re.M) and re.search(r"^  greedy: ok$", r.stdout, re.M)
    assert re.search(r"^  quits: failed: exited with status 3 before saying Hello", r.stdout, re.M), r.stdout
    assert re.search(r"^  alice: remote: not started here", r.stdout, re.M)
    assert "nothing was played or recorded; 1 entrant failed" in r.stdout
    assert not (out / "arena.db").exists() and not (out / "records").exists()
    assert not _wait_gone(mark)
    # a bot that does not play the game fails too; an all-good field exits 0
    three = tmp_path / "three.toml"
    three.write_text('name = "t"\ngame = "three_handed"\n[limits]\nsandbox = "none"\n'
                     + "".join(f'[[entrant]]\nname = "{n}"\ncommand = "{c}"\n'
                               for n, c in (("r", RANDOM), ("g", GREEDY), ("s", "python sample_bots/search_bot.py"))))
    r = arena("tournament", str(three), "--dry-run", "--out", str(out), mark=mark)
    assert r.returncode == 1 and re.search(r"^  s: failed: .*does not play three_handed", r.stdout, re.M), r.stdout
    good = write_config(tmp_path / "good.toml", "good", {"random": RANDOM, "greedy": GREEDY})
    r = arena("tournament", str(good), "--dry-run", "--out", str(out), mark=mark)
    assert r.returncode == 0 and r.stdout.count(": ok\n") == 2, r
    assert not out.exists()
    bad = arena("tournament", str(tmp_path / "missing.toml"), "--dry-run")
    assert bad.returncode == 2 and "not found" in one_line(bad.stderr)
    assert not _wait_gone(mark)


GATE_BOT = '''"""Waits while the file `hold` next to it exists, then is the random sample bot. Like any bot
that has not connected yet, it would not notice its arena being killed (without the sandbox), so it
leaves when its parent does."""
import os, runpy, sys, time
from pathlib import Path

hold, parent = Path(__file__).with_name("hold"), os.getppid()
while hold.exists():
    if os.getppid() != parent:
        sys.exit(0)
    time.sleep(0.05)
sys.argv = ["random_bot.py", *sys.argv[1:]]
runpy.run_path("sample_bots/random_bot.py", run_name="__main__")
'''


def test_a_run_killed_while_its_bots_start_resumes_and_one_whose_bots_fail_leaves_no_tournament(tmp_path: Path) -> None:
    """The tournament is recorded before its bots start: while they start it is listed as running and a
    second run of it is refused; killed then (SIGKILL), it is listed as not started and --resume plays
    it; a run whose bot cannot start leaves the name free."""
    mark = f"gate-{os.getpid()}"
    (tmp_path / "gate.py").write_text(GATE_BOT)
    (tmp_path / "hold").write_text("")
    db = tmp_path / "arena.db"
    cmd = [PY, "-m", "harness.cli", "tournament", "--name", "gated", "--bot", f"r={RANDOM}", "--bot",
           f"gate=python {tmp_path / 'gate.py'}", "--limit", "sandbox=none", "--hello-time", "3600", "--db", str(db),
           "--out", str(tmp_path)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(mark), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for("the tournament's row, running",
                 lambda: re.search(r"gated\s+sixtysix\s+running\s+0/2", arena("tournaments", "--db", str(db)).stdout)
                 is not None)
        twice = arena(*cmd[3:], "--resume", mark=mark)  # a second writer would play its matches again
        assert twice.returncode == 2
        assert one_line(twice.stderr) == f"arena: tournament 'gated' in '{db}' is running by process {proc.pid}; " \
                                         "stop it (Ctrl-C) before resuming it"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=LONG)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not _wait_gone(mark)
    assert re.search(r"gated\s+sixtysix\s+not started\s+0/2", arena("tournaments", "--db", str(db)).stdout)
    (tmp_path / "hold").unlink()
    done = arena(*cmd[3:], "--resume", mark=mark)
    assert done.returncode == 0, done.stderr
    assert len(recorded(db)) == 2
    assert re.search(r"gated\s+sixtysix\s+finished\s+2/2", arena("tournaments", "--db", str(db)).stdout)
    assert not list(tmp_path.glob("*.lock"))  # the run's lock went with it
    # bots that cannot start: one line, and the name stays free for the corrected run
    bad = arena("tournament", "--name", "next", "--bot", f"r={RANDOM}", "--bot", "q=python -c 'raise SystemExit(3)'",
                "--limit", "sandbox=none", "--db", str(db), "--out", str(tmp_path), mark=mark)
    assert bad.returncode == 2 and "could not start" in one_line(bad.stderr)
    assert "next" not in arena("tournaments", "--db", str(db)).stdout
    assert not _wait_gone(mark)


@pytest.mark.needs("tmux")
def test_in_a_terminal_the_live_view_keeps_the_remote_token_and_one_ctrl_c_stops(tmp_path: Path) -> None:
    """In a real terminal (tmux): the live view shows the remote entrant's address and token while it
    runs, and one Ctrl-C stops the run although a match waits an hour for the remote bot."""
    import shlex

    mark = f"tmux-{os.getpid()}"
    cfg = write_config(tmp_path / "club.toml", "club", {"alice": "remote:alice", "a": RANDOM, "b": GREEDY},
                       hello=3600)
    db = tmp_path / "arena.db"
    run = shlex.join([PY, "-m", "harness.cli", "tournament", str(cfg), "--db", str(db), "--out", str(tmp_path)])
    sock = f"arena-test-{os.getpid()}"
    tmux = ["tmux", "-L", sock]
    root = shlex.quote(str(ROOT))
    script = (f"cd {root} && env -u COLUMNS -u LINES ARENA_TEST_MARK={mark} PYTHONPATH={root} "
              f"{run}; echo EXIT=$?; sleep 3600")
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "-x", "200", "-y", "60", script], check=True)

    def pane() -> str:
        shown = subprocess.run([*tmux, "capture-pane", "-p", "-t", "t"], capture_output=True, text=True).stdout
        return " ".join(shown.split())  # the terminal wraps long lines

    try:
        wait_for("two matches recorded", lambda: len(recorded(db)) >= 2)
        token = re.compile(r"remote entrant alice: start it with ARENA_ADDRESS=127\.0\.0\.1:\d+ ARENA_TOKEN=t\S+")
        wait_for("the live view with the token", lambda: len(token.findall(pane())) >= 2 and "2/6" in pane())
        subprocess.run([*tmux, "send-keys", "-t", "t", "C-c"], check=True)  # once
        wait_for("the run to end", lambda: "EXIT=" in pane())
        shown = pane()
        assert "EXIT=130" in shown and "stopped with 4 matches to play; resume with:" in shown, shown
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    assert len(recorded(db)) == 2
    assert not _wait_gone(mark)


def test_a_config_without_db_keeps_its_database_in_the_out_directory_given(tmp_path: Path) -> None:
    """`arena tournament CONFIG --out DIR` (and `arena demo --out DIR`) must not write results/arena.db."""
    from harness.cli import build_parser
    from harness.tournament.commands import config_from_args

    cfg = write_config(tmp_path / "c.toml", "c", {"a": RANDOM, "b": GREEDY})
    p = build_parser()
    assert config_from_args(p.parse_args(["tournament", str(cfg), "--out", str(tmp_path / "o")])).db == \
        tmp_path / "o" / "arena.db"
    assert config_from_args(p.parse_args(["tournament", str(cfg)])).db == Path("results/arena.db")
    cfg.write_text(cfg.read_text().replace('name = "c"', 'name = "c"\ndb = "elsewhere/x.db"'))
    assert config_from_args(p.parse_args(["tournament", str(cfg), "--out", str(tmp_path / "o")])).db == \
        Path("elsewhere/x.db")


def test_a_run_lock_refuses_a_second_holder_and_goes_with_its_release(tmp_path: Path) -> None:
    from harness import preflight

    db = tmp_path / "x.db"
    first = preflight.hold(db)
    try:
        with pytest.raises(preflight.PreflightError, match=f"already being served by process {os.getpid()}"):
            preflight.hold(db)
        assert preflight.holder(tmp_path / "x.db.lock") == os.getpid()
    finally:
        first.close()
    assert not (tmp_path / "x.db.lock").exists() and preflight.holder(tmp_path / "x.db.lock") is None
    again = preflight.hold(db)  # free again
    again.close()
