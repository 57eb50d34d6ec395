"""Every count of a checkpoint that another array or count determines is checked against it
(issue 23, cause 1): one more deal in ``pool`` was reported as a study of 43 deals.

The studies are built from random blocks in the process (no play).  Every cell of every saved
counter array of the first configuration is changed, one at a time, by one, by two and by 10**9,
and the state checked as a checkpoint is (each array's values, then the relations between them);
the change must be refused, except in the cells listed below, which no other count determines (a
sum of squares of per-deal sums over several seats, a count bounded only by the deals it is
counted in, ...).  The list is the check's specification: a relation that is not checked, or
a check of something that is not determined, fails the test.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from handsim.games.hand import layout as H
from handsim.games.hand.stats import MATCH_NONE, DealBlock, StudyAccumulator
from handsim.games.russian import stats as R
from handsim.games.russian.stats import GameBlock, RussianAccumulator
from handsim.stats.counters import check_counters

sys.path.insert(0, str(Path(__file__).resolve().parent))

from play_flags import hand_flags, russian_flags  # noqa: E402

HAND_CONFIGS = [{"opening_threshold": 51}, {"opening_threshold": 71}]
# a sits at two positions of the first two line-ups (its per-deal sums run over two seats); line-ups
# 1 and 2 differ at position 4 (c, d: one position each), 2 and 3 at position 3 (a, e)
HAND_LINEUPS = [("a", "b", "a", "c"), ("a", "b", "a", "d"), ("a", "b", "e", "d")]
RUSSIAN_CONFIGS = [{"stock_out_end": "lowest_cards"}, {"stock_out_end": "draw"}]
RUSSIAN_LINEUPS = [("a", "b", "a"), ("a", "b", "c"), ("a", "d", "c")]


def hand_study() -> StudyAccumulator:
    """A 2 v 2 match study: 2 configurations x 3 line-ups, three chunks of 30 rows."""
    acc = StudyAccumulator(HAND_CONFIGS, HAND_LINEUPS, 4, ["opening_threshold"], teams=True)
    for i in range(3):
        rng = np.random.default_rng(i)
        n, start = 30, 30 * i
        perm = np.array([np.roll(np.arange(4), -(d % 4)) for d in range(start, start + n)], dtype=np.int8)
        none = rng.random(n) < 0.5  # rows without a match result, the same in every block
        blocks = {}
        for c in range(2):
            for l in range(3):
                mw = np.tile(rng.random((n, 2)) < 0.25, 2)
                ml = (np.tile(rng.random((n, 2)) < 0.3, 2) & ~mw).astype(np.uint8)
                mw = mw.astype(np.uint8)
                tb = rng.integers(0, 3, size=n).astype(np.int16)
                hd = (rng.random(n) < 0.2).astype(np.uint8)
                total = rng.integers(-200, 400, size=(n, 4)).astype(np.int32)
                mw[none], ml[none], tb[none], hd[none], total[none] = MATCH_NONE, MATCH_NONE, -1, MATCH_NONE, 0
                void = (rng.random(n) < 0.1).astype(np.uint8)
                flags = hand_flags(rng, void, hand=0.8)
                if c == 1:  # the first half of the deals end as in the first configuration: deals where a policy
                    # goes out (with a Hand) in both, else the squares of the differences sit at their
                    # bound and a change by two is refused
                    half = n // 2
                    void[:half] = blocks[(0, l)].void[:half]
                    flags[:half] = blocks[(0, l)].flags[:half]
                blocks[(c, l)] = DealBlock(np.arange(start, start + n), perm,
                                           rng.integers(-60, 150, size=(n, 4)).astype(np.int32),
                                           flags, rng.integers(4, 40, size=n).astype(np.int16), void,
                                           match_win=mw, tiebreaks=tb, match_lose=ml, total=total, hand_decided=hd)
        acc.add_chunk(blocks)
    return acc


def russian_study() -> RussianAccumulator:
    acc = RussianAccumulator(RUSSIAN_CONFIGS, RUSSIAN_LINEUPS, 3, ["stock_out_end"])
    for i in range(3):
        rng = np.random.default_rng(i)
        n, start = 30, 30 * i
        perm = np.array([np.roll(np.arange(3), -(d % 3)) for d in range(start, start + n)], dtype=np.int8)
        blocks = {}
        for c in range(2):
            for l in range(3):
                end = rng.integers(0, 3, size=n).astype(np.uint8)
                blocks[(c, l)] = GameBlock(np.arange(start, start + n), perm, russian_flags(rng, end),
                                           rng.integers(0, 10, size=(n, 3)).astype(np.int8),
                                           rng.integers(0, 80, size=(n, 3)).astype(np.int16),
                                           rng.integers(3, 50, size=n).astype(np.int16), end)
        acc.add_chunk(blocks)
    return acc


# Cells that no other count determines, per array: last-axis columns free in every counted cell
# ("all"), or only where the policy (of the cell, or at the compared line-up position) holds
# several positions of its line-up ("shared").
#
# Changed by one: every sum of squares has the parity of its sum (v * v - v is even), and every
# match carries a tie-break count and a Hand-decided flag (their counts are the matches), so only
# the tie-break rounds, the matches with one and those decided by a Hand, bounded and counted
# nowhere else, are free.
HAND_FREE_BY_ONE = {"cl": {"all": {H.C_TB_SUM, H.C_TB_POS, H.C_HD_SUM}}}
# Changed by two (the parity kept): what only bounds hold.
HAND_FREE_BY_TWO = {
    # sums of squares of per-deal sums over a policy's seats (equal to the seats' sums for one seat;
    # rounds gone out and Hands: one player at most in a round, so always equal)
    "pool": {"shared": {H.P_TSUM2, H.P_UNOP2, H.P_TOT2}},
    **HAND_FREE_BY_ONE,
    # partners' squares (a team's rounds gone out and Hands: the two teams' add up to the line-up's)
    "team": {"all": {H.T_SUM2, H.T_UNOP2}},
    "pair": {"all": set(range(2, H.NQ, 2))},  # squares of per-deal differences
    "versus": {"all": {2}},
    "lpair": {"all": {H.LP_S2, H.LP_TS2, H.LP_TOT2, H.LP_TTOT2, H.LP_W2, H.LP_L2},
              "shared": {H.LP_S, H.LP_TOT, H.LP_W, H.LP_L}},  # one position of several: not kept
    "joker_pool": {"shared": {0}}, "joker_team": {"all": {1}}, "joker_pair": {"all": {1}},
}
# Changed by 10**9 (beyond every bound): none (the tie-break rounds: at most MAX_TIEBREAKS a match).
HAND_FREE_BY_BILLION: dict = {}
RUSSIAN_FREE_BY_ONE: dict = {}
# Wins and outs: one player at most in a game, so a policy's per-game count is 0 or 1 (its square
# the count; a contrast's square determined).
RUSSIAN_FREE_BY_TWO = {
    "seat": {"shared": {R._S_VALUE2}},
    "pool": {"shared": {R._P_DREW2, R._P_CARDS2, R._P_VALUE2}},
    "pair": {"all": set(range(2, R._NQ, 2))},
    "versus": {"all": set(range(4, R._NQ, 2))},
    "lpair": {"all": set(range(2, R._NQ, 2)), "shared": set(range(1, R._NQ, 2))},
}
RUSSIAN_FREE_BY_BILLION: dict = {}


def _cells(acc, name):
    """(index, counted, shared) of every cell of the first configuration (pair: first pair)."""
    x = getattr(acc, "_" + name)
    used, k = acc._present()
    vused = acc._versus_used()
    for idx in np.ndindex(x.shape):
        if idx[0] != 0:
            continue
        if name in ("lpair",):
            l1, l2, j = acc.lineup_diffs[idx[1]]
            g1, g2 = (acc.policies.index(acc.lineups[l][j]) for l in (l1, l2))
            yield idx, True, bool(k[l1, g1] > 1 or k[l2, g2] > 1)
        elif name == "versus":
            yield idx, bool(vused[idx[1:4]]), False
        elif name in ("seat", "pool", "pair", "joker_seat", "joker_pool", "joker_pair"):
            yield idx, bool(used[idx[1], idx[2]]), bool(k[idx[1], idx[2]] > 1)
        else:
            yield idx, True, False


def _check(acc):
    """What reading the state back checks: each array's values, then the relations between them."""
    check_counters({name: getattr(acc, "_" + name) for name in acc.LAYOUT if hasattr(acc, "_" + name)}, acc.LAYOUT)
    acc._check_totals()


