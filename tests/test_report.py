"""Tests of handsim.report: figures and report.md from a synthetic study with known effects."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from handsim import report
from handsim.games.hand import report as findings
from handsim.stats import FLAG_HAND, FLAG_OPENED, FLAG_OUT, DealBlock, StudyAccumulator

LINEUP = ("hold-hand", "greedy", "greedy", "greedy")
LINEUP_KEY = "hold-hand,greedy,greedy,greedy"


def synthetic(thresholds=(51, 71), penalties=(15, 30), chunks=4, n=100) -> StudyAccumulator:
    """A study with built-in effects.

    * raising the threshold from 51 to 71 adds 8 points (+-2 noise) to every score and lifts
      P(unopened) from 20% to 50%;
    * the joker penalty changes nothing (identical results, so the paired difference is exactly 0);
    * hold-hand scores 15 points less than greedy in the same deal.
    """
    configs = [{"opening_threshold": t, "joker_penalty": j} for t in thresholds for j in penalties]
    varying = [k for k, vals in (("opening_threshold", thresholds), ("joker_penalty", penalties)) if len(vals) > 1]
    configs = [{k: cfg[k] for k in varying} for cfg in configs]
    acc = StudyAccumulator(configs, [LINEUP], 4, varying)
    for ch in range(chunks):
        rng = np.random.default_rng(100 + ch)
        deals = np.arange(ch * n, (ch + 1) * n, dtype=np.int64)
        perm = np.array([np.roll(np.arange(4), -(int(d) % 4)) for d in deals], dtype=np.int8)
        base = rng.integers(0, 120, size=(n, 4))
        base = base - 15 * (perm == 0)  # hold-hand sits where line-up position 0 is
        per_threshold = {}
        for t in thresholds:
            score = base + (8 if t == 71 else 0) + rng.integers(-2, 3, size=(n, 4))
            p_unopened = 0.5 if t == 71 else 0.2
            opened = rng.random((n, 4)) >= p_unopened
            flags = np.where(opened, FLAG_OPENED, 0)
            outseat = rng.integers(0, 4, size=n)
            flags[np.arange(n), outseat] = FLAG_OPENED | FLAG_OUT | (FLAG_HAND * (rng.random(n) < 0.1))
            turns = rng.integers(10, 60, size=n) + (5 if t == 71 else 0)
            void = (rng.random(n) < 0.05).astype(np.uint8)
            per_threshold[t] = DealBlock(deals, perm, score.astype(np.int32), flags.astype(np.uint8),
                                         turns.astype(np.int16), void)
        blocks = {}
        for c, cfg in enumerate(configs):
            blocks[(c, 0)] = per_threshold[cfg.get("opening_threshold", thresholds[0])]
        acc.add_chunk(blocks)
    return acc


@pytest.fixture(scope="module")
def study():
    return synthetic()


@pytest.fixture(scope="module")
def written(study, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    path = report.write_report(out, study.summary(), study.paired(), study.histograms(),
                               {"seed": 7, "seconds": 4.0, "preset": "classic",
                                "rules": {"opening_threshold": 51, "joker_penalty": 15, "jokers": 2},
                                "policies": {"greedy": "opens as soon as it can", "hold-hand": "waits for a Hand"},
                                "experiment": "synthetic"},
                               versus=study.versus())
    return out, path, path.read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    """The text of one top-level (##) section of report.md."""
    part = text.split(f"\n## {title}\n", 1)[1]
    return part.split("\n## ", 1)[0]


FIGURES = ("effect_opening_threshold.png", "effect_joker_penalty.png", "mean_score.png", "p_unopened.png",
           "p_hand.png", "versus.png", "round_length.png")


def test_files_exist_and_are_png(written):
    out, path, text = written
    assert path == out / "report.md"
    for name in FIGURES:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
        assert f"]({name})" in text
    for name in ("summary.csv", "paired.csv", "versus.csv"):
        assert (out / name).stat().st_size > 100
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_html_is_self_contained(written):
    out, _, text = written
    page = (out / "report.html").read_text(encoding="utf-8")
    imgs = re.findall(r'<img src="([^"]+)"', page)
    assert len(imgs) == len(FIGURES) and all(src.startswith("data:image/png;base64,") for src in imgs)
    # no external resource of any kind, and a policy that forbids fetching one
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "default-src 'none'" in page and 'name="viewport"' in page
    # a contents list linking every top-level section, in the order of report.md
    tops = re.findall(r"^## (.+)$", text, flags=re.M)
    toc = re.findall(r'<li><a href="#([^"]+)">([^<]+)</a>', page)
    assert [t for _, t in toc if t in tops] == tops
    for anchor, _ in toc:
        assert f'id="{anchor}"' in page
    # tables name their units
    assert "<th scope=\"col\" class=\"num\">Δ mean score (points, 95% CI)</th>" in page


def test_summary_comes_first_and_is_short(written):
    _, _, text = written
    tops = re.findall(r"^## (.+)$", text, flags=re.M)
    assert tops[0] == "In brief"
    items = [x for x in section(text, "In brief").splitlines() if x.startswith("- ")]
    assert 3 <= len(items) <= 5
    # every difference with its interval; the one line without one gives levels (of a line-up that mixes policies)
    assert all("95% CI" in x or "the same in every deal" in x for x in items if not x.startswith("- A Hand ends"))
    assert ("- A Hand ends 10.2% of rounds at opening threshold 51 and 10.2% at 71; a round lasts 34.5 turns on "
            "average at opening threshold 51 and 38.4 at 71 (all players' turns together). [joker penalty 15]") in items
    assert ("Raising the joker penalty from 15 to 30, `hold-hand`'s score: the same in every deal (0.0 points per "
            "player-round) at opening threshold 51; the same in every deal (0.0) at 71.") in text
    # a significant effect is said worse or better for the player, with its unit
    assert ("Raising the opening threshold from 51 to 71 makes `hold-hand`'s score worse by 8.0 points per "
            "player-round (95% CI") in text


def test_run_section(written):
    _, _, text = written
    run = section(text, "What was simulated")
    assert "**Deals:** 400 per configuration and line-up" in run
    assert "**Seed:** 7" in run
    assert "**Speed:** 400 rounds/s" in run  # 4 configs x 400 deals in 4 s
    assert "`opening_threshold`: 51, 71" in run and "`joker_penalty`: 15, 30" in run
    assert "| `jokers` | 2 |" in run and "| `opening_threshold` | *varies* |" in run
    assert "hold-hand, greedy, greedy, greedy" in run
    assert "- `hold-hand`: waits for a Hand" in run
    assert "- experiment: synthetic" in run


def test_findings_threshold_effect_direction(study, written):
    _, _, text = written
    f = section(text, "Effect of the opening threshold")
    p = study.paired()
    r = p[(p["policy"] == "greedy") & (p["parameter"] == "opening_threshold") & (p["joker_penalty"] == 15).fillna(False)]
    assert len(r) == 1
    diff = float(r["mean_diff"].iloc[0])
    assert 7.5 < diff < 8.5
    lo, hi = float(r["ci95_low"].iloc[0]), float(r["ci95_high"].iloc[0])
    line = next(x for x in f.splitlines() if x.startswith("- `greedy`"))
    assert f"71: {diff:+.1f} points per player-round (95% CI {lo:+.1f} to {hi:+.1f})" in line
    assert "not significant" not in line and "[joker penalty 15]" in line
    assert "every seat plays" not in line.lower()  # a mixed line-up: the note is for one-policy line-ups
    # the table row of the same comparison
    row = next(x for x in f.splitlines() if x.startswith("| hold-hand, greedy, greedy, greedy | greedy | 51 → 71 | joker penalty 15 |"))
    assert f"{diff:+.1f} ({lo:+.1f} to {hi:+.1f})" in row and row.endswith("| significant |")


def test_one_policy_lineup_is_recognised():
    assert set(report._lineup_policies("greedy,greedy,greedy,greedy")) == {"greedy"}
    assert report._lineup_policies("hold-hand:bail_turn=8,bail_opponent_cards=3,greedy") == [
        "hold-hand:bail_turn=8,bail_opponent_cards=3", "greedy"]


def test_findings_null_effect_is_never_called_a_difference(written):
    _, _, text = written
    f = section(text, "Effect of the joker penalty")
    lines = [x for x in f.splitlines() if x.startswith("- `")]
    assert len(lines) == 2  # one per policy of the line-up
    for line in lines:
        assert "30: 0.0 points per player-round (the same in every deal)" in line
    rows = [x for x in f.splitlines() if x.startswith("| hold-hand, greedy, greedy, greedy |")]
    assert len(rows) == 4 and all(r.endswith("| no change |") for r in rows)


def test_findings_rates_and_policies(study, written):
    _, _, text = written
    f = section(text, "Effect of the opening threshold")
    s = study.summary()
    g = s[(s["policy"] == "greedy") & (s["seat"] == "all") & (s["joker_penalty"] == 15)]
    p51 = float(g[g["opening_threshold"] == 51]["p_unopened"].iloc[0])
    p71 = float(g[g["opening_threshold"] == 71]["p_unopened"].iloc[0])
    assert p71 > p51
    assert f"P(unopened) rises from {100 * p51:.1f}% to {100 * p71:.1f}% of player-rounds at 71" in f
    v = section(text, "Policy against policy")
    versus_lines = [x for x in v.splitlines() if x.startswith("- `hold-hand` − `greedy`")]
    assert len(versus_lines) == 4
    for line in versus_lines:
        assert "`hold-hand` scores less than `greedy`" in line
        m = re.search(r"greedy`: ([-+][\d.]+) points", line)
        assert m and -16.0 < float(m.group(1)) < -14.0
    assert "## Round length" in text


def test_tables(written):
    _, _, text = written
    t = section(text, "Tables")
    assert ("| opening threshold | joker penalty | line-up | policy | deals | mean score (points per round, 95% CI) |"
            in t)
    assert "### Mean score by seat" in t and "| seat 0 (points) | seat 1 (points) | seat 2 (points) | seat 3 (points) |" in t


def test_estimate_wording_follows_the_interval():
    from handsim.report.document import Estimate, fmt_pct

    crossing = Estimate(-1.0, -1.93, 0.04)
    assert not crossing.significant and crossing.significance == "not significant"
    assert crossing.text() == "-1.00 points (95% CI -1.93 to +0.04; not significant: the interval includes 0)"
    assert Estimate(-0.99, -1.93, -0.04).text() == "-0.99 points (95% CI -1.93 to -0.04)"
    # a small effect keeps enough decimals to show its interval
    assert Estimate(0.2016, 0.197, 0.206).text() == "+0.20 points (95% CI +0.20 to +0.21)"
    assert Estimate(0.2016, 0.2011, 0.2021).text() == "+0.202 points (95% CI +0.201 to +0.202)"
    assert Estimate(0.0, 0.0, 0.0, identical=True).significance == "no change"
    assert Estimate(0.009, 0.008, 0.010, unit="pp").text() == "+0.9 percentage points (95% CI +0.8 to +1.0)"
    assert Estimate(0.5, 0.45, 0.55, unit="%", diff=False).text() == "50.0% (95% CI 45.0% to 55.0%)"
    assert [fmt_pct(p) for p in (0.0, 0.00004, 0.0004, 0.0123, 1.0)] == ["0%", "<0.01%", "0.04%", "1.2%", "100%"]


def test_a_share_the_design_fixes_is_not_shown_as_an_interval():
    """One policy at every seat of a 4-player table gets exactly 1/4 of the outs of every deal
    without a void round: its interval has no width and is said to be fixed, not '25% to 25%'."""
    from handsim.cli._study_options import ci_cell as _ci_cell
    from handsim.games.hand.findings import estimate as _est
    from handsim.games.hand.findings import share_estimate as _share

    row = {"p_out": 0.25, "p_out_ci95_low": 0.25, "p_out_ci95_high": 0.25}
    e = _share(row, "p_out")
    assert e.identical and e.significance == ""
    assert e.cell == "25.0% (fixed by the design)"
    assert e.text() == "25.0% (the same in every deal, fixed by the design)"
    assert e.ci_text == "the same in every deal (fixed by the design)"
    assert not _share(dict(row, p_out_ci95_high=0.26), "p_out").identical
    # a paired difference keeps its own meaning: identical only when 0 in every deal
    d = {"mean_diff": 0.5, "ci95_low": 0.5, "ci95_high": 0.5}
    assert not _est(d, "mean_diff", "ci95_low", "ci95_high").identical
    assert _est(dict(d, mean_diff=0.0, ci95_low=0.0, ci95_high=0.0), "mean_diff", "ci95_low", "ci95_high").identical
    # the Russian terminal table
    assert _ci_cell(1 / 3, 1 / 3, 1 / 3, 3) == "fixed (every game)"
    assert _ci_cell(0.3, 0.25, 0.35, 3) == "[0.250, 0.350]"
    assert _ci_cell(float("nan"), float("nan"), float("nan"), 3) == "[-, -]"


def test_inline_markup_is_escaped_in_html():
    from handsim.report.html import inline

    assert inline("a <b> & `x<y>` **bold** *it*") == "a &lt;b&gt; &amp; <code>x&lt;y&gt;</code> <strong>bold</strong> <em>it</em>"
    assert inline("[see](#tables) and [away](https://example.org)") == '<a href="#tables">see</a> and away'


def test_formats(study, tmp_path):
    html_only = tmp_path / "h"
    path = study.write_report(html_only, {}, formats=("html",))
    assert path.name == "report.html" and not list(html_only.glob("*.png")) and not (html_only / "report.md").exists()
    md_only = tmp_path / "m"
    path = study.write_report(md_only, {}, formats=("md",))
    assert path.name == "report.md" and (md_only / "mean_score.png").exists() and not (md_only / "report.html").exists()
    with pytest.raises(ValueError, match="unknown report format"):
        study.write_report(tmp_path / "x", {}, formats=("pdf",))


def test_plot_mean_score_values(study):
    s = study.summary()
    d = report.plot_mean_score(s, lineup=LINEUP_KEY)
    assert d.ax.get_xlabel() == "opening threshold"
    # the synthetic joker penalty changes nothing: one series per policy, labelled with both values
    assert set(d.artists) == {"hold-hand — joker penalty 15 or 30 (same values)",
                              "greedy — joker penalty 15 or 30 (same values)"}
    cont = d.artists["greedy — joker penalty 15 or 30 (same values)"]
    want = s[(s["policy"] == "greedy") & (s["seat"] == "all") & (s["joker_penalty"] == 30)]
    want = want.sort_values("opening_threshold")["mean_score"].to_numpy()
    np.testing.assert_allclose(cont.lines[0].get_ydata(), want)
    assert cont.lines[0].get_linestyle() == "None"  # discrete values: points, not lines
    assert all(b.get_zorder() > cont.lines[0].get_zorder() for b in cont.lines[2])  # bars over the markers
    xs = cont.lines[0].get_xdata()
    assert abs(xs[0] - 51) < 1 and abs(xs[1] - 71) < 1


def test_plot_rate_in_percent_from_zero_and_identical_series_merged(study):
    s = study.summary()
    d = report.plot_rate(s, "p_unopened", lineup=LINEUP_KEY, policy="greedy")
    # the joker penalty changes nothing in this study: one series, labelled as both
    assert list(d.artists) == ["greedy — joker penalty 15 or 30 (same values)"]
    ys = d.artists["greedy — joker penalty 15 or 30 (same values)"].lines[0].get_ydata()
    g = s[(s["policy"] == "greedy") & (s["seat"] == "all") & (s["joker_penalty"] == 15)].sort_values("opening_threshold")
    np.testing.assert_allclose(ys, 100 * g["p_unopened"].to_numpy())
    assert d.ax.get_ylim()[0] == 0.0
    with pytest.raises(ValueError, match="unknown rate"):
        report.plot_rate(s, "p_banana")


def test_plot_round_length_and_effects(study):
    h = study.histograms()["turns"]
    d = report.plot_round_length(h)
    lines = {k: v for k, v in d.artists.items() if not k.endswith("void rounds")}
    voids = {k: v for k, v in d.artists.items() if k.endswith("void rounds")}
    assert len(lines) == 2  # 4 configurations, the joker penalty changing nothing
    for label, line in lines.items():
        total = line.get_ydata().sum() + voids[f"{label}: void rounds"].get_ydata().sum()
        assert total == pytest.approx(1.0)
    p = study.paired()
    e = report.plot_effect(p, "opening_threshold", lineup=LINEUP_KEY)
    got = {k: v.lines[0].get_ydata()[0] for k, v in e.artists.items()}
    r = p[(p["parameter"] == "opening_threshold") & (p["policy"] == "greedy") & (p["joker_penalty"] == 15).fillna(False)]
    greedy = next(v for k, v in got.items() if k.startswith("greedy"))
    assert greedy == pytest.approx(float(r["mean_diff"].iloc[0]))
    fp = report.plot_paired(p)
    assert len(fp.artists) == len(p)
    fr = report.plot_paired(p, metric="p_unopened", policy="greedy")
    assert len(fr.artists) == 4
    v = report.plot_versus(study.versus(), lineup=LINEUP_KEY)
    assert all(-16 < c.lines[0].get_ydata()[0] < -14 for c in v.artists.values())


def test_colours_follow_the_policy(study):
    colours = report.policy_colours(["hold-hand", "greedy"])
    d1 = report.plot_mean_score(study.summary(), lineup=LINEUP_KEY, colours=colours)
    d2 = report.plot_effect(study.paired(), "opening_threshold", colours=colours)
    for d in (d1, d2):
        for label, cont in d.artists.items():
            policy = label.split(" — ")[0]
            assert cont.lines[0].get_color() == colours[policy]


def test_policy_colour_is_a_function_of_the_name():
    """Built-in policies of both games have fixed colours; any other name (a parameterised variant of a
    built-in, a user-written policy, a team) one of the other colours, from the name alone: the same in
    another process (Python's string hash is not), and within one report no two names share one."""
    import os
    import subprocess
    import sys

    from handsim.games.russian.policies.registry import POLICIES as RUSSIAN
    from handsim.policies.registry import POLICIES as CLASSIC
    from handsim.report.plots import BUILTIN_COLOURS, OTHER_COLOURS, policy_colour

    want = {"greedy": "#1f77b4", "hold-hand": "#ff7f0e", "card-reader": "#2ca02c", "sampler": "#9467bd",
            "random": "#7f7f7f", "patient": "#d62728"}
    assert {n: policy_colour(n) for n in want} == want
    # every built-in of either game has its colour (the registry also holds the policy files other tests loaded)
    assert {n for n, d in CLASSIC.items() if d.builtin} | set(RUSSIAN) <= set(BUILTIN_COLOURS)
    assert not set(OTHER_COLOURS) & set(want.values()) and len(set(OTHER_COLOURS)) == len(OTHER_COLOURS)
    names = ["patient:hold_max=2", "hold-hand:bail_turn=8", "card-reader:joker_play=0", "my-greedy",
             "team A: greedy & greedy"]
    here = [policy_colour(n) for n in names]
    assert all(c in OTHER_COLOURS for c in here) and policy_colour("patient:hold_max=2") != want["patient"]
    code = ("from handsim.report.plots import policy_colour\n"
            f"print([policy_colour(n) for n in {names!r}])")
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert p.stdout.strip() == str(here)
    # two names whose colour is the same: the first in sorted order keeps it, the other takes the next
    # free one, whatever order the report lists them in
    a, b = "card-reader:joker_play=0", "hold-hand:bail_turn=8"
    assert policy_colour(a) == policy_colour(b) == "#e7ba52" == OTHER_COLOURS[9]
    for order in ([a, b, "greedy"], ["greedy", b, a]):
        assert report.policy_colours(order) == {a: "#e7ba52", b: OTHER_COLOURS[10], "greedy": "#1f77b4"}


def test_the_same_policy_has_the_same_colour_in_two_studies_figures(monkeypatch):
    """Two studies that list their policies in different orders (hold-hand, greedy; greedy alone)
    draw greedy in its one colour in every figure: the report's figures take policy_colour (they
    took the next colour of a palette, by order of appearance in the study)."""
    from matplotlib.colors import to_hex

    from handsim.report import plots

    drawn = []
    png_bytes = plots.png_bytes
    monkeypatch.setattr(plots, "png_bytes", lambda fig, dpi=100: drawn.append(fig) or png_bytes(fig, dpi))

    def colours_of_series(acc):
        drawn.clear()
        findings.build(acc.summary(), acc.paired(), acc.histograms(), {}, versus=acc.versus(), dpi=20)
        got = {}
        for fig in drawn:
            for ax in fig.axes:
                for cont in ax.containers:
                    name = str(cont.get_label()).split(" — ")[0]
                    got.setdefault(name, set()).add(to_hex(cont.lines[0].get_color()))
        return got

    first, second = colours_of_series(synthetic()), colours_of_series(joker_study())
    assert first["greedy"] == second["greedy"] == {"#1f77b4"}
    assert first["hold-hand"] == {"#ff7f0e"}
    # and a tournament's ratings figure (random first, so greedy is its second policy)
    from test_findings_wording import ratings

    from handsim.tournament.plots import plot_ratings

    d = plot_ratings(ratings([("random", 40, 30, 50), ("greedy", -40, -50, -30)]))
    assert to_hex(d.artists["greedy"].lines[0].get_color()) == "#1f77b4"
    assert to_hex(d.artists["random"].lines[0].get_color()) == "#7f7f7f"


def test_plots_draw_on_given_axes(study):
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    d = report.plot_mean_score(study.summary(), ax)
    assert d.ax is ax and len(ax.containers) == len(d.artists)


def test_degrades_when_threshold_does_not_vary(tmp_path):
    acc = synthetic(thresholds=(51,), penalties=(15, 30), chunks=2, n=50)
    s = acc.summary()
    d = report.plot_mean_score(s)
    assert d.ax.get_xlabel() == "joker penalty"
    assert set(d.artists) == {"hold-hand", "greedy"}
    path = report.write_report(tmp_path, s, acc.paired(), acc.histograms(), {})
    text = path.read_text(encoding="utf-8")
    assert "## Effect of the joker penalty" in text
    assert "unpaired interval" in text  # no versus table given


def test_degrades_when_nothing_varies(tmp_path):
    acc = synthetic(thresholds=(51,), penalties=(15,), chunks=1, n=40)
    s = acc.summary()
    assert acc.varying == []
    d = report.plot_mean_score(s)
    assert set(d.artists) == {"hold-hand", "greedy"}
    assert [t.get_text() for t in d.ax.get_xticklabels()] == ["all configurations"]
    assert report.plot_paired(acc.paired()).artists == {}
    path = report.write_report(tmp_path, s, acc.paired(), acc.histograms(), {}, versus=acc.versus())
    text = path.read_text(encoding="utf-8")
    assert "No rule option varies" in text
    assert not list(tmp_path.glob("effect_*.png")) and (tmp_path / "mean_score.png").exists()
    assert "`hold-hand` scores less than `greedy`" in text


def test_empty_study_writes_a_report(tmp_path):
    acc = StudyAccumulator([{"jokers": 2}], [("a", "b")], 2, ["jokers"])
    path = acc.write_report(tmp_path, {"seed": 1})
    assert "No results yet." in path.read_text(encoding="utf-8")
    assert "No results yet." in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_many_configurations_stay_readable(tmp_path):
    """60 thresholds: 1,770 paired comparisons per policy; the report keeps to the baseline comparisons and caps its
    tables, and every figure stays a normal size."""
    from handsim.games.hand.findings import MAX_ROWS

    acc = synthetic(thresholds=tuple(range(31, 91)), penalties=(15,), chunks=1, n=30)
    p = acc.paired()
    assert len(p) == 60 * 59 // 2 * 2
    path = acc.write_report(tmp_path, {})
    text = path.read_text(encoding="utf-8")
    rows = [x for x in section(text, "Effect of the opening threshold").splitlines() if x.startswith("| hold-hand")]
    assert len(rows) == MAX_ROWS
    assert "The first 40 of" in text and "`paired.csv` has every pair" in text
    for png in tmp_path.glob("*.png"):
        assert png.stat().st_size < 400_000, png.name
    assert len(text) < 200_000


# ----------------------------------------------------------------------------------------------
# matches and partnership

COOP = ("hold-hand", "greedy", "greedy:support_hand=1", "greedy")
PLAIN = ("hold-hand", "greedy", "greedy", "greedy")


def match_study(lineups, players=4, teams=False, effect=10, rounds=3, n=150, chunks=2, last_loses=False):
    """Matches of ``rounds`` rounds; line-up position 3 (index 2) scores ``effect`` points less in the
    first line-up than in the others (same deals otherwise).  Results follow RULES.md section 7."""
    acc = StudyAccumulator([{}], lineups, players, [], teams=teams)
    for ch in range(chunks):
        rng = np.random.default_rng(50 + ch)
        rows = n * rounds
        deals = np.arange(ch * rows, (ch + 1) * rows, dtype=np.int64)
        policy = np.array([np.roll(np.arange(players), -(int(d) % players)) for d in deals], dtype=np.int8)
        base = rng.integers(0, 120, size=(rows, players))
        out_pos = rng.integers(0, players, size=rows)
        hand = rng.random(rows) < 0.1
        blocks = {}
        for l in range(len(lineups)):
            pos_score = base.copy()
            pos_score[np.arange(rows), out_pos] = np.where(hand, -60, -30)
            if teams:
                pos_score[np.arange(rows), (out_pos + 2) % 4] = 0
            if l == 0:
                pos_score[:, 2] -= effect
            pos_flags = np.full((rows, players), FLAG_OPENED, np.uint8)
            pos_flags[np.arange(rows), out_pos] |= FLAG_OUT | np.where(hand, FLAG_HAND, 0).astype(np.uint8)
            pos_flags[rng.random((rows, players)) < 0.2] &= np.uint8(~FLAG_OPENED & 0xFF)
            inv = policy.astype(np.intp)
            score = np.take_along_axis(pos_score, inv, 1).astype(np.int32)
            flags = np.take_along_axis(pos_flags, inv, 1)
            mw = np.full((rows, players), 255, np.uint8)
            ml = np.full((rows, players), 255, np.uint8)
            total = np.zeros((rows, players), np.int32)
            tb = np.full(rows, -1, np.int16)
            hd = np.full(rows, 255, np.uint8)
            for m in range(n):
                r = m * rounds + rounds - 1
                t = pos_score[m * rounds: r + 1].sum(axis=0)
                if teams:
                    a, b = t[0] + t[2], t[1] + t[3]
                    win = np.array([a <= b, a > b] * 2, dtype=np.uint8)
                    lose = np.zeros(players, np.uint8)
                else:
                    win = (t == t.min()).astype(np.uint8)
                    lose = ((t == t.max()) & (win == 0)).astype(np.uint8) if last_loses else np.zeros(players, np.uint8)
                mw[r] = win[inv[r]]
                ml[r] = lose[inv[r]]
                total[r] = t[inv[r]]
                tb[r] = int(rng.random() < 0.1)
                hd[r] = int(hand[m * rounds: r + 1].any() and rng.random() < 0.3)
            blocks[(0, l)] = DealBlock(deals, policy, score, flags, rng.integers(10, 40, size=rows).astype(np.int16),
                                       np.zeros(rows, np.uint8), mw, tb, ml, total, hd)
        acc.add_chunk(blocks)
    return acc


@pytest.fixture(scope="module")
def partnership(tmp_path_factory):
    acc = match_study([COOP, PLAIN], teams=True)
    out = tmp_path_factory.mktemp("partnership")
    path = acc.write_report(out, {"players": 4, "rules": {"partnership": True, "standings": "lowest_wins"}})
    return acc, out, path.read_text(encoding="utf-8")


def test_partnership_report_sections_and_files(partnership):
    acc, out, text = partnership
    assert "## Matches" in text and "## Partnership (2 v 2)" in text and "## Switching one seat" in text
    assert "P(lost match)" not in text  # lowest_wins: nobody loses
    for name in ("final_totals.png", "team_totals.png", "mean_score.png", "match_win.png", "team_score.png",
                 "lineups.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({name})" in text
    # per-policy win rates pool partners and opponents in 2 v 2: the report gives team win rates instead
    assert "Who wins" not in text and "Team A (hold-hand & greedy:support_hand=1) wins" in text
    lp = pd.read_csv(out / "lineups.csv")
    assert len(lp) == 1 and lp["position"].tolist() == [3] and lp["team"].tolist() == ["team A"]
    totals = pd.read_csv(out / "totals.csv")
    assert set(totals["seat"]) == {"all", "team A", "team B"}
    summary = pd.read_csv(out / "summary.csv")
    assert (summary["seat"] == "team A").sum() == 2
    # team rows only in the Partnership section, not in the per-policy tables
    tables = text.split("## Tables", 1)[1]
    assert "hold-hand & greedy" not in tables and "| seat 0 (points) | seat 1 (points) |" in tables
    assert "**Players:** 4 seats" in text


def test_partnership_report_numbers(partnership):
    acc, out, text = partnership
    s = acc.summary()
    a = s[(s["seat"] == "team A") & (s["lineup"] == ",".join(COOP))].iloc[0]
    assert a["policy"] == "hold-hand & greedy:support_hand=1"
    cell = f"{a['mean_score']:.1f} ({a['ci95_low']:.1f} to {a['ci95_high']:.1f})"
    row = next(x for x in section(text, "Partnership (2 v 2)").splitlines()
               if x.startswith("| hold-hand, greedy, greedy:support_hand=1, greedy | A |"))
    assert cell in row and f"{100 * a['match_win_rate']:.1f}%" in row
    # the cooperative option lowers position 3's score by 10 points in every deal: COOP - PLAIN = -10
    p = acc.lineup_pairs().iloc[0]
    assert p["mean_diff"] == pytest.approx(-10.0) and p["team_diff"] == pytest.approx(-10.0)
    assert p["total_diff"] == pytest.approx(-30.0)  # 3 rounds per match
    # the report reads it the other way round: the line-up listed later (PLAIN) against the earlier one (COOP)
    f = section(text, "Switching one seat")
    line = next(x for x in f.splitlines() if x.startswith("- Position 3, `greedy` instead of `greedy:support_hand=1`"))
    assert "the difference in that player's score is +10.0 points per player-round (95% CI +10.0 to +10.0)" in line
    assert "in team A's, +10.0 points per team-round (95% CI +10.0 to +10.0)" in line
    assert "in the chance of winning the match, " in line
    m = section(text, "Matches")
    assert "matches with a tie-break (%, 95% CI)" in m and "decided by a Hand (%, 95% CI)" in m


def test_partnership_report_team_margin(partnership):
    acc, out, text = partnership
    t = acc.team_margins()
    assert len(t) == 2
    csv = pd.read_csv(out / "team_margin.csv")
    assert csv["lineup"].tolist() == t["lineup"].tolist()
    np.testing.assert_allclose(csv["mean_margin"], t["mean_margin"], rtol=1e-12)
    assert (out / "team_margin.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "](team_margin.png)" in text
    part = section(text, "Partnership (2 v 2)")
    r = t.iloc[0]
    assert f"mean margin {r['mean_margin']:+.1f} points per match" in part
    assert "| mean margin A − B (points per match, 95% CI) |" in part
    assert "team_margin.csv" in text


def test_team_margin_wording_follows_the_interval(tmp_path):
    """A margin whose interval includes 0 is worded as not significant; one that excludes 0 is not."""
    from tests.test_stats import team_study

    acc = team_study()  # margins -72.5 (CI includes 0) and -17.5 (CI includes 0)
    text = acc.write_report(tmp_path, {"players": 4}).read_text(encoding="utf-8")
    part = section(text, "Partnership (2 v 2)")
    line = next(x for x in part.splitlines() if x.startswith("- Team A (h & s) against team B (g & g)"))
    assert "mean margin -72.5 points per match (95% CI" in line.replace("−", "-")
    assert "not significant: the interval includes 0" in line
    assert "team A's total was lower in 50.0%" in line
    # a margin far from 0 in every match: significant, no such wording
    from handsim.stats import team_margin_table

    h = pd.DataFrame({"lineup": ["a,b,a,b"] * 2, "team_a": ["a & a"] * 2, "team_b": ["b & b"] * 2,
                      "margin": [-50, -40], "count": [30, 30]})
    tab = team_margin_table(h)
    assert tab["mean_margin"].tolist() == [-45.0] and tab["p_negative"].tolist() == [1.0]
    assert tab["margin_ci95_high"].iloc[0] < 0


def test_old_partnership_checkpoint_reports_without_the_margin(tmp_path):
    from tests.test_stats import team_study

    old = {k: v for k, v in team_study().state().items() if not k.startswith("team_margin")}
    acc = StudyAccumulator.from_state(old)
    text = acc.write_report(tmp_path, {"players": 4}).read_text(encoding="utf-8")
    assert "## Partnership (2 v 2)" in text and "team_totals.png" in text
    assert not (tmp_path / "team_margin.png").exists() and not (tmp_path / "team_margin.csv").exists()
    assert "is not in this study's checkpoint" in text


def test_last_loses_report_shows_losses(tmp_path):
    acc = match_study([("a", "b", "b"), ("a", "b", "c")], players=3, last_loses=True, n=80, chunks=1)
    s = acc.summary()
    r = s[(s["seat"] == "all") & (s["policy"] == "a") & (s["lineup"] == "a,b,b")].iloc[0]
    assert 0 < r["match_lose_rate"] < 1
    assert r["match_neutral_rate"] == pytest.approx(1 - r["match_win_rate"] - r["match_lose_rate"])
    path = acc.write_report(tmp_path, {"rules": {"standings": "last_loses"}})
    text = path.read_text(encoding="utf-8")
    assert "P(lost match)" in text and "P(neither)" in text and "## Partnership" not in text
    assert "## Switching one seat" in text and "## Partnership" not in text
    want = f"{100 * r['match_lose_rate']:.1f}%"
    assert any(x.startswith("| a, b, b | a | 80 |") and want in x for x in text.splitlines())
    assert (tmp_path / "lineups.csv").exists() and (tmp_path / "totals.csv").exists()


def test_plot_final_totals_shares_sum_to_one():
    acc = match_study([COOP, PLAIN], teams=True, n=60, chunks=1)
    h = acc.histograms()
    players = report.plot_final_totals(h["total"], lineup=",".join(COOP))
    teams = report.plot_final_totals(h["total"], lineup=",".join(COOP), team_total=h["team_total"], width=50)
    assert set(players.artists) == {"hold-hand", "greedy", "greedy:support_hand=1"}
    assert set(teams.artists) == {"team A: hold-hand & greedy:support_hand=1", "team B: greedy & greedy"}
    assert "bins of 50" in teams.ax.get_xlabel()
    for line in list(players.artists.values()) + list(teams.artists.values()):
        assert line.get_ydata().sum() == pytest.approx(1.0)
    assert report.plot_final_totals(h["total"].iloc[0:0]).artists == {}


def test_quantiles_from_histograms_match_the_accumulator():
    acc = match_study([COOP, PLAIN], teams=True, n=60, chunks=1)
    got = report._quantiles_from_histograms(acc.histograms())
    want = acc.total_quantiles()
    key = ["lineup", "seat", "policy"]
    got, want = got.sort_values(key).reset_index(drop=True), want.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(got[want.columns], want, check_dtype=False)


def joker_study(recorded: bool = True) -> StudyAccumulator:
    """Joker penalty 15 vs 30 on the same deals: at 30, a third of the rounds that ended with a
    joker in hand at 15 end without one (and score 5 points less for that player)."""
    from handsim.stats import FLAG_JOKER_LEFT

    configs = [{"joker_penalty": 15}, {"joker_penalty": 30}]
    acc = StudyAccumulator(configs, [("greedy",) * 4], 4, ["joker_penalty"])
    for ch in range(3):
        rng = np.random.default_rng(7 + ch)
        n = 400
        deals = np.arange(ch * n, (ch + 1) * n, dtype=np.int64)
        perm = np.array([np.roll(np.arange(4), -(int(d) % 4)) for d in deals], dtype=np.int8)
        score = rng.integers(0, 120, size=(n, 4))
        flags = np.full((n, 4), FLAG_OPENED)
        flags[:, 0] |= FLAG_OUT  # one player goes out in every round (a round that is not void)
        joker = rng.random((n, 4)) < 0.3
        fewer = joker & (rng.random((n, 4)) < 0.33)
        b15 = DealBlock(deals, perm, score.astype(np.int32), (flags | FLAG_JOKER_LEFT * joker).astype(np.uint8),
                        np.full(n, 30, np.int16), np.zeros(n, np.uint8))
        b30 = b15._replace(score=(score - 5 * fewer).astype(np.int32),
                           flags=(flags | FLAG_JOKER_LEFT * (joker & ~fewer)).astype(np.uint8))
        acc.add_chunk({(0, 0): b15, (1, 0): b30})
    if not recorded:
        acc = StudyAccumulator.from_state({k: v for k, v in acc.state().items() if not k.startswith("joker_")})
    return acc


def unopened_study(thresholds=(None,)) -> StudyAccumulator:
    """Joker penalty 15 vs 30 (at each opening threshold given) on the same 400 deals: everyone opens
    at 15; at 30 the player at line-up position 1 does not open in every fifth deal, so P(unopened)
    goes from 0% to exactly 1/5 × 1/4 = 5% of player-rounds."""
    configs = [({} if t is None else {"opening_threshold": t}) | {"joker_penalty": j}
               for t in thresholds for j in (15, 30)]
    varying = (["opening_threshold"] if thresholds != (None,) else []) + ["joker_penalty"]
    acc = StudyAccumulator(configs, [("greedy",) * 4], 4, varying)
    rng = np.random.default_rng(5)
    n = 400
    deals = np.arange(n, dtype=np.int64)
    perm = np.array([np.roll(np.arange(4), -(int(d) % 4)) for d in deals], dtype=np.int8)
    score = rng.integers(0, 120, size=(n, 4)).astype(np.int32)
    opened = np.full((n, 4), FLAG_OPENED, np.uint8)
    fewer = opened.copy()
    fewer[deals % 5 == 0, 0] = 0  # position 0 of the line-up, whatever seat it holds
    blocks = {}
    for c, cfg in enumerate(configs):
        flags = opened if cfg["joker_penalty"] == 15 else fewer
        blocks[(c, 0)] = DealBlock(deals, perm, score + (c % 2), flags, np.full(n, 30, np.int16),
                                   np.zeros(n, np.uint8))
    acc.add_chunk(blocks)
    return acc


@pytest.mark.parametrize("thresholds, rules, opening, said", [
    ((None,), {"opening_threshold": 71, "opening_rule": "fixed"}, " at opening threshold 71", "P(unopened) goes from"),
    ((None,), {"opening_threshold": 51, "opening_rule": "ascending"}, " at opening threshold 51 (ascending openings)",
     "P(unopened) goes from"),
    ((91, 51), {"opening_threshold": 51, "opening_rule": "fixed"}, ",", "P(unopened) at opening threshold 91 goes from"),
])
def test_in_brief_names_the_opening_threshold_of_p_unopened(thresholds, rules, opening, said):
    """The joker-penalty bullet of *In brief* says which opening its figures (and P(unopened)) count: the
    study's threshold (run.json rules) once, at its start, or the first value of a varying one (the
    bullet's baseline) at P(unopened)."""
    acc = unopened_study(thresholds)
    s = acc.summary()
    g = s[(s["seat"] == "all") & (s["joker_penalty"] == 30)]
    assert np.allclose(g["p_unopened"], 0.05)  # the premise: 5% of player-rounds at penalty 30
    doc = findings.build(acc.summary(), acc.paired(), acc.histograms(), {"rules": rules}, dpi=30)
    brief = [f.text for s in doc.sections if s.id == "in-brief" for b in s.blocks for f in getattr(b, "items", ())]
    joker = [t for t in brief if t.startswith(f"Raising the joker penalty from 15 to 30{opening}")]
    assert len(joker) == 1, brief
    assert f"; {said} 0% to 5.0% of player-rounds (+5.0 percentage points, 95% CI" in joker[0], joker[0]
    if len(thresholds) > 1:  # the threshold's own bullet names both values and needs no "at"
        assert not any("at opening threshold" in t for t in brief if t.startswith("Lowering the opening threshold"))


@pytest.mark.parametrize("recorded", [True, False])
def test_report_gives_the_joker_left_share_where_it_was_counted(tmp_path, recorded):
    acc = joker_study(recorded)
    text = report.write_report(tmp_path, acc.summary(), acc.paired(), acc.histograms(), {"seed": 1},
                               versus=acc.versus()).read_text(encoding="utf-8")
    effect = section(text, "Effect of the joker penalty")
    if recorded:
        assert "| Δ P(joker left) (pp, 95% CI) |" in effect
        assert re.search(r"P\(joker left in hand\) falls from 29\.\d% to 19\.\d% of player-rounds at 30 "
                         r"\(-9\.\d percentage points, 95% CI", effect)
        assert re.search(r"P\(joker left in hand\) goes from 29\.\d% to 19\.\d%", section(text, "In brief"))
        assert "P(joker left)" in section(text, "Tables")
    else:
        assert "joker left" not in effect and "P(joker left)" not in section(text, "Tables")


def test_a_share_whose_interval_is_narrower_than_its_format_gets_the_decimals_to_show_it():
    from handsim.report.document import Estimate

    # a policy at every seat of a last_loses match: it loses 25.026% of its player-matches
    # (95% CI 25.018% to 25.034%); one decimal would print "25.0% (25.0% to 25.0%)"
    e = Estimate(0.2502625, 0.25018315068173963, 0.25034184931826037, unit="%", diff=False)
    assert e.cell == "25.03% (25.02% to 25.03%)"
    assert Estimate(0.005, 0.00499, 0.00501, unit="%", diff=False).cell == "0.500% (0.499% to 0.501%)"
    # the usual format where it shows the interval, and a share the design fixes
    assert Estimate(0.25, 0.24, 0.26, unit="%", diff=False).cell == "25.0% (24.0% to 26.0%)"
    assert Estimate(0.25, 0.25, 0.25, unit="%", diff=False, identical=True).cell == "25.0% (fixed by the design)"
