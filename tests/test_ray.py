"""A tournament on a Ray cluster (issue 15): harness/tournament/cluster.py.

A real multi-node cluster on this machine (``ray.cluster_utils.Cluster``: a head without CPUs and two
worker nodes of one CPU each, everything on 127.0.0.1), driven by real ``arena tournament --ray ADDRESS``
processes with real sample bots in the sandbox:

* the standings, the record order and the records are those of a local run with the same seed;
* a worker node killed mid-tournament (its raylet SIGKILLed) loses nothing and counts nothing twice;
* a bot command missing on the nodes is refused before the first match, in one line, naming the node;
* ``--resume`` after the driver is SIGKILLed finishes with the standings of an uninterrupted run;
* ``ray://HOST:PORT`` (Ray Client) plays the same tournament;
* bad addresses and a missing Ray are one line each; without ``--ray`` Ray is never imported.

Where Ray cannot start, these tests skip with the reason; ``.ci/run`` sets ARENA_REQUIRE_RAY=1, which
turns that skip into a failure.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.arena.record import verify
from harness.tournament import config as cfgmod
from harness.tournament.cluster import INSTALL
from harness.tournament.schedule import round_robin
from test_tournament import PY, ROOT, _recorded

RANDOM = "python sample_bots/random_bot.py"
GREEDY = "python sample_bots/greedy_bot.py"
BOTS = {"random": RANDOM, "greedy": GREEDY, "random2": RANDOM, "greedy2": GREEDY}
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}  # Ray on 127.0.0.1 only (harness.tournament.cluster.loopback)
# The head's Ray Client proxy forks a server per client while its own gRPC threads run; with gRPC's fork
# handlers on (grpcio's default) the child can die before its exec ("Starting Ray client server failed",
# 3 connections of 18 here; 0 of 28 without them). The README tells cluster owners the same.
NO_FORK_HANDLERS = {"GRPC_ENABLE_FORK_SUPPORT": "0"}
MARK = f"ray-{os.getpid()}"  # in the environment of every cluster process, so of every bot they start


def _unavailable(why: str) -> None:
    if os.environ.get("ARENA_REQUIRE_RAY"):
        pytest.fail(f"Ray is required here (ARENA_REQUIRE_RAY) but {why}")
    pytest.skip(why)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    saved = {k: os.environ.get(k) for k in [*LOOPBACK, *NO_FORK_HANDLERS, "ARENA_TEST_MARK"]}
    os.environ.update(LOOPBACK, **NO_FORK_HANDLERS, ARENA_TEST_MARK=MARK)
    try:
        try:
            from ray.cluster_utils import Cluster
        except ImportError:
            _unavailable("Ray is not installed (pip install -e '.[ray]')")
        client_port = _free_port()  # Ray Client (ray://)
        try:
            # each worker node unpacks the shipped files in a directory of its own, as on separate
            # machines: Ray re-unpacks the working directory for every node that asks, so nodes sharing
            # one (the default on one machine) pull it from under each other's imports ("cannot import
            # name"); the head keeps the default one, where drivers on this machine stage their uploads
            # (Any: the fixture gives it a client_port attribute too)
            c: Any = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1",
                                                                   "include_dashboard": False,
                                                                   "ray_client_server_port": client_port})
            for i in range(2):
                c.add_node(num_cpus=1, node_ip_address="127.0.0.1", runtime_env_dir_name=f"runtime_resources_{i}")
            c.wait_for_nodes()
        except Exception as e:  # noqa: BLE001 - any reason Ray cannot run here
            _unavailable(f"a Ray cluster cannot start here: {' '.join(str(e).split())[:200]}")
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    c.client_port = client_port
    try:
        yield c
    finally:
        c.shutdown()


def _env() -> dict[str, str]:
    return {**os.environ, **LOOPBACK, "ARENA_TEST_MARK": MARK, "PYTHONPATH": str(ROOT)}


def _cmd(out: Path, *extra: str, bots: dict[str, str] = BOTS, name: str = "r") -> list[str]:
    args = [PY, "-m", "harness.cli", "tournament", "--name", name, "--seed", "42", "--move-time", "5",
            "--time-bank", "60", "--db", str(out / "arena.db"), "--out", str(out)]
    for n, command in bots.items():
        args += ["--bot", f"{n}={command}"]
    return [*args, *extra]


def _run(out: Path, *extra: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    out.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(_cmd(out, *extra, **kw), cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return r


def _board(out: Path, name: str = "r") -> dict[str, Any]:
    doc = json.loads((out / name / "leaderboard.json").read_text())
    return {k: doc[k] for k in ("standings", "crosstable", "history", "matches", "rating")}


def _rows(db: Path) -> list[tuple[Any, ...]]:
    """Every recorded match and seat as the store has them, without the wall-clock fields and paths."""
    con = sqlite3.connect(db)
    try:
        cols = [r[1] for r in con.execute("PRAGMA table_info(matches)")]
        keep = [c for c in cols if c not in ("duration_s", "finished", "record")]
        rows = list(con.execute(f"SELECT {', '.join(keep)} FROM matches ORDER BY seq"))
        return rows + list(con.execute("SELECT * FROM seats ORDER BY match_id, player"))
    finally:
        con.close()


def _records(db: Path) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute("SELECT record FROM matches ORDER BY seq")]
    finally:
        con.close()


def _bots_left() -> list[int]:
    """Bot processes (launchers, sandboxes, bots) started by the cluster for these tests, still alive."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                env = (d / "environ").read_bytes()
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if f"ARENA_TEST_MARK={MARK}".encode() in env and \
                    (b"sample_bots" in cmd or b"launch.py" in cmd or cmd.startswith(b"bwrap")):
                pids.append(int(d.name))
    return pids