def _undetected(acc, names, amount):
    _check(acc)  # as built: consistent
    found = set()
    for name in names:
        x = getattr(acc, "_" + name)
        for idx, _, _ in _cells(acc, name):
            x[idx] += amount
            try:
                _check(acc)
                found.add((name, idx))
            except ValueError:
                pass
            finally:
                x[idx] -= amount
    return found


def _expected(acc, names, free):
    want = set()
    for name in names:
        rule = free.get(name, {})
        for idx, counted, shared in _cells(acc, name):
            col = idx[-1]
            if counted and (col in rule.get("all", ()) or (shared and col in rule.get("shared", ()))):
                want.add((name, idx))
    return want


HAND_ARRAYS = StudyAccumulator.ARRAYS + H.JOKER_ARRAYS
RUSSIAN_ARRAYS = RussianAccumulator.ARRAYS


@pytest.mark.parametrize("build, names, free, amount", [
    (hand_study, HAND_ARRAYS, HAND_FREE_BY_ONE, 1),
    (hand_study, HAND_ARRAYS, HAND_FREE_BY_TWO, 2),
    (hand_study, HAND_ARRAYS, HAND_FREE_BY_BILLION, 10**9),
    (russian_study, RUSSIAN_ARRAYS, RUSSIAN_FREE_BY_ONE, 1),
    (russian_study, RUSSIAN_ARRAYS, RUSSIAN_FREE_BY_TWO, 2),
    (russian_study, RUSSIAN_ARRAYS, RUSSIAN_FREE_BY_BILLION, 10**9),
], ids=["hand-1", "hand-2", "hand-1e9", "russian-1", "russian-2", "russian-1e9"])
def test_every_determined_cell_is_checked(build, names, free, amount):
    acc = build()
    got = _undetected(acc, names, amount)
    want = _expected(acc, names, free)
    assert not got - want, f"changes not refused: {sorted(got - want)[:8]}"
    assert not want - got, f"listed as free but refused: {sorted(want - got)[:8]}"


