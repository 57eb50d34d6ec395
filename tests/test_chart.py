"""Decision charts (issue 26 part 1, ``handsim chart --decision open``): the cells worked out by
hand, the measurement on a hand-built deal, the pairing of the rollouts and reproducibility across
``--jobs``, and bad input.  The kernel tests compile the chart kernel (about 100 s of CPU on a cold
cache) and are marked slow; the cells and the command's refusals need no kernel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from handsim.games.hand.rules import Rules

CLASSIC = Rules.preset("classic")


def _positions(diffs_by_turn):
    rows = []
    for turn, diffs in diffs_by_turn.items():
        for d in diffs:
            rows.append(dict(deal=0, position=0, threshold=51, own_turn=turn, cards=10, open_points=55, jokers=0,
                             fewest_opponent=10, opened_opponents=0, field_opens=1, worlds=4, sum_diff=4 * d,
                             sum_diff2=0.0, mean_diff=float(d), se=0.0))
    return pd.DataFrame(rows)


def test_cells_give_the_better_action_with_a_t_interval_over_positions():
    from handsim.games.hand.chart import cells

    # own turn 1 (bucket 1-2): 10, 12, 14 -> mean 12, sd 2, t(0.975, 2) = 4.3027, half 4.3027 x 2 / sqrt 3
    # = 4.968: 7.03 .. 16.97 above 0: open.  Turn 3 (3-4): -5, -6, -7: sd 1, half 2.484: -8.48 .. -3.52: wait.  Turn 5
    # (5-7): 2, -2, 0: mean 0: either.  Turn 8 (8-11): 2 positions < 3: too few.
    tab = cells(_positions({1: [10, 12, 14], 3: [-5, -6, -7], 5: [2, -2, 0], 8: [50, 60]}), min_positions=3)
    assert tab["own_turn_bucket"].tolist() == ["1-2", "3-4", "5-7", "8-11"]
    assert tab["open_points_bucket"].tolist() == ["0-59"] * 4
    assert tab["better"].tolist() == ["open", "wait", "either", "too few"]
    assert tab["positions"].tolist() == [3, 3, 3, 2]
    assert tab["gain"].tolist() == [12.0, -6.0, 0.0, 55.0]
    assert tab["lo"][0] == pytest.approx(12 - 4.968, abs=1e-3) and tab["hi"][0] == pytest.approx(12 + 4.968, abs=1e-3)
    assert tab["lo"][1] == pytest.approx(-8.484, abs=1e-3) and tab["hi"][1] == pytest.approx(-3.516, abs=1e-3)
    assert (tab["threshold"] == 51).all()


def test_bad_input_is_one_line_exit_2(tmp_path):
    from click.testing import CliRunner

    from handsim.cli import cli

    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("keep")
    cases = [
        (["--lineup", "sampler,card-reader", "--out", tmp_path / "a"], "sampler cannot play a chart's field"),
        (["--lineup", "card-reader", "--out", tmp_path / "b"], "allowed: 2 to 5"),
        (["--worlds", "1", "--out", tmp_path / "c"], "--worlds"),
        (["--out", tmp_path / "full"], "not a new or empty folder"),
        (["--decision", "jokers", "--out", tmp_path / "d"], "--decision"),
    ]
    for args, fragment in cases:
        r = CliRunner().invoke(cli, ["chart"] + [str(a) for a in args])
        assert r.exit_code == 2, (args, r.output)
        lines = [ln for ln in r.output.strip().splitlines() if ln.strip()]
        assert fragment in r.output, (args, r.output)
        assert "Traceback" not in r.output
        assert lines[-1].startswith("Error") and len([ln for ln in lines if ln.startswith("Error")]) == 1, r.output
    assert (tmp_path / "full" / "x.txt").read_text() == "keep"
    assert not (tmp_path / "a").exists()


def _stacked(rules, hands, stock=""):
    from handsim.cards import parse_cards
    from test_engine_rules import stacked

    return parse_cards(" ".join(stacked(rules, len(hands), _dealer(rules, len(hands)), hands, stock)),
                       jokers=rules.jokers)


def _dealer(rules, players=2):
    """The dealer that makes seat 0 the starter (as test_engine_rules.play)."""
    return players - 1 if rules.starter == "dealer_right" else 0


# 2 players, hand_size 7, seat 0 starts (8 cards, no draw).  KS KH KD KC QS QH QD 9D: opening now
# (40 + 30 = 70 >= 51) lays all seven and discards the 9D: a Hand at once, -60 in every world.  No
# result of the round scores less than a Hand for the seat, so waiting is never better: every
# world's wait - open is >= 0.
HAND_NOW = {0: "KS KH KD KC QS QH QD 9D", 1: "2H 3D 5C 7S 9C 6H 8D"}
# 4 players, hand_size 14: the starter can open with its two sets (60 >= 51) and keeps 9 loose cards.
SETS = {0: "KS KH KD QS QH QD 2C 4C 6C 8C 10C 3D 5D 7D 9D", 1: "2H 4H 6H 8H 10H 3S 5S 7S 9S JS 2D 4D 6D 8D",
        2: "2H 4H 6H 8H 10H 3S 5S 7S 9S JS 2D 4D 6D 8D", 3: "3H 5H 7H 9H JH 3C 5C 7C 9C JC 2S 4S 6S 8S"}


@pytest.mark.slow
def test_a_hand_now_is_a_position_where_opening_is_never_worse():
    from handsim.games.hand.chart import measure

    rules = CLASSIC.replace(hand_size=7)
    pos = measure(rules, "card-reader,card-reader", deals=1, worlds=8, seed=3, deck=_stacked(rules, HAND_NOW),
                  dealer=_dealer(rules))
    first = pos.iloc[0]
    assert first[["position", "threshold", "own_turn", "cards", "open_points", "jokers", "fewest_opponent",
                  "opened_opponents", "field_opens", "worlds"]].tolist() == [0, 51, 1, 8, 70, 0, 7, 0, 1, 8]
    assert first["mean_diff"] >= 0.0
    # the first position only: card-reader plays the Hand, the round ends
    assert len(pos) == 1


def _table(rules, hands, roles):
    """The starter's first turn of a stacked deal (the decision point: no draw)."""
    from handsim.games.hand.chart_kernel import stacked_position

    P = len(hands)
    deck = np.asarray(_stacked(rules, hands), dtype=np.int8)
    return stacked_position(np.int64(P), rules.to_vector(), np.int64(_dealer(rules, P)), np.uint64(5), deck, roles)


