"""The league end to end: a real `arena league serve` process, real bot processes, real gRPC on
127.0.0.1, a real SQLite file. Rounds, move limits and the reconnection grace are kept short."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from harness.wire import arena_pb2 as pb
from harness.wire import league_pb2 as lpb
from harness.wire import league_pb2_grpc as lpb_grpc

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot.py")
LEAGUE_BOT = str(ROOT / "tests" / "bots" / "leaguebot.py")
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
# the entrant id of player 0 and of player 1 of a match row (the league stores one seats row per player)
P0 = "(SELECT entrant FROM seats s WHERE s.match_id = matches.match_id AND s.player = 0)"
P1 = "(SELECT entrant FROM seats s WHERE s.match_id = matches.match_id AND s.player = 1)"


def wait_for(what: str, pred: Callable[[], Any], timeout: float = 30.0, step: float = 0.05) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what}")


class Proc:
    """A child process whose output lines are collected by a thread."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.argv = argv
        self.p = subprocess.Popen(argv, cwd=ROOT, env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, start_new_session=True)
        self.lines: list[str] = []
        self._t = threading.Thread(target=self._pump, daemon=True)
        self._t.start()

    def _pump(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.lines.append(line.rstrip("\n"))

    def text(self) -> str:
        return "\n".join(self.lines)

    def wait_line(self, needle: str, timeout: float = 20.0) -> str:
        return wait_for(f"{needle!r} in output of {self.argv}",
                        lambda: next((ln for ln in self.lines if needle in ln), None), timeout)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, sig)
            except ProcessLookupError:
                pass
        self.p.wait(10)
        self._t.join(5)


class League:
    """`python -m harness.cli league serve ...` on a free loopback port."""

    def __init__(self, tmp: Path, *extra: str, tls: tuple[Path, Path] | None = None, grace: float = 1.0,
                 every: float = 0.2) -> None:
        self.tmp, self.db, self.out = tmp, tmp / "league.db", tmp / "out"
        self.tls = tls
        argv = [PY, "-m", "harness.cli", "league", "serve", "--listen", "127.0.0.1:0", "--db", str(self.db),
                "--out", str(self.out), "--round-every", str(every), "--reconnect-grace", str(grace),
                "--move-time", "0.5", "--time-bank", "2", "--stop-grace", "5", *extra]
        if tls:
            argv += ["--tls-cert", str(tls[0]), "--tls-key", str(tls[1])]
        self.proc = Proc(argv)
        line = self.proc.wait_line("listening on")
        self.address = line.split("listening on ")[1].split()[0]
        self.channel = self._channel()
        self.stub = lpb_grpc.LeagueServiceStub(self.channel)

    def _channel(self) -> grpc.Channel:
        if self.tls:
            return grpc.secure_channel(self.address, grpc.ssl_channel_credentials(self.tls[0].read_bytes()))
        return grpc.insecure_channel(self.address)

    def register(self, name: str, owner: str = "tester", secret: str = "") -> lpb.RegisterResponse:
        return self.stub.Register(lpb.RegisterRequest(name=name, owner=owner, owner_secret=secret), timeout=10)

    def board(self, include_retired: bool = False) -> lpb.Leaderboard:
        return self.stub.GetLeaderboard(lpb.GetLeaderboardRequest(include_retired=include_retired), timeout=10)

    def row(self, entrant: str) -> lpb.LeaderboardRow:
        """``entrant``'s row of the leaderboard (retired entrants included)."""
        found = next((r for r in self.board(True).rows if r.entrant == entrant), None)
        assert found is not None, f"{entrant} is not on the leaderboard"
        return found

    def bot(self, token: str, *extra: str, script: str = RANDOM_BOT) -> Proc:
        return Proc([PY, script, "--arena", self.address, "--token", token, *extra])

    def league_bot(self, token: str, mode: str, *args: str) -> Proc:
        env = {**ENV, "ARENA_ADDRESS": self.address, "ARENA_TOKEN": token}
        if self.tls:
            env["ARENA_TLS_CA"] = str(self.tls[0])
        return Proc([PY, LEAGUE_BOT, mode, *args], env)

    def stop(self) -> int:
        self.channel.close()
        self.proc.kill(signal.SIGTERM)
        return self.proc.p.returncode

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        db = sqlite3.connect(self.db)
        try:
            return db.execute(sql, params).fetchall()
        finally:
            db.close()


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for p in reversed(started):
        p.kill()
        print(f"--- {' '.join(p.argv)[-120:]} (exit {p.p.returncode})\n" + "\n".join(p.lines[-30:]))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "harness.cli", "league", *args], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=30)