@pytest.mark.parametrize("build, hists", [
    (hand_study, ("turns_hist", "void_hist", "score_hist", "total_hist", "team_total_hist", "team_margin_hist")),
    (russian_study, ("turns_hist", "stock_hist")),
], ids=["hand", "russian"])
def test_histograms_agree_with_the_counts_and_span_what_they_hold(build, hists):
    acc = build()
    for name in hists:
        h = getattr(acc, "_" + name)
        for idx in (tuple(np.argwhere(h)[0]), tuple(np.argwhere(h)[-1])):
            for amount in (1, -1):
                h[idx] += amount
                with pytest.raises(ValueError, match=name):
                    acc._check_totals()
                h[idx] -= amount
        # one empty column more, at either end: not the canonical state a study saves (the length
        # histograms start at 0 turns and share their width: one more column of both)
        for pad in ((0, 1), (1, 0)):
            if name in acc.TURN_HISTS:
                if name == acc.TURN_HISTS[0] and pad == (0, 1):
                    acc._grow_turns(h.shape[2] + 1)
                    with pytest.raises(ValueError, match=f"'{name}' has an empty last column"):
                        acc._check_totals()
                    for t in acc.TURN_HISTS:
                        setattr(acc, "_" + t, getattr(acc, "_" + t)[..., :-1])
                continue
            setattr(acc, "_" + name, np.pad(h, [(0, 0)] * (h.ndim - 1) + [pad]))
            if pad == (1, 0):
                lo = {"score_hist": "_score_lo", "total_hist": "_total_lo", "team_total_hist": "_team_total_lo",
                      "team_margin_hist": "_team_margin_lo"}[name]
                setattr(acc, lo, getattr(acc, lo) - 1)
            with pytest.raises(ValueError, match=f"'{name}' has an empty (first|last) column"):
                acc._check_totals()
            setattr(acc, "_" + name, h)
            if pad == (1, 0):
                setattr(acc, lo, getattr(acc, lo) + 1)
        acc._check_totals()


