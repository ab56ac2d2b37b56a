"""The leaderboard renderers: one column spec for all of them, the game and its rules named in each,
the files written together, and leaderboard.json recomputing team games."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from rich.console import Console, RenderableType

from harness.leaderboard import COLUMNS, Board, columns, feed, files, markdown, page, terminal
from harness.leaderboard.terminal import LEAGUE_HIDDEN
from harness.rating import Model, Played, standings, two_player

NAMES = ["ann", "bob", "cyd"]


def _played() -> list[Played]:
    out, seq = [], 0
    for i, a in enumerate(NAMES):
        for b in NAMES[i + 1:]:
            for leg, players in enumerate(((a, b), (b, a))):
                seq += 1
                winner = (seq % 3 != 0) ^ leg
                cause, offender = ("timeout", 1 - winner) if seq == 4 else ("normal", None)
                out.append(two_player(seq, f"m{seq}", f"p{a}{b}", players, winner, (seq % 7, 7 - seq % 7),
                                      cause, offender))
    return out


def _board(meta: dict | None = None) -> Board:
    played = _played()
    return Board("spec · leaderboard", standings(Model(), NAMES, played), dict(meta or {}), tuple(played),
                 frozenset({"cyd"}))


def _text(renderable: RenderableType) -> str:
    out = io.StringIO()
    Console(file=out, width=240, color_system=None).print(renderable)
    return out.getvalue()


def test_every_renderer_shows_the_spec_columns_in_order() -> None:
    b = _board()
    COLUMNS = columns(b)  # a two-player board: duplicate pairs, no places
    assert [c.key for c in COLUMNS if c.key in ("pairs", "places")] == ["pairs"]
    md = markdown.render(b).splitlines()
    head = next(i for i, line in enumerate(md) if line.startswith("| #"))
    assert md[head] == "| " + " | ".join(c.title for c in COLUMNS) + " |"
    assert len(md[head + 1].split("|")) == len(COLUMNS) + 2
    assert [c.header for c in terminal.standings_table(b).columns] == [c.head for c in COLUMNS]
    ranking = page.render(b).split('<table id="standings">')[1].split("</table>")[0]
    assert len(re.findall(r"<th[ >]", ranking.split("</thead>")[0])) == len(COLUMNS)
    rows = ranking.split("<tbody>")[1].split("</tr>")[:-1]
    assert len(rows) == len(NAMES) and all(len(re.findall(r"<td[ >]", r)) == len(COLUMNS) for r in rows)
    keys = [k for c in COLUMNS for k in c.data(b, b.standings.rows[0])]
    for row in feed.document(b)["standings"]:
        assert list(row) == keys
    # the cells say the same thing everywhere: a failure shows in the terminal and in Markdown
    bad = next(r for r in b.standings.rows if r.failures["timeout"])
    line = next(x for x in md if x.startswith(f"| {bad.rank} |"))
    assert "timeout 1" in line and "timeout 1" in _text(terminal.standings_table(b))
    assert "cyd (provisional)" in "\n".join(md) and "cyd (provisional)" in _text(terminal.standings_table(b))


def test_the_league_table_uses_the_spec_and_marks_entrants() -> None:
    from harness.league.board import to_pb  # the protobuf form the league service sends

    b = _board()
    lb = to_pb(b, [], connected={"ann"}, include_retired=True)
    t = terminal.league_table(lb)
    assert [c.header for c in t.columns] == [c.head for c in COLUMNS if c.key not in LEAGUE_HIDDEN] + [""]
    text = _text(t)
    assert re.search(r"cyd .*provisional", text) and re.search(r"ann .*online", text)
    assert "timeout 1" in text and "(provisional)" not in text  # marked in its own column


def test_the_game_and_its_rules_are_named_in_every_rendering() -> None:
    b = _board({"game": "schnapsen", "game_title": "Schnapsen", "rule_changes": ["marriage_in_phase2=true"],
                "entrants": [{"name": n} for n in NAMES]})
    md = markdown.render(b)
    assert "game: Schnapsen" in md and "rules: marriage_in_phase2=true" in md
    html = page.render(b)
    assert "game: <b>Schnapsen</b>" in html and "rules: marriage_in_phase2=true" in html
    doc = json.loads(feed.render(b))
    assert (doc["game"], doc["game_title"], doc["rule_changes"]) == ("schnapsen", "Schnapsen",
                                                                     ["marriage_in_phase2=true"])
    term = _text(terminal.render(b))
    assert "game: Schnapsen" in term and "rules: marriage_in_phase2=true" in term


def test_a_board_without_game_meta_is_sixty_six_with_default_rules() -> None:
    b = _board()
    assert "game: Sixty-Six · default rules" in markdown.render(b)
    assert "game: <b>Sixty-Six</b>" in page.render(b) and "default rules" in page.render(b)
    doc = feed.document(b)
    assert (doc["game"], doc["game_title"], doc["rule_changes"]) == ("sixtysix", "Sixty-Six", [])
    assert "game: Sixty-Six · default rules" in _text(terminal.render(b))


def test_json_recomputes_a_team_game() -> None:
    # four seats in two teams: teams are part of the outcome, so the document must keep them
    names = ["n", "e", "s", "w"]
    played = [Played(k, f"m{k}", f"p{k}", ("n", "e", "s", "w"), (0, 1, 0, 1) if k % 3 else (1, 0, 1, 0),
                     (7, 0, 7, 0), teams=(0, 1, 0, 1)) for k in range(1, 7)]
    b = Board("teams", standings(Model(), names, played), {"entrants": [{"name": n} for n in names]},
              tuple(played))
    doc = json.loads(feed.render(b))
    assert all(m["teams"] == [0, 1, 0, 1] for m in doc["matches"])
    assert feed.recompute(doc) == b.standings
    as_singles = standings(Model(), names, [Played(p.seq, p.match_id, p.pair_id, p.players, p.ranks, p.scores)
                                            for p in played])
    assert as_singles != b.standings  # so the check above could fail if teams were dropped


def test_files_writes_the_three_documents_and_leaves_no_temporaries(tmp_path: Path) -> None:
    b = _board()
    out = tmp_path / "new" / "dir"
    paths = files.write(b, out)
    assert [p.name for p in paths] == list(files.FILES)
    assert paths[0].read_text() == markdown.render(b)
    assert json.loads(paths[1].read_text()) == json.loads(feed.render(b))
    assert paths[2].read_text() == page.render(b)
    assert sorted(p.name for p in out.iterdir()) == sorted(files.FILES)
    files.write(_board({"game_title": "Again"}), out)  # replaced, not appended
    assert "game: Again" in paths[0].read_text()