class Watcher:
    """WatchLeaderboard in a thread, keeping every board pushed."""

    def __init__(self, league: League) -> None:
        self.boards: list[lpb.Leaderboard] = []
        self.call = league.stub.WatchLeaderboard(lpb.WatchLeaderboardRequest())
        self._t = threading.Thread(target=self._pump, daemon=True)
        self._t.start()

    def _pump(self) -> None:
        try:
            for b in self.call:
                self.boards.append(b)
        except grpc.RpcError:
            pass

    def close(self) -> None:
        self.call.cancel()


def test_bots_join_play_reconnect_and_impostors_are_refused(tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path)
    procs.append(lg.proc)
    reg = cli("register", "--league", lg.address, "--name", "alpha", "--owner", "tester")
    assert reg.returncode == 0, reg.stderr
    lines = reg.stdout.splitlines()
    tokens = {"alpha": next(ln.split()[1] for ln in lines if ln.startswith("token:"))}
    secret = next(ln.split()[2] for ln in lines if ln.startswith("owner secret:"))
    for name in ("beta", "gamma"):
        tokens[name] = lg.register(name, secret=secret).token
    # someone else cannot register under this owner without its secret
    with pytest.raises(grpc.RpcError) as e:
        lg.register("delta")
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    first = lg.board()
    assert [r.entrant for r in first.rows] == ["tester/alpha@1", "tester/beta@1", "tester/gamma@1"]
    assert all(r.provisional and r.played == 0 and not r.connected for r in first.rows)

    watcher = Watcher(lg)
    bots = {n: lg.bot(t, "--name", n) for n, t in tokens.items()}
    procs.extend(bots.values())
    # a fourth bot presents a stolen name with a wrong token: refused, nothing recorded for it
    thief = lg.bot(tokens["alpha"][:-4] + "AAAA", "--name", "alpha")
    procs.append(thief)
    assert thief.p.wait(20) == 1
    assert "UNAUTHENTICATED" in thief.text()
    # rounds run and the leaderboard is pushed after each
    wait_for("three boards with matches", lambda: len([b for b in watcher.boards if b.matches]) >= 3, 60)
    counts = [b.matches for b in watcher.boards]
    assert counts == sorted(counts) and counts[-1] > counts[0]
    wait_for("every bot connected", lambda: all(r.connected for r in lg.board().rows))
    # a second connection with the same token is refused while the first is alive
    twin = lg.bot(tokens["beta"], "--name", "beta-twin")
    procs.append(twin)
    assert twin.p.wait(20) == 1
    assert "ALREADY_EXISTS" in twin.text()
    # beta drops, then reconnects with its token and plays on
    bots["beta"].kill()
    wait_for("beta seen as gone", lambda: not lg.row("tester/beta@1").connected, 20)
    played = lg.row("tester/beta@1").played
    again = lg.bot(tokens["beta"], "--name", "beta")
    procs.append(again)
    wait_for("beta back", lambda: lg.row("tester/beta@1").connected, 20)
    wait_for("beta plays again", lambda: lg.row("tester/beta@1").played > played, 60)
    watcher.close()

    # the impostor left no trace; the files match the service
    assert sorted(r.entrant for r in lg.board().rows) == [r.entrant for r in first.rows]
    assert lg.rows("SELECT COUNT(*) FROM entrants") == [(3,)]
    doc = json.loads((lg.out / "leaderboard.json").read_text())
    assert {s["name"] for s in doc["standings"]} == {r.entrant for r in first.rows}
    assert doc["matches"] and all("provisional" in s for s in doc["standings"])
    assert (lg.out / "leaderboard.md").read_text().startswith("# Sixty-Six league")
    assert "<html" in (lg.out / "leaderboard.html").read_text()
    finished = lg.rows("SELECT COUNT(*) FROM matches WHERE finished IS NOT NULL AND cause != 'interrupted'")[0][0]
    assert finished >= lg.board().matches > 0
    # the owner retires gamma; a wrong token cannot
    with pytest.raises(grpc.RpcError) as e:
        lg.stub.Retire(lpb.RetireRequest(owner="tester", name="gamma", token=tokens["alpha"]), timeout=10)
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    out = cli("retire", "--league", lg.address, "--owner", "tester", "--name", "gamma", "--token", tokens["gamma"])
    assert out.returncode == 0 and "retired tester/gamma@1" in out.stdout
    assert "tester/gamma@1" not in [r.entrant for r in lg.board().rows]
    assert bots["gamma"].p.wait(20) == 0  # told Goodbye
    shown = cli("leaderboard", "--league", lg.address, "--all")
    assert shown.returncode == 0 and "alpha" in shown.stdout and "retired" in shown.stdout
    assert lg.stop() == 0