def test_a_cell_of_a_policy_outside_its_line_up_is_refused():
    acc = hand_study()
    g = acc.policies.index("e")  # only in line-up 3
    acc._pool[0, 0, g, H.P_TSUM] = 5
    acc._pool[0, 0, g, H.P_TSUM2] = 25
    with pytest.raises(ValueError, match=r"'pool' holds counts at \[0, 0, 4\], for a policy that is not in its line-up"):
        acc._check_totals()


def _two_out(flags, void, rows):
    """The flags with a second seat gone out in ``rows`` (a round no play makes)."""
    flags = flags.copy()
    for i in rows:
        if void[i] == 0:
            s = int(np.flatnonzero(flags[i] & H.FLAG_OUT)[0])
            flags[i, (s + 1) % flags.shape[1]] |= H.FLAG_OUT | H.FLAG_OPENED
    return flags


def test_a_state_of_rounds_with_two_players_gone_out_is_refused():
    """One player goes out in a round that is not void (RULES.md section 3): a state counting two is
    one no study made (each check names the arrays and the counts that disagree)."""
    def study(two: bool) -> StudyAccumulator:
        acc = StudyAccumulator([{"opening_threshold": 51}], [("a", "b", "a", "c")], 4, [], teams=False)
        rng = np.random.default_rng(5)
        n = 40
        void = np.zeros(n, np.uint8)
        void[:4] = 1
        flags = hand_flags(rng, void)
        if two:
            flags = _two_out(flags, void, [10])
        perm = np.array([np.roll(np.arange(4), -(d % 4)) for d in range(n)], dtype=np.int8)
        acc.add_chunk({(0, 0): DealBlock(np.arange(n), perm, rng.integers(-60, 150, size=(n, 4)).astype(np.int32),
                                         flags, np.full(n, 20, np.int16), void)})
        return acc

    study(False)._check_totals()
    acc = study(True)
    with pytest.raises(ValueError, match=r"^'seat' counts 37 rounds gone out \(one in each round not void\), other "
                                         r"than the 36 of 'cl'$"):
        acc._check_totals()
    # a policy's squared count of rounds gone out is its count (0 or 1 in a round), for two seats too
    acc = study(False)
    g = acc.policies.index("a")
    x = int(acc._pool[0, 0, g, H.P_OUT2])
    acc._pool[0, 0, g, H.P_OUT2] += 1
    with pytest.raises(ValueError, match=rf"^'pool' counts {x + 1} squared rounds gone out \(each 0 or 1\), other "
                                         rf"than the {x} of 'seat'$"):
        acc._check_totals()


def test_a_paired_difference_of_rounds_gone_out_has_the_parity_of_their_sum():
    """d = y - x of two 0/1 counts: sum d^2 = X + Y - 2 (deals where both went out), at most X + Y and
    of its parity."""
    acc = hand_study()
    c1, c2, _ = acc.pairs[0]
    outs = acc._seat[..., H.S_OUT].sum(axis=3)
    bound = int(outs[c1, 0, 0] + outs[c2, 0, 0])
    sq = int(acc._pair[0, 0, 0, 4])
    assert sq <= bound and (bound - sq) % 2 == 0
    acc._pair[0, 0, 0, 4] = bound + 2
    with pytest.raises(ValueError, match=rf"^'pair' counts {bound + 2} squared rounds gone out of the difference, "
                                         rf"more than the {bound} of 'seat'$"):
        acc._check_totals()
    acc._pair[0, 0, 0, 4] = sq + 1
    odd = ("even", "odd")
    with pytest.raises(ValueError, match=rf"^'pair' counts {sq + 1} squared rounds gone out of the difference, "
                                         rf"{odd[(sq + 1) % 2]} where the {bound} of 'seat' is {odd[bound % 2]}$"):
        acc._check_totals()


