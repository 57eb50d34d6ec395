"""Classic Hand's study record values and counter layout (the last axis of each counter array).

The values of :class:`~handsim.games.hand.stats.DealBlock` fields (``flags`` bits, "no match
result" markers), the teams of a partnership study, and, for every counter array the
accumulator keeps, what each index of its last axis counts.  The accumulator
(:mod:`handsim.games.hand.stats`) adds to these counters; its tables
(:mod:`handsim.games.hand.tables`) read them.
"""

from __future__ import annotations

__all__ = ["FLAG_OPENED", "FLAG_OUT", "FLAG_HAND", "FLAG_JOKER_LEFT", "MATCH_NONE", "TIEBREAK_NONE", "QUANTILES",
           "SCORE_QUANTILES", "HIGH_SCORE", "TEAMS", "S_ROUNDS", "S_SCORE", "S_SCORE2", "S_OUT", "S_HAND",
           "S_UNOPENED", "S_TURNS", "S_VOID", "S_MATCHES", "S_WINS", "S_LMATCHES", "S_LOSSES", "S_TMATCHES",
           "S_TOTAL", "S_TOTAL2", "S_NEUTRAL", "NS", "P_DEALS", "P_TSUM", "P_TSUM2", "P_OUT2", "P_HAND2", "P_UNOP2",
           "P_M", "P_W", "P_W2", "P_LM", "P_L", "P_L2", "P_N", "P_N2", "P_TM", "P_TOT", "P_TOT2", "NP", "C_DEALS",
           "C_TURNS", "C_VOID", "C_TB_N", "C_TB_SUM", "C_TB_POS", "C_HD_N", "C_HD_SUM", "NC", "T_DEALS", "T_SUM",
           "T_SUM2", "T_OUT", "T_HAND", "T_UNOP", "T_UNOP2", "T_M", "T_W", "T_LM", "T_L", "T_TM", "T_TOT", "T_TOT2",
           "T_N", "NT", "LP_N", "LP_S", "LP_S2", "LP_TS", "LP_TS2", "LP_M", "LP_TOT", "LP_TOT2", "LP_TTOT",
           "LP_TTOT2", "LP_WM", "LP_W", "LP_W2", "LP_LM", "LP_L", "LP_L2", "NLP", "METRICS", "NM", "NQ", "NV",
           "JOKER_ARRAYS", "MARGIN_HIST", "MAX_TIEBREAKS"]

#: ``flags`` bit: the player opened (laid down a first meld) in the round (RULES.md section 4).
FLAG_OPENED = 1
#: ``flags`` bit: the player went out (RULES.md section 6).
FLAG_OUT = 2
#: ``flags`` bit: the player went out with a Hand (RULES.md section 6).
FLAG_HAND = 4
#: ``flags`` bit: the round ended with at least one joker in the player's hand (it pays
#: ``joker_penalty`` for each, RULES.md sections 1 and 6; void rounds included).
FLAG_JOKER_LEFT = 8
#: ``match_win`` / ``match_lose`` / ``hand_decided`` value meaning "this row carries no match
#: result" (e.g. not the last round of a match).
MATCH_NONE = 255
#: ``tiebreaks`` value meaning "this row carries no match result".
TIEBREAK_NONE = -1
#: Most tie-break rounds a match plays (RULES.md section 7; the kernel's
#: ``handsim.games.hand.kernels.driverlib.MAX_TIEBREAKS``, which a test keeps equal): bounds
#: a checkpoint's count of tie-break rounds.
MAX_TIEBREAKS = 50
#: Quantiles of the final match totals (:meth:`StudyAccumulator.total_quantiles`).
QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90)
#: Quantiles of one player's score in a round (``score_p10`` ... of the summary).
SCORE_QUANTILES = (0.10, 0.50, 0.90)
#: A player-round scored above this many points counts in ``share_over_100`` of the summary
#: (RULES.md section 6: an unopened player pays 100 on top of the cards left, under the default
#: ``unopened_penalty = add``).
HIGH_SCORE = 100
#: Team labels (``seat`` column of team rows) and their line-up positions (0-based).
TEAMS = (("team A", (0, 2)), ("team B", (1, 3)))

# per (config, line-up, policy, seat) counters, last axis of ``_seat``
(S_ROUNDS, S_SCORE, S_SCORE2, S_OUT, S_HAND, S_UNOPENED, S_TURNS, S_VOID, S_MATCHES, S_WINS,
 S_LMATCHES, S_LOSSES, S_TMATCHES, S_TOTAL, S_TOTAL2, S_NEUTRAL) = range(16)
NS = 16
# per (config, line-up, policy) unit-level sums (sum over the policy's k seats per deal / match),
# last axis of ``_pool``: deals, score sum and sum of squares, squares of the went-out / Hand /
# unopened counts; matches with a win result, wins and squares; with a lose result, losses,
# squares, neutral count and squares; matches with totals, totals and squares
(P_DEALS, P_TSUM, P_TSUM2, P_OUT2, P_HAND2, P_UNOP2, P_M, P_W, P_W2, P_LM, P_L, P_L2, P_N, P_N2,
 P_TM, P_TOT, P_TOT2) = range(17)
NP = 17
# per (config, line-up), last axis of ``_cl``: deals, turns, void rounds, matches with a tie-break
# count, tie-break rounds, matches with >= 1 tie-break round, matches with a hand_decided flag, of
# which decided by a Hand
C_DEALS, C_TURNS, C_VOID, C_TB_N, C_TB_SUM, C_TB_POS, C_HD_N, C_HD_SUM = range(8)
NC = 8
# per (config, line-up, team), last axis of ``_team``
(T_DEALS, T_SUM, T_SUM2, T_OUT, T_HAND, T_UNOP, T_UNOP2, T_M, T_W, T_LM, T_L, T_TM, T_TOT,
 T_TOT2, T_N) = range(15)
NT = 15
# per (config, line-up pair): deals, position score diff (sum, squares), team score diff (sum,
# squares); matches with totals, total diff, squares, team total diff, squares; matches with a
# win result, win diff, squares; with a lose result, lose diff, squares
(LP_N, LP_S, LP_S2, LP_TS, LP_TS2, LP_M, LP_TOT, LP_TOT2, LP_TTOT, LP_TTOT2, LP_WM, LP_W, LP_W2,
 LP_LM, LP_L, LP_L2) = range(16)
NLP = 16
# paired metrics: per-deal sums over the policy's seats of score / went out / Hand / unopened
METRICS = ("score", "p_out", "p_hand", "p_unopened")
NM = len(METRICS)
NQ = 1 + 2 * NM  # deals, then (sum, sum of squares) per metric
# versus: deals, sum, sum of squares
NV = 3
# rounds that end with a joker in hand (FLAG_JOKER_LEFT), kept in arrays of their own so that the
# checkpoints of studies run before the flag existed stay readable (the column is then NaN):
# per seat the count, per policy the sum of squares of the per-deal count over its seats, per
# team the per-deal count over both partners (sum, squares), per pair of configurations the
# per-deal difference (sum, squares)
JOKER_ARRAYS = ("joker_seat", "joker_pool", "joker_team", "joker_pair")
# the team margin of a partnership match (team A's final match total minus team B's), kept as a
# histogram of its own for the same reason: checkpoints saved before it existed stay readable
# (the margin is then not reported)
MARGIN_HIST = ("team_margin_hist", "team_margin_lo", 2)
