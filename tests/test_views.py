"""The deal and table views of three-handed Sixty-Six, four-handed Sixty-Six and Twenty-Two
(harness/views/), rendered to text from deals really played in process through the registry.

What is checked comes from outside the views: the hands from the deal mappings of RULES.md (3H,
4H-2, 22-3.2), trick winners from who the game says leads next (3H-3, 4H-4, 22-5.1), scores,
losers, penalties and eliminations from the game's own deal-end record and scores.
"""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.games.registry import get
from harness.players import players_for
from harness.render import deal_view, table_view
from harness.views.common import card_text

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve")
ROOT = Path(__file__).resolve().parent.parent


def text(renderable: Any, width: int = 200) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, legacy_windows=False).print(renderable)
    return out.getvalue()


def shown(card: str) -> str:
    return card_text(card).plain


def play(game_id: str, seed: int, values: dict[str, Any] | None = None, deals: int = 1000) -> tuple[Any, list[dict[str, Any]], list[list[int]]]:
    """Up to ``deals`` finished deals of a match of the built-in players: (rules, deal lines, and for
    each deal the player who made each action)."""
    g = get(game_id)
    rules = g.rules(values or {})
    bots = players_for(game_id, g.players(rules), random.Random(seed))
    m = g.start(seed, rules)
    lines: list[dict[str, Any]] = []
    actors: list[list[int]] = []
    d, actions, who = g.deal(m), [], []
    while (p := g.to_act(m)) is not None and len(lines) < deals:
        done = g.deals_done(m)
        a = bots[p][1](g.observe(m, p))
        actions.append(a)
        who.append(p)
        m = g.apply(m, a)
        if g.deals_done(m) > done:
            lines.append({"deal_no": d.deal_no, **d.record, "actions": actions, "result": g.deal_end(m).record})
            actors.append(who)
            actions, who = [], []
            if g.outcome(m) is None:
                d = g.deal(m)
    return rules, lines, actors


def leaders_after_tricks(game_id: str, rules: Any, seed: int, line: dict[str, Any], cards_per_trick: int,
                         is_card: Any) -> list[int]:
    """The player to act after each completed trick of deal 1 (the winner, who leads next), through
    the game interface, for every trick but one that ends the deal."""
    assert line["deal_no"] == 1
    g = get(game_id)
    m = g.start(seed, rules)
    out, plays = [], 0
    done = g.deals_done(m)
    for a in line["actions"]:
        m = g.apply(m, a)
        if is_card(a):
            plays += 1
            if plays % cards_per_trick == 0 and g.deals_done(m) == done:
                p = g.to_act(m)
                assert p is not None
                out.append(p)
    return out


def rows(out: str) -> dict[int, str]:
    """The trick rows of a rendered deal by trick number."""
    found = {}
    for ln in out.splitlines():
        m = re.match(r"^[│|]?\s*(\d+)\.\s", ln)
        if m:
            found[int(m.group(1))] = ln
    return found


def gain(row: str) -> int:
    """The points a trick row says its winner took (``Name +N``)."""
    m = re.search(r" \+(\d+)", row)
    assert m is not None, row
    return int(m.group(1))


def hand_line(out: str, name: str) -> set[str]:
    """The cards of ``name``'s hand line at the deal (``Name: cards`` or ``Name deals: cards``)."""
    for ln in out.splitlines():
        m = re.match(rf"^[│|]?\s*{name}( deals)?: (.*?)\s*[│|]?$", ln)
        if m:
            return set(m.group(2).split())
    raise AssertionError(f"no hand line for {name} in\n{out}")


# -- three-handed Sixty-Six ------------------------------------------------------------------------------


def test_three_handed_deal_shows_every_hand_each_trick_winner_and_the_scores() -> None:
    rules, lines, _ = play("three_handed", 7, deals=1)
    line = lines[0]
    out = text(deal_view("three_handed", rules, line, NAMES[:3]))
    deck = line["deck"].split()
    dealer = line["dealer"]
    parts = ((0, 1, 2, 9, 10, 15, 16, 17), (3, 4, 5, 11, 12, 18, 19, 20), (6, 7, 8, 13, 14, 21, 22, 23))  # RULES.md 3H
    for seat, idx in enumerate(parts):
        player = (dealer + 1 + seat) % 3
        assert hand_line(out, NAMES[player]) == {shown(deck[i]) for i in idx}
    cards = [a for a in line["actions"] if a[0] in "9JQKTA" and len(a) == 2]
    assert len(cards) == 24
    winners = leaders_after_tricks("three_handed", rules, 7, line, 3, lambda a: len(a) == 2)
    got = rows(out)
    assert sorted(got) == list(range(1, 9))
    for k, w in enumerate(winners, 1):
        assert f"{NAMES[w]} +" in got[k], got[k]
        for c in cards[3 * (k - 1): 3 * k]:
            assert shown(c) in got[k]
    assert sum(gain(r) for r in got.values()) == 130  # card points + 10 last
    scores = line["result"]["scores"]
    assert "  ".join(f"{NAMES[p]} {scores[p]}" for p in range(3)) in out


