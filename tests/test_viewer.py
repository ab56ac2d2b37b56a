"""Match pages (`arena view`, issue 16) in a real headless Chromium driven over the DevTools protocol.

Records come from real matches: sample bot processes over gRPC on loopback, one per game, plus a forfeit
by the test bot. Chromium is driven over ``--remote-debugging-pipe`` (no extra packages): the page loads
with no network request, pressing the arrow keys steps through every decision as the record says (the
expected hands are computed here from the game interface, not by the viewer), one seat's view hides the
other hands, and a screenshot is taken.
"""

from __future__ import annotations

import asyncio
import base64
import fcntl
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote
from typing import Any

import pytest

from harness.arena import Arena, Cause, Clock, Entrant, MatchResult, play_match
from harness.arena.record import read
from harness.games.registry import get as get_game
from harness.games.registry import ids as game_ids
from harness.viewer.files import links, page_path, write_page
from harness.viewer.page import render
from test_tournament import _leftover
from tools import CHROMIUM

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
RANDOM = f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"
TESTBOT = f"{PY} {ROOT / 'tests' / 'bots' / 'testbot.py'}"
CLOCK = Clock(move_ms=5000, bank_ms=60000, hello_s=60.0)  # generous: nothing here is about time
TABLES: dict[str, tuple[int, dict[str, str]]] = {  # players and rules of each game's match (short ones)
    "sixtysix": (2, {}),
    "schnapsen": (2, {"match_target": "3"}),
    "three_handed": (3, {"match_target": "2"}),
    "four_handed": (4, {"pack": "24", "match_target": "2"}),
    "twenty_two": (3, {"players": "3", "penalty_limit": "12"}),
}
needs_chromium = pytest.mark.needs("chromium")


def play(tmp: Path, game: str, bots: list[str], rules: dict[str, str], seed: int, match_id: str,
         env: dict[str, str] | None = None) -> Path:
    """One real match through an arena; returns its record. No bot process may be left behind."""
    r = play_result(tmp, game, bots, rules, seed, match_id, env)
    assert r.record is not None
    return Path(r.record)


