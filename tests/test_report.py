"""Tests of handsim.report: figures and report.md from a synthetic study with known effects."""

from __future__ import annotations

import re

import numpy as np
import pytest

from handsim import report
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


def findings(text: str) -> str:
    return text.split("## Findings", 1)[1].split("## Tables", 1)[0]


def test_files_exist_and_are_png(written):
    out, path, text = written
    assert path == out / "report.md"
    for name in ("mean_score.png", "rates.png", "round_length.png", "paired.png"):
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
        assert f"]({name})" in text
    for name in ("summary.csv", "paired.csv", "versus.csv"):
        assert (out / name).stat().st_size > 100
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_run_section(written):
    _, _, text = written
    assert "**Deals:** 400 per configuration and line-up" in text
    assert "**Seed:** 7" in text
    assert "**Speed:** 400 rounds/s" in text  # 4 configs x 400 deals in 4 s
    assert "`opening_threshold`: 51, 71" in text and "`joker_penalty`: 15, 30" in text
    assert "| `jokers` | 2 |" in text and "| `opening_threshold` | *varies* |" in text
    assert "hold-hand, greedy, greedy, greedy" in text
    assert "- `hold-hand`: waits for a Hand" in text
    assert "- experiment: synthetic" in text


def test_findings_threshold_effect_direction(study, written):
    _, _, text = written
    f = findings(text)
    p = study.paired()
    r = p[(p["policy"] == "greedy") & (p["parameter"] == "opening_threshold") & (p["joker_penalty"] == 15).fillna(False)]
    assert len(r) == 1
    diff = float(r["mean_diff"].iloc[0])
    assert 7.5 < diff < 8.5
    line = next(x for x in f.splitlines()
                if x.startswith("- Raising the opening threshold from 51 to 71 changes greedy's")
                and "joker_penalty = 15" in x)
    assert f"by {diff:+.1f} points" in line
    lo, hi = float(r["ci95_low"].iloc[0]), float(r["ci95_high"].iloc[0])
    assert f"95% CI {lo:+.1f} to {hi:+.1f}" in line
    assert "greedy does worse" in line and "not significant" not in line


def test_findings_null_effect_is_not_significant(written):
    _, _, text = written
    f = findings(text)
    lines = [x for x in f.splitlines() if x.startswith("- Raising the joker penalty from 15 to 30")]
    assert len(lines) == 4  # 2 policies x 2 thresholds
    for line in lines:
        assert "mean score per round by 0.0 points" in line
        assert "not significant (the 95% CI includes 0)" in line


def test_findings_rates_and_policies(study, written):
    _, _, text = written
    f = findings(text)
    s = study.summary()
    g = s[(s["policy"] == "greedy") & (s["seat"] == "all") & (s["joker_penalty"] == 15)]
    p51 = float(g[g["opening_threshold"] == 51]["p_unopened"].iloc[0])
    p71 = float(g[g["opening_threshold"] == 71]["p_unopened"].iloc[0])
    assert p71 > p51
    expected = f"P(unopened) for greedy rises from {100 * p51:.1f}% to {100 * p71:.1f}%"
    rate_lines = [x for x in f.splitlines() if expected in x]
    assert rate_lines and all("not significant" not in x for x in rate_lines)
    versus_lines = [x for x in f.splitlines() if x.startswith("- hold-hand scores")]
    assert len(versus_lines) == 4
    for line in versus_lines:
        assert "hold-hand does better than greedy" in line
        m = re.search(r"difference (-?\+?[\d.]+)", line)
        assert m and -16.0 < float(m.group(1)) < -14.0
    assert "### Round length" in f


def test_tables(written):
    _, _, text = written
    assert "| opening_threshold | joker_penalty | line-up | policy | deals | mean score (95% CI) |" in text
    assert "### Mean score by seat" in text and "| seat 0 | seat 1 | seat 2 | seat 3 |" in text
    assert "### Paired differences between configurations" in text


def test_plot_mean_score_values(study):
    s = study.summary()
    d = report.plot_mean_score(s, lineup=LINEUP_KEY)
    assert d.ax.get_xlabel() == "opening threshold"
    assert set(d.artists) == {"hold-hand, joker_penalty=15", "greedy, joker_penalty=15",
                              "hold-hand, joker_penalty=30", "greedy, joker_penalty=30"}
    ys = d.artists["greedy, joker_penalty=30"].lines[0].get_ydata()
    want = s[(s["policy"] == "greedy") & (s["seat"] == "all") & (s["joker_penalty"] == 30)]
    want = want.sort_values("opening_threshold")["mean_score"].to_numpy()
    np.testing.assert_allclose(ys, want)
    xs = d.artists["greedy, joker_penalty=30"].lines[0].get_xdata()
    assert abs(xs[0] - 51) < 1 and abs(xs[1] - 71) < 1


def test_plot_rate_in_percent_and_bad_rate(study):
    s = study.summary()
    d = report.plot_rate(s, "p_unopened", lineup=LINEUP_KEY, policy="greedy")
    ys = d.artists["greedy, joker_penalty=15"].lines[0].get_ydata()
    g = s[(s["policy"] == "greedy") & (s["seat"] == "all") & (s["joker_penalty"] == 15)].sort_values("opening_threshold")
    np.testing.assert_allclose(ys, 100 * g["p_unopened"].to_numpy())
    with pytest.raises(ValueError, match="unknown rate"):
        report.plot_rate(s, "p_banana")


def test_plot_round_length_and_paired(study):
    h = study.histograms()["turns"]
    d = report.plot_round_length(h)
    assert len(d.artists) == 4
    for line in d.artists.values():
        assert line.get_ydata().sum() == pytest.approx(1.0)
    p = study.paired()
    fp = report.plot_paired(p)
    assert len(fp.artists) == len(p)
    fr = report.plot_paired(p, metric="p_unopened", policy="greedy")
    assert len(fr.artists) == 4


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
    assert "Raising the joker penalty from 15 to 30" in text
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
    assert not (tmp_path / "paired.png").exists() and (tmp_path / "mean_score.png").exists()
    assert "hold-hand does better than greedy" in text


def test_empty_study_writes_a_report(tmp_path):
    acc = StudyAccumulator([{"jokers": 2}], [("a", "b")], 2, ["jokers"])
    path = acc.write_report(tmp_path, {"seed": 1})
    assert "No results yet." in path.read_text(encoding="utf-8")
