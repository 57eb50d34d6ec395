"""Figures of tournaments and tuning runs: what they draw is the tables' numbers, in the study figures'
colours and conventions (intervals over the markers, filled only when the interval excludes 0, points
for discrete values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from handsim.report.plots import policy_colours
from handsim.tournament.plots import (crosstable_outlier, crosstable_pairs, plot_crosstable, plot_ratings,
                                      plot_tune_confirm, plot_tune_curve, plot_tune_grid)
from handsim.tournament.tune import make_tune
from test_findings_wording import confirm, crosstable, ratings, tune_frame

LABELS = ["greedy", "hold-hand", "random"]


def _xy(container):
    x, y = container.lines[0].get_data()
    return float(np.asarray(x)[0]), float(np.asarray(y)[0])


def test_ratings_figure_draws_each_interval_in_the_policy_colour():
    df = ratings([("hold-hand", 40, 30, 50), ("greedy", 25, 15, 35), ("random", -65, -75, -55)])
    colours = policy_colours(LABELS)  # the study reports' mapping: greedy first colour, hold-hand second
    d = plot_ratings(df, colours=colours)
    assert [t.get_text() for t in d.ax.get_yticklabels()] == ["hold-hand", "greedy", "random"]  # strongest on top
    for p, r, lo, hi in (("hold-hand", 40, 30, 50), ("greedy", 25, 15, 35), ("random", -65, -75, -55)):
        cont = d.artists[p]
        assert _xy(cont)[0] == r
        seg = cont.lines[2][0].get_segments()[0]
        assert sorted(seg[:, 0].tolist()) == [lo, hi]
        assert to_hex(cont.lines[0].get_color()) == colours[p]
        assert cont.lines[0].get_markerfacecolor() == "white"  # hollow: a level, not a difference
        assert cont.lines[2][0].get_zorder() > cont.lines[0].get_zorder()  # the interval above the marker


def test_crosstable_figure_is_each_pairs_paired_difference():
    cross = crosstable([("greedy", "hold-hand", -0.4, -1.1, 0.3), ("greedy", "random", -20.0, -22.0, -18.0),
                        ("hold-hand", "random", -19.6, -21.5, -17.7)])
    colours = policy_colours(LABELS)
    d = plot_crosstable(cross, LABELS, colours=colours)
    assert list(d.artists) == ["greedy − hold-hand", "greedy − random", "hold-hand − random"]
    ns, sig = d.artists["greedy − hold-hand"], d.artists["hold-hand − random"]
    assert _xy(ns)[0] == pytest.approx(-0.4) and _xy(sig)[0] == pytest.approx(-19.6)
    assert ns.lines[0].get_markerfacecolor() == "white"  # the interval includes 0: hollow
    assert to_hex(sig.lines[0].get_markerfacecolor()) == colours["hold-hand"]  # filled, in A's colour
    assert "points per player-round" in d.ax.get_xlabel()
    # the order given (a ranking) decides which policy is A
    d = plot_crosstable(cross, ["random", "hold-hand", "greedy"], colours=colours)
    assert _xy(d.artists["random − hold-hand"])[0] == pytest.approx(19.6)


def test_crosstable_figure_gives_a_far_weakest_policy_a_panel_of_its_own():
    # random loses by about 45 points, the other pairs differ by a few: on one axis their
    # intervals would be dots; the pairs with random go to a lower panel with its own scale
    order = ["card-reader", "greedy", "hold-hand", "random"]
    cross = crosstable([("card-reader", "greedy", -5.6, -5.9, -5.3), ("card-reader", "hold-hand", -6.4, -6.8, -6.0),
                        ("greedy", "hold-hand", -0.7, -1.0, -0.5), ("card-reader", "random", -47.8, -48.1, -47.5),
                        ("greedy", "random", -42.5, -42.9, -42.2), ("hold-hand", "random", -42.4, -42.7, -42.0)])
    pairs = crosstable_pairs(cross, order)
    assert crosstable_outlier(pairs, order) == "random"  # 42.4 > 4 x (6.4 + 0.4)
    d = plot_crosstable(cross, order)
    top, bottom = d.ax.figure.axes
    assert d.ax is top
    assert [t.get_text() for t in top.get_yticklabels()] == [
        "card-reader − greedy", "card-reader − hold-hand", "greedy − hold-hand"]
    assert [t.get_text() for t in bottom.get_yticklabels()] == [
        "card-reader − random", "greedy − random", "hold-hand − random"]
    assert "random" in bottom.get_title(loc="left")
    assert top.get_xlim()[0] > -10 and bottom.get_xlim()[0] < -47.8  # each panel its own scale
    assert len(d.artists) == 6
    # with a close weakest policy (smallest gap 6.0 <= 4 x (5.9 + 0.3)) one axis serves all
    close = crosstable([("card-reader", "greedy", -5.6, -5.9, -5.3), ("card-reader", "hold-hand", -6.4, -6.8, -6.0),
                        ("greedy", "hold-hand", -0.7, -1.0, -0.5)])
    assert crosstable_outlier(crosstable_pairs(close, order[:3]), order[:3]) is None
    assert len(plot_crosstable(close, order[:3]).ax.figure.axes) == 1
    # a caller's own axes are never split
    from handsim.report.plots import new_figure
    ax = new_figure((6, 4)).add_subplot()
    assert plot_crosstable(cross, order, ax=ax).ax is ax and len(ax.figure.axes) == 1


def test_crosstable_figure_keeps_neighbours_when_there_are_many_pairs():
    labels = [f"p{i}" for i in range(11)]  # 55 pairs > 45
    pairs = [(a, b, -1.0, -2.0, 0.5) for i, a in enumerate(labels) for b in labels[i + 1:]]
    shown = crosstable_pairs(crosstable(pairs), labels)
    assert list(zip(shown["policy"], shown["opponent"])) == list(zip(labels, labels[1:]))
    assert len(crosstable_pairs(crosstable(pairs[:10]), labels)) == 10


def test_tune_curve_draws_paired_differences_as_points():
    df = tune_frame((-3.0, -5.0, -1.0))
    d = plot_tune_curve(df, "bail_turn")
    cont = d.artists["candidates"]  # both grid candidates exclude 0
    x, y = cont.lines[0].get_data()
    assert list(x) == [1.0, 1000.0] and list(y) == [-3.0, 60.0]
    assert cont.lines[0].get_linestyle() == "None"  # discrete values: no line joins them
    assert list(d.artists["default"].get_data()[1]) == [0.0] and list(d.artists["default"].get_data()[0]) == [10.0]
    assert list(d.artists["best"].get_data()[1]) == [-3.0]


def test_tune_grid_marks_the_cells_better_than_the_defaults():
    spec = make_tune("hold-hand", ["bail_turn=2:4:2", "bail_opponent_cards=0:2:2"], "greedy,greedy,greedy", deals=10)
    rows = []
    for i, v in enumerate(spec.grid()):
        d = [-2.0, 0.5, 1.0, 3.0][i]
        rows.append({"label": spec.candidate(v).label, **v, "mean_score": 30 + d, "diff_vs_default": d,
                     "diff_ci95_low": d - 1.0, "diff_ci95_high": d + 1.0, "is_default": False, "is_best": i == 0,
                     "on_grid": True})
    rows.append({"label": spec.base.label, **spec.values_of(spec.base), "mean_score": 30.0, "diff_vs_default": 0.0,
                 "diff_ci95_low": 0.0, "diff_ci95_high": 0.0, "is_default": True, "is_best": False, "on_grid": False})
    d = plot_tune_grid(pd.DataFrame(rows), spec.param_names())
    img = d.artists["grid"].get_array()
    assert img[0, 0] == 28.0 and img[1, 1] == 33.0  # rows bail_turn, columns bail_opponent_cards
    assert len(d.artists["better"]) == 1  # only -2 +- 1 lies below 0
    assert "default" not in d.artists  # the defaults (bail_turn 10) are off the grid
    texts = sorted(t.get_text() for t in d.ax.texts)
    assert texts == ["28.0", "30.5", "31.0", "33.0"]


def test_tune_confirm_figure_shows_the_winners_curse():
    best = tune_frame((-3.0, -5.0, -1.0)).iloc[1]
    d = plot_tune_confirm(best, confirm(-0.8, -2.1, 0.5))
    assert _xy(d.artists["tuning deals"]) == (-3.0, 0.0) and _xy(d.artists["fresh deals"]) == (-0.8, -1.0)
    assert d.artists["fresh deals"].lines[0].get_markerfacecolor() == "white"  # includes 0
    assert to_hex(d.artists["tuning deals"].lines[0].get_markerfacecolor()) == "#7f7f7f"
