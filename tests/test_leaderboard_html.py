"""The HTML leaderboard in a real headless Chromium: ranking order, crosstable, chart, no requests.

The data comes from a real tiny tournament (bot processes over gRPC, SQLite), published again by
`leaderboard --db ... --out ...`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from tools import CHROMIUM

ROOT = Path(__file__).resolve().parents[1]
BOTS = {"random": "python sample_bots/random_bot.py", "greedy": "python sample_bots/greedy_bot.py",
        "random2": "python sample_bots/random_bot.py"}

pytestmark = pytest.mark.needs("chromium")


class Dom(HTMLParser):
    """Collects the standings rows, crosstable cells and chart series of a dumped DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.ranks: list[tuple[int, str]] = []
        self.cells: list[tuple[str, str, float]] = []
        self.series: list[str] = []
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v for k, v in attrs if v}  # a valueless attribute counts as absent
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "tr" and "data-rank" in a:
            self.ranks.append((int(a["data-rank"]), a.get("data-name", "")))
        if tag == "td" and "data-rate" in a:
            self.cells.append((a.get("data-row", ""), a.get("data-col", ""), float(a["data-rate"])))
        if tag == "g" and "data-entrant" in a:
            self.series.append(a["data-entrant"])
        self.links += [a[key] for key in ("src", "href", "srcset", "action", "data") if key in a]


def _chromium(page: Path, tmp: Path, tag: str) -> tuple[str, list[dict]]:
    """Load ``page`` headless; return the DOM and the page-initiated network requests from the net log."""
    assert CHROMIUM, "chromium is required for this test (CI installs it)"
    netlog = tmp / f"net-{tag}.json"
    r = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp / ('profile-' + tag)}", '--host-resolver-rules=MAP * ~NOTFOUND',
         f"--log-net-log={netlog}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    log = json.loads(netlog.read_text())
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    page_requests = [
        e["params"] for e in log["events"]
        if names.get(e["type"]) == "URL_REQUEST_START_JOB"
        and e.get("params", {}).get("initiator", "not an origin") != "not an origin"  # browser's own traffic
    ]
    return r.stdout, page_requests


def _resolved(page: Path) -> str:
    """The page with each relative link written as the absolute path it points to."""
    return re.sub(r'href="([^"]+)"', lambda m: f'href="{(page.parent / unquote(m.group(1))).resolve()}"',
                  page.read_text())


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("lb")
    cmd = [sys.executable, "-m", "harness.cli", "tournament", "--name", "html", "--rounds", "2", "--seed", "3",
           "--db", str(tmp / "arena.db"), "--out", str(tmp / "run")]
    for n, c in BOTS.items():
        cmd += ["--bot", f"{n}={c}"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = tmp / "published"
    r = subprocess.run([sys.executable, "-m", "harness.cli", "leaderboard", "--db", str(tmp / "arena.db"),
                        "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # each tournament's leaderboards go to OUT/<its name>/ (issue 14)
    # the same page, its relative links to the match pages (issue 16) pointing at the same files
    assert _resolved(out / "html" / "leaderboard.html") == _resolved(tmp / "run" / "html" / "leaderboard.html")
    return out / "html"


def test_page_renders_ranking_crosstable_and_chart(published: Path, tmp_path: Path) -> None:
    doc = json.loads((published / "leaderboard.json").read_text())
    order = [r["name"] for r in doc["standings"]]
    dom_text, requests = _chromium(published / "leaderboard.html", tmp_path, "page")
    dom = Dom()
    dom.feed(dom_text)
    assert [n for _, n in sorted(dom.ranks)] == order
    assert [r for r, _ in dom.ranks] == list(range(1, len(order) + 1))  # rendered in rank order
    assert order.index("greedy") < order.index("random") and order.index("greedy") < order.index("random2")
    assert {"standings", "crosstable", "chart"} <= dom.ids
    expected = {(c["row"], c["col"]): c["rate"] for c in doc["crosstable"]}
    assert {(a, b): pytest.approx(r, abs=1e-4) for a, b, r in dom.cells} == expected
    assert len(dom.cells) == len(order) * (len(order) - 1)
    assert sorted(dom.series) == sorted(order)
    assert requests == []
    # the only links are to the match pages (issue 16): relative, each to a page that is there
    assert dom.links and all(not re.match(r"[a-z][a-z0-9+.-]*:|/", link, re.I) for link in dom.links)
    assert all((published / link).resolve().is_file() for link in dom.links)


def test_html_has_no_external_references(published: Path) -> None:
    html = (published / "leaderboard.html").read_text()
    assert not re.search(r"https?:|//[a-z]|@import|url\(|<script|<link|<img|<iframe", html, re.I)


def test_the_network_check_catches_a_request(tmp_path: Path) -> None:
    # Control: the same check must see a page that does load something.
    page = tmp_path / "control.html"
    page.write_text('<!DOCTYPE html><html><body><img src="http://example.invalid/x.png"></body></html>')
    _, requests = _chromium(page, tmp_path, "control")
    assert requests
