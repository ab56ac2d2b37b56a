"""`arena play` (issue 16): a person plays bots in the terminal.

The real program runs in a real terminal (tmux: new-session -d, send-keys, capture-pane) against the
sample bots over real gRPC; the test reads the screen like a person, picks actions by number and by
notation, and finally checks the record with `arena replay` and that no bot process is left. Waits
poll the pane with generous limits; nothing depends on how fast the machine is.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.console import Console

from harness.games.registry import get as get_game
from harness.games.registry import ids as game_ids
from harness.human.view import Table, choose, decision_view, hand_order, ordered
from tools import TMUX

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "harness.cli"]
GREEDY = "python sample_bots/greedy_bot.py"
LIMIT_S = 240.0  # overall limit for any one wait; polled, so a fast machine never waits it out
PROMPT = re.compile(r"· decision (\d+) ·")
SUIT = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
OPTION = re.compile(r"(?:^|\s)(\d+) ((?:10|[2-9JQKA])[♣♦♥♠](?:\+(?:10|[2-9JQKA])[♣♦♥♠])*)(?=\s|$)")

needs_tmux = pytest.mark.needs("tmux")


# -- the pure parts: the view and the reading of what was typed ----------------------------------------------


def _positions(game_id: str, n: int = 40) -> Iterator[tuple[object, int, Table]]:
    """Observations of the player to act along a random match, with the table around them."""
    g = get_game(game_id)
    rules = g.rules()
    m = g.start(7, rules)
    rng = random.Random(7)
    names = tuple(f"bot{p}" for p in range(g.players(rules)))
    for _ in range(n):
        p = g.to_act(m)
        if p is None:
            return
        d = g.deal(m)
        table = Table(game=g.id, title=g.title, names=names, me=p, teams=g.teams(rules), deal_no=d.deal_no,
                      dealer=d.dealer, seats=d.seats, scores=g.scores(m), target="to 7")
        yield g.observe(m, p), p, table
        m = g.apply(m, rng.choice(g.legal(m)))


@pytest.mark.parametrize("game_id", game_ids())
def test_view_shows_the_hand_and_numbers_every_legal_action(game_id: str) -> None:
    """The decision view (a pure function of the observation) shows the seat's hand and every legal
    action with its number; choose() reads each number and each notation back to that action."""
    for obs, p, table in _positions(game_id):
        console = Console(width=160, record=True, color_system=None)
        console.print(decision_view(obs, table, 3))
        text = console.export_text()
        assert f"{get_game(game_id).title} · deal {table.deal_no} · decision 3" in text
        assert "your hand" in text
        legal = ordered(obs.legal, obs.hand, game_id)  # type: ignore[attr-defined]
        assert sorted(legal) == sorted(obs.legal)  # type: ignore[attr-defined]
        for i, action in enumerate(legal, 1):
            assert re.search(rf"(^|\s){i} \S", text), (i, action, text)
            assert choose(str(i), legal) == action
            assert choose(action.lower(), legal) == action
        assert choose(str(len(legal) + 1), legal) is None and choose("0", legal) is None
        for other in ("bot0", "bot1"):
            if other != f"bot{p}":
                assert other in text  # the others at the table are named


def test_choose_reads_notation_as_people_type_it() -> None:
    legal = ("9C", "TH", "marry:H", "claim")
    assert choose(" 10h ", legal) == "TH"
    assert choose("Marry:H", legal) == "marry:H"
    assert choose("CLAIM", legal) == "claim"
    assert choose("AH", legal) is None and choose("", legal) is None
    sets = ("2C+2D", "2C+2D+2H", "5S")
    assert choose("2d+2c", sets) == "2C+2D" and choose("2h 2c 2d", sets) == "2C+2D+2H"


def test_hand_is_shown_by_suit_then_strength() -> None:
    assert hand_order(["AS", "TS", "9S", "KC"], "sixtysix") == ["KC", "9S", "TS", "AS"]
    assert hand_order(["7D", "AD", "8D"], "four_handed") == ["7D", "8D", "AD"]
    assert hand_order(["TC", "9C", "JC"], "twenty_two") == ["9C", "TC", "JC"]


# -- the real program in a real terminal ------------------------------------------------------------------


def _leftover(mark: str) -> list[int]:
    """Processes other than tmux itself that carry this test's environment mark (the arena, its bots)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            try:
                if f"ARENA_TEST_MARK={mark}".encode() not in (d / "environ").read_bytes():
                    continue
                if b"tmux" in (d / "cmdline").read_bytes().split(b"\0")[0]:
                    continue
                pids.append(int(d.name))
            except OSError:
                pass
    return pids