@pytest.mark.slow
def test_the_paired_evaluation_plays_both_alternatives_on_the_same_worlds():
    from handsim.games.hand.chart_kernel import evaluate_at, one_rollout_at
    from handsim.games.hand.policies import searcher

    rules = CLASSIC.replace(hand_size=7)
    roles = np.full(4, searcher.ROLE_CARD_READER, dtype=np.int64)
    key = np.uint64(123456789)
    arr = _table(rules, HAND_NOW, roles)
    out = np.zeros((3, 2))
    evaluate_at(arr, np.int64(0), roles, np.int64(3), key, out)
    assert out[:, 0].tolist() == [-60.0] * 3  # the Hand now
    assert (out[:, 1] >= -60.0).all()
    arr = _table(CLASSIC, SETS, roles)
    evaluate_at(arr, np.int64(0), roles, np.int64(3), key, out)
    for w in range(3):
        for a in range(2):
            assert one_rollout_at(arr, np.int64(0), roles, np.int64(w), key, np.int64(a)) == out[w, a], (w, a)
    assert len(set(out[:, 1].tolist())) > 1 and len(set(out[:, 0].tolist())) > 1  # the worlds differ


@pytest.mark.slow
def test_positions_are_reproducible_and_independent_of_jobs_and_chunk():
    from handsim.games.hand.chart import measure

    a = measure(CLASSIC, "card-reader,greedy,card-reader", deals=6, worlds=3, seed=9, jobs=1, chunk=6)
    b = measure(CLASSIC, "card-reader,greedy,card-reader", deals=6, worlds=3, seed=9, jobs=2, chunk=2)
    assert len(a) > 0
    pd.testing.assert_frame_equal(a, b)
    c = measure(CLASSIC, "card-reader,greedy,card-reader", deals=6, worlds=3, seed=10, jobs=1, chunk=6)
    assert not a.equals(c)