def _wait_no_bots(timeout: float = 90.0) -> list[int]:
    end = time.monotonic() + timeout
    while (left := _bots_left()) and time.monotonic() < end:
        time.sleep(0.2)
    return left


def _wait_recorded(db: Path, n: int, proc: subprocess.Popen[bytes]) -> None:
    while proc.poll() is None and len(_recorded(db)) < n:
        time.sleep(0.02)


def _started(out: Path, cluster: Any, recorded: int) -> subprocess.Popen[bytes]:
    """A Ray tournament running in the background, once ``recorded`` matches are in its store."""
    proc = subprocess.Popen(_cmd(out, "--rounds", "2", "--ray", cluster.address), cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_recorded(out / "arena.db", recorded, proc)
    assert proc.poll() is None, f"the tournament ended before {recorded} matches were recorded"
    return proc


SCHEDULE = [p.match_id for p in round_robin(list(BOTS), 2, 42)]


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tournament played on this machine, for comparison."""
    out = tmp_path_factory.mktemp("local")
    _run(out, "--rounds", "2", "--workers", "1")
    return out


def test_a_ray_tournament_gives_the_standings_and_records_of_a_local_run(cluster: Any, local: Path,
                                                                         tmp_path: Path) -> None:
    dry = _run(tmp_path, "--rounds", "2", "--ray", cluster.address, "--dry-run")
    assert f"Ray cluster at {cluster.address}: ok, every bot said Hello in each of 2 match slots on 2 nodes" \
        in dry.stdout, dry.stdout
    r = _run(tmp_path, "--rounds", "2", "--ray", cluster.address)
    assert "2 match slots on 2 nodes" in r.stdout, r.stdout[-2000:]
    played = re.search(r"2 Ray nodes: \S+ \(127\.0\.0\.1\) (\d+) matches, \S+ \(127\.0\.0\.1\) (\d+) matches", r.stdout)
    assert played and int(played[1]) + int(played[2]) == len(SCHEDULE), r.stdout[-2000:]  # both nodes, all matches
    assert _recorded(tmp_path / "arena.db") == SCHEDULE  # the one writer, in schedule order
    assert _rows(tmp_path / "arena.db") == _rows(local / "arena.db")  # field by field
    assert _board(tmp_path) == _board(local)
    records = _records(tmp_path / "arena.db")
    assert all(Path(p).parent == tmp_path / "records" / "0001-r" for p in records)  # where a local run puts them
    assert all(verify(p).ok for p in records)  # shipped back whole
    assert len(list((tmp_path / "r" / "logs").glob("ray-s*"))) == 2  # each slot's bots log apart
    assert not _wait_no_bots()


@pytest.mark.parametrize("game", ["three_handed", "twenty_two"])
def test_table_games_play_the_same_on_ray(cluster: Any, tmp_path: Path, game: str) -> None:
    extra = ("--game", game, "--limit", "sandbox=none", "--duplicate", "trusted")
    bots = {n: c for n, c in BOTS.items()}
    _run(tmp_path / "local", *extra, "--workers", "1", bots=bots)
    r = _run(tmp_path / "ray", *extra, "--ray", cluster.address, bots=bots)
    assert "2 Ray nodes" in r.stdout, r.stdout[-2000:]
    assert _rows(tmp_path / "ray" / "arena.db") == _rows(tmp_path / "local" / "arena.db")
    assert _board(tmp_path / "ray") == _board(tmp_path / "local")


def test_a_crashing_bot_on_ray_is_a_forfeit_not_a_retry(cluster: Any, tmp_path: Path) -> None:
    bots = {"crasher": "python tests/adversaries/adversary.py exit --at=3", "random": RANDOM}
    r = _run(tmp_path, "--rounds", "2", "--ray", cluster.address, bots=bots)
    con = sqlite3.connect(tmp_path / "arena.db")
    try:
        rows = list(con.execute("SELECT match_id, cause, offender, detail FROM matches ORDER BY seq"))
    finally:
        con.close()
    assert [m for m, *_ in rows] == [p.match_id for p in round_robin(list(bots), 2, 42)]  # each once
    seats = {p.match_id: p.players for p in round_robin(list(bots), 2, 42)}
    assert all(c == "crash" and seats[m][o] == "crasher" and "status 9" in d for m, c, o, d in rows), rows
    assert "died" not in r.stderr  # the slots lived on: a bot's crash is the bot's
    assert not _wait_no_bots()


def test_ray_client_address_plays_the_same_tournament(cluster: Any, local: Path, tmp_path: Path) -> None:
    port = cluster.client_port
    r = _run(tmp_path, "--rounds", "2", "--ray", f"ray://127.0.0.1:{port}")
    assert "2 match slots on 2 nodes" in r.stdout, r.stdout[-2000:]
    assert _rows(tmp_path / "arena.db") == _rows(local / "arena.db")
    assert _board(tmp_path) == _board(local)
    assert all(verify(p).ok for p in _records(tmp_path / "arena.db"))


def test_a_worker_node_killed_mid_tournament_loses_and_doubles_nothing(cluster: Any, local: Path,
                                                                       tmp_path: Path) -> None:
    extra = cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1",
                             runtime_env_dir_name="runtime_resources_2")  # a third node, to be killed
    cluster.wait_for_nodes()
    # killed once the first unit is in: 6 units on 3 slots, so units are still waiting and the killed
    # node's slot is busy or about to be given one; killed later, a loaded machine could have handed
    # out every unit already, and the dead slot would never be asked for anything
    proc = _started(tmp_path, cluster, 1)
    cluster.remove_node(extra, allow_graceful=False)  # its raylet and processes SIGKILLed
    stdout, stderr = proc.communicate(timeout=900)
    assert proc.returncode == 0, stdout.decode()[-2000:] + stderr.decode()[-2000:]
    assert "3 match slots on 3 nodes" in stdout.decode()
    assert "died" in stderr.decode()  # the slot on the killed node, reported
    assert _recorded(tmp_path / "arena.db") == SCHEDULE  # nothing lost, nothing twice
    assert _rows(tmp_path / "arena.db") == _rows(local / "arena.db")
    assert _board(tmp_path) == _board(local)
    assert all(verify(p).ok for p in _records(tmp_path / "arena.db"))
    assert not _wait_no_bots()


def test_a_command_missing_on_the_nodes_is_refused_before_the_first_match(cluster: Any, tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "bots").mkdir(parents=True)
    bot = work / "bots" / "mine"
    bot.write_text(f"#!{sys.executable}\n" + (ROOT / "sample_bots" / "random_bot.py").read_text())
    bot.chmod(0o755)
    (work / "bots" / "notes.txt").write_text("shipped\n")
    config = work / "t.toml"
    config.write_text(f"""
name = "missing"
seed = 1
out = "{tmp_path / 'out'}"
[cluster]
address = "{cluster.address}"
working_dir = "{work}"
files = ["bots/notes.txt"]   # only this is shipped: bots/mine is there on this machine, not on the nodes
[[entrant]]
name = "mine"
command = "./bots/mine"
[[entrant]]
name = "random"
command = "{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}"
""")
    dry = subprocess.run([PY, "-m", "harness.cli", "tournament", str(config), "--dry-run"], cwd=work,
                         env={**_env(), "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600)
    assert dry.returncode == 1 and "  mine: ok" in dry.stdout, dry.stdout + dry.stderr  # fine here...
    assert f"Ray cluster at {cluster.address}: failed: on Ray node" in dry.stdout  # ...not on the nodes
    r = subprocess.run([PY, "-m", "harness.cli", "tournament", str(config)], cwd=work,
                       env={**_env(), "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stdout[-2000:] + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "on Ray node" in lines[0] and "'mine'" in lines[0] and "./bots/mine" in lines[0], lines
    assert _recorded(tmp_path / "out" / "arena.db") == []  # not one match
    assert not _wait_no_bots()


def test_resume_after_the_driver_is_sigkilled_finishes_like_an_uninterrupted_run(cluster: Any, local: Path,
                                                                                 tmp_path: Path) -> None:
    proc = _started(tmp_path, cluster, 4)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert 4 <= len(_recorded(tmp_path / "arena.db")) < len(SCHEDULE)
    assert not _wait_no_bots(), "bots outlived the killed driver"  # Ray ends a dead driver's actors
    _run(tmp_path, "--rounds", "2", "--ray", cluster.address, "--resume")
    assert _recorded(tmp_path / "arena.db") == SCHEDULE
    assert _board(tmp_path) == _board(local)
    assert all(verify(p).ok for p in _records(tmp_path / "arena.db"))
    assert not _wait_no_bots()


def test_ctrl_c_on_a_ray_run_records_whole_units_and_resume_finishes(cluster: Any, local: Path,
                                                                      tmp_path: Path) -> None:
    proc = _started(tmp_path, cluster, 4)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 130, stdout.decode()[-1000:] + stderr.decode()[-1000:]
    assert b"--resume" in stdout and b"--ray" in stdout  # the line that resumes it names the cluster
    done = _recorded(tmp_path / "arena.db")
    assert done == [m for m in SCHEDULE if m in done]  # in schedule order (a unit cut short is left out whole)
    assert {m[:-2] for m in done} == {m[:-2] for m in done if m.endswith("-a") and m[:-2] + "-b" in done}, done
    assert not _wait_no_bots()
    _run(tmp_path, "--rounds", "2", "--ray", cluster.address, "--resume")
    assert _recorded(tmp_path / "arena.db") == SCHEDULE
    assert _board(tmp_path) == _board(local)


def _slots_config(tmp_path: Path, cluster: Any, matches: int | None, bots: dict[str, str], time: str = "",
                  cpus: float | None = None) -> Path:
    """A tournament config asking the cluster for ``matches`` slots at once (None: as many as fit), each
    entrant declaring ``cpus``."""
    declared = "" if cpus is None else f"cpus = {cpus}\n"
    entrants = "".join(f'[[entrant]]\nname = "{n}"\ncommand = "{c}"\n{declared}' for n, c in bots.items())
    config = tmp_path / "t.toml"
    config.write_text(f'name = "r"\nseed = 1\nout = "{tmp_path}"\n{time}[cluster]\naddress = "{cluster.address}"\n'
                      + ("" if matches is None else f"matches = {matches}\n") + entrants)
    return config


def test_a_slot_reserves_the_cpus_the_bots_declare_on_one_node(cluster: Any, tmp_path: Path) -> None:
    bots = {"random": RANDOM, "greedy": GREEDY}
    # the two worker nodes have 1 CPU each: a match whose bot keeps 2 busy fits on neither (2 in all is
    # not room for it: its slot would wait forever)
    r = subprocess.run([PY, "-m", "harness.cli", "tournament", str(_slots_config(tmp_path, cluster, None, bots,
                                                                                cpus=2))],
                       cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stdout[-2000:] + r.stderr
    assert r.stderr.strip().splitlines() == [
        f"arena: no node of the Ray cluster at '{cluster.address}' has room for one match: it reserves 2 CPUs "
        "(match_cpus, or the most cpus an entrant declares), the largest node has 1"], r.stderr
    assert _recorded(tmp_path / "arena.db") == []
    big = cluster.add_node(num_cpus=2, node_ip_address="127.0.0.1", runtime_env_dir_name="runtime_resources_big")
    try:
        cluster.wait_for_nodes()
        r = subprocess.run([PY, "-m", "harness.cli", "tournament", str(_slots_config(tmp_path, cluster, None, bots,
                                                                                    cpus=2))],
                           cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        # four CPUs in the cluster, but room for one such match, on the one node that has 2
        said = " ".join(r.stdout.split())  # as printed, wrapped at the console's width
        assert "1 match slot on 1 node" in said and "2 CPUs reserved" in said, r.stdout[-2000:]
        assert re.search(r"1 Ray node: \S+ \(127\.0\.0\.1\) 2 matches", said), r.stdout[-2000:]
        assert len(_recorded(tmp_path / "arena.db")) == 2  # one duplicate pair: the whole round robin
    finally:
        cluster.remove_node(big)
        cluster.wait_for_nodes()
    assert not _wait_no_bots()


def test_more_matches_than_the_cluster_holds_is_one_line_not_a_hang(cluster: Any, tmp_path: Path) -> None:
    # the cluster has 2 CPUs: a third slot would wait for one forever
    config = _slots_config(tmp_path, cluster, 3, {"random": RANDOM, "greedy": GREEDY})
    r = subprocess.run([PY, "-m", "harness.cli", "tournament", str(config)], cwd=ROOT, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stdout[-2000:] + r.stderr
    assert r.stderr.strip().splitlines() == [
        f"arena: the Ray cluster at '{cluster.address}' has 2 CPUs: room for 2 matches at once, not 3 "
        "(matches = 3, match_cpus = 1); lower matches, or leave it out"], r.stderr
    assert _recorded(tmp_path / "arena.db") == []
    assert not _wait_no_bots()


def _slot_pids() -> set[int]:
    """The match slots (Ray actor processes) whose bots run now: the --parent of the bots' launchers."""
    pids = set()
    for pid in _bots_left():
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        pids |= {int(a.split(b"=")[1]) for a in cmd if a.startswith(b"--parent=")}
    return pids


def test_when_every_slot_is_gone_the_run_stops_with_its_units_pending(cluster: Any, tmp_path: Path) -> None:
    # one slot, whose bot never answers: no unit can finish
    config = _slots_config(tmp_path, cluster, 1, {"hang": "python tests/adversaries/adversary.py hang",
                                                  "random": RANDOM}, time="[time]\nmove = 600\nbank = 600\n")
    proc = subprocess.Popen([PY, "-m", "harness.cli", "tournament", str(config)], cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # started: its one slot plays the first unit
        if "1 match slot on 1 node" in line:
            break
    killed: set[int] = set()
    for _ in range(2):  # the slot, then its replacement (one per slot started): SIGKILLed
        while not (slots := _slot_pids() - killed) and proc.poll() is None:
            time.sleep(0.1)
        for pid in slots:
            os.kill(pid, signal.SIGKILL)
        killed |= slots
    stdout, stderr = proc.communicate(timeout=600)  # not a wait for a slot that never comes
    assert proc.returncode == 130, stdout[-2000:] + stderr[-2000:]
    assert "no replacement is asked for" in stderr and "resume with" in stdout, stderr
    assert _recorded(tmp_path / "arena.db") == []
    assert not _wait_no_bots()


def test_a_record_the_driver_cannot_write_stops_the_run_not_hangs_it(cluster: Any, tmp_path: Path) -> None:
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "0001-r").write_text("in the way\n")  # where the records of tournament 1 go
    r = subprocess.run(_cmd(tmp_path, "--ray", cluster.address), cwd=ROOT, env=_env(), capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 1, r.stdout[-2000:] + r.stderr[-2000:]  # as a local run: the harness failed
    assert "FileExistsError" in r.stderr and "0001-r" in r.stderr, r.stderr[-2000:]
    assert _recorded(tmp_path / "arena.db") == []  # a unit without its records is not recorded
    assert not _wait_no_bots()


# -- without a cluster ----------------------------------------------------------------------------


def test_ray_settings_are_checked_in_one_line() -> None:
    for table, problem in (({"address": "nowhere"}, "bad Ray address 'nowhere'"),
                           ({"engine": "spark"}, "bad value 'spark' for cluster engine"),
                           ({"match_cpus": 0}, "bad value '0' for cluster match_cpus"),
                           ({"excludes": "x"}, "bad value 'x' for cluster excludes"),
                           ({"engine": "local", "address": "auto"}, "[cluster] address is for engine = \"ray\""),
                           ({"adress": "auto"}, "did you mean 'address'?")):
        with pytest.raises(cfgmod.ConfigError, match=problem.replace("[", r"\[").replace("?", r"\?")):
            cfgmod.cluster_of(table)
    assert cfgmod.cluster_of({}) is None and cfgmod.cluster_of({"engine": "local"}) is None
    c = cfgmod.cluster_of({"address": "ray://10.0.0.5:10001", "match_cpus": 2, "matches": 8})
    assert c == cfgmod.Cluster(address="ray://10.0.0.5:10001", match_cpus=2.0, matches=8)
    with pytest.raises(cfgmod.ConfigError, match="remote entrant"):
        cfgmod.from_flags(["a=remote:a", "b=python b.py"], cluster=cfgmod.Cluster())


def _entrants(*extra: str) -> str:
    return (f'name = "t"\n[[entrant]]\nname = "a"\ncommand = "{RANDOM}"\n{extra[0] if extra else ""}\n'
            f'[[entrant]]\nname = "b"\ncommand = "{GREEDY}"\n{extra[1] if len(extra) > 1 else ""}\n')


def test_the_cpus_an_entrant_declares_set_the_matches_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import tomllib

    def load(text: str) -> cfgmod.TournamentConfig:
        return cfgmod.from_mapping(tomllib.loads(text))

    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    plain = load(_entrants())
    assert (plain.concurrency, plain.workers) == (8, 8) and [e.cpus for e in plain.entrants] == [None, None]
    heavy = load(_entrants("cpus = 4", "cpus = 0.5"))  # one decision at a time: the largest counts
    assert [e.cpus for e in heavy.entrants] == [4.0, 0.5]
    assert (heavy.concurrency, heavy.workers) == (2, 2)  # 8 cores, 4 busy in a match: 2 matches at once
    assert load("concurrency = 5\n" + _entrants("cpus = 3")).concurrency == 5  # said outright: kept
    assert load(_entrants("cpus = 16")).concurrency == 1
    assert load(_entrants("cpus = 0.25")).concurrency == 8  # the arena's own share: never below 1 CPU
    # on a cluster a slot reserves the same, unless [cluster] match_cpus says otherwise
    assert load(_entrants("cpus = 2") + "[cluster]\naddress = 'local'\n").cluster == cfgmod.Cluster("local", match_cpus=2.0)
    assert load(_entrants() + "[cluster]\naddress = 'local'\n").cluster == cfgmod.Cluster("local", match_cpus=1.0)
    assert load(_entrants("cpus = 2") + "[cluster]\nmatch_cpus = 0.5\n").cluster == cfgmod.Cluster(match_cpus=0.5)
    for extra, problem in ((("cpus = 0",), "bad value '0' for entrant 'a' cpus (expected a number from 0.01 to 1024)"),
                           (("cpus = 'many'",), "bad value 'many' for entrant 'a' cpus"),
                           (("cpus = true",), "bad value 'True' for entrant 'a' cpus"),
                           (("cpus = 2000",), "bad value '2000' for entrant 'a' cpus"),
                           (("cpu = 2",), "did you mean 'cpus'?")):
        with pytest.raises(cfgmod.ConfigError, match=re.escape(problem)):
            load(_entrants(*extra))
    with pytest.raises(cfgmod.ConfigError, match="entrant 'r' is a remote bot: 'cpus' is for bots this arena starts"):
        load(_entrants() + '[[entrant]]\nname = "r"\ncommand = "remote:r"\ncpus = 2\n')


def test_what_is_shipped_to_the_nodes(tmp_path: Path) -> None:
    from harness.tournament.cluster import ClusterError, only, runtime_env

    for path in ("bots/a/bot.py", "bots/a/weights.bin", "bots/b/bot.py", "data/big.csv", "README", "out/arena.db"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    assert only(tmp_path, ("bots/a",)) == ["/README", "/bots/b", "/data", "/out"]
    assert only(tmp_path, ("bots/a/bot.py", "README")) == ["/bots/a/weights.bin", "/bots/b", "/data", "/out"]
    assert only(tmp_path, (".",)) == []
    with pytest.raises(ClusterError, match="cluster files: 'nope' is not in the working directory"):
        only(tmp_path, ("nope",))
    env = runtime_env(cfgmod.Cluster(working_dir=tmp_path, excludes=("data/",)), private=(str(tmp_path / "out"),))
    assert env["working_dir"] == str(tmp_path) and {".git", ".venv", "/out", "data/"} <= set(env["excludes"])
    assert env["py_modules"] == [str(ROOT / "harness")]  # the driver's arena, on every node


def _cli(*args: str, cwd: Path = ROOT, block_ray: bool = False) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh interpreter; with ``block_ray``, ``import ray`` fails there as if not installed."""
    code = ("import sys\n" + ("sys.modules['ray'] = None\n" if block_ray else "") +
            "from harness.cli import main\nsys.exit(main(sys.argv[1:]))")
    return subprocess.run([PY, "-c", code, *args], cwd=cwd, env={**_env(), "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=300)


def test_without_ray_installed_a_ray_run_is_one_line_and_a_local_run_never_imports_it(tmp_path: Path) -> None:
    bots = ["--bot", f"a={RANDOM}", "--bot", f"b={GREEDY}", "--limit", "sandbox=none"]
    r = _cli("tournament", *bots, "--ray", "local", "--out", str(tmp_path / "x"), block_ray=True)
    assert r.returncode == 2 and r.stderr.strip() == f"arena: {INSTALL}", r.stderr
    r = _cli("tournament", *bots, "--out", str(tmp_path / "y"), block_ray=True)  # ray unimportable: no matter
    assert r.returncode == 0, r.stderr
    assert len(_recorded(tmp_path / "y" / "arena.db")) == 2


def test_an_address_nobody_answers_is_one_line_not_a_hang(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    r = _cli("tournament", "--bot", f"a={RANDOM}", "--bot", f"b={GREEDY}", "--ray", "127.0.0.1:1",
             "--out", str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.strip() == "arena: cannot reach the Ray cluster at '127.0.0.1:1': Connection refused", r.stderr