def play_result(tmp: Path, game: str, bots: list[str], rules: dict[str, str], seed: int, match_id: str,
                env: dict[str, str] | None = None) -> MatchResult:
    """One real match through an arena, its result. No bot process may be left behind."""
    mark = f"viewer-{match_id}-{os.getpid()}"
    old = {k: os.environ.get(k) for k in ("ARENA_TEST_MARK", *(env or {}))}
    os.environ.update({"ARENA_TEST_MARK": mark, **(env or {})})

    async def go() -> Any:
        arena = Arena()
        await arena.start("127.0.0.1:0")
        es = [Entrant(f"bot{i}", b, arena=arena, hello_s=CLOCK.hello_s) for i, b in enumerate(bots)]
        try:
            return await play_match(es, match_id=match_id, seed=seed, game=game, rules=rules, clock=CLOCK,
                                    record_dir=tmp)
        finally:
            await asyncio.gather(*(e.stop() for e in es))
            await arena.stop()

    try:
        r = asyncio.run(go())
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert _leftover(mark) == []
    assert isinstance(r, MatchResult)
    return r


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A record of every game, and of a forfeit (an illegal card at decision 5)."""
    tmp = tmp_path_factory.mktemp("records")
    out = {g: play(tmp, g, [RANDOM] * n, rules, seed=7, match_id=f"view-{g}") for g, (n, rules) in TABLES.items()}
    out["forfeit"] = play(tmp, "sixtysix", [RANDOM, f"{TESTBOT} illegal 3"], {}, seed=5, match_id="view-forfeit")
    return out


# -- what the record says, through the game interface only ---------------------------------------------

def expected(record: Path) -> list[dict[str, Any]]:
    """Every step a page must show: per deal its start, then one step per action, with each player's hand
    after it (at the deal's last action: the deal's deck, revealed)."""
    lines = read(record)
    h = lines[0]
    game = get_game(h["game"])
    m = game.start(int(h["seed"]), game.rules(h["rules"]))
    n = len(h["players"])
    out: list[dict[str, Any]] = []
    for d in (x for x in lines if x["type"] == "deal"):
        out.append({"kind": "start", "actor": None, "action": None,
                    "hands": [list(game.observe(m, p).hand) for p in range(n)]})
        done = game.deals_done(m)
        for a in d["actions"]:
            actor = game.to_act(m)
            m = game.apply(m, a)
            if game.deals_done(m) > done:
                out.append({"kind": "deal_end", "actor": actor, "action": a, "deck": " ".join(game.deal_end(m).deck)})
            else:
                out.append({"kind": "action", "actor": actor, "action": a,
                            "hands": [list(game.observe(m, p).hand) for p in range(n)]})
    end = next(x for x in lines if x["type"] == "end")
    if end["cause"] != "normal":
        out.append({"kind": "forfeit", "actor": end["offender"], "action": None})
    return out


# -- Chromium over the DevTools protocol (--remote-debugging-pipe: fd 3 in, fd 4 out, NUL-separated JSON) --

class Browser:
    """One headless Chromium with one page attached; every request the page makes is recorded."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM, "chromium is required for this test (CI installs it)"
        to_r, to_w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in os.pipe())
        from_r, from_w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in os.pipe())
        args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
                "--disable-background-networking", "--disable-component-update", "--remote-debugging-pipe",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1280,900", f"--user-data-dir={profile}",
                "about:blank"]
        devnull = os.open(os.devnull, os.O_RDWR)
        actions = [(os.POSIX_SPAWN_DUP2, to_r, 3), (os.POSIX_SPAWN_DUP2, from_w, 4),
                   (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
        self.pid = os.posix_spawn(CHROMIUM, args, dict(os.environ), file_actions=actions, setsid=True)
        for fd in (to_r, from_w, devnull):
            os.close(fd)
        self.w, self.r = to_w, from_r
        self.buf = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            self.call(f"{domain}.enable", session=True)

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.r], [], [], 120)  # a hang guard, not a speed limit
            assert ready, "chromium stopped answering"
            chunk = os.read(self.r, 1 << 20)
            assert chunk, "chromium closed the pipe"
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        while True:
            got = self._read()
            if got.get("id") == self.next_id:
                assert "error" not in got, got["error"]
                return got.get("result", {})
            self.events.append(got)

    def wait_event(self, method: str) -> dict[str, Any]:
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read())

    def open(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        self.wait_event("Page.loadEventFired")

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def errors(self) -> list[Any]:
        return [e["params"] for e in self.events if e.get("method") == "Runtime.exceptionThrown"]

    def js(self, expression: str) -> Any:
        got = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        assert "exceptionDetails" not in got, got["exceptionDetails"]
        return got["result"].get("value")

    def key(self, key: str, code: int) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=key, code=key,
                      windowsVirtualKeyCode=code, nativeVirtualKeyCode=code)

    def screenshot(self, path: Path) -> Path:
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", session=True, format="png")["data"]))
        return path

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.w)
        os.close(self.r)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield b
    finally:
        b.close()


STATE = """JSON.stringify({
  step: Number(document.body.dataset.step), view: document.body.dataset.view,
  kind: document.getElementById('action').dataset.kind,
  actor: document.getElementById('action').dataset.actor, action: document.getElementById('action').dataset.action,
  banner: document.getElementById('banner').textContent,
  hands: Array.from(document.querySelectorAll('#seats .hand')).map(h =>
    Array.from(h.querySelectorAll('.card')).map(c => c.dataset.card)),
  deck: (document.querySelector('#reveal .deck') || {dataset: {}}).dataset.deck || null,
  offender: Array.from(document.querySelectorAll('#seats .seat.offender')).map(s => Number(s.dataset.player)),
  counter: document.getElementById('counter').textContent})"""


def state(b: Browser) -> dict[str, Any]:
    return json.loads(b.js(STATE))


