"""report.html in a real browser: headless Chromium loads it offline, every figure decodes, nothing
logs an error, nothing is fetched, and the page fits a phone and a desktop screen, no text cell
wrapping to more than three lines; for a study (of the default size, of 100 line-ups, of 2 v 2
matches), a tournament and a tuning run.

Needs a Chromium binary (Debian: ``apt-get install chromium``) and playwright (``pip install -e
".[test]"``); skipped where either is missing.  Run alone with ``python -m pytest -m browser``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_report", ROOT / "scripts" / "check_report.py")
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


@pytest.fixture(scope="module")
def chromium():
    exe = check.find_chromium()
    if exe is None:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install -e '.[test]')")
    return exe


def test_report_html_loads_in_chromium(chromium, tmp_path):
    from test_report import COOP, PLAIN, match_study

    acc = match_study([COOP, PLAIN], teams=True, n=60, chunks=1)
    acc.write_report(tmp_path, {"players": 4, "rules": {"partnership": True}}, formats=("html",))
    page = tmp_path / "report.html"
    n_figures = page.read_text(encoding="utf-8").count("<img ")
    res = check.check_report(page, tmp_path / "shots", chromium)
    assert res["ok"], res["problems"]
    assert res["images"] == n_figures >= 6
    assert res["blocked"] == [] and res["console"] == []
    assert res["layout"]["desktop"]["toc"] >= 8
    _fits(res)
    for shot in res["screenshots"]:
        data = Path(shot).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


#: The most a default-sized study's page may be long at 1280 px: it was 17,200 px (a line-up
#: wrapped to five lines in its table's column) before line-ups got short labels and long tables
#: and *How to read* folded; now about 10,600 px.
HEIGHT_DEFAULT = 12_000


def _fits(res, most_lines=3):
    """The page fits the screen at phone and desktop width, as loaded and with its tables opened, and
    no text cell (a line-up, a policy, a switch of policies) takes more than ``most_lines`` lines."""
    for name in ("phone", "desktop"):
        lay = res["layout"][name]
        assert lay["inner"] == {"phone": 390, "desktop": 1280}[name]
        assert lay["scroll"] <= lay["inner"] + 1, (name, lay)
        assert lay["opened"]["scroll"] <= lay["inner"] + 1, (name, lay["opened"])
        assert 1 <= lay["opened"]["cell_lines"] <= most_lines, (name, lay["opened"])


def test_a_default_sized_study_reads_at_desktop_and_phone_width(chromium, tmp_path):
    """Three thresholds x two joker penalties x two line-ups, as the default study: every table fits
    1280 px with no line-up wrapping, long tables are folded, and the page is not 12,000 px long."""
    from test_report_scale import many_lineups

    acc = many_lineups(2, thresholds=(51, 71, 91), penalties=(15, 30), n=60)
    acc.write_report(tmp_path, {"players": 4, "rules": {"opening_threshold": 51, "joker_penalty": 15}},
                     formats=("html",))
    res = check.check_report(tmp_path / "report.html", None, chromium)
    assert res["ok"], res["problems"]
    _fits(res)
    desktop = res["layout"]["desktop"]
    # folded: How to read, and the four tables of 18 rows (the threshold's effect, the three full tables)
    assert desktop["folded"] == 5 and desktop["height"] < HEIGHT_DEFAULT, desktop


def test_a_hundred_lineups_report_reads_at_desktop_and_phone_width(chromium, tmp_path):
    from test_report_scale import FIGURES, many_lineups

    many_lineups(100).write_report(tmp_path, {"players": 4}, formats=("html",))
    res = check.check_report(tmp_path / "report.html", None, chromium)
    assert res["ok"], res["problems"]
    assert res["images"] == len(FIGURES)
    _fits(res)


def _check_page(chromium, page, shots, n_images, toc):
    res = check.check_report(page, shots, chromium)
    assert res["ok"], res["problems"]
    assert res["images"] == page.read_text(encoding="utf-8").count("<img ") == n_images
    assert res["blocked"] == [] and res["console"] == []
    assert res["layout"]["desktop"]["toc"] == toc
    _fits(res)
    return res


def test_tournament_report_html_loads_in_chromium(chromium, tmp_path):
    from handsim.tournament import make_tournament, run_tournament, write_tournament

    spec = make_tournament(["greedy", "hold-hand:bail_turn=6", "random"], players=3, deals=40, seed=2, chunk=40)
    result = run_tournament(spec, jobs=1, executor="inline")
    path = write_tournament(result, tmp_path, formats=("html",))
    assert path == tmp_path / "report.html" and not (tmp_path / "ratings.png").exists()
    # the ratings and the head-to-head figure; seven sections in the contents
    _check_page(chromium, path, tmp_path / "shots", 2, 7)


def test_tune_report_html_loads_in_chromium(chromium, tmp_path):
    from handsim.tournament.tune import make_tune, run_tune, write_tune

    spec = make_tune("hold-hand:bail_opponent_cards=0", ["bail_turn=1:9:4", "bail_opponent_cards=0:4:2"],
                     "greedy,greedy", deals=40, seed=2, chunk=40)
    result = run_tune(spec, jobs=1, executor="inline", out=tmp_path)
    assert result.confirm is not None
    path = write_tune(result, tmp_path, formats=("html",))
    # the heat map of the grid and the confirmation figure
    _check_page(chromium, path, tmp_path / "shots", 2, 7)


def test_check_catches_a_broken_page(chromium, tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width">'
                    '</head><body><img src="data:image/png;base64,AAAA"><img src="missing.png">'
                    '<img src="https://example.invalid/x.png"><div style="width:2000px">wide</div>'
                    '<script>console.error("boom")</script></body></html>', encoding="utf-8")
    res = check.check_report(page, None, chromium)
    assert not res["ok"]
    text = "\n".join(res["problems"])
    assert "image 1 did not load" in text and "image 2 did not load" in text and "image 3 did not load" in text
    assert "console phone: error: boom" in text
    assert "blocked request to https://example.invalid/x.png" in text
    assert "px wide on a 390 px screen" in text