def test_a_sum_of_squares_of_another_parity_than_its_sum_is_refused():
    """v * v - v is even for every integer v: sum(v) and sum(v * v) are both even or both odd."""
    layout = {"x": ((0,), ((0, 1),))}
    v = np.array([-3, 2, 5, 0, 7])
    check_counters({"x": np.array([[v.sum(), (v * v).sum()]])}, layout)  # 11 and 87
    for bad in ((11, 86), (12, 87), (11, 89 - 1)):
        with pytest.raises(ValueError, match=rf"^'x' holds a sum \({bad[0]}\) and a sum of squares \({bad[1]}\) of "
                                             r"different parity \(a square has the parity of its number\)$"):
            check_counters({"x": np.array([list(bad)])}, layout)


def test_match_counters_are_the_matches_and_zero_without_matches():
    """Every match result carries a tie-break count and a Hand-decided flag: C_TB_N and C_HD_N are
    the matches (pool P_M); the tie-break rounds are 0 when no match had one and at most
    MAX_TIEBREAKS a match that had; in a study that plays no matches every one of them is 0
    (breaker K5-K8)."""
    from handsim.games.hand.kernels.driverlib import MAX_TIEBREAKS

    assert H.MAX_TIEBREAKS == MAX_TIEBREAKS == 50
    acc = hand_study()
    cl = acc._cl[0, 0]
    matches = int(acc._pool[0, 0, acc.policies.index("a"), H.P_M])
    assert cl[H.C_TB_N] == cl[H.C_HD_N] == matches > 0
    for col, amount, message in (
            (H.C_TB_N, 1, rf"^'cl' counts {matches + 1} matches with a tie-break count, other than the {matches} of "
                          r"'pool'$"),
            (H.C_HD_N, -1, rf"^'cl' counts {matches - 1} matches with a Hand-decided flag, other than the {matches} "
                           r"of 'pool'$")):
        cl[col] += amount
        with pytest.raises(ValueError, match=message):
            acc._check_totals()
        cl[col] -= amount
    pos, tbs = int(cl[H.C_TB_POS]), int(cl[H.C_TB_SUM])
    cl[H.C_TB_SUM] = 50 * pos + 1
    with pytest.raises(ValueError, match=rf"^'cl' counts {50 * pos + 1} tie-break rounds \(at most 50 in each match "
                                         rf"with a tie-break\), more than the {50 * pos} of 'cl'$"):
        acc._check_totals()
    cl[H.C_TB_SUM] = tbs
    acc._check_totals()

    # no match had a tie-break round: their sum is 0 (K7)
    def no_tiebreak(matches: bool) -> StudyAccumulator:
        acc = StudyAccumulator([{"opening_threshold": 51}], [("a", "b", "a", "c")], 4, [], teams=True)
        rng = np.random.default_rng(3)
        n = 20
        void = np.zeros(n, np.uint8)
        perm = np.array([np.roll(np.arange(4), -(d % 4)) for d in range(n)], dtype=np.int8)
        kw = {}
        if matches:
            mw = np.tile(np.array([[1, 0]] * n, np.uint8), 2)
            kw = dict(match_win=mw, tiebreaks=np.zeros(n, np.int16), match_lose=1 - mw,
                      total=np.zeros((n, 4), np.int32), hand_decided=np.zeros(n, np.uint8))
        acc.add_chunk({(0, 0): DealBlock(np.arange(n), perm, rng.integers(-60, 150, size=(n, 4)).astype(np.int32),
                                         hand_flags(rng, void), np.full(n, 20, np.int16), void, **kw)})
        return acc

    acc = no_tiebreak(True)
    acc._check_totals()
    assert list(acc._cl[0, 0, [H.C_TB_N, H.C_TB_SUM, H.C_TB_POS, H.C_HD_N]]) == [20, 0, 0, 20]
    acc._cl[0, 0, H.C_TB_SUM] += 1
    with pytest.raises(ValueError, match=r"^'cl' counts 1 tie-break rounds \(at most 50 in each match with a "
                                         r"tie-break\), more than the 0 of 'cl'$"):
        acc._check_totals()
    # a match decided by a Hand had a Hand (breaker K16): without tie-break rounds, at most as many
    # such matches as regular rounds ended by a Hand
    hands = int(acc._seat[0, 0, ..., H.S_HAND].sum())
    assert 0 < hands < 20
    acc._cl[0, 0, H.C_TB_SUM] -= 1
    acc._cl[0, 0, H.C_HD_SUM] = hands
    acc._check_totals()
    acc._cl[0, 0, H.C_HD_SUM] = hands + 1
    with pytest.raises(ValueError, match=rf"^'cl' counts {hands + 1} matches decided by a Hand \(each had a Hand, in "
                                         rf"a regular or a tie-break round\), more than the {hands} of 'seat'$"):
        acc._check_totals()
    # a study that plays no matches (K8): every match counter 0
    for col in (H.C_TB_N, H.C_TB_SUM, H.C_TB_POS, H.C_HD_N, H.C_HD_SUM):
        acc = no_tiebreak(False)
        acc._check_totals()
        acc._cl[0, 0, col] += 1
        with pytest.raises(ValueError, match=r"^'cl' counts 1 "):
            acc._check_totals()