def _page(record: Path, tmp: Path, *extra: str) -> Path:
    """The page, written by the real command line."""
    out = tmp / f"{record.stem}{'-'.join(extra)}.html"
    r = subprocess.run([PY, "-m", "harness.cli", "view", str(record), "--out", str(out), *extra], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"match page: {out}"
    return out


def _same_hand(shown: list[str], want: list[str]) -> bool:
    return sorted(shown) == sorted(want)


@needs_chromium
@pytest.mark.parametrize("game", game_ids())
def test_the_page_steps_through_every_decision_as_the_record_says(game: str, records: dict[str, Path],
                                                                     browser: Browser, tmp_path: Path) -> None:
    page = _page(records[game], tmp_path)
    browser.open(page.as_uri())
    assert browser.requests() == [page.as_uri()]  # the page itself, nothing else
    want = expected(records[game])
    assert len(want) > 10
    for i, w in enumerate(want):
        if i:
            browser.key("ArrowRight", 39)
        got = state(browser)
        assert got["step"] == i and got["kind"] == w["kind"], (i, got, w)
        assert got["actor"] == ("" if w["actor"] is None else str(w["actor"])), (i, got, w)
        assert got["action"] == (w["action"] or ""), (i, got, w)
        if w["kind"] == "deal_end":
            assert got["deck"] == w["deck"]  # the reveal: the whole deck of the deal
            assert "ends" in got["banner"]
        else:
            assert got["deck"] is None
        if "hands" in w:
            assert all(_same_hand(s, h) for s, h in zip(got["hands"], w["hands"])), (i, got["hands"], w["hands"])
    browser.key("ArrowRight", 39)
    assert state(browser)["step"] == len(want) - 1  # the last step stays the last
    browser.key("Home", 36)
    assert state(browser)["step"] == 0
    browser.key("End", 35)
    last = state(browser)
    assert last["step"] == len(want) - 1
    browser.key("ArrowLeft", 37)
    assert state(browser)["step"] == len(want) - 2
    browser.js("document.getElementById('next').click()")  # the buttons step too
    assert state(browser)["step"] == len(want) - 1
    starts = [i for i, w in enumerate(want) if w["kind"] == "start"]
    browser.key("Home", 36)
    for k, start in enumerate(starts[1:], 2):  # PageDown: the next deal as dealt
        browser.key("PageDown", 34)
        got = state(browser)
        assert got["step"] == start and got["counter"].endswith(f"deal {k}") and got["kind"] == "start"
    assert browser.errors() == []
    assert browser.requests() == [page.as_uri()]
    shot = browser.screenshot(tmp_path / f"{game}.png")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


@needs_chromium
def test_one_seats_view_hides_the_other_hands_and_the_toggle_shows_them(records: dict[str, Path], browser: Browser,
                                                                        tmp_path: Path) -> None:
    record = records["twenty_two"]
    want = expected(record)
    page = _page(record, tmp_path, "--seat", "1")
    browser.open(page.as_uri())
    got = state(browser)
    assert got["view"] == "1"
    assert got["hands"][1] == sorted(got["hands"][1]) and _same_hand(got["hands"][1], want[0]["hands"][1])
    for p in (0, 2):  # the others: backs only, as many as they hold
        assert got["hands"][p] == ["?"] * len(want[0]["hands"][p])
    # another player's discard (22-4.3: never seen by others) is hidden from seat 1; its own are shown
    discard = next(i for i, w in enumerate(want) if (w["action"] or "").startswith("discard:") and w["actor"] != 1)
    browser.js(f"location.hash = '#step={discard}&view=1'")
    got = state(browser)
    assert got["step"] == discard and got["action"] == "?" and want[discard]["action"] not in got["banner"]
    browser.js("var v = document.getElementById('view'); v.value = 'all'; v.dispatchEvent(new Event('change'))")
    got = state(browser)
    assert got["view"] == "all" and got["action"] == want[discard]["action"]
    assert all(_same_hand(s, h) for s, h in zip(got["hands"], want[discard]["hands"]))
    assert browser.errors() == [] and browser.requests() == [page.as_uri()]


@needs_chromium
def test_a_forfeit_is_shown_with_its_cause(records: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    record = records["forfeit"]
    end = next(x for x in read(record) if x["type"] == "end")
    assert end["cause"] == str(Cause.ILLEGAL) and end["offender"] == 1
    page = _page(record, tmp_path)
    browser.open(page.as_uri())
    browser.key("End", 35)
    got = state(browser)
    assert got["kind"] == "forfeit" and got["offender"] == [1]
    assert "bot1 forfeits: illegal" in got["banner"] and end["detail"] in got["banner"]
    assert browser.errors() == []
    browser.screenshot(tmp_path / "forfeit.png")


@needs_chromium
def test_a_bot_that_never_starts_is_shown_as_a_forfeit_before_any_deal(tmp_path: Path, browser: Browser) -> None:
    record = play(tmp_path, "schnapsen", [RANDOM, f"{PY} -c pass"], {}, seed=2, match_id="view-nohello")
    end = next(x for x in read(record) if x["type"] == "end")
    assert end["cause"] == "no_hello" and end["deals"] == 0
    page = _page(record, tmp_path)
    browser.open(page.as_uri())
    got = state(browser)
    assert got["step"] == 0 and got["kind"] == "forfeit" and got["offender"] == [1]
    assert "bot1 forfeits: no_hello" in got["banner"] and end["detail"] in got["banner"]
    assert browser.errors() == [] and browser.requests() == [page.as_uri()]


@needs_chromium
def test_an_interrupted_match_is_shown_as_stopped_without_an_offender(records: dict[str, Path], browser: Browser,
                                                                       tmp_path: Path) -> None:
    lines = read(records["sixtysix"])
    deals = [x for x in lines if x["type"] == "deal"]
    cut = deals[: 2]
    cut[-1] = dict(cut[-1], actions=cut[-1]["actions"][:5], result=None)  # stopped inside deal 2
    end = {"type": "end", "ranks": None, "scores": cut[0]["result"]["scores"], "cause": "interrupted",
           "offender": None, "deal_no": 2, "decision_no": None, "detail": "stopped by the operator", "deals": 2,
           "decisions": len(cut[0]["actions"]) + 5, "duration_s": 1.0}
    record = tmp_path / "interrupted.jsonl"
    record.write_text("".join(json.dumps(x) + "\n" for x in [lines[0], *cut, end]))
    page = _page(record, tmp_path)
    browser.open(page.as_uri())
    browser.key("End", 35)
    got = state(browser)
    assert got["kind"] == "stopped" and got["offender"] == [] and got["actor"] == ""
    assert "The match stopped: interrupted \u2014 stopped by the operator" in got["banner"]
    assert 'id="problem"' not in page.read_text()  # it verifies: an interrupted match is a valid record
    assert browser.errors() == []


@needs_chromium
def test_the_network_check_catches_a_request(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "control.html"
    page.write_text('<!DOCTYPE html><html><body><img src="http://example.invalid/x.png"></body></html>')
    browser.open(page.as_uri())
    assert [u for u in browser.requests() if u != page.as_uri()] == ["http://example.invalid/x.png"]


# -- the page as a pure function, and the command line --------------------------------------------------

def test_the_page_is_a_pure_self_contained_function_of_the_record(records: dict[str, Path]) -> None:
    for record in records.values():
        lines = read(record)
        html = render(lines)
        assert html == render([dict(x) for x in lines])  # same record, same bytes
        assert not re.search(r"https?:|//[a-z]|@import|url\(|<link|<img|<iframe|\ssrc=", html, re.I)
        assert html.count("<script") == 2 and "Content-Security-Policy" in html
        assert render(lines, seat=1) != html


@pytest.mark.parametrize("game", game_ids())
def test_values_shared_by_observations_are_drawn_once_and_the_same_as_alone(game: str) -> None:
    """The viewer converts each observation value once per match (issue 18: a page of Twenty-Two 0.8x);
    every observation of every position must come out as it does converted on its own."""
    import random

    from harness.viewer.model import _fields

    g = get_game(game)
    rules = g.rules({})
    m, rng, memo = g.start(5, rules), random.Random(5), {}  # type: ignore[var-annotated]
    n, positions, shared = g.players(rules), 0, 0
    while g.to_act(m) is not None and positions < 300:
        outs = []
        for p in range(n):
            outs.append(_fields(g.observe(m, p), memo))
            assert outs[-1] == _fields(g.observe(m, p)), (game, positions, p)
        shared += any(isinstance(v, list) and v is outs[1].get(k) for k, v in outs[0].items())  # drawn once
        m = g.apply(m, rng.choice(list(g.legal(m))))
        positions += 1
    assert positions > 10 and shared > 0

def test_a_record_that_does_not_verify_is_drawn_up_to_where_it_diverges(records: dict[str, Path]) -> None:
    lines = read(records["sixtysix"])
    deals = [x for x in lines if x["type"] == "deal"]
    deals[0]["actions"][3] = "XX"  # not an action of any game
    html = render(lines)
    assert 'id="problem"' in html and "does not verify" in html and "&#x27;XX&#x27; is illegal" in html
    found = re.search(r'<script type="application/json" id="match">(.*?)</script>', html)
    assert found is not None
    data = json.loads(found.group(1))
    assert [s["kind"] for s in data["steps"]] == ["start", "action", "action", "action", "stop"]
    assert data["steps"][-1]["action"] == "XX" and data["steps"][-1]["decision"] == 3


def test_hostile_names_cannot_break_out_of_the_page(records: dict[str, Path]) -> None:
    lines = read(records["sixtysix"])
    lines[0]["players"] = ["</script><script>alert(1)</script>", "<b>x</b>"]
    html = render(lines)
    assert "</script><script>alert(1)" not in html and "<b>x</b>" not in html


def test_view_writes_beside_the_record_and_rejects_bad_input_with_one_line(records: dict[str, Path],
                                                                           tmp_path: Path) -> None:
    record = tmp_path / "copy.jsonl"
    shutil.copy(records["schnapsen"], record)
    r = subprocess.run([PY, "-m", "harness.cli", "view", str(record)], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and (tmp_path / "copy.html").read_text().startswith("<!DOCTYPE html>")
    for args, message in ((["view", str(tmp_path / "missing.jsonl")], "cannot read"),
                          (["view", str(record), "--seat", "2"], "--seat 2: the match has players 0 to 1"),
                          (["view", str(tmp_path / "copy.html")], "not a match record")):
        r = subprocess.run([PY, "-m", "harness.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr


def test_links_are_relative_and_pages_sit_beside_their_records(tmp_path: Path, records: dict[str, Path]) -> None:
    page = write_page(records["sixtysix"])
    assert page == page_path(records["sixtysix"]) and page.parent == records["sixtysix"].parent
    assert links({"m": page}, page.parent.parent) == {"m": f"{page.parent.name}/{page.name}"}


def test_many_stale_pages_are_drawn_by_processes_on_every_core_as_one_process_draws_them(
        tmp_path: Path, records: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 18: a tournament's end draws a page per match; when the stale records are big enough, spawned
    processes draw them. The pages are the bytes one process writes, unreadable records get no link, the
    order is the records', and no drawer outlives the call."""
    import threading

    from harness.viewer import files

    games = [g for g in records if g != "forfeit"]
    wanted: dict[str, Path | None] = {}
    for k in range(20):
        g = games[k % len(games)]
        wanted[f"m{k}"] = tmp_path / f"m{k}.jsonl"
        shutil.copy(records[g], tmp_path / f"m{k}.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"type": "deal"}\n')
    wanted["bad"] = tmp_path / "bad.jsonl"  # no header: no page
    wanted["gone"] = tmp_path / "gone.jsonl"  # missing: no page
    wanted["none"] = None
    monkeypatch.setattr(files, "DRAWER_BYTES", 1)  # a drawer per byte, at most jobs
    drawers: set[int] = set()
    watching = threading.Event()

    def watch() -> None:
        while not watching.wait(0.005):  # a drawer lives at least as long as its imports (about 0.2 s)
            for d in Path("/proc").iterdir():
                try:
                    if d.name.isdigit() and b"harness.viewer.drawer" in (d / "cmdline").read_bytes() \
                            and (d / "stat").read_text().rsplit(")", 1)[1].split()[1] == str(os.getpid()):
                        drawers.add(int(d.name))
                except OSError:
                    pass

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        pages = files.ensure_pages(wanted, jobs=2)
    finally:
        watching.set()
        t.join()
    assert list(pages) == [f"m{k}" for k in range(20)]
    assert len(drawers) == 2 and not any(Path(f"/proc/{p}").exists() for p in drawers)
    for k in range(20):
        assert pages[f"m{k}"].read_bytes() == render(read(tmp_path / f"m{k}.jsonl")).encode()
    assert not (tmp_path / "bad.html").exists() and not list(tmp_path.glob(".*.tmp"))
    again = pages["m0"].stat().st_mtime_ns
    assert files.ensure_pages(wanted, jobs=2) == pages and pages["m0"].stat().st_mtime_ns == again  # fresh: kept
    drawn = {m: p.read_bytes() for m, p in pages.items()}
    for p in pages.values():
        p.unlink()
    monkeypatch.setattr(sys, "executable", shutil.which("false"))  # drawers that die at once, unread
    assert files.ensure_pages(wanted, jobs=2) == pages  # what no drawer answered is drawn here
    assert {m: p.read_bytes() for m, p in pages.items()} == drawn


# -- the leaderboards link every match and every failure to its page -------------------------------------

class Links(HTMLParser):
    """The match links of a leaderboard page: in the crosstable (by row and column) and in the failures."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[tuple[str, str], list[str]] = {}
        self.failures: list[str] = []
        self.all: list[str] = []
        self._cell: tuple[str, str] | None = None
        self._fail = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "td":
            self._cell = (a["data-row"] or "", a["data-col"] or "") if a.get("data-row") else None
        if tag == "span" and a.get("class") == "fail":
            self._fail += 1
        if tag == "a" and a.get("href"):
            href = a["href"] or ""
            self.all.append(href)
            if self._fail:
                self.failures.append(href)
            elif self._cell is not None:
                self.cells.setdefault(self._cell, []).append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cell, self._fail = None, 0


def _tournament(tmp: Path) -> Path:
    """A real tournament of three bots, one of which plays an illegal card at its third decision."""
    cmd = [PY, "-m", "harness.cli", "tournament", "--name", "linked", "--rounds", "1", "--seed", "4",
           "--db", str(tmp / "arena.db"), "--out", str(tmp / "results"), "--limit", "sandbox=none",
           "--bot", f"random={RANDOM}", "--bot", f"random2={RANDOM}", "--bot", f"cheat={TESTBOT} illegal 3"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr[-3000:]
    return next((tmp / "results").rglob("leaderboard.html"))


@needs_chromium
def test_the_tournament_board_links_every_match_and_every_failure_to_its_page(tmp_path: Path,
                                                                             browser: Browser) -> None:
    board = _tournament(tmp_path)
    doc = json.loads(board.with_name("leaderboard.json").read_text())
    matches = {m["match_id"]: m for m in doc["matches"]}
    assert len(matches) == 6 and all("page" in m for m in matches.values())
    page_of = {m["page"]: m for m in matches.values()}
    links = Links()
    links.feed(board.read_text())
    assert links.all and all(not re.match(r"[a-z][a-z0-9+.-]*:|/", h, re.I) for h in links.all)  # relative
    for (a, b), hrefs in links.cells.items():  # each cell: every match of the two, nothing else
        want = sorted(m["page"] for m in matches.values() if {a, b} <= set(m["players"]))
        assert sorted(hrefs) == want and len(want) == 2
    assert len(links.cells) == 6
    failed = sorted(m["page"] for m in matches.values() if m["cause"] != "normal")
    assert failed and sorted(links.failures) == failed
    assert all(page_of[h]["players"][page_of[h]["offender"]] == "cheat" for h in links.failures)
    # the results folder moves as a whole: every link still finds its page
    moved = tmp_path / "moved"
    shutil.move(tmp_path / "results", moved)
    board = next(moved.rglob("leaderboard.html"))
    assert all((board.parent / unquote(h)).is_file() for h in links.all)
    # follow a failure link in the browser: it opens that match's page, which ends with the forfeit
    browser.open(board.as_uri())
    assert browser.requests() == [board.as_uri()]
    browser.js("document.querySelector('span.fail a.match').click()")
    browser.wait_event("Page.loadEventFired")
    assert browser.js("location.pathname").endswith(unquote(links.failures[0]).split("/")[-1])
    browser.key("End", 35)
    got = state(browser)
    assert got["kind"] == "forfeit" and "cheat forfeits: illegal" in got["banner"]
    assert browser.errors() == []


def test_the_league_board_links_its_matches_and_failures(tmp_path: Path) -> None:
    from harness.leaderboard import files
    from harness.league.board import league_board
    from harness.league.store import Store

    store = Store(tmp_path / "league.db", game="sixtysix")
    a, _ = store.register("ann", "good", command=RANDOM)
    b, _ = store.register("bob", "bad", command=f"{TESTBOT} illegal 2")
    round_id = store.begin_round(1)
    for leg, (x, y) in enumerate(((a, b), (b, a))):
        match_id = f"league-{leg}"
        store.start_match(match_id, round_id, "p1", leg, 9, (x.id, y.id))
        r = play_result(tmp_path / "results" / "records", "sixtysix", [x.command or "", y.command or ""], {}, 9,
                        match_id)
        store.finish_match(r)
    store.end_round(round_id)
    board = league_board(store, title="League", provisional_below=1)
    store.close()
    files.write(board, tmp_path / "results")
    html = (tmp_path / "results" / "leaderboard.html").read_text()
    links = Links()
    links.feed(html)
    assert sorted(links.failures) == ["records/league-0.html", "records/league-1.html"]
    assert sorted(links.cells[("ann/good@1", "bob/bad@1")]) == ["records/league-0.html", "records/league-1.html"]
    assert all((tmp_path / "results" / h).is_file() for h in links.all)
