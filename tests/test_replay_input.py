"""Issue 14 item 9: `arena replay` on bad input (a missing, unreadable or garbage file) exits 2 with one
line on stderr and nothing on stdout; exit 1 stays "the record does not verify"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "harness.cli", *args], cwd=ROOT, env=ENV, capture_output=True, text=True,
                          timeout=120)


BAD = {
    "missing": (None, "cannot read it: No such file or directory"),
    "empty": (b"", "not a match record (the file is empty)"),
    "text": (b"hello\nworld\n", "not a match record (line 1: not JSON"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00", "not a match record (line 1: not UTF-8"),
    "json_list": (b"[1, 2]\n", "not a match record (line 1: not a record line"),
    "deal_first": (b'{"type": "deal", "deal_no": 1}\n', "line 1 is a 'deal' line, not the header"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_input_exits_2_with_one_line(tmp_path: Path, kind: str) -> None:
    data, why = BAD[kind]
    path = tmp_path / f"{kind}.jsonl"
    if data is not None:
        path.write_bytes(data)
    r = arena("replay", str(path))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"arena: {path}: ") and why in r.stderr


def test_a_directory_and_an_unreadable_file_exit_2(tmp_path: Path) -> None:
    r = arena("replay", str(tmp_path))
    assert (r.returncode, r.stdout, r.stderr.count("\n")) == (2, "", 1) and "cannot read it" in r.stderr
    if os.geteuid() != 0:  # root reads any file
        locked = tmp_path / "locked.jsonl"
        locked.write_text('{"type": "header"}\n')
        locked.chmod(0)
        r = arena("replay", str(locked))
        assert (r.returncode, r.stdout, r.stderr.count("\n")) == (2, "", 1) and "Permission denied" in r.stderr


def test_a_real_record_verifies_and_a_damaged_one_exits_1(tmp_path: Path) -> None:
    bot = "python sample_bots/random_bot.py"
    played = arena("match", bot, bot, "--seed", "5", "--out", str(tmp_path), "--no-live")
    assert played.returncode == 0, played.stderr
    record = next(tmp_path.glob("*.jsonl"))
    ok = arena("replay", str(record))
    assert ok.returncode == 0 and "record verified" in ok.stdout, ok.stderr
    lines = record.read_text().splitlines()
    header = json.loads(lines[0])
    lines[1] = lines[1][: len(lines[1]) // 2]  # the first deal line cut in half: a record that does not verify
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join(lines) + "\n")
    r = arena("replay", str(damaged))
    assert r.returncode == 1
    assert f"seed {header['seed']}" in r.stdout and "record does not verify" in r.stdout
    assert r.stderr.startswith(f"arena: {damaged}: line 2: not JSON")