@pytest.mark.slow
def test_the_command_writes_the_chart_and_never_overwrites(tmp_path):
    from click.testing import CliRunner

    from handsim.cli import cli

    out = tmp_path / "c"
    args = ["chart", "--decision", "open", "--deals", "8", "--worlds", "2", "--seed", "1", "--min-positions", "2",
            "--out", str(out)]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == ["chart.csv", "chart.png", "positions.csv"]
    tab = pd.read_csv(out / "chart.csv")
    pos = pd.read_csv(out / "positions.csv")
    assert list(tab.columns[:8]) == ["threshold", "own_turn_bucket", "open_points_bucket", "positions", "gain", "lo",
                                     "hi", "better"]
    assert tab["positions"].sum() == len(pos) > 0 and (tab["threshold"] == 51).all()
    lines = r.output.splitlines()  # the start line, the answer (as chart.csv says), the gain, the size, the files
    assert lines[0] == f"Charting the decision open: 8 deals x 2 worlds per position, field card-reader×4, rules classic, seed 1, 1 job -> {out}"
    n = {k: int((tab["better"] == k).sum()) for k in ("open", "wait", "either", "too few")}
    assert lines[-4].startswith(f"Open now or wait, at threshold 51 with card-reader×4: of {len(tab)} cells, open now "
                                f"in {n['open']}, wait in {n['wait']}, no difference shown in {n['either']}")
    assert lines[-2].startswith(f"Measured {len(pos):,} positions in ")
    assert lines[-1] == f"Results: {out}/ (chart.csv, chart.png, positions.csv)"
    before = (out / "chart.csv").read_bytes()
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2 and "not a new or empty folder" in r.output
    assert (out / "chart.csv").read_bytes() == before


def test_the_terminal_summary_gives_the_answer_first_in_words():
    from handsim.cli.chart import summary_lines

    tab = pd.DataFrame({"better": ["open", "open", "wait", "either", "too few", "either", "either"]})
    gain = ("Gain = wait - open, points per round for the seat deciding (positive: opening now scores less); a "
            "cell's answer needs its 95% CI over its positions to exclude 0.")
    assert summary_lines(tab, 1234, 71, "card-reader×4", 30, 2.0) == [
        "Open now or wait, at threshold 71 with card-reader×4: of 7 cells, open now in 2, wait in 1, no difference "
        "shown in 3; 1 with fewer than 30 positions is too few to say.", gain,
        "Measured 1,234 positions in 2.0 s (617.0 per second)."]
    assert summary_lines(tab.iloc[:4], 40, 51, "greedy×2", 30, 0.5)[0] == (
        "Open now or wait, at threshold 51 with greedy×2: of 4 cells, open now in 2, wait in 1, no difference shown "
        "in 1.")
    assert summary_lines(pd.DataFrame({"better": ["too few"] * 3}), 5, 51, "greedy×2", 30, 0.5)[0] == (
        "Too few positions to say, at threshold 51 with greedy×2: each of the 3 cells has fewer than 30 "
        "(--min-positions); play more --deals.")
    assert summary_lines(pd.DataFrame(), 0, 500, "greedy×2", 30, 0.0) == [
        "No position of the decision was met at threshold 500 with greedy×2: the chart is empty (more --deals, or a "
        "lower threshold, meet some).", gain, "Measured 0 positions in 0.0 s (0.0 per second)."]
