"""Statistics of Russian Hand studies: hand-computed values, exact checkpoints, the study driver."""

from __future__ import annotations

import math

import numpy as np
import pytest

from handsim.games.russian.stats import GameBlock, RussianAccumulator

WON, DREW, OUT = 1, 2, 4


def block(deals, policy, flags, cards, value, turns, end):
    return GameBlock(np.asarray(deals, np.int64), np.asarray(policy, np.int8), np.asarray(flags, np.uint8),
                     np.asarray(cards, np.int8), np.asarray(value, np.int16), np.asarray(turns, np.int16),
                     np.asarray(end, np.uint8))


# 4 games of 2 players, line-up (patient, greedy); position j sits at seat (j + i) % 2
GAMES = block(
    deals=[0, 1, 2, 3],
    policy=[[0, 1], [1, 0], [0, 1], [1, 0]],
    flags=[[WON | OUT, 0], [0, WON | OUT], [0, WON], [DREW, DREW]],
    cards=[[0, 5], [3, 0], [4, 2], [2, 2]],
    value=[[0, 40], [21, 0], [30, 9], [15, 15]],
    turns=[20, 30, 90, 91],
    end=[0, 0, 1, 2],
)


def test_summary_by_hand():
    acc = RussianAccumulator([{}], [("patient", "greedy")], 2, [])
    acc.add_chunk({(0, 0): GAMES})
    s = acc.summary().set_index(["policy", "seat"])
    # patient: seat 0 in games 0 and 2 (won game 0), seat 1 in games 1 and 3 (won game 1, drew game 3)
    p = s.loc[("patient", "all")]
    assert (p["games"], p["deals"]) == (4, 4)
    assert p["win_rate"] == 0.5 and p["draw_rate"] == 0.25 and p["out_rate"] == 0.5
    assert p["mean_cards_left"] == (0 + 0 + 4 + 2) / 4 and p["mean_card_value_left"] == (0 + 0 + 30 + 15) / 4
    assert p["mean_turns"] == (20 + 30 + 90 + 91) / 4
    assert p["stock_out_rate"] == 0.5 and p["draw_game_rate"] == 0.25
    # a policy at one seat: Wilson intervals (z = 1.959964): 2 of 4
    lo, hi = p["win_rate_ci95_low"], p["win_rate_ci95_high"]
    assert math.isclose(lo, 0.15003898, rel_tol=1e-6) and math.isclose(hi, 0.84996102, rel_tol=1e-6)
    g0 = s.loc[("greedy", "0")]  # greedy at seat 0 in games 1 (lost, 3 cards) and 3 (drew, 2 cards)
    assert (g0["games"], g0["win_rate"], g0["draw_rate"], g0["mean_cards_left"]) == (2, 0.0, 0.5, 2.5)
    assert s.loc[("patient", "0")]["mean_turns"] == (20 + 90) / 2
    assert s.loc[("patient", "0")]["stock_out_rate"] == 0.5
    seats = acc.seats().set_index("seat")  # seat 0 won game 0; seat 1 games 1 and 2
    assert seats.loc[0, "win_rate"] == 0.25 and seats.loc[1, "win_rate"] == 0.5
    assert seats.loc[0, "edge"] == -0.25 and seats.loc[1, "edge"] == 0.0
    v = acc.versus().iloc[0]
    # per game, patient minus greedy: wins +1, +1, -1, 0; cards -5, -3, +2, 0
    assert (v["policy_a"], v["policy_b"], v["deals"]) == ("patient", "greedy", 4)
    assert v["win_diff"] == 0.25 and v["cards_left_diff"] == -1.5
    sd = np.std([1, 1, -1, 0], ddof=1)
    half = 3.182446305284263 * sd / 2  # t(3) quantile
    assert math.isclose(v["win_diff_ci95_low"], 0.25 - half) and math.isclose(v["win_diff_ci95_high"], 0.25 + half)
    t = acc.turn_quantiles().iloc[0]
    assert t["mean_turns"] == 57.75 and t["p50"] == 60.0


def _random_block(rng, deals, P):
    n = len(deals)
    policy = np.array([[(s - i) % P for s in range(P)] for i in deals])
    winner = rng.integers(0, P, n)
    flags = np.zeros((n, P), np.uint8)
    flags[np.arange(n), winner] = WON | OUT
    cards = rng.integers(0, 12, (n, P))
    cards[np.arange(n), winner] = 0
    return block(deals, policy, flags, cards, cards * 7, rng.integers(10, 120, n), np.zeros(n, np.uint8))


def test_chunks_merge_in_any_order_byte_identically():
    rng = np.random.default_rng(3)
    configs = [{"stock_out_end": "must_draw"}, {"stock_out_end": "last_card"}]
    lineups = [("greedy",) * 3, ("patient", "greedy", "greedy")]
    chunks = []
    for start in (0, 50, 100):
        deals = np.arange(start, start + 50)
        chunks.append({(c, l): _random_block(rng, deals, 3) for c in range(2) for l in range(2)})
    a = RussianAccumulator(configs, lineups, 3, ["stock_out_end"])
    for ch in chunks:
        a.add_chunk(ch)
    b = RussianAccumulator(configs, lineups, 3, ["stock_out_end"])
    for ch in reversed(chunks):
        b.add_chunk(ch)
    parts = []
    for ch in chunks:
        x = RussianAccumulator(configs, lineups, 3, ["stock_out_end"])
        x.add_chunk(ch)
        parts.append(x)
    c = parts[2].merge(parts[0]).merge(parts[1])
    state = a.state()
    for other in (b, c, RussianAccumulator.from_state(state)):
        for k, v in other.state().items():
            assert np.array_equal(v, state[k]), k
    assert a.summary().equals(RussianAccumulator.from_state(state).summary())
    assert len(a.paired()) == 3 and len(a.lineup_pairs()) == 2


def test_a_state_of_another_study_or_kind_is_refused():
    acc = RussianAccumulator([{}], [("greedy", "greedy")], 2, [])
    with pytest.raises(ValueError, match="different study"):
        RussianAccumulator.from_state(acc.state(), players=3, lineups=[("greedy",) * 3])
    from handsim.stats import StudyAccumulator

    with pytest.raises(ValueError, match="not a Russian Hand study"):
        RussianAccumulator.from_state(StudyAccumulator([{}], [("greedy", "greedy")], 2, []).state())


def test_bad_blocks_are_refused():
    acc = RussianAccumulator([{}], [("greedy", "greedy")], 2, [])
    bad = GAMES._replace(policy=np.array([[0, 0], [1, 0], [0, 1], [1, 0]], np.int8))
    with pytest.raises(ValueError, match="permutation"):
        acc.add_chunk({(0, 0): bad})
    with pytest.raises(ValueError, match="shape"):
        acc.add_chunk({(0, 0): GAMES._replace(cards=np.zeros((4, 3), np.int8))})


# ------------------------------------------------------------------------------ the study driver


def _spec(**kw):
    from handsim.games.russian.rules import RussianRules
    from handsim.simulate import make_spec

    args = dict(rules=RussianRules.preset(), vary={"first_round": ["new_melds", "free"]},
                lineups=["greedy", "patient,greedy,greedy"], players=3, deals=60, seed=4, chunk=20)
    args.update(kw)
    return make_spec(**args)


def test_a_study_does_not_depend_on_jobs_or_chunks(tmp_path):
    from handsim.simulate import run_study

    a = run_study(_spec(), jobs=1).summary
    b = run_study(_spec(chunk=7), jobs=2).summary
    assert a.to_csv() == b.to_csv()
    assert set(a["lineup"]) == {"greedy,greedy,greedy", "patient,greedy,greedy"}
    assert (a["games"][(a["seat"] == "0") & (a["lineup"] == "greedy,greedy,greedy")] == 60).all()


def test_spec_round_trip_checkpoint_and_report(tmp_path):
    from handsim.simulate import StudySpec, read_checkpoint, run_study, write_outputs

    spec = _spec()
    j = spec.to_json()
    assert j["game"] == "russian" and j["players"] == 3
    assert StudySpec.from_json(j) == spec
    res = run_study(spec, jobs=1, out=tmp_path)
    write_outputs(res, tmp_path, command="handsim simulate --preset russian")
    ck = read_checkpoint(tmp_path / "checkpoint.npz")
    assert ck.spec == spec and isinstance(ck.accumulator, RussianAccumulator)
    assert ck.accumulator.summary().equals(res.summary)
    for name in ("summary.csv", "seats.csv", "paired.csv", "versus.csv", "lineups.csv", "game_length.csv",
                 "report.md", "report.html", "seat_edge.png", "win_rate.png", "game_length.png", "run.json"):
        assert (tmp_path / name).is_file(), name
    text = (tmp_path / "report.md").read_text()
    for word in ("opening", "Hand (the one-turn", "points per player-round", "unopened"):
        assert word not in text
    assert "The first player wins" in text and "Playing `patient` instead of `greedy`" in text
    # In brief: at most five lines, the first seat's chance and the game's length among them
    brief = [x for x in text.split("## In brief\n", 1)[1].split("\n## ", 1)[0].splitlines() if x.startswith("- ")]
    assert 2 <= len(brief) <= 5, brief
    assert brief[0].startswith("- The first player's chance to win, against a fair share of 33.3%: ")
    assert brief[1].startswith("- A game lasts, on average ") and "The stock runs out in" in brief[1]


def test_bad_russian_studies_are_refused():
    from handsim.errors import PolicyError
    from handsim.games.hand.rules import RulesError
    from handsim.simulate import StudyError

    with pytest.raises(StudyError, match="allowed 2, 3, 4 or 5"):
        _spec(players=6, lineups=["greedy"])
    with pytest.raises(RulesError, match="unknown Russian Hand rule 'jokers'"):
        _spec(vary={"jokers": [2, 4]})
    with pytest.raises(PolicyError, match="unknown Russian Hand policy 'hold-hand'"):
        _spec(lineups=["hold-hand"])
    with pytest.raises(StudyError, match="single game"):
        _spec(matches=True)


def test_the_first_seats_edge_is_worded_as_an_advantage_or_a_disadvantage():
    """Was "a handicap of -3.4 percentage points": a significant edge is named by its sign and given by its size."""
    from handsim.games.russian.report import _share, edge_verdict

    assert edge_verdict(_share(-0.034, -0.047, -0.021, diff=True)) == (
        "a disadvantage of 3.4 percentage points (95% CI 2.1 to 4.7)")
    assert edge_verdict(_share(0.021, 0.010, 0.032, diff=True)) == (
        "an advantage of 2.1 percentage points (95% CI 1.0 to 3.2)")
    assert edge_verdict(_share(-0.005, -0.02, 0.01, diff=True)) == (
        "a difference from the fair share of -0.5 percentage points (95% CI -2.0 to +1.0; not significant: the "
        "interval includes 0)")


def test_switching_one_seat_is_worded_by_its_size_after_raises_or_lowers():
    """Was "lowers that player's chance to win by -1.2 percentage points (95% CI -1.9 to -0.6)": the verb
    carries the direction, the number is the size (results/russian/p2, wary patient against greedy)."""
    from types import SimpleNamespace

    import pandas as pd

    from handsim.games.russian.report import _switch_findings

    def pair(d, lo, hi):
        return {"lineup_a": "patient,greedy", "lineup_b": "greedy,greedy", "position": 1, "policy_a": "patient",
                "policy_b": "greedy", "win_diff": d, "win_diff_ci95_low": lo, "win_diff_ci95_high": hi,
                "cards_left_diff": 0.03, "cards_left_diff_ci95_low": 0.01, "cards_left_diff_ci95_high": 0.05}

    st = SimpleNamespace(lineup_pairs=pd.DataFrame([pair(-0.0122, -0.0188, -0.0056), pair(0.0181, 0.0116, 0.0247),
                                                    pair(-0.004, -0.011, 0.003)]), varying=[])
    texts = [f.text for f in _switch_findings(st)]
    assert "lowers that player's chance to win by 1.2 percentage points (95% CI 0.6 to 1.9);" in texts[0]
    assert "raises that player's chance to win by 1.8 percentage points (95% CI 1.2 to 2.5);" in texts[1]
    assert "leaves no significant difference in that player's chance to win (-0.4 percentage points" in texts[2]
