"""report.html that reads at desktop and phone width (issue 23, First contact): line-ups by short
labels with a legend, intervals that may wrap under their value, short texts kept on one line,
long tables and reference sections folded; report.md keeps every word and every table open.
(tests/test_report_browser.py measures the pages in Chromium.)
"""

from __future__ import annotations

import re

from handsim.report.document import BulletList, Column, Document, Section, Table
from handsim.report.html import FOLD_ROWS, render as render_html
from handsim.report.markdown import render as render_md


def _doc(rows: int) -> Document:
    long = "hold-hand, card-reader, card-reader, card-reader"
    short = ((long, "L1"), ("greedy, greedy, greedy, greedy", "L2"))
    t = Table((Column("line-up", short=short), Column("policy"), Column("mean score", "points, 95% CI", True)),
              tuple((long, "greedy", "+5.1 (+4.6 to +5.6)") for _ in range(rows)), caption="Scores.")
    return Document("T", [Section("S").add(t)])


def test_html_gives_line_ups_short_labels_and_a_legend():
    page = render_html(_doc(3))
    cells = re.findall(r"<td[^>]*>.*?</td>", page)
    assert len(cells) == 9
    assert cells[0] == '<td class="nw"><abbr title="hold-hand, card-reader, card-reader, card-reader">L1</abbr></td>'
    assert cells[1] == '<td class="nw">greedy</td>'  # a short text stays on one line
    long = Table((Column("change"),), (("position 3: `greedy` instead of `greedy:support_hand=1`",),))
    assert ('<td class="long">position 3: <code>greedy</code> instead of <code>greedy:support_hand=1</code></td>'
            in render_html(Document("T", [Section("S").add(long)])))  # a long one keeps a readable width
    # the legend names only the labels used
    assert ('<p class="table-legend">line-up: <strong>L1</strong> hold-hand, card-reader, card-reader, '
            "card-reader</p>") in page
    assert "L2" not in page
    # a value and its interval: two parts that stay whole, the line may break between them
    assert '<td class="num"><span class="v">+5.1</span> <span class="ci">(+4.6 to +5.6)</span></td>' in page
    assert "<details" not in page  # 3 rows: open
    md = render_md(_doc(3))
    assert "| hold-hand, card-reader, card-reader, card-reader | greedy | +5.1 (+4.6 to +5.6) |" in md
    assert "L1" not in md


def test_html_folds_long_tables():
    assert FOLD_ROWS == 12
    assert "<details" not in render_html(_doc(FOLD_ROWS))
    page = render_html(_doc(FOLD_ROWS + 1))
    assert page.count('<details class="fold"><summary>Show the table (13 rows)</summary>') == 1
    # the caption stays outside, the legend inside with its table
    assert page.index('<p class="table-caption">Scores.</p>') < page.index("<details")
    assert page.index("<details") < page.index('class="table-legend"') < page.index("</details>")


def test_a_folded_section_opens_in_html_and_is_open_in_markdown():
    sec = Section("How to read this report", fold="Show the notes").add(BulletList(("**Score** is ...",)))
    doc = Document("T", [sec])
    page = render_html(doc)
    assert ('<h2>How to read this report</h2><details class="fold"><summary>Show the notes</summary>'
            "<ul><li><strong>Score</strong> is ...</li></ul></details></section>") in page
    assert render_md(doc) == "# T\n\n## How to read this report\n\n- **Score** is ...\n"


def test_a_study_report_names_its_line_ups_short_in_html_only(tmp_path):
    from test_report_scale import many_lineups

    many_lineups(2).write_report(tmp_path, {"players": 4})
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    legend = ('<p class="table-legend">line-up: <strong>L1</strong> greedy, greedy, greedy, greedy; '
              "<strong>L2</strong> greedy, greedy, greedy, hold-hand</p>")
    assert page.count(legend) == 4  # the effect table and the three full tables name both
    # policy against policy and switching one seat: only the mixed line-up
    only_l2 = "<strong>L2</strong> greedy, greedy, greedy, hold-hand</p>"
    assert page.count(f'<p class="table-legend">line-up: {only_l2}') == 1
    assert page.count(f'<p class="table-legend">line-up (with the first policy): {only_l2}') == 1
    assert "L2" not in md and "| greedy, greedy, greedy, hold-hand | hold-hand |" in md
    # the reference section folds in the page, and the line-ups of What was simulated are in full there
    assert '<section id="how-to-read"><h2>How to read this report</h2><details class="fold">' in page
    assert ('<td class="num"><span class="v">2</span></td><td class="long">greedy, greedy, greedy, hold-hand</td>'
            in page)
