"""report.html in a real browser: headless Chromium loads it offline, every figure decodes, nothing
logs an error, nothing is fetched, and the page fits a phone screen; for a study, a tournament and
a tuning run.

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
    assert res["layout"]["phone"]["scroll"] <= res["layout"]["phone"]["inner"] + 1
    assert res["layout"]["desktop"]["toc"] >= 8
    for shot in res["screenshots"]:
        data = Path(shot).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def _check_page(chromium, page, shots, n_images, toc):
    res = check.check_report(page, shots, chromium)
    assert res["ok"], res["problems"]
    assert res["images"] == page.read_text(encoding="utf-8").count("<img ") == n_images
    assert res["blocked"] == [] and res["console"] == []
    assert res["layout"]["phone"]["scroll"] <= res["layout"]["phone"]["inner"] + 1
    assert res["layout"]["desktop"]["toc"] == toc
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
