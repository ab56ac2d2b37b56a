"""The adaptive schedule's panel (issue 17), for every renderer: how the tournament ended, each pair of
neighbours in the standings with the confidence that its order is right, and the matches of every
pairing. Pure functions of ``board.meta["adaptive"]`` (:func:`harness.tournament.adaptive.summary`);
boards without it show nothing.
"""

from __future__ import annotations

from html import escape
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from harness.leaderboard import Board

EXPLAIN = ("P(order right) is a lower bound: the chance that the tournament ever shows this confidence for a pair "
           "in the wrong order is at most 1 − it, however long it ran and whenever it stopped (a sequential test on "
           "the pair's own duplicate pairs or tables, corrected for the number of neighbour pairs). Won/split/lost "
           "count the units (duplicate pairs, tables) between the two.")


def info(board: Board) -> dict[str, Any] | None:
    a = board.meta.get("adaptive")
    return a if isinstance(a, dict) else None


def _p(x: float) -> str:
    return f"{100 * x:.1f}%" if x < 0.9995 else ">99.9%"


def _pairings(a: dict[str, Any]) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for p in a.get("pairings", []):
        out[(p["a"], p["b"])] = out[(p["b"], p["a"])] = p["matches"]
    return out


def markdown(board: Board) -> list[str]:
    """The panel as Markdown lines (none for a round robin)."""
    a = info(board)
    if a is None:
        return []
    level = f"{100 * a['confidence']:g}%"
    lines = ["", "## Adaptive schedule", "", f"**{a['line']}**", "",
             f"| above | below | P(order right) | ≥ {level} | matches | units won/split/lost |",
             "|:--|:--|--:|:-:|--:|:-:|"]
    for n in a["neighbours"]:
        lines.append(f"| {n['above']} | {n['below']} | {_p(n['p_right'])} | "
                     f"{'yes' if n['p_right'] >= a['confidence'] else 'no'} | {n['matches']} | "
                     f"{n['won']}/{n['split']}/{n['lost']} |")
    names = board.standings.order
    counts = _pairings(a)
    lines += ["", "Matches per pairing:", "", "| | " + " | ".join(names) + " |", "|:--|" + "--:|" * len(names)]
    for x in names:
        lines.append(f"| **{x}** | " + " | ".join("·" if x == y else str(counts.get((x, y), 0)) for y in names) + " |")
    lines += ["", EXPLAIN]
    return lines


def table(board: Board) -> Table | None:
    """The panel as a rich table (None for a round robin)."""
    a = info(board)
    if a is None:
        return None
    t = Table(title="adaptive schedule: neighbours in the standings", box=box.SIMPLE, title_style="bold",
              header_style="bold cyan", caption=a["line"], caption_style="bold")
    for head, justify in (("above", "left"), ("below", "left"), ("P(order right)", "right"), ("matches", "right"),
                          ("units W/S/L", "center")):
        t.add_column(head, justify=justify)  # type: ignore[arg-type]
    for n in a["neighbours"]:
        ok = n["p_right"] >= a["confidence"]
        t.add_row(n["above"], n["below"], Text(_p(n["p_right"]), style="green" if ok else "yellow"),
                  str(n["matches"]), f"{n['won']}/{n['split']}/{n['lost']}")
    return t


def html(board: Board) -> str:
    """The panel as an HTML section ("" for a round robin)."""
    a = info(board)
    if a is None:
        return ""
    rows = []
    for n in a["neighbours"]:
        ok = n["p_right"] >= a["confidence"]
        rows.append(f"<tr data-above=\"{escape(n['above'])}\" data-below=\"{escape(n['below'])}\">"
                    f"<td class=\"l name\">{escape(n['above'])}</td><td class=\"l name\">{escape(n['below'])}</td>"
                    f"<td style=\"color:var(--{'good' if ok else 'bad'})\">{escape(_p(n['p_right']))}</td><td>{n['matches']}</td>"
                    f"<td>{n['won']}/{n['split']}/{n['lost']}</td></tr>")
    names = board.standings.order
    counts = _pairings(a)
    head = "<tr><th class=\"l\">matches</th>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"
    grid = "".join(
        f"<tr><th class=\"l name\">{escape(x)}</th>"
        + "".join("<td class=\"self\">—</td>" if x == y else f"<td>{counts.get((x, y), 0)}</td>" for y in names)
        + "</tr>" for x in names)
    return (
        f"<section id=\"adaptive\" data-ended=\"{escape(a['ended'])}\"><h2>Adaptive schedule</h2>"
        f"<p class=\"sub\"><b>{escape(a['line'])}</b>. {escape(EXPLAIN)}</p><div class=\"wrap\"><table>"
        "<thead><tr><th class=\"l\">above</th><th class=\"l\">below</th><th>P(order right)</th><th>matches</th>"
        f"<th>units W/S/L</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        f"<div class=\"wrap\"><table id=\"pairing-matches\"><thead>{head}</thead><tbody>{grid}</tbody></table></div>"
        "</section>"
    )