def test_disconnect_mid_match_forfeits_after_grace_and_a_quick_rejoin_plays_on(
        tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path, grace=1.0)
    procs.append(lg.proc)
    hang = lg.register("hang")
    steady = lg.register("steady", secret=hang.owner_secret)
    procs.append(lg.league_bot(hang.token, "hangup", "5"))
    procs.append(lg.league_bot(steady.token, "random"))
    rows = wait_for("two forfeits by hang", lambda: len(lg.rows(
        "SELECT cause, offender, detail, duration_s FROM matches WHERE cause = 'disconnect'")) >= 2 and lg.rows(
        f"SELECT cause, offender, detail, duration_s, {P0} FROM matches WHERE finished IS NOT NULL"), 60)
    hang_id = lg.rows("SELECT id FROM entrants WHERE name = 'hang'")[0][0]
    cause, offender, detail, duration, p0 = rows[0]
    assert cause == "disconnect" and (p0 == hang_id) == (offender == 0)
    assert duration >= 1.0 and "no reconnection within 1 s" in detail
    assert lg.row(hang.entrant).failures["disconnect"] >= 2

    # a bot that drops at decision 5 and reconnects within the grace finishes the match normally
    rejoiner = lg.register("rejoiner", secret=hang.owner_secret)
    bot = lg.league_bot(rejoiner.token, "rejoin", "5")
    procs.append(bot)
    bot.wait_line("rejoined", 60)
    line = bot.wait_line("match_end", 30)
    assert line.endswith("TERMINATION_NORMAL"), bot.text()
    assert lg.stop() == 0


def test_stale_request_ids_never_reach_another_seat(tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path)
    procs.append(lg.proc)
    a = lg.register("stale")
    b = lg.register("honest", secret=a.owner_secret)
    procs.append(lg.league_bot(a.token, "stale"))
    procs.append(lg.league_bot(b.token, "random"))
    wait_for("a pair of matches", lambda: lg.board().matches >= 2, 60)
    stale_id = lg.rows("SELECT id FROM entrants WHERE name = 'stale'")[0][0]
    (cause, offender, p0, p1, detail), *rest = lg.rows(
        f"SELECT cause, offender, {P0}, {P1}, detail FROM matches WHERE finished IS NOT NULL ORDER BY seq")
    # the stale replies only ever reach the stale bot's own session, which forfeits for them (and its stream
    # is closed, so it also loses the return leg); the honest bot is never charged with anything
    assert cause == "invalid" and (p0, p1)[offender] == stale_id and "already answered" in detail, detail
    assert all((p0, p1)[off] == stale_id for _, off, p0, p1, _ in rest)
    assert lg.stop() == 0


