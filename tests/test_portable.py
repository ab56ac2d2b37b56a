"""Not only Linux (issue 14, item 13): the arena finds a bot's processes and CPU time with psutil,
never by reading ``/proc`` itself; what stays Linux-only (the bubblewrap sandbox, the address-space
limit) says so in one line where it is unavailable, and the match is played all the same.

The other platform is met two ways on this Linux box: an arena whose ``sys.platform`` reads
``darwin`` (the Linux-only parts must stand aside), and a real arena in a mount namespace whose
``/proc`` is empty (processes cannot be listed: the watch must stand aside, once, in one line).
Real bots over real gRPC in both.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.arena import limits, process
from harness.arena.limits import group_usage

ROOT = Path(__file__).resolve().parents[1]
RANDOM = "python sample_bots/random_bot.py"
GREEDY = "python sample_bots/greedy_bot.py"


def _code_strings(path: Path) -> list[str]:
    """The string constants of a module's code, docstrings left out."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs]


def test_process_watch_reads_proc_only_where_linux_has_it() -> None:
    """psutil everywhere (issue 14); limits.py alone reads /proc, as a cheaper scan (issue 18), and only
    when this is Linux with per-thread children lists (PROC_CHILDREN): elsewhere the same scan is
    psutil's (tests/test_limits_scan.py compares the two on a real process tree)."""
    assert not [s for s in _code_strings(Path(process.__file__)) if "/proc" in s]
    assert "group_stats" in Path(process.__file__).read_text()
    text = Path(limits.__file__).read_text()
    assert "psutil" in text and "PROC_CHILDREN = LINUX and" in text
    assert limits.PROC_CHILDREN == (sys.platform.startswith("linux") and limits.PROC_CHILDREN)


def test_group_usage_counts_a_real_process_tree() -> None:
    """A bot-like tree: a group leader with a child and a grandchild that left the group (setsid);
    all three are counted while the leader lives, and their CPU time is seen."""
    code = ("import os, subprocess, sys, time\n"
            "kid = subprocess.Popen([sys.executable, '-c', 'import os, time\\nos.setsid()\\n"
            "t = time.process_time()\\nwhile time.process_time() - t < 0.3: pass\\ntime.sleep(60)'])\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n")
    leader = subprocess.Popen([sys.executable, "-c", code], start_new_session=True, stdout=subprocess.PIPE, text=True)
    try:
        assert leader.stdout is not None and leader.stdout.readline() == "ready\n"
        seen = (0, 0.0)
        for _ in range(600):  # event-based: until the setsid child has spun (no timing assert)
            seen = group_usage(leader.pid, tree=True)
            if seen[0] == 2 and seen[1] >= 0.3:
                break
            subprocess.run(["sleep", "0.05"])
        assert seen[0] == 2 and seen[1] >= 0.3, seen  # the leader and its setsid child
        assert group_usage(leader.pid, tree=False)[0] == 1  # the group alone: the leader
    finally:
        kids = [pid for pid, _, _ in limits.group_stats(leader.pid, tree=True)]
        for pid in kids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        leader.wait()
    assert process.group_members(leader.pid) == []


def _match(tmp_path: Path, prefix: list[str], *, platform: str | None = None) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "results"
    args = ["match", RANDOM, GREEDY, "--seed", "4", "--no-live", "--quiet", "--out", str(out)]
    if platform is None:
        argv = [*prefix, sys.executable, "-m", "harness.cli", *args]
    else:  # the arena believes it runs on ``platform``: every platform check of the harness sees it
        # (psutil is imported first: it picks its own platform module by sys.platform, and is real here)
        code = (f"import sys, psutil, grpc; sys.platform = {platform!r}\n"
                f"from harness.cli import main\nraise SystemExit(main({args!r}))")
        argv = [*prefix, sys.executable, "-c", code]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [json.loads(x) for x in next(out.glob("*.jsonl")).read_text().splitlines()]
    return run, next(d for d in lines if d["type"] == "end")


def test_elsewhere_the_linux_only_limits_say_so_once_and_the_match_is_played(tmp_path: Path) -> None:
    run, end = _match(tmp_path, [], platform="darwin")
    assert end["cause"] == "normal"
    said = [ln for ln in run.stderr.splitlines() if "Linux-only" in ln]
    assert len([ln for ln in said if "address-space limit" in ln]) == 1, run.stderr
    assert len([ln for ln in said if "bubblewrap" in ln]) == 1, run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.needs("sandbox")
def test_without_a_process_list_the_watch_stands_aside_in_one_line(tmp_path: Path) -> None:
    """The arena in a mount namespace with an empty /proc (as where there is none): one line says the
    process and CPU limits are not watched; the match is played and recorded."""
    probe = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--tmpfs", "/proc", "--", "true"], capture_output=True)
    assert probe.returncode == 0, f"bubblewrap makes a sandbox but not this namespace: {probe.stderr.decode()[:200]}"
    run, end = _match(tmp_path, ["bwrap", "--dev-bind", "/", "/", "--tmpfs", "/proc", "--"])
    assert end["cause"] == "normal"
    said = [ln for ln in run.stderr.splitlines() if "not watched" in ln]
    assert len(said) == 1 and said[0].startswith("arena: cannot list processes here"), run.stderr
    assert "Traceback" not in run.stderr