class Terminal:
    """One tmux server (its own socket) running one command in a 200x60 pane that stays after it exits."""

    def __init__(self, argv: list[str], mark: str) -> None:
        assert TMUX is not None, "a Terminal needs tmux: mark its test needs_tmux"
        self.tmux = TMUX
        self.sock = f"arena-play-{mark}"
        self.mark = mark
        env = {**os.environ, "ARENA_TEST_MARK": mark, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}
        env.pop("TMUX", None)
        self.env = env
        # The exit status goes to a file: tmux 3.3 can mark a pane dead (its terminal closed) without ever
        # giving #{pane_dead_status}. `trap :` keeps the shell past a Ctrl-C (a handler, not an ignore,
        # so the program still gets SIGINT) to write the status.
        self.status_file = Path(f"/tmp/arena-play-{mark}.status")
        wrapped = f"trap : INT; {' '.join(_quote(a) for a in argv)}; echo $? > {self.status_file}"
        self._tmux("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "60", "-s", "play", "-c", str(ROOT),
                   "-e", f"ARENA_TEST_MARK={mark}", f"sh -c {_quote(wrapped)}")
        self._tmux("set-option", "-t", "play", "remain-on-exit", "on")

    def _tmux(self, *args: str) -> str:
        return subprocess.run([self.tmux, "-L", self.sock, *args], env=self.env, capture_output=True, text=True,
                              timeout=60).stdout

    def screen(self) -> str:
        """The visible pane and its history."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-2000", "-t", "play")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "play", *keys)

    def line(self, text: str) -> None:
        self.keys("-l", text)
        self.keys("Enter")

    def exit_status(self) -> int | None:
        """The command's exit status once it has exited, else None."""
        try:
            text = self.status_file.read_text()
        except OSError:
            return None
        return int(text) if text.endswith("\n") else None  # written whole

    def wait(self, what: str, done: Callable[[str], bool]) -> str:
        """Poll the screen until ``done(screen)``; fails after LIMIT_S or when the program exits first."""
        end = time.monotonic() + LIMIT_S
        while True:
            text = self.screen()
            if done(text):
                return text
            if self.exit_status() is not None and not done(self.screen()):
                pytest.fail(f"the program exited ({self.exit_status()}) while waiting for {what}:\n{text[-3000:]}")
            if time.monotonic() > end:
                pytest.fail(f"no {what} within {LIMIT_S:g} s:\n{text[-3000:]}")
            time.sleep(0.2)

    def wait_exit(self) -> int:
        end = time.monotonic() + LIMIT_S
        while (status := self.exit_status()) is None:
            if time.monotonic() > end:
                pytest.fail(f"the program did not exit within {LIMIT_S:g} s:\n{self.screen()[-3000:]}")
            time.sleep(0.2)
        return status

    def close(self) -> None:
        self._tmux("kill-server")
        self.status_file.unlink(missing_ok=True)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


@pytest.fixture
def terminal() -> Iterator[Callable[[list[str]], Terminal]]:
    made: list[Terminal] = []

    def start(args: list[str]) -> Terminal:
        t = Terminal([*ARENA, "play", *args], uuid.uuid4().hex[:10])
        made.append(t)
        return t

    yield start
    for t in made:
        t.close()


def _decision(screen: str) -> int:
    """The number of the last decision shown, 0 before the first."""
    found = PROMPT.findall(screen)
    return int(found[-1]) if found else 0