def test_restart_keeps_records_and_ratings(tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path, "--stop-grace", "0")
    procs.append(lg.proc)
    a = lg.register("one")
    b = lg.register("two", secret=a.owner_secret)
    for r in (a, b):
        procs.append(lg.league_bot(r.token, "slow", "0.004"))
    watcher = Watcher(lg)
    wait_for("a few matches", lambda: lg.board().matches >= 2, 60)
    seen = len(watcher.boards)
    wait_for("the next round to start", lambda: len(watcher.boards) > seen, 60)
    time.sleep(0.2)  # the next round is in flight
    watcher.close()
    assert lg.stop() == 0
    assert "interrupted by this stop" in lg.proc.text()
    causes = dict(lg.rows("SELECT cause, COUNT(*) FROM matches GROUP BY cause"))
    assert causes.get("interrupted", 0) >= 1 and causes.get("normal", 0) >= 2
    assert lg.rows("SELECT COUNT(*) FROM matches WHERE finished IS NULL") == [(0,)]
    before = json.loads((lg.out / "leaderboard.json").read_text())

    again = League(tmp_path, every=60)  # no new round before we look
    procs.append(again.proc)
    after = again.board(include_retired=True)
    assert after.matches == causes["normal"] == len(before["matches"])
    by_name = {s["name"]: s for s in before["standings"]}
    for row in after.rows:
        s = by_name[row.entrant]
        assert (row.mu, row.sigma, row.played, row.wins) == (pytest.approx(s["mu"]), pytest.approx(s["sigma"]),
                                                     s["played"], s["wins"])
    assert again.stop() == 0


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def test_tls_bots_connect_and_plaintext_is_refused(tmp_path: Path, procs: list[Proc]) -> None:
    cert, key = _self_signed(tmp_path)
    lg = League(tmp_path, tls=(cert, key))
    procs.append(lg.proc)
    added = cli("add", "--db", str(lg.db), "--name", "greedy", "--command", f"python {ROOT}/sample_bots/greedy_bot.py")
    assert added.returncode == 0, added.stderr
    reg = cli("register", "--league", lg.address, "--name", "secure", "--owner", "tls", "--tls-ca", str(cert))
    assert reg.returncode == 0, reg.stderr
    token = next(ln.split()[1] for ln in reg.stdout.splitlines() if ln.startswith("token:"))
    plain = cli("register", "--league", lg.address, "--name", "plain", "--owner", "tls2", "--timeout", "3")
    assert plain.returncode == 1 and "UNAVAILABLE" in plain.stderr
    refused = lg.bot(token, "--connect-timeout", "2")  # no --tls-ca: plaintext
    procs.append(refused)
    assert refused.p.wait(20) == 1 and "cannot connect" in refused.text()
    ok = lg.bot(token, "--tls-ca", str(cert))
    procs.append(ok)
    wait_for("matches over TLS", lambda: lg.board().matches >= 2, 60)
    rows = {r.entrant: r for r in lg.board().rows}
    assert rows["tls/secure@1"].played >= 2 and rows["operator/greedy@1"].operator
    assert lg.rows("SELECT DISTINCT cause FROM matches WHERE finished IS NOT NULL") == [("normal",)]
    assert lg.stop() == 0


