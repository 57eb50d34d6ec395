"""scripts/russian_study.py (results/russian): the headline and sweep tables are read off the study
folders correctly - every gathered number is checked against the study's own CSV files."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "russian_study.py"


def _run(*args):
    r = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


def test_headline_is_read_off_the_study(tmp_path):
    _run("--deals", "30", "--players", "2", "--out", str(tmp_path))
    h = pd.read_csv(tmp_path / "headline.csv")
    assert set(h["players"]) == {2}
    # 4 seat rows, 4 rows each for all greedy and all patient, 5 switched players
    assert len(h) == 4 + 2 * 4 + 5
    seats = pd.read_csv(tmp_path / "p2" / "seats.csv")
    g = seats[seats["lineup"] == "greedy,greedy"].set_index("seat")["win_rate"]

    def val(q, lineup=None):
        r = h[h["quantity"] == q]
        if lineup:
            r = r[r["lineup"] == lineup]
        assert len(r) == 1
        return r.iloc[0]

    assert val("first_seat_win_rate")["value"] == pytest.approx(g[0])
    assert val("first_seat_edge")["value"] == pytest.approx(g[0] - 0.5)
    assert val("last_minus_first_seat")["value"] == pytest.approx(g[1] - g[0])
    # two players, no draws with greedy players: the last seat wins what the first does not
    assert g[0] + g[1] == pytest.approx(1.0)
    pairs = pd.read_csv(tmp_path / "p2" / "lineups.csv")
    for who, q in (("patient", "patience_pays"), ("patient:hold_max=3", "patience3_pays"), ("random", "random_instead_of_greedy")):
        m = pairs[(pairs["lineup_a"] == "greedy,greedy") & (pairs["lineup_b"] == f"{who},greedy")].iloc[0]
        row = val(q)
        # lineups.csv gives greedy minus the switched player; the headline gives what the switch pays
        assert row["value"] == pytest.approx(-m["win_diff"])
        assert (row["ci95_low"], row["ci95_high"]) == pytest.approx((-m["win_diff_ci95_high"], -m["win_diff_ci95_low"]))
    length = pd.read_csv(tmp_path / "p2" / "game_length.csv").set_index("lineup")
    assert val("mean_turns", "patient,patient")["value"] == pytest.approx(length.loc["patient,patient", "mean_turns"])
    # a finished study is kept, not played again
    again = _run("--deals", "30", "--players", "2", "--out", str(tmp_path))
    assert "finished, kept" in again.stderr


def test_patience_sweep_table(tmp_path):
    _run("--sweep", "--deals", "20", "--players", "2", "--out", str(tmp_path))
    t = pd.read_csv(tmp_path / "patience_sweep.csv")
    assert list(t["hold_max"]) == [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20] and set(t["games"]) == {20}
    pairs = pd.read_csv(tmp_path / "sweep-p2" / "lineups.csv")
    m = pairs[(pairs["lineup_a"] == "greedy,greedy") & (pairs["lineup_b"] == "patient:hold_max=8,greedy")].iloc[0]
    row = t[t["hold_max"] == 8].iloc[0]
    assert row["win_diff"] == pytest.approx(-m["win_diff"])
    assert row["cards_left_diff"] == pytest.approx(-m["cards_left_diff"])