def _options(screen: str) -> list[tuple[int, str]]:
    """The numbered card plays listed under the last prompt, as (number, notation)."""
    tail = screen[screen.rfind("· decision "):]
    out = []
    for n, shown in OPTION.findall(tail):
        out.append((int(n), "+".join(c.replace("10", "T")[:-1] + SUIT[c[-1]] for c in shown.split("+"))))
    return out


def _record_path(screen: str) -> Path:
    m = re.search(r"record: (\S+\.jsonl)", screen)
    assert m, screen[-2000:]
    return ROOT / m.group(1) if not Path(m.group(1)).is_absolute() else Path(m.group(1))


def _replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, "replay", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})


def _gone(mark: str) -> list[int]:
    end = time.monotonic() + 30
    while (left := _leftover(mark)) and time.monotonic() < end:
        time.sleep(0.2)
    return left


@needs_tmux
def test_a_person_plays_a_whole_sixtysix_match_against_greedy(terminal: Callable[[list[str]], Terminal],
                                                              tmp_path: Path) -> None:
    """Every decision answered from what the screen shows: by number, by notation, after a typo, and
    once after longer than the bots' whole clock (the person has none). The match ends by itself,
    each answer is the action recorded at that decision, the record verifies with `arena replay`,
    and no process is left."""
    t = terminal([GREEDY, "--seed", "11", "--rule", "match_target=1", "--move-time", "2", "--time-bank", "1",
                  "--out", str(tmp_path)])
    answered = 0
    chosen: dict[int, str] = {}  # decision number -> the card play typed (by number or notation)
    slow_at: int | None = None  # the decision answered after a typo and a long think
    while True:
        screen = t.wait("a decision or the end",
                        lambda s: _decision(s) > answered and s.rstrip().endswith("›") or "record: " in s)
        if "record: " in screen and _decision(screen) <= answered:
            break
        answered = _decision(screen)
        assert "Sixty-Six · deal " in screen and "your hand" in screen
        assert "bots: 2 s a move + 1 s bank · you: no clock" in screen
        options = _options(screen)
        if slow_at is None and options:
            slow_at = answered
            t.line("XX")  # a wrong answer is explained and asked again
            t.wait("the complaint", lambda s: "'XX' is not an action here" in s)
            time.sleep(4.0)  # longer than the bots' move + bank: a person is never out of time
        if options and answered % 2:
            number, notation = options[-1]
            t.line("10" + notation[1].lower() if notation.startswith("T") else notation.lower())
            chosen[answered] = notation
        elif options and options[0][0] == 1:
            t.line("1")
            chosen[answered] = options[0][1]
        else:
            t.line("1")
    assert t.wait_exit() == 0
    screen = t.screen()
    assert "Deal 1 · " in screen  # the deal's story is shown when it ends
    path = _record_path(screen)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    header, end = lines[0], next(x for x in lines if x["type"] == "end")
    assert header["players"] == ["human", "greedy_bot"] and header["game"] == "sixtysix"
    assert end["cause"] == "normal" and end["ranks"] is not None
    actions = [a for x in lines if x["type"] == "deal" for a in x["actions"]]
    ms = [m for x in lines if x["type"] == "deal" for m in x["ms"]]
    assert chosen and all(actions[n - 1] == a for n, a in chosen.items()), (chosen, actions)
    assert slow_at in chosen and ms[slow_at - 1] > 3000  # the slow answer stood: no clock for a person
    rep = _replay(path)
    assert rep.returncode == 0, rep.stderr
    assert "record verified" in rep.stdout
    assert _gone(t.mark) == []


@needs_tmux
@pytest.mark.parametrize("game_id,extra", [("three_handed", []), ("four_handed", ["--seat", "1"]),
                                           ("twenty_two", ["--players", "3"]), ("schnapsen", [])])