def test_three_handed_claim_and_marriage_are_told() -> None:
    rules, lines, _ = play("three_handed", 7)
    claimed = next(ln for ln in lines if ln["result"]["reason"] == "claim")
    out = text(deal_view("three_handed", rules, claimed, NAMES[:3]))
    w = claimed["result"]["winner"]
    g = claimed["result"]["game_points"]
    assert f"{NAMES[w]} claims with" in out
    assert f"{NAMES[w]} scores {g} game point" in out
    married = next(ln for ln in lines if any(a.startswith("marry:") for a in ln["actions"]))
    suit = next(a for a in married["actions"] if a.startswith("marry:"))[-1]
    assert f"declares the marriage {shown('K' + suit)} {shown('Q' + suit)}" in text(
        deal_view("three_handed", rules, married, NAMES[:3]))


# -- four-handed Sixty-Six -----------------------------------------------------------------------------


def test_four_handed_deal_shows_every_hand_each_trick_winner_team_points_and_scores() -> None:
    rules, lines, _ = play("four_handed", 3, deals=1)
    line = lines[0]
    out = text(deal_view("four_handed", rules, line, NAMES[:4]))
    deck = line["deck"].split()
    dealer = line["dealer"]
    batches = ((0, 1, 2, 12, 13, 20, 21, 22), (3, 4, 5, 14, 15, 23, 24, 25), (6, 7, 8, 16, 17, 26, 27, 28),
               (9, 10, 11, 18, 19, 29, 30, 31))  # RULES.md 4H-2, 32 cards
    for seat, idx in enumerate(batches):
        assert hand_line(out, NAMES[(dealer + 1 + seat) % 4]) == {shown(deck[i]) for i in idx}
    assert f"turns up {shown(deck[31])}" in out  # 4H-3: the dealer's last card
    got = rows(out)
    assert sorted(got) == list(range(1, 9))
    winners = leaders_after_tricks("four_handed", rules, 3, line, 4, lambda a: True)
    assert len(winners) == 7
    for k, w in enumerate(winners, 1):
        assert f"{NAMES[w]} +" in got[k], got[k]
    result = line["result"]
    won = [sum(1 for r in got.values() if re.search(rf"\b({NAMES[t]}|{NAMES[t + 2]}) \+", r)) for t in (0, 1)]
    assert won == result["tricks"]
    assert sum(gain(r) for r in got.values()) == 130  # 4H-5
    assert got[8].rstrip(" │").endswith(f"{result['points'][0]}:{result['points'][1]}")  # team points after it
    sc = result["scores"]
    assert f"Ann+Cid {sc[0]} : {sc[1]} Bob+Dee" in out


# -- Twenty-Two --------------------------------------------------------------------------------------------