def test_health_reflection_and_abuse(tmp_path: Path, procs: list[Proc]) -> None:
    # no pair cap in reach: a and b must keep meeting however many rounds fit in the abuse below (the
    # default cap, 24 a day, is 12 rounds of this pair, which a fast machine plays before the check)
    lg = League(tmp_path, "--max-message-bytes", "4096", "--register-rate", "6", "--connect-rate", "16",
                "--pair-cap-per-day", "100000")
    procs.append(lg.proc)
    health = health_pb2_grpc.HealthStub(lg.channel)
    for service in ("", "arena.v1.BotArena", "arena.v1.LeagueService"):
        got = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert got.status == health_pb2.HealthCheckResponse.SERVING
    refl = reflection_pb2_grpc.ServerReflectionStub(lg.channel)
    answer = next(iter(refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))))
    names = {s.name for s in answer.list_services_response.service}
    assert {"arena.v1.BotArena", "arena.v1.LeagueService", "grpc.health.v1.Health"} <= names

    a = lg.register("a")
    b = lg.register("b", secret=a.owner_secret)
    procs += [lg.bot(a.token), lg.bot(b.token)]
    wait_for("matches", lambda: lg.board().matches >= 2, 60)

    # oversized messages are rejected by the configured limit
    with pytest.raises(grpc.RpcError) as e:
        lg.register("x" * 10_000, secret=a.owner_secret)
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # malformed or unexpected messages close that stream with a clear status
    play = lg.channel.stream_stream("/arena.v1.BotArena/Play", request_serializer=None, response_deserializer=None)
    c = lg.register("c", secret=a.owner_secret)
    hello = pb.BotMessage(hello=pb.Hello(name="c", protocol_version=2, games=["sixtysix"], token=c.token))
    v1 = pb.BotMessage(hello=pb.Hello(name="c", protocol_version=1, games=["sixtysix"], token=c.token))
    other = pb.BotMessage(hello=pb.Hello(name="c", protocol_version=2, games=["schnapsen"], token=c.token))
    for msgs, code, words in (
        ([v1.SerializeToString()], grpc.StatusCode.FAILED_PRECONDITION, "protocol_version 1 is not supported"),
        ([other.SerializeToString()], grpc.StatusCode.FAILED_PRECONDITION, "this league plays sixtysix"),
        ([b"\xff\xffnot protobuf"], grpc.StatusCode.INVALID_ARGUMENT, "does not decode"),
        ([hello.SerializeToString(), b"\xff\xffnot protobuf"], grpc.StatusCode.INVALID_ARGUMENT, "undecodable"),
        ([hello.SerializeToString(), hello.SerializeToString()], grpc.StatusCode.INVALID_ARGUMENT, "expected a Reply"),
    ):
        def slow_iter(msgs: list[bytes] = msgs) -> Iterator[bytes]:
            for m in msgs:
                yield m
                time.sleep(0.2)
            time.sleep(5)
        with pytest.raises(grpc.RpcError) as e:
            list(play(slow_iter(), timeout=10))
        assert e.value.code() == code and words in (e.value.details() or ""), (e.value.code(), e.value.details())
    # floods are rate-limited per host
    codes = []
    for i in range(10):
        try:
            lg.register(f"flood{i}", secret=a.owner_secret)
            codes.append("ok")
        except grpc.RpcError as err:
            codes.append(err.code().name)
    assert "RESOURCE_EXHAUSTED" in codes
    refused = []
    for _ in range(20):
        try:
            list(play(iter([b"\x00"]), timeout=5))
        except grpc.RpcError as err:
            refused.append(err.code())
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in refused
    # none of it harmed the match play: it goes on, and every match is recorded
    ids = [r[0] for r in lg.rows("SELECT id FROM entrants WHERE name IN ('a', 'b')")]

    def normal_ab() -> int:
        return lg.rows(f"SELECT COUNT(*) FROM matches WHERE cause = 'normal' AND {P0} IN (?, ?) "
                       f"AND {P1} IN (?, ?)", *ids, *ids)[0][0]

    n = normal_ab()
    wait_for("more matches between a and b", lambda: normal_ab() > n, 60)
    for p0, p1, cause, offender in lg.rows(
            f"SELECT {P0}, {P1}, cause, offender FROM matches WHERE finished IS NOT NULL"):
        assert cause == "normal" or (p0, p1)[offender] not in ids, (p0, p1, cause, offender)  # only the abuser forfeits
    assert lg.stop() == 0


def test_the_pair_cap_limits_matches_per_pair_per_day(tmp_path: Path, procs: list[Proc]) -> None:
    lg = League(tmp_path, "--pair-cap-per-day", "2", every=0.1)
    procs.append(lg.proc)
    a = lg.register("a")
    b = lg.register("b", secret=a.owner_secret)
    procs += [lg.bot(a.token), lg.bot(b.token)]
    wait_for("one duplicate pair", lambda: lg.board().matches >= 2, 60)
    time.sleep(1.0)  # ten more round ticks: the pair has met its cap for today
    assert lg.board().matches == 2 and lg.rows("SELECT COUNT(*) FROM rounds") == [(1,)]
    seeds = lg.rows(f"SELECT seed, {P0}, {P1} FROM matches ORDER BY seq")
    # seats swapped; each leg on deals of its own (issue 11: a league's bots could remember the first)
    assert seeds[0][0] != seeds[1][0] and seeds[0][1:] == seeds[1][2:0:-1]
    assert lg.stop() == 0
