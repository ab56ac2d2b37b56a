"""The result of ``arena check-bot``: one row per check, as data, as JSON and as a rich table.

Rendering is pure: data in, a renderable out.

>>> r = Report("python bot.py", 7, [Check("hello", "Hello", PASS, "after 40 ms"),
...                                  Check("latency", "latency", FAIL, "p99 1200 ms over the 1000 ms limit")])
>>> r.ok, r.first_failure.id, r.to_dict()["first_failure"]
(False, 'latency', {'check': 'latency', 'detail': 'p99 1200 ms over the 1000 ms limit'})
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

PASS, FAIL, SKIP = "pass", "fail", "skip"
STYLE = {PASS: "bold green", FAIL: "bold red", SKIP: "dim"}


@dataclass
class Check:
    """One check: its id (``decisions:sixtysix``), what it checks, pass/fail/skip and the first failing
    detail (or what was seen), with figures in ``data``."""

    id: str
    title: str
    status: str = SKIP
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def set(self, status: str, detail: str, **data: Any) -> None:
        """Record the outcome; a failure already recorded keeps its (first) detail."""
        if self.status == FAIL and status != FAIL:
            return
        if self.status == FAIL:
            self.data.update(data)
            return
        self.status, self.detail = status, detail
        self.data.update(data)

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.id, "title": self.title, "status": self.status, "detail": self.detail, **self.data}


@dataclass
class Report:
    """Every check of one bot, in the order they are shown."""

    bot: str
    seed: int
    checks: list[Check]
    hello: dict[str, Any] = field(default_factory=dict)  # what the bot's Hello said
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(c.status != FAIL for c in self.checks)

    @property
    def first_failure(self) -> Check | None:
        return next((c for c in self.checks if c.status == FAIL), None)

    def get(self, check_id: str) -> Check:
        return next(c for c in self.checks if c.id == check_id)

    def failed(self) -> list[str]:
        return [c.id for c in self.checks if c.status == FAIL]

    def to_dict(self) -> dict[str, Any]:
        first = self.first_failure
        return {"bot": self.bot, "ok": self.ok, "seed": self.seed, "hello": self.hello, "settings": self.settings,
                "first_failure": None if first is None else {"check": first.id, "detail": first.detail},
                "checks": [c.to_dict() for c in self.checks]}


def table(report: Report) -> RenderableType:
    """The checks as a table, then one line: all passed, or the first failure."""
    hello = report.hello
    said = f" · {hello['name']} {hello.get('version') or ''}".rstrip() if hello.get("name") else ""
    t = Table(title=f"check-bot · {report.bot}{said}", box=box.SIMPLE_HEAVY, title_style="bold",
              header_style="bold cyan", caption=_caption(report), caption_style="dim")
    t.add_column("check")
    t.add_column("result")
    t.add_column("detail", overflow="fold")
    for c in report.checks:
        t.add_row(c.title, Text(c.status.upper(), style=STYLE[c.status]), Text(c.detail))
    first = report.first_failure
    if first is None:
        line = Text("all checks passed", style="bold green")
    else:
        line = Text.assemble(("first failure: ", "bold red"), (first.title, "bold"), f": {first.detail}")
    return Group(t, line)


def _caption(report: Report) -> str:
    s = report.settings
    parts = [f"seed {report.seed}"]
    if s:
        parts.append(f"move {s['move_ms']} ms, bank {s['bank_ms']} ms, {s['decisions']} decisions per game, "
                     f"grace {s['grace_s']:g} s")
    return " · ".join(parts)


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of ``values`` (not empty).

    >>> percentile([5, 1, 4, 2, 3], 50), percentile(range(1, 201), 99)
    (3, 198)
    """
    ordered = sorted(values)
    k = max(1, -(-len(ordered) * q // 100))  # ceil(n q / 100)
    return ordered[int(k) - 1]