def test_twenty_two_deal_shows_hands_exchange_counts_tricks_losers_penalty_and_eliminations() -> None:
    rules, lines, actors = play("twenty_two", 11, {"players": 4})
    first = lines[0]
    out = text(deal_view("twenty_two", rules, first, NAMES[:4]))
    seats, deck, size = first["seats"], first["deck"].split(), first["hand"]
    for k, p in enumerate(seats):  # 22-3.2: card i goes to seat i mod N
        assert hand_line(out, NAMES[p]) == {shown(c) for c in deck[k: size * len(seats): len(seats)]}
    discards: dict[int, int] = {}
    for a, p in zip(first["actions"], actors[0]):
        if a.startswith("discard:") or a == "done":
            discards[p] = discards.get(p, 0) + a.startswith("discard:")
    exchange = next(ln for ln in out.splitlines() if "exchange" in ln)
    assert discards
    for p, n in discards.items():
        assert re.search(rf"\b{NAMES[p]} {n}\b" if n else rf"\b{NAMES[p]} stands pat", exchange), exchange
    skipped = [NAMES[p] for p in seats if p not in discards]
    if skipped:
        assert f"{', '.join(skipped)} skip (stock empty)" in exchange
    assert not any(sym in exchange for sym in "♣♦♥♠"), "the exchange shows no card (22-4.3)"
    is_play = (lambda a: not a.startswith("discard:") and a != "done")
    winners = leaders_after_tricks("twenty_two", rules, 11, first, len(seats), is_play)
    got = rows(out)
    for k, w in enumerate(winners, 1):
        assert got[k].rstrip(" │").endswith(NAMES[w]), got[k]
    r = first["result"]
    losers = ", ".join(NAMES[p] for p in r["losers"])
    assert f"{losers} {'loses' if len(r['losers']) == 1 else 'lose'}: +{r['penalty']}" in out
    reveal = next(ln for ln in out.splitlines() if "reveal" in ln)
    for k, c in enumerate(r["revealed"]):
        assert f"{NAMES[seats[k]]} {shown(c)}" in reveal
    out_deals = [ln for ln in lines if ln["result"]["eliminated"]]
    assert out_deals, "the match eliminates somebody"
    for ln in out_deals:
        o = text(deal_view("twenty_two", rules, ln, NAMES[:4]))
        for p in ln["result"]["eliminated"]:
            assert f"{NAMES[p]} is out: total {ln['result']['totals'][p]}" in o
        for p in set(ln["seats"]) - set(ln["result"]["eliminated"]):
            assert f"{NAMES[p]} is out" not in o
    last = lines[-1]  # the match's end: every total after it, the eliminated marked out
    r = last["result"]
    gone = {p for p in range(4) if p not in last["seats"] or p in r["eliminated"]}
    assert len(gone) >= 3
    o = text(deal_view("twenty_two", rules, last, NAMES[:4]))
    assert "  ".join(f"{NAMES[p]} {r['totals'][p]}{' out' if p in gone else ''}" for p in range(4)) in o


# -- every game: a deal cut short, the live table ---------------------------------------------------------


@pytest.mark.parametrize("game_id,values,n", [("three_handed", {}, 3), ("four_handed", {}, 4),
                                              ("twenty_two", {"players": 5}, 5)])
def test_a_cut_short_deal_says_so_and_shows_no_scores(game_id: str, values: dict[str, Any], n: int) -> None:
    rules, lines, _ = play(game_id, 5, values, deals=1)
    whole = text(deal_view(game_id, rules, lines[0], NAMES[:n]))
    cut = dict(lines[0], actions=lines[0]["actions"][: len(lines[0]["actions"]) // 2], result=None)
    out = text(deal_view(game_id, rules, cut, NAMES[:n]))
    assert "cut short" in out and "cut short" not in whole
    assert f"cut short after {len(cut['actions'])} actions" in out
    assert "score" not in out.lower() and "lose" not in out and "reveal" not in out


@pytest.mark.parametrize("game_id,values", [("three_handed", {}), ("four_handed", {}), ("twenty_two", {"players": 5})])
def test_the_live_table_shows_every_players_hand(game_id: str, values: dict[str, Any]) -> None:
    g = get(game_id)
    rules = g.rules(values)
    bots = players_for(game_id, g.players(rules), random.Random(2))
    m = g.start(2, rules)
    for _ in range(9):
        p = g.to_act(m)
        assert p is not None
        m = g.apply(m, bots[p][1](g.observe(m, p)))
    drawn = table_view(m, NAMES[: g.players(rules)], g.deal(m).deal_no)
    assert drawn is not None
    header, hands = drawn
    assert len(hands) == g.players(rules)
    for p, h in enumerate(hands):
        assert {shown(c) for c in g.observe(m, p).hand} <= set(h.plain.split())
        assert len(g.observe(m, p).hand) == sum(1 for w in h.plain.split() if w[-1] in "♣♦♥♠")
    assert "trick" in header.plain


# -- arena show draws these games deal by deal -------------------------------------------------------------


@pytest.mark.parametrize("args", [["--game", "twenty_two", "--players", "4"], ["--game", "four_handed"],
                                  ["--game", "three_handed"]])
def test_arena_show_draws_deal_panels(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "harness.cli", "show", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env={**os.environ, "COLUMNS": "120", "PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 0, done.stderr
    assert re.search(r"╭─ Deal 1 · \S+ deals", done.stdout)
    assert not re.search(r"^deal \d+: ", done.stdout, re.M), "no plain-text fallback"
    assert done.stdout.count("╭─ Deal ") >= 2
