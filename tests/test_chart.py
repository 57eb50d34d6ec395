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
        (["--decision", "bluff", "--out", tmp_path / "d"], "--decision"),
        (["--decision", "open", "--rows", "discard_use", "--out", tmp_path / "e"],
         "--rows discard_use: the open class has no such feature (allowed: own_turn, cards, open_points, jokers, "
         "fewest_opponent, opened_opponents, threshold)"),
        (["--decision", "draw", "--cols", "short", "--out", tmp_path / "f"], "--cols short: the draw class has no"),
        (["--decision", "jokers", "--rows", "own_turn", "--cols", "own_turn", "--out", tmp_path / "g"],
         "--rows and --cols are both own_turn"),
    ]
    for args, fragment in cases:
        r = CliRunner().invoke(cli, ["chart"] + [str(a) for a in args])
        assert r.exit_code == 2, (args, r.output)
        lines = [ln for ln in r.output.strip().splitlines() if ln.strip()]
        assert fragment in r.output, (args, r.output)
        assert "Traceback" not in r.output
        assert lines[-1].startswith("Error") and len([ln for ln in lines if ln.startswith("Error")]) == 1, r.output
    assert (tmp_path / "full" / "x.txt").read_text() == "keep"
    assert not (tmp_path / "a").exists() and not (tmp_path / "e").exists()


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
    assert sorted(p.name for p in out.iterdir()) == ["chart.csv", "chart.html", "chart.md", "chart.png", "positions.csv"]
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
    assert lines[-1] == f"Results: {out}/ (chart.md, chart.html, chart.png, chart.csv, positions.csv)"
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
    draw = summary_lines(pd.DataFrame({"better": ["take", "stock", "stock", "either"]}), 9, 51, "greedy×2", 30, 1.0,
                         actions=("take", "stock"))
    assert draw[:2] == [
        "Take the discard or draw from the stock, at threshold 51 with greedy×2: of 4 cells, take the discard in 1, "
        "draw from the stock in 2, no difference shown in 1.",
        "Gain = stock - take, points per round for the seat deciding (positive: taking the discard scores less); a "
        "cell's answer needs its 95% CI over its positions to exclude 0."]


# ------------------------------------------------------------------ the other classes (issue 26 part 1)

def _draw_positions(cells_spec):
    """Draw-class positions: {(discard_use, own_turn): [mean_diff, ...]}."""
    rows = []
    for (use, turn), diffs in cells_spec.items():
        for d in diffs:
            rows.append(dict(deal=0, position=1, threshold=71, own_turn=turn, cards=9, opened=1, discard_points=10,
                             discard_use=use, jokers=0, fewest_opponent=8, opened_opponents=1,
                             field_takes=1 if d > 0 else 0, worlds=4, sum_diff=4 * d, sum_diff2=0.0,
                             mean_diff=float(d), se=0.0))
    return pd.DataFrame(rows)


# discard_use 3 (meld), own turns 1 and 3: 8, 10, 12 (mean 10, sd 2: half 4.968: 5.03 .. 14.97, take) and
# 4, 6, 8 (mean 6: 1.03 .. 10.97, take); use 0 (loose), turn 1: -3, -4, -5 (mean -4, sd 1: -6.48 .. -1.52:
# stock) and turn 3: 1, -1, 3 (mean 1, sd 2: either); use 4 (opens), turn 1: one position (too few).
DRAW = {(3, 1): [8, 10, 12], (3, 3): [4, 6, 8], (0, 1): [-3, -4, -5], (0, 3): [1, -1, 3], (4, 1): [50]}


def test_draw_cells_say_take_or_stock_and_keep_the_uses_in_order():
    from handsim.games.hand.chart import cells

    tab = cells(_draw_positions(DRAW), "discard_use", "own_turn", min_positions=3, decision="draw")
    assert tab["discard_use_bucket"].tolist() == ["loose", "loose", "meld", "meld", "opens"]
    assert tab["own_turn_bucket"].tolist() == ["1-2", "3-4", "1-2", "3-4", "1-2"]
    assert tab["better"].tolist() == ["stock", "either", "take", "take", "too few"]
    assert tab["gain"].tolist() == [-4.0, 1.0, 10.0, 6.0, 50.0]
    assert tab["field_takes"].tolist() == [0.0, 2 / 3, 1.0, 1.0, 1.0]
    assert (tab["threshold"] == 71).all() and "joker_penalty" not in tab.columns
    assert tab["lo"][2] == pytest.approx(10 - 4.968, abs=1e-3) and tab["hi"][0] == pytest.approx(-1.516, abs=1e-3)


