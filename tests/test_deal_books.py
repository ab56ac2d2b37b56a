"""Deal books (harness/deals.py): the file format and its one-line errors, how tournaments assign entries,
and ``--deals`` of ``arena match`` and ``arena tournament`` with real bot processes (``arena duel``'s
is in tests/test_duel.py). Records name their entry; records played without a book are unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.arena.record import deterministic, read, verify
from harness.deals import BookError, book_seeded, load, parse, unit_entries
from harness.tournament import config as config_mod
from harness.tournament.schedule import round_robin, tables

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
GREEDY = "python sample_bots/greedy_bot.py"
RANDOM = "python sample_bots/random_bot.py"


def test_format_comments_labels_and_numbering() -> None:
    b = parse("# a book\n\n  12  \n13\tclose-early   # seen twice\n#14\n9223372036854775807 max\n", "b.txt")
    assert [(e.no, e.line, e.seed, e.label) for e in b.entries] == [
        (1, 3, 12, ""), (2, 4, 13, "close-early"), (3, 6, 2**63 - 1, "max")]
    assert b.entries[1].header(b) == {"file": "b.txt", "entry": 2, "line": 4, "label": "close-early"}
    assert b.entries[0].header(b) == {"file": "b.txt", "entry": 1, "line": 3}
    assert len(b) == 3 and b.entry(3) == b.entries[0]  # cycling
    assert b.digest() == parse("12\n13\n9223372036854775807\n", "other").digest() != parse("13\n12\n1\n", "x").digest()


@pytest.mark.parametrize("text, problem", [
    ("12\nAH TH KH\n", "line 2: 'AH' is not a seed: a book lists match seeds"),
    ("12\n10H 9C\n", "line 2: '10H' is not a seed: a book lists match seeds"),
    ("seed=4\n", "line 1: 'seed=4' is not a seed (a whole number from 0 to"),
    ("1\n\n-5\n", "line 3: '-5' is not a seed"),
    ("1.5\n", "line 1: '1.5' is not a seed"),
    ("99999999999999999999\n", "line 1: seed 99999999999999999999 is above 9223372036854775807"),
    ("١٢\n", "line 1: '١٢' is not a seed"),  # digits, but not ASCII ones
    ("7 " + "x" * 81 + "\n", "line 1: the label must be printable and at most 80 characters"),
    ("7 a\x01b\n", "line 1: the label must be printable"),
    ("# nothing\n\n", "has no entries"),
    ("", "has no entries"),
])
def test_bad_books_name_the_line(text: str, problem: str) -> None:
    with pytest.raises(BookError) as e:
        parse(text, "hard.txt")
    assert str(e.value).startswith("deal book 'hard.txt'") and problem in str(e.value)
    assert "\n" not in str(e.value)


def test_unreadable_books(tmp_path: Path) -> None:
    with pytest.raises(BookError, match="not found"):
        load(tmp_path / "none.txt")
    with pytest.raises(BookError, match="is a directory"):
        load(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"1\n2\n\xff\xfe\n")
    with pytest.raises(BookError, match=r"line 3: not UTF-8"):
        load(bad)
    with pytest.raises(BookError, match="not a usable path"):
        load("a\x00b")


def test_units_take_entries_in_schedule_order_and_every_leg_plays_its_entry() -> None:
    book = parse("5\n6\n7\n", "b")
    made = list(round_robin(["A", "B", "C", "D"], rounds=2, seed=1))  # 12 units of two legs
    seeded = book_seeded(made, book)
    assert [p.match_id for p in seeded] == [p.match_id for p in made]
    entries = unit_entries(seeded, book)
    assert list(entries) == list(dict.fromkeys(p.pair_id for p in made))
    assert [e.seed for e in entries.values()] == [5, 6, 7] * 4
    assert all(p.seed == entries[p.pair_id].seed for p in seeded)
    three = book_seeded(tables(["A", "B", "C", "D"], 3, 1, 1), book)  # tables: every rotation on one seed
    assert {p.pair_id: p.seed for p in three} == {p.pair_id: p.seed for p in three[::3]}


def test_config_key_and_identity(tmp_path: Path) -> None:
    book = tmp_path / "hard.txt"
    book.write_text("4242\n77\n")
    base = 'name = "t"\nseed = 3\n[[entrant]]\nname = "a"\ncommand = "x"\n[[entrant]]\nname = "b"\ncommand = "y"\n'
    plain = config_mod.loads(base)
    assert plain.book is None and "deals" not in plain.identity()  # unchanged without a book
    cfg = config_mod.loads(f'deals = "{book}"\n' + base)
    assert cfg.book is not None and [e.seed for e in cfg.book.entries] == [4242, 77]
    assert cfg.identity()["deals"] == {"entries": 2, "digest": cfg.book.digest()}  # the seeds, not the path
    book.write_text("4242\nAH\n")
    with pytest.raises(config_mod.ConfigError, match="line 2: 'AH' is not a seed"):
        config_mod.loads(f'deals = "{book}"\n' + base)
    with pytest.raises(config_mod.ConfigError, match="bad value '5' for 'deals'"):
        config_mod.loads("deals = 5\n" + base)


# -- with bot processes ---------------------------------------------------------------------------


def _arena(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([PY, "-m", "harness.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_match_plays_every_entry_and_records_name_it(tmp_path: Path) -> None:
    book = tmp_path / "hard.txt"
    book.write_text("# two hard deals\n4242 lost-on-close\n77\n")
    r = _arena("match", GREEDY, GREEDY, "--deals", str(book), "--out", str(tmp_path / "b"), "--no-live", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "entry 1 of 2 (line 2, lost-on-close): seed 4242" in r.stdout and "entry 2 of 2 (line 3): seed 77" in r.stdout
    records = {p.name: p for p in (tmp_path / "b").glob("*.jsonl")}
    assert set(records) == {"greedy_bot-1-vs-greedy_bot-2-s4242.jsonl", "greedy_bot-1-vs-greedy_bot-2-s77.jsonl"}
    first = records["greedy_bot-1-vs-greedy_bot-2-s4242.jsonl"]
    assert verify(first).ok
    assert read(first)[0]["book"] == {"file": str(book), "entry": 1, "line": 2, "label": "lost-on-close"}
    # The same seed without a book: the same record except the header's book field (the bots are deterministic).
    r = _arena("match", GREEDY, GREEDY, "--seed", "4242", "--out", str(tmp_path / "s"), "--no-live", "--quiet")
    assert r.returncode == 0, r.stderr
    plain = read(tmp_path / "s" / "greedy_bot-1-vs-greedy_bot-2-s4242.jsonl")
    assert "book" not in plain[0]
    with_book = deterministic(read(first))
    del with_book[0]["book"]
    assert with_book == deterministic(plain)


def test_match_refuses_a_bad_book_or_a_seed_too(tmp_path: Path) -> None:
    book = tmp_path / "hard.txt"
    book.write_text("12\n\nnot-a-seed\n")
    r = _arena("match", GREEDY, RANDOM, "--deals", str(book), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "line 3: 'not-a-seed' is not a seed" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()
    book.write_text("12\n")
    r = _arena("match", GREEDY, RANDOM, "--deals", str(book), "--seed", "3", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "--seed and --deals" in r.stderr


def test_tournament_units_play_the_book_and_resume_checks_it(tmp_path: Path) -> None:
    book = tmp_path / "hard.txt"
    book.write_text("101 first\n202\n")
    out = tmp_path / "t"
    args = ["tournament", "--bot", f"g={GREEDY}", "--bot", f"r={RANDOM}", "--bot", f"s={RANDOM}", "--deals", str(book),
            "--concurrency", "2", "--move-time", "2", "--out", str(out)]
    r = _arena(*args)
    assert r.returncode == 0, r.stderr
    assert f"deal book '{book}'" in r.stdout
    headers = {p.name: read(p)[0] for p in sorted((out / "records").rglob("*.jsonl"))}
    assert len(headers) == 6  # three pairs of two legs
    want = {"001-01-01": (101, 1), "001-02-01": (202, 2), "001-03-01": (101, 1)}  # in order, cycling
    for name, h in headers.items():
        seed, entry = want[name[:-8]]
        assert h["seed"] == seed and h["book"]["entry"] == entry and h["book"]["file"] == str(book)
    doc = json.loads((out / "tournament" / "leaderboard.json").read_text())
    assert "deal book" in json.dumps(doc)
    book.write_text("101 first\n203\n")  # another book under the same name: resuming it is refused
    r = _arena(*args, "--resume")
    assert r.returncode == 2 and "deals differ" in r.stderr and len(r.stderr.strip().splitlines()) == 1