@pytest.mark.parametrize("change, message", [
    ({"tiebreaks": None}, "field tiebreaks is missing"),
    ({"hand_decided": None}, "field hand_decided is missing"),
    ({"tiebreaks": np.array([0, 1, 2], np.int16)}, "tiebreaks must be -1 exactly where match_win is 255"),
    ({"hand_decided": np.array([255, 0, 0], np.uint8)}, "hand_decided must be 255 exactly where match_win is 255"),
    ({"tiebreaks": np.array([51, -1, -1], np.int16)}, r"tiebreaks must be 0\.\.50, or -1"),
])
def test_a_match_block_carries_a_tie_break_count_and_a_hand_flag_in_each_match_row(change, message):
    acc = StudyAccumulator([{}], [("a", "b", "c")], 3, [])
    mw = np.array([[1, 0, 0], [255] * 3, [255] * 3], np.uint8)
    kw = dict(match_win=mw, tiebreaks=np.array([0, -1, -1], np.int16), hand_decided=np.array([1, 255, 255], np.uint8))
    good = DealBlock(np.arange(3), np.array([[0, 1, 2]] * 3, np.int8), np.zeros((3, 3), np.int32),
                     np.array([[3, 1, 1]] * 3, np.uint8), np.full(3, 9, np.int16), np.zeros(3, np.uint8), **kw)
    acc.add_block(0, 0, good)
    with pytest.raises(ValueError, match=message):
        acc.add_block(0, 0, good._replace(**change))


@pytest.mark.parametrize("col, unit, p_col", [
    (H.LP_M, "matches with totals compared", H.P_TM), (H.LP_WM, "matches compared", H.P_M),
    (H.LP_LM, "matches with a loss result compared", H.P_LM)])
@pytest.mark.parametrize("amount", [-1, -2])
def test_line_ups_compared_compare_every_match_of_both(col, unit, p_col, amount):
    """Line-ups compared play the same matches (a chunk whose results sit on other rows is refused),
    so the matches a line-up pair compares are each line-up's matches: fewer was accepted (only more
    than the smaller of the two was refused)."""
    acc = hand_study()
    _check(acc)
    l1, l2, j = acc.lineup_diffs[0]
    g1 = acc.policies.index(acc.lineups[l1][j])
    n = int(acc._pool[0, l1, g1, p_col])
    assert int(acc._lpair[0, 0, col]) == n > 2
    acc._lpair[0, 0, col] += amount
    with pytest.raises(ValueError) as e:
        _check(acc)
    assert str(e.value) == f"'lpair' counts {n + amount} {unit}, other than the {n} of 'pool'"