def test_jokers_cells_are_keyed_by_the_joker_penalty_too():
    from handsim.games.hand.chart import cells

    rows = [dict(deal=0, position=0, threshold=51, own_turn=t, cards=6, joker_penalty=30, jokers=1, layable=1,
                 fewest_opponent=f, opened_opponents=1, field_lays=0, worlds=2, sum_diff=2 * d, sum_diff2=0.0,
                 mean_diff=float(d), se=0.0) for t, f, d in [(1, 3, 5), (2, 4, 7), (9, 3, -2), (9, 10, -1)]]
    # turns 1-2 x 0-4 cards: 5 and 7, mean 6, sd sqrt 2, t(0.975, 1) = 12.706: 6 +- 12.7 holds 0: either
    tab = cells(pd.DataFrame(rows), "own_turn", "fewest_opponent", min_positions=2, decision="jokers")
    assert list(tab.columns[:4]) == ["threshold", "joker_penalty", "own_turn_bucket", "fewest_opponent_bucket"]
    assert tab[["own_turn_bucket", "fewest_opponent_bucket", "positions", "better"]].values.tolist() == [
        ["1-2", "0-4", 2, "either"], ["8-11", "0-4", 1, "too few"], ["8-11", "9-11", 1, "too few"]]
    assert (tab["joker_penalty"] == 30).all() and tab["gain"].tolist() == [6.0, -2.0, -1.0]
    rows[3]["mean_diff"] = 6.0  # 5, 7 and 6 at turns 1-2: mean 6, sd 1, t(0.975, 2) 4.303: 3.52 .. 8.48: lay
    rows[3]["own_turn"], rows[3]["fewest_opponent"] = 1, 0
    tab = cells(pd.DataFrame(rows), "own_turn", "fewest_opponent", min_positions=2, decision="jokers")
    assert tab["better"].tolist() == ["lay", "too few"] and tab["lo"][0] == pytest.approx(3.516, abs=1e-3)


def _run(decision="draw", rows="discard_use", cols="own_turn", min_positions=3):
    from handsim.games.hand.chart_report import ChartRun

    return ChartRun(decision=decision, preset=None, rules=CLASSIC.replace(opening_threshold=71), lineup="card-reader,greedy",
                    deals=5, worlds=4, seed=2, rows=rows, cols=cols, min_positions=min_positions)


def test_the_rules_in_words_are_backed_by_their_cells_numbers():
    from handsim.games.hand.chart import cells
    from handsim.games.hand.chart_report import chart_rules

    pos = _draw_positions(DRAW)
    tab = cells(pos, "discard_use", "own_turn", min_positions=3, decision="draw")
    rules = chart_rules(_run(), pos, tab)
    assert [(r.row, r.action, r.cells, r.positions) for r in rules] == [
        ("loose", "stock", ("1-2",), 3), ("meld", "take", ("1-2", "3-4"), 6), ("opens", "too few", ("1-2",), 1)]
    # meld: the six positions 8, 10, 12, 4, 6, 8 pooled: mean 8, sd 2.828, t(0.975, 5) = 2.5706: half 2.968
    meld = rules[1]
    assert meld.estimate.value == 8.0
    assert meld.estimate.low == pytest.approx(5.032, abs=1e-3) and meld.estimate.high == pytest.approx(10.968, abs=1e-3)
    assert meld.text == ("At 71, with a discard that completes a meld: **take the discard** (on own turn 1-2, 3-4: better "
                         "by +8.0 points per round, 95% CI +5.0 to +11.0, over 6 positions).")
    # loose: stock better by 4 (the gain stock - take is -4, 95% CI -6.48 .. -1.52), either on turn 3-4
    assert rules[0].estimate.value == 4.0 and rules[0].estimate.low == pytest.approx(1.516, abs=1e-3)
    assert rules[0].text == ("At 71, with a discard that fits nothing in your hand: **draw from the stock** (on own turn "
                             "1-2: better by +4.0 points per round, 95% CI +1.5 to +6.5, over 3 positions); either on "
                             "own turn 3-4 (the interval holds 0).")
    assert rules[2].text == ("At 71, with a discard that lets you open now: too few positions to say (1 in all, fewer "
                             "than 3 in each cell).")


def test_a_rule_names_the_cells_that_say_the_other_action():
    from handsim.games.hand.chart import cells
    from handsim.games.hand.chart_report import chart_rules

    # meld: take on turns 1 and 3 (6 positions), stock on turn 5 (3 positions: -7, -8, -9, sd 1, half 2.484)
    pos = _draw_positions({(3, 1): [8, 10, 12], (3, 3): [4, 6, 8], (3, 5): [-7, -8, -9]})
    tab = cells(pos, "discard_use", "own_turn", min_positions=3, decision="draw")
    (rule,) = chart_rules(_run(), pos, tab)
    assert rule.action == "take" and rule.cells == ("1-2", "3-4")
    assert rule.text.endswith("; but **draw from the stock** on own turn 5-7 (better by +8.0 points per round, "
                              "95% CI +5.5 to +10.5, 3 positions).")


def test_the_report_files_hold_the_rules_the_figure_and_every_cell_of_chart_csv(tmp_path):
    from handsim.games.hand.chart import cells
    from handsim.games.hand.chart_report import chart_rules, write_report

    pos = _draw_positions(DRAW)
    tab = cells(pos, "discard_use", "own_turn", min_positions=3, decision="draw")
    tab.to_csv(tmp_path / "chart.csv", index=False, float_format="%.3f")
    write_report(tmp_path, _run(), pos, tab)
    md = (tmp_path / "chart.md").read_text()
    html = (tmp_path / "chart.html").read_text()
    assert md.startswith("# Take the discard or draw from the stock? A decision chart at 71\n")
    body = md.split("## The chart's rules\n\n", 1)[1]
    rules = chart_rules(_run(), pos, tab)
    assert body.startswith("".join(f"- {r.text}\n" for r in rules))  # the report opens with the rules
    assert "![Take the discard or draw from the stock at 71](chart.png)" in md
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = pd.read_csv(tmp_path / "chart.csv")
    table = [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| discard use")]
    assert len(table) == len(csv)
    for line, (_, c) in zip(table, csv.iterrows()):
        f = [x.strip() for x in line.strip("|").split("|")]
        assert f[:4] == [c["discard_use_bucket"], c["own_turn_bucket"], str(c["positions"]), c["better"]]
        assert f[4].startswith(f"{c['gain']:+.1f}") or f[4].startswith(f"{c['gain']:.1f}")
    assert "either" in csv["better"].tolist() and "too few" in csv["better"].tolist()
    assert "<h2" in html and "data:image/png;base64," in html and "take the discard" in html


# Draw class, 2 players, hand_size 7: the starter (seat 0) cannot open (2C 3C 4C + 5H 5S 5D = 24 < 51) and
# discards its loose KH; seat 1 then holds KS KD KC QS QH QD 9C: with the KH it lays KS KH KD KC QS QH QD
# (70 >= 51) and discards the 9C, a Hand (-60) in every world; from the stock it scores -60 at best (no
# result of a round is better for it).  So taking is never worse, by construction.
TAKE_FOR_A_HAND = {0: "2C 3C 4C 5H 5S 5D 8D KH", 1: "KS KD KC QS QH QD 9C"}


@pytest.mark.slow
def test_a_discard_that_completes_a_hand_is_taken():
    from handsim.games.hand.chart import measure
    from handsim.games.hand.chart_kernel import CLS_DRAW, N_COLS, USE_MELD, evaluate_class_at, point_at, stacked_turn
    from handsim.games.hand.policies import searcher

    rules = CLASSIC.replace(hand_size=7)
    roles = np.full(4, searcher.ROLE_CARD_READER, dtype=np.int64)
    deck = np.asarray(_stacked(rules, TAKE_FOR_A_HAND), dtype=np.int8)
    arr, seat = stacked_turn(np.int64(2), rules.to_vector(), np.int64(_dealer(rules)), np.uint64(5), deck, roles,
                             np.int64(1), np.int64(CLS_DRAW))
    assert seat == 1
    row = np.zeros(N_COLS)
    assert point_at(arr, np.int64(seat), np.int64(CLS_DRAW), roles, row)
    # threshold 51, own turn 1, 7 cards, the discard a K (10 points) that melds, not opened
    assert row[[2, 3, 4, 14, 15, 16]].tolist() == [51, 1, 7, 10, USE_MELD, 0]
    out = np.zeros((6, 2))
    evaluate_class_at(arr, np.int64(seat), np.int64(CLS_DRAW), roles, np.int64(6), np.uint64(99), out)
    assert out[:, 0].tolist() == [-60.0] * 6  # take: the Hand
    assert (out[:, 1] >= -60.0).all() and (out[:, 1] > -60.0).any()
    pos = measure(rules, "card-reader,card-reader", deals=1, worlds=8, seed=3, deck=deck, dealer=_dealer(rules),
                  decision="draw")
    first = pos.iloc[0]
    assert first[["position", "threshold", "own_turn", "cards", "opened", "discard_points", "discard_use",
                  "field_takes", "worlds"]].tolist() == [1, 51, 1, 7, 0, 10, USE_MELD, 1, 8]
    assert first["mean_diff"] > 0.0
    assert len(pos) == 1  # card-reader takes it and plays the Hand: the round ends


@pytest.mark.slow
def test_the_new_classes_pair_their_rollouts_and_do_not_depend_on_jobs():
    from handsim.games.hand.chart import POSITION_COLUMNS, measure
    from handsim.games.hand.chart_kernel import (CLS_DRAW, N_COLS, evaluate_class_at, one_rollout_class_at, point_at,
                                                 stacked_turn)
    from handsim.games.hand.policies import searcher

    roles = np.full(4, searcher.ROLE_CARD_READER, dtype=np.int64)
    row = np.zeros(N_COLS)
    for turns in range(1, 40):  # the first turn of the stacked deal where the seat may take the discard
        arr, seat = stacked_turn(np.int64(4), CLASSIC.to_vector(), np.int64(_dealer(CLASSIC, 4)), np.uint64(5),
                                 np.asarray(_stacked(CLASSIC, SETS), dtype=np.int8), roles, np.int64(turns),
                                 np.int64(CLS_DRAW))
        if point_at(arr, np.int64(seat), np.int64(CLS_DRAW), roles, row):
            break
    else:
        raise AssertionError("no draw decision point in the stacked deal")
    out = np.zeros((3, 2))
    key = np.uint64(77)
    evaluate_class_at(arr, np.int64(seat), np.int64(CLS_DRAW), roles, np.int64(3), key, out)
    for w in range(3):
        for a in range(2):
            assert one_rollout_class_at(arr, np.int64(seat), np.int64(CLS_DRAW), roles, np.int64(w), key,
                                        np.int64(a)) == out[w, a], (w, a)
    assert not np.isnan(out).any() and len(set(out[:, 1].tolist())) > 1  # both made; the worlds differ
    lineup = "card-reader,hold-hand,card-reader,greedy"
    for decision in ("draw", "jokers", "layoff", "hunt"):
        a = measure(CLASSIC, lineup, deals=8, worlds=2, seed=4, jobs=1, chunk=8, decision=decision)
        b = measure(CLASSIC, lineup, deals=8, worlds=2, seed=4, jobs=2, chunk=3, decision=decision)
        assert list(a.columns) == list(POSITION_COLUMNS[decision]) + ["mean_diff", "se"]
        assert len(a) > 0, decision
        pd.testing.assert_frame_equal(a, b)
        if decision == "jokers":
            assert (a["layable"] >= 1).all() and (a["jokers"] >= a["layable"]).all()
        if decision == "layoff":
            assert (a["laid_off"] >= 1).all()
        if decision == "hunt":
            assert a["short"].between(0, 3).all() and (a["field_hunts"] == (a["position"] == 1)).all()
        if decision == "draw":
            assert a["discard_use"].between(0, 4).all() and (a["threshold"] == 51).all()


@pytest.mark.slow
def test_the_draw_chart_csv_is_the_same_for_jobs_1_and_2(tmp_path):
    from click.testing import CliRunner

    from handsim.cli import cli

    outs = []
    for jobs, chunk in (("1", "10"), ("2", "3")):
        out = tmp_path / f"j{jobs}"
        r = CliRunner().invoke(cli, ["chart", "--decision", "draw", "--deals", "10", "--worlds", "2", "--seed", "5",
                                     "--min-positions", "3", "--jobs", jobs, "--chunk", chunk, "--out", str(out)])
        assert r.exit_code == 0, r.output
        outs.append(out)
    assert sorted(p.name for p in outs[0].iterdir()) == ["chart.csv", "chart.html", "chart.md", "chart.png",
                                                         "positions.csv"]
    assert (outs[0] / "chart.csv").read_bytes() == (outs[1] / "chart.csv").read_bytes()
    assert (outs[0] / "chart.md").read_text() == (outs[1] / "chart.md").read_text()
    tab = pd.read_csv(outs[0] / "chart.csv")
    assert list(tab.columns[:3]) == ["threshold", "discard_use_bucket", "own_turn_bucket"]
    assert tab["positions"].sum() == len(pd.read_csv(outs[0] / "positions.csv")) > 0