def test_table_games_start_and_q_leaves_cleanly(terminal: Callable[[list[str]], Terminal], tmp_path: Path,
                                                game_id: str, extra: list[str]) -> None:
    """A quick start for the other games: the view of the person's seat comes up, one action is
    taken, q leaves: exit 0, a record that says interrupted and replays, no process left."""
    title = get_game(game_id).title
    t = terminal([GREEDY, "--game", game_id, "--seed", "5", "--out", str(tmp_path), *extra])
    screen = t.wait("the first decision", lambda s: _decision(s) > 0 and s.rstrip().endswith("›"))
    assert f"{title} · deal 1 · " in screen and "your hand" in screen
    first = _decision(screen)
    t.line("1")
    t.wait("the next decision", lambda s: _decision(s) > first and s.rstrip().endswith("›"))
    t.line("q")
    assert t.wait_exit() == 0
    screen = t.screen()
    assert "leaving the match" in screen
    path = _record_path(screen)
    end = next(json.loads(x) for x in path.read_text().splitlines() if '"type":"end"' in x)
    assert end["cause"] == "interrupted" and end["ranks"] is None
    rep = _replay(path)
    assert rep.returncode == 0, rep.stderr + rep.stdout[-2000:]
    assert _gone(t.mark) == []


@needs_tmux
def test_ctrl_c_stops_the_match_and_every_bot(terminal: Callable[[list[str]], Terminal], tmp_path: Path) -> None:
    t = terminal([GREEDY, "--game", "four_handed", "--seed", "3", "--out", str(tmp_path)])
    t.wait("the first decision", lambda s: _decision(s) > 0 and s.rstrip().endswith("›"))
    assert len(_leftover(t.mark)) >= 4  # the arena and its three bots are running
    t.keys("C-c")
    assert t.wait_exit() == 130
    path = _record_path(t.screen())
    assert _replay(path).returncode == 0
    assert _gone(t.mark) == []


@pytest.mark.parametrize("game_id,extra", [("sixtysix", ["--rule", "match_target=2"]),
                                           ("schnapsen", ["--rule", "match_target=2"]),
                                           ("three_handed", ["--rule", "match_target=2", "--seat", "2"]),
                                           ("four_handed", ["--rule", "match_target=2", "--seat", "3"]),
                                           ("twenty_two", ["--players", "3", "--seat", "1"])])
def test_piped_answers_play_whole_matches_of_every_game(game_id: str, extra: list[str], tmp_path: Path) -> None:
    """Answers piped in (always the first action) play a whole match of each game against copies of
    the greedy bot: it ends normally, the person's seat is theirs in the record, and it replays."""
    mark = uuid.uuid4().hex[:10]
    r = subprocess.run([*ARENA, "play", GREEDY, "--game", game_id, "--seed", "4", "--out", str(tmp_path), *extra],
                       cwd=ROOT, input="1\n" * 3000, capture_output=True, text=True, timeout=600,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "ARENA_TEST_MARK": mark, "COLUMNS": "160"})
    assert r.returncode == 0, r.stderr[-2000:]
    path = _record_path(r.stdout)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    header, end = lines[0], next(x for x in lines if x["type"] == "end")
    seat = int(extra[extra.index("--seat") + 1]) if "--seat" in extra else 0
    assert header["players"][seat] == "human" and header["game"] == game_id
    assert end["cause"] == "normal", end
    assert r.stdout.count("you: ") - r.stdout.count("· you: no clock") > 0  # the person did act
    rep = _replay(path)
    assert rep.returncode == 0, rep.stderr
    assert _gone(mark) == []


@pytest.mark.parametrize("args,message", [
    ([GREEDY, "--seat", "2"], "--seat 2 is not a seat of Sixty-Six (0-1)"),
    ([GREEDY, GREEDY], "Sixty-Six seats 2: give one BOT for every other seat (1) or one BOT for all of them, not 2"),
    ([GREEDY, "--game", "chess"], "chess"),
    ([GREEDY, "--players", "3"], "--players is not an option of sixtysix"),
    ([GREEDY, "--name", "greedy_bot"], "--name greedy_bot is also a bot's name"),
    (["python sample_bots/no_such_bot.py"], "no_such_bot.py"),
])
def test_bad_arguments_are_one_line_and_status_2(args: list[str], message: str, tmp_path: Path) -> None:
    r = subprocess.run([*ARENA, "play", *args, "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and message in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []
