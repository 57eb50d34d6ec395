"""scripts/hand_decides.py: how often one Hand decides a match, against an ordinary round (issue 25)."""

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import hand_decides as H  # noqa: E402


def rows(matches):
    """Per-deal rows of 2-player matches: matches[m][r] = ((score0, score1), seat with the Hand or None)."""
    out = []
    for m, rounds in enumerate(matches):
        for r, (scores, hand) in enumerate(rounds):
            for pos, sc in enumerate(scores):
                out.append(dict(lineup=0, position=pos, score=sc, hand=int(hand == pos), match=m, round=r,
                                tiebreaks=0, hand_decided=255, opening_threshold=51))
    df = pd.DataFrame(out)
    return df


def test_hand_rounds_ordinary_rounds_and_the_hand_bonus_worked_out_by_hand():
    # match 0: totals -80 / 15, seat 0 wins; without round 0 (seat 0's Hand, seat 1's 20 doubled to 40)
    #   -20 / -25: seat 1 would win, so the Hand decided; scored plainly (-30, 20): -50 / -5, seat 0 still wins
    # match 1: totals -30 / 0, seat 0 wins; without its Hand round 1: 30 / -20 (decisive); without
    #   ordinary round 0: 0 / -10 (decisive too); Hand scored plainly (-30, 10): 0 / -10, seat 1 wins
    matches = [[((-60, 40), 0), ((10, -30), None), ((-30, 5), None)],
               [((-30, 10), None), ((-60, 20), 0), ((60, -30), None)]]
    df = rows(matches)
    df.loc[df["round"] == 2, "hand_decided"] = 1  # the study's own measure: a Hand decided both
    row = H.measure(df, rounds=3)
    assert (row["matches"], row["hand_rounds"], row["ordinary_rounds"]) == (2, 2, 4)
    assert row["hand_decided"] == 1.0                 # 2 of 2 matches
    assert row["hand_round_decisive"] == 1.0          # 2 of 2 Hand rounds
    assert row["ordinary_round_decisive"] == 0.25     # 1 of 4 ordinary rounds (match 1, round 0)
    assert row["hand_bonus_decided"] == 0.5           # match 1 only
    assert row["ordinary_round_decisive_ci95_low"] < 0.25 < row["ordinary_round_decisive_ci95_high"]
    # without the doubling rule the Hand's others are not halved: match 1 plain is (-30, 20) -> 0 / 0, a tie
    assert H.measure(df, rounds=3, doubles=False)["hand_bonus_decided"] == 0.5
    # the study's measure disagreeing with the rows stops the script
    df.loc[(df["round"] == 2) & (df["match"] == 0), "hand_decided"] = 0
    with pytest.raises(SystemExit, match="differs from the study's in 1 matches"):
        H.measure(df, rounds=3)


def test_matches_with_tie_breaks_are_left_out_and_counted():
    matches = [[((-30, 10), None), ((10, -30), None)], [((-60, 40), 0), ((10, -30), None)]]
    df = rows(matches)
    df.loc[df["match"] == 0, "tiebreaks"] = 1  # 10 / 10 after the regular rounds
    df.loc[df["round"] == 1, "hand_decided"] = [0, 0, 1, 1]
    row = H.measure(df, rounds=2)
    assert (row["matches"], row["tiebreak_matches_left_out"]) == (1, 1)
    # match 1: totals -50 / 10; without round 1 (ordinary) -60 / 40: the same winner
    assert row["hand_decided"] == 1.0 and row["hand_round_decisive"] == 1.0 and row["ordinary_round_decisive"] == 0.0


def test_winner_is_minus_one_on_a_tie_for_the_lowest_total():
    import numpy as np

    assert H.winner(np.array([[3, 1, 2], [1, 1, 5], [2, 2, 1]])).tolist() == [1, -1, 2]
