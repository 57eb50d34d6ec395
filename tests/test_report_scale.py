"""Reports that scale with the line-ups (issue 23, cause 6): a study of 100 line-ups gets a report of
the same figures as a study of two, each of a bounded size, tables of at most MAX_ROWS rows and a
report.html under 2.5 MB, and a slow report says how it comes along on stderr.  Structure and
sizes only: speed is scripts/bench.py's.
"""

from __future__ import annotations

import itertools
import re
import struct

import numpy as np
import pandas as pd
import pytest

from handsim.games.hand.findings import MAX_PANELS, MAX_ROWS, extremes
from handsim.stats import FLAG_HAND, FLAG_OPENED, FLAG_OUT, DealBlock, StudyAccumulator

POLICIES = ("greedy", "hold-hand", "card-reader", "random")


def synthetic_study(lineups, configs, varying, n: int, seed: int, flags_of, void_of) -> StudyAccumulator:
    """A synthetic 4-player study of ``lineups`` x ``configs`` (``varying`` the options that vary),
    ``n`` deals each: random scores 0..119, ``flags_of(rng, n)`` the seats' flags, random turns
    10..59, ``void_of(rng, n)`` the void rounds (no kernels)."""
    acc = StudyAccumulator(configs, lineups, 4, varying)
    rng = np.random.default_rng(seed)
    deals = np.arange(n, dtype=np.int64)
    perm = np.array([np.roll(np.arange(4), -(int(d) % 4)) for d in deals], dtype=np.int8)
    blocks = {}
    for c in range(len(configs)):
        for l in range(len(lineups)):
            score = rng.integers(0, 120, size=(n, 4)).astype(np.int32)
            flags = flags_of(rng, n)
            blocks[(c, l)] = DealBlock(deals, perm, score, flags, rng.integers(10, 60, size=n).astype(np.int16),
                                       void_of(rng, n))
    acc.add_chunk(blocks)
    return acc


def many_lineups(n_lineups: int, thresholds=(51, 71), penalties=(15,), n: int = 24, seed: int = 5) -> StudyAccumulator:
    """A synthetic 4-player study: the first ``n_lineups`` line-ups of POLICIES^4 (in
    itertools.product order) x ``thresholds`` x ``penalties`` (the joker penalty varies when more
    than one is given), ``n`` deals, random scores (no kernels)."""
    lineups = list(itertools.islice(itertools.product(POLICIES, repeat=4), n_lineups))
    varying = ["opening_threshold"] + (["joker_penalty"] if len(penalties) > 1 else [])
    configs = [dict(zip(varying, (t, j))) for t in thresholds for j in penalties]

    def flags_of(rng, n):
        flags = np.where(rng.random((n, 4)) < 0.8, FLAG_OPENED, 0).astype(np.uint8)
        out = rng.integers(0, 4, size=n)
        flags[np.arange(n), out] = FLAG_OPENED | FLAG_OUT | (FLAG_HAND * (rng.random(n) < 0.1))
        return flags

    return synthetic_study(lineups, configs, varying, n, seed, flags_of,
                           lambda rng, n: (rng.random(n) < 0.05).astype(np.uint8))


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) in pixels from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


#: The figures of a study of one varying option and mixed line-ups, however many line-ups it has.
FIGURES = ["effect_opening_threshold.png", "lineups.png", "mean_score.png", "p_hand.png", "p_unopened.png",
           "round_length.png", "versus.png"]


@pytest.fixture(scope="module")
def hundred(tmp_path_factory):
    acc = many_lineups(100)
    out = tmp_path_factory.mktemp("hundred")
    path = acc.write_report(out, {"players": 4, "seed": 5})
    return acc, out, path.read_text(encoding="utf-8"), (out / "report.html").read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    part = text.split(f"\n## {title}\n", 1)[1]
    return part.split("\n## ", 1)[0]


def test_a_hundred_lineups_keep_the_figures_of_two(hundred, tmp_path):
    acc, out, md, page = hundred
    assert len(acc.lineups) == 100 and len(acc.lineup_diffs) == 450
    assert sorted(p.name for p in out.glob("*.png")) == FIGURES
    assert page.count("<img ") == len(FIGURES)
    two = many_lineups(2)
    two.write_report(tmp_path, {"players": 4})
    assert sorted(p.name for p in tmp_path.glob("*.png")) == FIGURES
    # one panel of every line-up: a figure as wide as two panels, one panel high (with its legend below)
    for name in ("mean_score.png", "p_hand.png", "p_unopened.png", "effect_opening_threshold.png", "versus.png"):
        w, h = png_size((out / name).read_bytes())
        assert w <= 1300 and h <= 1100, (name, w, h)
    # the distributions: MAX_PANELS panels, two a row
    w, h = png_size((out / "round_length.png").read_bytes())
    assert MAX_PANELS == 6 and w <= 1300 and h <= 3 * 420, (w, h)
    # the switches: the 10 lowest and the 10 highest, one row each
    w, h = png_size((out / "lineups.png").read_bytes())
    assert h <= 900, h
    for png in out.glob("*.png"):
        assert png.stat().st_size < 400_000, png.name
    assert (out / "report.html").stat().st_size < 2_500_000
    assert len(md) < 120_000


def test_the_report_says_what_it_summarises(hundred):
    _, _, md, _ = hundred
    overview = ("All 100 line-ups in one panel, at their number in *What was simulated* (more than 6 line-ups: no "
                "panel per line-up), a colour per policy")
    assert md.count(overview + ", at opening threshold 51; `summary.csv` has every configuration.") == 3  # levels
    assert md.count(overview + ", at opening threshold 51; `versus.csv` has every configuration.") == 1
    assert md.count(overview + ".") == 1  # the effect of the only option varied
    assert ("Panels for 6 of the 100 line-ups (the first, the last and evenly spaced ones between, numbered as in "
            "*What was simulated*); `summary.csv` has every line-up.") in section(md, "Round length")
    assert "> Findings for 6 of the 100 line-ups" in section(md, "Effect of the opening threshold")
    lp = section(md, "Switching one seat")
    assert "of the 900 comparisons (" in lp and "the 10 with the lowest difference and the 10 with the highest" in lp
    assert "*The 20 comparisons with the lowest Δ in that player's score and the 20 with the highest, of 900; all " \
           "of them are in `lineups.csv`.*" in lp


def test_findings_and_tables_stay_bounded(hundred):
    _, _, md, _ = hundred
    effect = section(md, "Effect of the opening threshold")
    found = [x for x in effect.splitlines() if x.startswith("- `")]
    # one finding per policy of each of the 6 line-ups shown: 1, 21, 41, 60, 80 and 100, of 1, 2, 2, 3, 3, 4 policies
    assert len(found) == 15
    rounds = [x for x in section(md, "Round length").splitlines() if x.startswith("- ")]
    assert len(rounds) == 6 and rounds[1].endswith("[line-up 21: greedy, hold-hand, hold-hand, greedy]")
    assert rounds[5].endswith("[line-up 100: hold-hand, card-reader, greedy, random]")
    for title in ("Effect of the opening threshold", "Policy against policy", "Switching one seat", "Tables"):
        rows = [x for x in section(md, title).splitlines() if x.startswith("| ") and not x.startswith("| line-up |")
                and "---" not in x]
        assert 0 < len(rows) <= 3 * (MAX_ROWS + 1), title  # at most MAX_ROWS rows (and a header) per table


def test_the_switches_table_holds_the_lowest_and_the_highest(hundred):
    _, out, md, _ = hundred
    lp = pd.read_csv(out / "lineups.csv")
    assert len(lp) == 900
    table = [x for x in section(md, "Switching one seat").splitlines() if x.startswith("| ") and "position" in x]
    assert len(table) == MAX_ROWS
    # report.md shows the later line-up minus the earlier one: lineups.csv's differences negated
    got = [float(re.search(r"\| ([-+]?[\d.]+) \(", row.split("` |", 1)[1]).group(1)) for row in table]
    want = np.sort(-lp["mean_diff"].to_numpy())
    assert got[0] == -25.3 and got[-1] == +31.1  # the lowest and the highest of the 900
    np.testing.assert_allclose(got, np.concatenate([want[:20], want[-20:]]), atol=0.05)


def test_the_ranked_switches_are_drawn_lowest_first(hundred):
    from handsim.games.hand.plots import plot_lineup_pairs_ranked

    acc = hundred[0]
    lp = acc.lineup_pairs().iloc[:5]  # opening threshold 51: line-up 1 against line-ups 2, 3, 4, 5 and 9
    assert lp["lineup_b"].tolist() == [",".join(acc.lineups[i]) for i in (1, 2, 3, 4, 8)]
    numbers = {",".join(lu): i + 1 for i, lu in enumerate(acc.lineups)}
    d = plot_lineup_pairs_ranked(lp, numbers=numbers)
    assert [c.lines[0].get_xdata()[0] for c in d.artists.values()] == sorted(lp["mean_diff"])
    want = {f"greedy instead of {p} at position {pos} (line-up 1)" for p, pos in
            (("hold-hand", 4), ("card-reader", 4), ("random", 4), ("hold-hand", 3), ("card-reader", 3))}
    assert set(d.artists) == want  # the one option is the same in every row: not named
    assert d.ax.get_xlabel() == "Δ score of that player (points per round; 95% CI)"


def test_extremes_keep_the_ends():
    recs = [{"d": v} for v in (3.0, -1.0, float("nan"), 7.0, 0.5, -4.0, 2.0)]
    got, total = extremes(recs, "d", 4)
    assert total == 7 and [r["d"] for r in got] == [-4.0, -1.0, 3.0, 7.0]
    got, total = extremes(recs, "d", 7)
    assert got is recs and total == 7  # everything fits: as given
    got, _ = extremes(recs, "d", 5)
    assert [r["d"] for r in got] == [-4.0, -1.0, 2.0, 3.0, 7.0]


# ----------------------------------------------------------------------------------------------
# progress on stderr


def _draw_figures(k: int) -> None:
    from handsim.report.plots import new_figure, png_bytes

    for _ in range(k):
        fig = new_figure((2.0, 1.5))
        fig.add_subplot().plot([0, 1], [0, 1])
        png_bytes(fig, dpi=20)


def test_a_slow_report_says_how_it_comes_along(capsys):
    from handsim.cli._common import report_progress

    with report_progress(True, after=0.0):  # as if it had taken long already
        _draw_figures(2)
    err = capsys.readouterr()
    lines = err.err.splitlines()
    assert err.out == "" and 2 <= len(lines) <= 3
    assert all(x.startswith("Writing the report") for x in lines[:-1])
    assert re.fullmatch(r"Report written in \d+ s\.", lines[-1])
    # a report quicker than the limit, or one not shown (quiet, or not on a terminal), says nothing
    for show, after in ((True, 600.0), (False, 0.0)):
        with report_progress(show, after=after):
            _draw_figures(1)
        assert capsys.readouterr().err == ""


def test_figure_progress_counts_the_figures():
    from handsim.report.plots import figure_progress

    seen = []
    with figure_progress(seen.append):
        _draw_figures(3)
    _draw_figures(1)  # outside the block: not counted
    assert seen == [1, 2, 3]


# ----------------------------------------------------------------------------------------------
# many policies too: a legend entry per series would outgrow the figure (breaker R2: 100 line-ups
# hold-hand:bail_turn=K x 6 configurations gave a 3.51 MB report.html, 1.04 MB for one figure)


def distinct_lineups(n_lineups: int, n: int = 3, seed: int = 7) -> StudyAccumulator:
    """``n_lineups`` line-ups ``hold-hand:bail_turn=K, greedy, greedy, greedy`` (K = 1..n_lineups:
    n_lineups + 1 policies) x opening threshold 51/71/91 x joker penalty 15/30 (6 configurations),
    ``n`` deals of random scores."""
    lineups = [(f"hold-hand:bail_turn={k}", "greedy", "greedy", "greedy") for k in range(1, n_lineups + 1)]
    varying = ["opening_threshold", "joker_penalty"]
    configs = [dict(zip(varying, (t, j))) for t in (51, 71, 91) for j in (15, 30)]

    def flags_of(rng, n):
        flags = np.full((n, 4), FLAG_OPENED, dtype=np.uint8)
        flags[np.arange(n), rng.integers(0, 4, size=n)] |= FLAG_OUT
        return flags

    return synthetic_study(lineups, configs, varying, n, seed, flags_of, lambda rng, n: np.zeros(n, dtype=np.uint8))


@pytest.fixture(scope="module")
def forty_policies(tmp_path_factory):
    acc = distinct_lineups(40)
    out = tmp_path_factory.mktemp("forty")
    path = acc.write_report(out, {"players": 4, "seed": 7})
    return out, path.read_text(encoding="utf-8"), (out / "report.html").read_text(encoding="utf-8")


def test_many_policies_keep_the_figures_small(forty_policies):
    out, md, page = forty_policies
    want = sorted(FIGURES + ["effect_joker_penalty.png"])
    assert sorted(p.name for p in out.glob("*.png")) == want
    assert page.count("<img ") == len(want)
    for name in ("mean_score.png", "p_hand.png", "p_unopened.png", "effect_opening_threshold.png",
                 "effect_joker_penalty.png", "versus.png"):
        w, h = png_size((out / name).read_bytes())
        assert w <= 1500 and h <= 600, (name, w, h)  # 12 legend entries at most: 4 rows of 3 under the panel
        assert (out / name).stat().st_size < 150_000, name
    assert (out / "report.html").stat().st_size < 1_500_000


def test_the_summarised_figure_says_what_it_left_out(forty_policies):
    _, md, _ = forty_policies
    levels = section(md, "Scores and shares by configuration")
    # 41 policies at the first configuration, one series each: greedy (40 points) and the first 10
    # hold-hand:bail_turn=K (1 point each, in the order drawn) keep a colour; 30 are grey
    grey = ("41 series (a policy, and the values of other options): the 11 with the most points keep a colour and a "
            "legend entry each, the other 30 are drawn in grey without a name (more than 12); `summary.csv` has them.")
    assert levels.count(grey) == 3
    effect = section(md, "Effect of the opening threshold")
    assert "the 11 with the most points keep a colour" in effect and "`paired.csv` has them." in effect


def test_cap_series_greys_the_series_with_fewest_points():
    from matplotlib.colors import to_hex

    from handsim.report.plots import OTHER_GREY, cap_series, new_figure

    ax = new_figure((4, 3)).add_subplot()
    # 15 series: series i has 1 + (i % 5) points (5 points: s4, s9, s14; 4 points: s3, s8, s13; ...)
    for i in range(15):
        k = 1 + i % 5
        ax.errorbar(np.arange(k) + i, np.ones(k), yerr=0.1, fmt="o", color="#123456", label=f"s{i}")
    ax.axhline(0.0, label="fair share")
    assert cap_series(ax, limit=5) == (4, 11)
    # limit 5: 4 kept and the grey entry; kept: most points first, ties in the order drawn: s4, s9, s14, s3
    _, labels = ax.get_legend_handles_labels()
    assert labels == ["fair share", "11 other series (grey)", "s3", "s4", "s9", "s14"]
    colours = {c.get_label(): to_hex(c.lines[0].get_color()) for c in ax.containers}
    assert colours["s4"] == colours["s3"] == "#123456"
    assert [to_hex(c.lines[0].get_color()) == OTHER_GREY for c in ax.containers] == [
        i not in (3, 4, 9, 14) for i in range(15)]  # s8 and s13 (4 points, drawn after s3) grey too
    ax2 = new_figure((4, 3)).add_subplot()
    for i in range(12):
        ax2.errorbar([i], [1.0], yerr=0.1, fmt="o", label=f"t{i}")
    assert cap_series(ax2, limit=12) == (12, 0)  # everything fits: untouched


def test_reading_a_checkpoint_keeps_one_copy_of_its_arrays():
    """read_checkpoint drops the arrays it loaded: from_state(own=True) takes them instead of copying
    (a study of 100 line-ups of 101 policies holds 448 MB of them; its report peaked at 1.27 GB)."""
    acc = distinct_lineups(3, n=2)
    state = acc.state()
    mine = type(acc).from_state(dict(state), own=True)
    copied = type(acc).from_state(dict(state))
    for name in ("seat", "pool", "versus", "score_hist", "turns_hist"):
        assert getattr(mine, "_" + name) is state[name], name
        assert not np.shares_memory(getattr(copied, "_" + name), state[name]), name
    assert mine.summary().equals(copied.summary()) and not hasattr(mine, "_own_state")
